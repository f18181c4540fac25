"""The SDK's write stream on stdio and ``/mcp-stream`` as a direct write: the task that sends a
message encodes and writes it (:func:`.mcp_streams.encode`), with no writer task between.

A writer task behind a channel costs an answer a trip round the event loop, and the answer waits
there for whatever the SDK's request task does after its send (closing its cancel scope and task).
Written in the sending task, the answer is on the socket before that. Semantics stay the
channel's: messages leave in the order they are sent (a lock keeps a write that waits for the
socket from being overtaken), a send after :meth:`DirectWrites.aclose` raises
``ClosedResourceError``, and once a write fails (the client went away) every later send raises
``BrokenResourceError``, as a channel whose writer stopped does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import TracebackType

import anyio
from mcp.shared.message import SessionMessage

from .mcp_streams import encode

__all__ = ["DirectWrites"]


class DirectWrites:
    """A ``WriteStream[SessionMessage]`` (the SDK's protocol) that writes each message's bytes
    with ``write`` in the sender's task; ``write`` raising one of ``gone`` means the peer left."""

    __slots__ = ("_broken", "_closed", "_gone", "_lock", "_write")

    def __init__(self, write: Callable[[bytes], Awaitable[None]], *, gone: tuple[type[BaseException], ...]) -> None:
        self._write = write
        self._gone = gone
        self._lock = asyncio.Lock()
        self._closed = False
        self._broken = False

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        if self._broken:
            raise anyio.BrokenResourceError
        data = encode(item.message)
        async with self._lock:  # uncontended: taken without a trip round the loop
            try:
                await self._write(data)
            except self._gone:  # the peer went away: this message is lost with it, later ones refused
                self._broken = True

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> DirectWrites:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
