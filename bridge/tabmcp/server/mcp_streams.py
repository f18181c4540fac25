"""What the bridge's own MCP byte transports (stdio, ``/mcp-stream``) share: the pair of message
streams between a connection and the SDK's ``Server.run``, a message read, and a message's bytes.

Every request goes through the SDK's server (its parsing, dispatch, validation and result shaping),
as over HTTP. Two things here keep that cheap:

* a tools/list result whose ``tools`` is an :class:`EncodedTools` (what :class:`.mcp.ListingCache`
  keeps: the tools array the core holds as bytes, :meth:`BridgeCore.listing_json`) is written with
  those bytes spliced in (:func:`encode`, with :mod:`..core.listing_splice`, the splice a
  2026-07-28 HTTP answer gets too through :mod:`.http_transport`), not re-encoded tool by tool;
  the SDK's handshake-era HTTP transport sees a plain list and encodes it as usual;
* the streams carry each message's sender context (:class:`ContextReceiveStream`): the SDK runs a
  request's handler in the context of the task that read it when its read stream has a
  ``last_context`` (as its own transports' streams do), which is how the debug trace's
  ``transport.in`` stamp (:data:`.trace.ARRIVED`) reaches the handler. An unbuffered channel on
  the loop's futures with anyio's semantics (:class:`_Channel`): a message handed to a task
  already waiting for it skips the trip round the event loop that anyio's ``send`` and
  ``receive`` make first, and a wait is one future, not anyio's event and receiver objects.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from types import TracebackType
from typing import Any, Generic, TypeVar

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from ..core.listing_splice import PLACEHOLDER, refusal, splice
from ..errors import SpliceError

__all__ = ["SPLICES", "ContextReceiveStream", "ContextSendStream", "EncodedTools", "encode", "message_streams", "parse"]

T = TypeVar("T")

log = logging.getLogger("tabmcp.mcp")


SPLICES: contextvars.ContextVar[bool] = contextvars.ContextVar("tabmcp.splices", default=False)
"""True in the readers of stdio and ``/mcp-stream`` (and so, through the streams, in the handlers
of their requests): their writer splices an :class:`EncodedTools`' bytes, so its list may stay
empty (parsing a 5 MB listing back into dicts costs more than everything else a tools/list does)."""


class EncodedTools(list[Any]):
    """A tools/list result's tools (a plain list to everyone) that also carry their wire bytes:
    exactly the JSON array of the tools, at the result's protocol version. Where :data:`SPLICES`
    is true, the list itself is empty: only :func:`encode` writes it."""

    __slots__ = ("wire",)

    def __init__(self, tools: list[Any], wire: bytes) -> None:
        super().__init__(tools)
        self.wire = wire


def parse(data: str | bytes) -> SessionMessage | Exception:
    """One line or frame as the SDK's own transports read it: a message, or the exception that
    says why it is not one (handed to the server, which answers or logs it)."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(data, by_name=False))
    except Exception as exc:
        return exc


def encode(message: types.JSONRPCMessage) -> bytes:
    """A message's bytes, as the SDK's transports write it (``model_dump_json``), except that a
    tools/list result's :class:`EncodedTools` goes in as the bytes it already is: the SDK encodes
    the result around the placeholder and :func:`.listing_splice.splice` puts the bytes there (a
    refused splice answers the request with an error naming why)."""
    if isinstance(message, types.JSONRPCResponse) and type(message.result.get("tools")) is EncodedTools:
        wire = message.result["tools"].wire
        body = message.model_copy(update={"result": {**message.result, "tools": PLACEHOLDER}}).model_dump_json(
            by_alias=True, exclude_unset=True).encode()
        try:
            return splice(body, wire)
        except SpliceError as exc:
            log.error("tools/list answer %r refused: %s", message.id, exc, exc_info=True)
            return refusal(body, exc)
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode()


