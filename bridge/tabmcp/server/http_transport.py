"""The MCP SDK's Streamable HTTP transport, with two changes: a request the client cancelled ends
its stream without a response, and each session's streams can be resumed from a bounded memory.

Cancelled requests: on the 2025-era wire the SDK answers a cancelled request with ``-32800
Request cancelled`` (``StreamableHTTPServerTransport._terminate_unanswered_request``: it ends each
request's SSE stream only with a response for its id). The spec says the receiver of a
cancellation should not answer it, the SDK's own stdio path stays silent, and the TypeScript SDK
client reports the answer as "a response for an unknown message ID". Here the request's stream
is closed instead: the client's POST ends with no event for the cancelled id.

Resumable streams: every SSE event carries an ``id`` (and the first of each stream a ``retry``),
kept in the SDK's :class:`EventStore` interface, so a client whose stream dropped mid-call
reconnects with ``Last-Event-ID`` and gets what it missed, then the rest. The SDK ships no store;
:class:`SessionEvents` is a small one: one per session (stream ids are request ids, which only a
session makes unique), bounded in events and bytes (the oldest go first; a resume from an event
no longer kept gets nothing back, as if the id were unknown), gone with its session. Event ids are
random, so a client cannot ask for another session's events by guessing.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict

from mcp.server import streamable_http_manager
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamableHTTPServerTransport, StreamId
from mcp_types import JSONRPCMessage, RequestId, jsonrpc_message_adapter

__all__ = ["RETRY_MS", "BridgeHTTPTransport", "SessionEvents", "install"]

RETRY_MS = 1000
"""The SSE ``retry`` the bridge suggests: how long a client waits before it reconnects a stream."""


class SessionEvents(EventStore):
    """One session's SSE events, for resuming (see the module's doc)."""

    def __init__(self, *, max_events: int = 1024, max_bytes: int = 4 << 20) -> None:
        self.max_events = max_events
        self.max_bytes = max_bytes
        self._events: OrderedDict[EventId, tuple[StreamId, bytes | None]] = OrderedDict()
        self._bytes = 0

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = secrets.token_urlsafe(12)
        data = None if message is None else message.model_dump_json(by_alias=True, exclude_unset=True).encode()
        self._events[event_id] = (stream_id, data)
        self._bytes += len(data or b"")
        while self._events and (len(self._events) > self.max_events or self._bytes > self.max_bytes):
            _, (_, dropped) = self._events.popitem(last=False)
            self._bytes -= len(dropped or b"")
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        if last_event_id not in self._events:
            return None
        stream_id = self._events[last_event_id][0]
        after = False
        for event_id, (stream, data) in list(self._events.items()):
            if after and stream == stream_id and data is not None:
                await send_callback(EventMessage(jsonrpc_message_adapter.validate_json(data), event_id))
            after = after or event_id == last_event_id
        return stream_id


class _PerSession(EventStore):
    """Stands for "give each session its own :class:`SessionEvents`" where the SDK's session
    manager takes one store for all (:class:`BridgeHTTPTransport` makes the session's own)."""

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        raise NotImplementedError  # never called: each transport has its own store

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        raise NotImplementedError


PER_SESSION: EventStore = _PerSession()
"""Give this as ``event_store`` to the SDK's ``streamable_http_app``."""


class BridgeHTTPTransport(StreamableHTTPServerTransport):
    """:class:`StreamableHTTPServerTransport` whose cancelled requests get no response and whose
    session keeps its own events (see the module's doc)."""

    def __init__(self, mcp_session_id: str | None, *args: object, **kwargs: object) -> None:
        if kwargs.get("event_store") is PER_SESSION:
            kwargs["event_store"] = SessionEvents() if mcp_session_id is not None else None
        super().__init__(mcp_session_id, *args, **kwargs)  # type: ignore[arg-type]

    async def _terminate_unanswered_request(self, request_id: RequestId) -> None:
        streams = self._request_streams.get(str(request_id))
        if streams is not None:  # the SSE writer drains what is queued, then ends the POST's stream
            await streams[0].aclose()


def install() -> None:
    """Make the SDK's session manager build :class:`BridgeHTTPTransport` (idempotent)."""
    streamable_http_manager.StreamableHTTPServerTransport = BridgeHTTPTransport  # type: ignore[attr-defined]
