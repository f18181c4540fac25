"""The MCP SDK's Streamable HTTP transport, with three changes: a request the client cancelled ends
its stream without a response, each session's streams can be resumed from a bounded memory, and a
kept 2026-07-28 tools/list is written with its bytes spliced in.

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

Spliced listings: the SDK writes a 2026-07-28 answer in the request's own ASGI call
(``model_dump`` then ``json.dumps`` of the whole result: at 5,000 page tools the ``categories``
listing, 91 KiB, costs about 0.7 ms of CPU per request, more than everything else a kept listing
costs). :class:`ListingSplice` wraps the SDK's app, as stdio's and ``/mcp-stream``'s writers do
their streams (:func:`.mcp_streams.encode`): :class:`.mcp.ListingCache` hands the request's
:class:`Splice` the tools array's bytes and gives the SDK a one-string placeholder for it, and the
wrapper puts the bytes where the SDK wrote the placeholder with the byte transports' splice
(:mod:`..core.listing_splice`: a placeholder not there exactly once is refused by name); the
``Content-Length`` follows. The SDK still parses, validates, dispatches and shapes the request.
Only 2026-07-28 requests are spliced: a handshake-era answer is also kept in the session's events
for a resumed stream, which must replay the listing itself.
"""

from __future__ import annotations

import contextvars
import logging
import secrets
from collections import OrderedDict

from mcp.server import streamable_http_manager
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamableHTTPServerTransport, StreamId
from mcp_types import JSONRPCMessage, RequestId, jsonrpc_message_adapter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..core.listing_splice import carries_placeholder, refusal, splice
from ..errors import SpliceError

__all__ = ["HTTP_SPLICE", "RETRY_MS", "BridgeHTTPTransport", "ListingSplice", "SessionEvents", "Splice",
           "install"]

log = logging.getLogger("tabmcp.mcp")

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


class Splice:
    """One HTTP request's kept listing: the tools array's bytes, once :class:`.mcp.ListingCache` put
    them here (and :data:`.listing_splice.PLACEHOLDER` in the result)."""

    __slots__ = ("wire",)

    def __init__(self) -> None:
        self.wire: bytes | None = None

    def sender(self, send: Send) -> Send:
        """``send`` with the bytes put in place of the placeholder in the response's body (the
        message, or SSE event, that carries it: :func:`.listing_splice.splice`, or its refusal)."""
        held: Message | None = None

        async def out(message: Message) -> None:
            nonlocal held
            if self.wire is None:  # nothing to splice (yet: an SSE answer starts before its result)
                await send(message)
                return
            if message["type"] == "http.response.start":
                if any(k == b"content-length" for k, _ in message.get("headers", ())):
                    held = message  # sent with the body, whose length changes
                    return
                await send(message)
                return
            body = message.get("body", b"")
            if message["type"] == "http.response.body" and carries_placeholder(body):
                try:
                    body = splice(body, self.wire)
                except SpliceError as exc:
                    log.error("tools/list answer over HTTP refused: %s", exc, exc_info=True)
                    body = refusal(body, exc)
                self.wire = None
                message = {**message, "body": body}
            if held is not None:
                if message.get("more_body", False):  # (the SDK's JSON answers are one body)
                    raise RuntimeError("a spliced answer with a Content-Length came in parts")
                headers = [(k, v) for k, v in held["headers"] if k != b"content-length"]
                headers.append((b"content-length", str(len(body)).encode()))
                await send({**held, "headers": headers})
                held = None
            await send(message)

        return out


HTTP_SPLICE: contextvars.ContextVar[Splice | None] = contextvars.ContextVar("tabmcp.http_splice", default=None)
"""The :class:`Splice` of the HTTP request being answered (set by :class:`ListingSplice`; the SDK's
2026-07-28 path runs the handler in a task of the request's own call, which sees it)."""


class ListingSplice:
    """ASGI middleware on the MCP endpoint: each POST gets a :class:`Splice` (see the module's doc)."""

    def __init__(self, app: ASGIApp, *, path: str) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        splice = Splice()
        token = HTTP_SPLICE.set(splice)
        try:
            await self.app(scope, receive, splice.sender(send))
        finally:
            HTTP_SPLICE.reset(token)
