"""The wire protocol between the tabmcp extension and the bridge: one source of truth.

Every frame is one JSON object with a ``type``. Field names are camelCase on the wire
(they come from JavaScript) and snake_case in Python. ``docs/protocol.md`` describes the
same messages for humans, and ``extension/protocol.js`` mirrors the names; bump
:data:`PROTOCOL_VERSION` whenever a message or field changes meaning.

A connection starts with the extension's ``hello``; the bridge answers ``welcome`` (or an
``error`` with ``PROTOCOL_MISMATCH`` and closes). Either side may ``ping`` at any time.
Tool snapshots are lenient about individual tools (a bad tool is rejected alone by the
registry, with a named error), strict about the envelope.

The messages live in :mod:`tabmcp.wire`, one module per direction (``from_extension``,
``to_extension``, the tab ``snapshots`` they carry, the ``base`` they share); this module is their
index: import them from here.
"""

from __future__ import annotations

from .errors import ErrorCode
from .wire import base, from_extension, snapshots, to_extension
from .wire.base import *  # noqa: F403  (the index: each part's __all__ is this module's)
from .wire.from_extension import *  # noqa: F403
from .wire.snapshots import *  # noqa: F403
from .wire.to_extension import *  # noqa: F403

__all__ = ["ErrorCode"]
__all__ += base.__all__
__all__ += snapshots.__all__
__all__ += from_extension.__all__
__all__ += to_extension.__all__