class _Channel(Generic[T]):
    """An unbuffered channel of ``(sender context, item)`` envelopes on the running loop's futures.

    As anyio's memory object stream of size 0 (how the SDK's transports pair a connection with
    ``Server.run``): a send waits until a receiver takes its item; anyio's exceptions on closing
    (``EndOfStream``, ``ClosedResourceError``, ``BrokenResourceError``). Lighter on the hot path:
    a receive that must wait is one future, where anyio's is a trip round the loop first
    (``checkpoint``), an ``Event`` and a receiver object built through a generic alias per message.
    """

    __slots__ = ("_receivers", "_senders", "_taken_back", "receive_closed", "send_closed")

    def __init__(self) -> None:
        self._senders: deque[tuple[tuple[contextvars.Context, T], asyncio.Future[None]]] = deque()
        self._receivers: deque[asyncio.Future[tuple[contextvars.Context, T]]] = deque()
        self._taken_back: deque[tuple[contextvars.Context, T]] = deque()
        """Envelopes handed to a receiver that was cancelled before it resumed: the next receive's."""
        self.send_closed = False
        self.receive_closed = False

    async def send(self, envelope: tuple[contextvars.Context, T]) -> None:
        if self.send_closed:
            raise anyio.ClosedResourceError
        if self.receive_closed:
            raise anyio.BrokenResourceError
        while self._receivers:  # to a receiver already waiting: no trip round the event loop
            waiting = self._receivers.popleft()
            if not waiting.done():
                waiting.set_result(envelope)
                return
        taken = asyncio.get_running_loop().create_future()
        pending = (envelope, taken)
        self._senders.append(pending)
        try:
            await taken
        except asyncio.CancelledError:
            if not taken.done() or taken.cancelled():  # not taken yet: never delivered
                with contextlib.suppress(ValueError):
                    self._senders.remove(pending)
            raise

    async def receive(self) -> tuple[contextvars.Context, T]:
        if self.receive_closed:
            raise anyio.ClosedResourceError
        if self._taken_back:
            return self._taken_back.popleft()
        while self._senders:  # from a sender already waiting
            envelope, taken = self._senders.popleft()
            if not taken.done():
                taken.set_result(None)
                return envelope
        if self.send_closed:
            raise anyio.EndOfStream
        waiting: asyncio.Future[tuple[contextvars.Context, T]] = asyncio.get_running_loop().create_future()
        self._receivers.append(waiting)
        try:
            return await waiting
        except asyncio.CancelledError:
            if waiting.done() and not waiting.cancelled() and waiting.exception() is None:
                self._taken_back.appendleft(waiting.result())  # handed over, not yet seen: not lost
            else:
                with contextlib.suppress(ValueError):
                    self._receivers.remove(waiting)
            raise

    def close_send(self) -> None:
        self.send_closed = True
        while self._receivers:
            waiting = self._receivers.popleft()
            if not waiting.done():
                waiting.set_exception(anyio.EndOfStream())

    def close_receive(self) -> None:
        self.receive_closed = True
        self._taken_back.clear()
        while self._senders:
            _, taken = self._senders.popleft()
            if not taken.done():
                taken.set_exception(anyio.BrokenResourceError())


class ContextSendStream(Generic[T]):
    """The sending end: each item goes with a copy of the sender's context."""

    __slots__ = ("_channel",)

    def __init__(self, channel: _Channel[T]) -> None:
        self._channel = channel

    async def send(self, item: T) -> None:
        envelope = (contextvars.copy_context(), item)
        await self._channel.send(envelope)

    async def aclose(self) -> None:
        self._channel.close_send()

    async def __aenter__(self) -> ContextSendStream[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class ContextReceiveStream(Generic[T]):
    """The receiving end: yields the items; the last one's sender context is in ``last_context``."""

    __slots__ = ("_channel", "last_context")

    def __init__(self, channel: _Channel[T]) -> None:
        self._channel = channel
        self.last_context: contextvars.Context | None = None

    async def receive(self) -> T:
        context, item = await self._channel.receive()
        self.last_context = context
        return item

    async def aclose(self) -> None:
        self._channel.close_receive()

    def __aiter__(self) -> ContextReceiveStream[T]:
        return self

    async def __anext__(self) -> T:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> ContextReceiveStream[T]:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def message_streams() -> tuple[
    ContextSendStream[SessionMessage | Exception], ContextReceiveStream[SessionMessage | Exception],
    ContextSendStream[SessionMessage], ContextReceiveStream[SessionMessage],
]:
    """``(read_writer, read_stream, write_stream, write_reader)``: ``Server.run`` gets
    ``read_stream`` and ``write_stream``; the transport feeds ``read_writer`` and drains
    ``write_reader`` (unbuffered, as the SDK's transports)."""
    read: _Channel[SessionMessage | Exception] = _Channel()
    write: _Channel[SessionMessage] = _Channel()
    return ContextSendStream(read), ContextReceiveStream(read), ContextSendStream(write), ContextReceiveStream(write)
