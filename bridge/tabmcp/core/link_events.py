"""What the extension links' protocol hands out: what to send or close, and the events it reports.

:meth:`tabmcp.core.extension_links.ExtensionLinks.data_to_send` returns :class:`Send` and :class:`Close`;
its other methods return :data:`Event` lists for the caller to act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ToolCallError
from ..protocol import WireModel
from .link_peer import Peer
from .pending_requests import PendingRequest

__all__ = ["Close", "Disconnected", "Event", "HandshakeDone", "MessageReceived", "ReadApart", "RequestEnded", "Send"]


@dataclass(frozen=True)
class Send:
    """Send ``message`` on ``peer``."""

    peer: Peer
    message: WireModel


@dataclass(frozen=True)
class Close:
    """Close ``peer``'s socket with this WebSocket close code (after what was queued before)."""

    peer: Peer
    code: int
    reason: str


@dataclass(frozen=True)
class HandshakeDone:
    """``peer`` completed the handshake and is now its browser's link (``replaced``: the browser's
    previous link, now closed)."""

    peer: Peer
    replaced: Peer | None = None


@dataclass(frozen=True)
class Disconnected:
    """A browser's link went away; the requests sent on it have already ended (events before this)."""

    peer: Peer


@dataclass(frozen=True)
class MessageReceived:
    """A message for the rest of the bridge: ``tabs.sync``, ``tab.update``, ``tab.closed``,
    ``telemetry`` (and the extension's own ``error`` reports, for the log)."""

    peer: Peer
    message: WireModel


@dataclass(frozen=True)
class RequestEnded:
    """A pending request ended: with ``result`` (its kind's answer) or with ``error``.

    Results: a call's CallToolResult dict; an approval's ``(approved, reason)``; a page
    query's answer (any JSON value).
    """

    request: PendingRequest
    result: Any = None
    error: ToolCallError | None = None
    trace: list[tuple[str, float]] | None = None
    """A traced call's stamps as the extension sent them back (debug mode only)."""


@dataclass(frozen=True)
class ReadApart:
    """A message of ``peer``'s tabs' lane for the caller to read off the loop, then give back to
    :meth:`~tabmcp.core.extension_links.ExtensionLinks.take_apart` in the order these came:
    ``text``, a message put together from chunks (megabytes of JSON: parse it with
    :func:`~tabmcp.core.extension_links.read_apart`), or ``message``, one of the lane's that came,
    already parsed, while such a text was being read (nothing to read: it waits its turn)."""

    peer: Peer
    text: str | None = None
    message: WireModel | None = None
    read: WireModel | None = None
    """The ``chunk.read`` of ``text``'s last chunk, sent once it is taken (not when it arrived)."""


Event = HandshakeDone | Disconnected | MessageReceived | ReadApart | RequestEnded
