"""What the bridge's own MCP byte transports (stdio, ``/mcp-stream``) share: the pair of message
streams between a connection and the SDK's ``Server.run``, a message read, and a message's bytes.

Every request goes through the SDK's server (its parsing, dispatch, validation and result shaping),
as over HTTP. Two things here keep that cheap:

* a tools/list result whose ``tools`` is an :class:`EncodedTools` (what :class:`.mcp.ListingCache`
  keeps: the tools array the core holds as bytes, :meth:`BridgeCore.listing_json`) is written with
  those bytes spliced in (:func:`encode`), not re-encoded tool by tool; any other writer (the SDK's
  HTTP transport) sees a plain list and encodes it as usual;
* the streams carry each message's sender context (:class:`ContextReceiveStream`): the SDK runs a
  request's handler in the context of the task that read it when its read stream has a
  ``last_context`` (as its own transports' streams do), which is how the debug trace's
  ``transport.in`` stamp (:data:`.trace.ARRIVED`) reaches the handler. Built on anyio's public
  memory object streams; a message handed to a task already waiting for it skips the trip round
  the event loop that anyio's ``send`` and ``receive`` make first.
"""

from __future__ import annotations

import contextvars
from types import TracebackType
from typing import Any, Generic, TypeVar

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

__all__ = ["SPLICES", "ContextReceiveStream", "ContextSendStream", "EncodedTools", "encode", "message_streams", "parse"]

T = TypeVar("T")


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
    tools/list result's :class:`EncodedTools` goes in as the bytes it already is."""
    if isinstance(message, types.JSONRPCResponse) and type(message.result.get("tools")) is EncodedTools:
        tools: EncodedTools = message.result["tools"]
        rest = {k: v for k, v in message.result.items() if k != "tools"}
        head = message.model_copy(update={"result": rest}).model_dump_json(by_alias=True, exclude_unset=True)
        if head.endswith("{}}"):  # (the result is the response's last field: ``...,"result":{...}}``)
            return b"".join((head[:-2].encode(), b'"tools":', tools.wire, b"}}"))
        return b"".join((head[:-2].encode(), b',"tools":', tools.wire, b"}}"))
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode()


class ContextSendStream(Generic[T]):
    """The sending end: each item goes with a copy of the sender's context."""

    __slots__ = ("_inner",)

    def __init__(self, inner: MemoryObjectSendStream[tuple[contextvars.Context, T]]) -> None:
        self._inner = inner

    async def send(self, item: T) -> None:
        envelope = (contextvars.copy_context(), item)
        try:  # to a receiver already waiting: no trip round the event loop first (anyio's send makes one)
            self._inner.send_nowait(envelope)
        except anyio.WouldBlock:
            await self._inner.send(envelope)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> ContextSendStream[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class ContextReceiveStream(Generic[T]):
    """The receiving end: yields the items; the last one's sender context is in ``last_context``."""

    __slots__ = ("_inner", "last_context")

    def __init__(self, inner: MemoryObjectReceiveStream[tuple[contextvars.Context, T]]) -> None:
        self._inner = inner
        self.last_context: contextvars.Context | None = None

    async def receive(self) -> T:
        try:  # from a sender already waiting: no trip round the event loop first (anyio's receive makes one)
            context, item = self._inner.receive_nowait()
        except anyio.WouldBlock:
            context, item = await self._inner.receive()
        self.last_context = context
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

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
    read_send, read_receive = anyio.create_memory_object_stream[tuple[contextvars.Context, SessionMessage | Exception]](0)
    write_send, write_receive = anyio.create_memory_object_stream[tuple[contextvars.Context, SessionMessage]](0)
    return (ContextSendStream(read_send), ContextReceiveStream(read_receive),
            ContextSendStream(write_send), ContextReceiveStream(write_receive))
