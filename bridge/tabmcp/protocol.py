"""The wire protocol between the tabmcp extension and the bridge: one source of truth (docs/protocol.md).

The messages live in :mod:`tabmcp.wire`; this module is their index: import them from here. Bump
:data:`PROTOCOL_VERSION` whenever a message or field changes meaning.
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
