"""One extension connection as the links' protocol sees it: its state and what it said in ``hello``.

:class:`tabmcp.core.extension_links.ExtensionLinks` moves a :class:`Peer` through :class:`LinkState`;
the server layer subclasses :class:`Peer` to add the socket.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Hashable

from ..protocol import Hello, TabsSync
from .chunks import Reassembly

__all__ = ["LinkState", "Peer"]


class LinkState(enum.Enum):
    """Where one extension connection is in its life."""

    CONNECTED = "connected"
    """Socket open, no ``hello`` yet: every other message is refused with ``NOT_READY``."""
    PAIRING = "pairing"
    """Said ``hello`` without a valid pairing: never the current link; it may only ask for a
    pairing code (``pair.request``), ping, or say ``hello`` again; anything else is ``NOT_PAIRED``."""
    READY = "ready"
    """Handshake done: this is (or was) the bridge's current link."""
    CLOSED = "closed"
    """Closed or being closed; receiving on it is a misuse (:class:`InvalidState`)."""


class Peer:
    """One connection from an extension, as the session sees it (no socket here).

    The server layer subclasses it to add the socket, so the session hands back the very
    object that can send.
    """

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.state = LinkState.CONNECTED
        self.hello: Hello | None = None
        self.pairing_id: str | None = None
        """The pairing that admitted this link (None: the pre-shared token, or not admitted)."""
        self.connected_at = time.time()
        self.last_seen = time.monotonic()
        self.sync_parts: list[TabsSync] = []
        """The parts of a sync received so far (each said ``more``), until its last part."""
        self.chunks = Reassembly()
        """A big message's chunks received so far (:mod:`tabmcp.core.chunks`), until its last."""
        self.apart = 0
        """This link's messages handed out to be read off the loop (``ReadApart``) and not yet taken back."""
        self.key: Hashable = None
        """Which browser this link is (:func:`tabmcp.core.browsers.browser_key`), once admitted."""
        self.slot = 0
        """The browser's slot: its tab ids are qualified with it (:mod:`tabmcp.core.browsers`)."""
        self.browser = ""
        """``chromium`` / ``firefox`` (``""``: the hello did not say)."""
        self.profile = ""
        """A short, stable name of the browser profile (the start of its ``profileId``)."""

    @property
    def batched(self) -> bool:
        """The peer said in ``hello`` that it reads and writes frames of several messages, one a line."""
        return self.hello is not None and self.hello.batch

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name or id(self)} {self.state.value}>"

