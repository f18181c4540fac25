"""The SDK's write stream on stdio and /mcp-stream (server/direct_writes.py): written in the sending
task, in the order sent, refusing as a channel whose writer stopped does."""

from __future__ import annotations

import asyncio
import os

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage
from tabmcp.server.direct_writes import DirectWrites
from tabmcp.server.mcp_streams import encode
from tabmcp.server.stdio import stdio_transport


def _message(n: int) -> SessionMessage:
    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=n, result={"n": n}))


async def test_a_message_is_on_the_wire_when_its_send_returns_written_by_the_sending_task():
    written: list[tuple[bytes, asyncio.Task[object] | None]] = []

    async def write(data: bytes) -> None:
        written.append((data, asyncio.current_task()))

    stream = DirectWrites(write, gone=())
    await stream.send(_message(1))
    assert written == [(encode(_message(1).message), asyncio.current_task())]


async def test_a_write_that_waits_for_the_socket_is_not_overtaken():
    order: list[bytes] = []
    socket_free = asyncio.Event()
    writes = 0

    async def write(data: bytes) -> None:
        nonlocal writes
        writes += 1
        if writes == 1:
            await socket_free.wait()  # the first write waits (flow control) ...
        order.append(data)

    stream = DirectWrites(write, gone=())
    first = asyncio.create_task(stream.send(_message(1)))
    await asyncio.sleep(0)
    second = asyncio.create_task(stream.send(_message(2)))  # ... and a second send comes meanwhile
    await asyncio.sleep(0.01)
    assert order == []
    socket_free.set()
    await asyncio.wait_for(asyncio.gather(first, second), 5)
    assert order == [encode(_message(1).message), encode(_message(2).message)]


async def test_a_peer_gone_breaks_the_stream_and_closing_refuses_later_sends():
    calls = 0

    async def write(data: bytes) -> None:
        nonlocal calls
        calls += 1
        raise ConnectionResetError("the client went away")

    stream = DirectWrites(write, gone=(ConnectionResetError,))
    await stream.send(_message(1))  # lost with its peer, as a writer task's last message is
    with pytest.raises(anyio.BrokenResourceError):
        await stream.send(_message(2))
    assert calls == 1

    async def fine(data: bytes) -> None:
        return None

    async with DirectWrites(fine, gone=()) as closing:
        await closing.send(_message(3))
    with pytest.raises(anyio.ClosedResourceError):
        await closing.send(_message(4))


async def test_a_write_failing_otherwise_is_raised_to_the_sender():
    async def write(data: bytes) -> None:
        raise ValueError("a bug")

    with pytest.raises(ValueError, match="a bug"):
        await DirectWrites(write, gone=(OSError,)).send(_message(1))


async def test_on_stdio_a_client_that_stopped_reading_breaks_the_stream():
    to_server, from_client = os.pipe()
    to_client, from_server = os.pipe()
    os.close(to_client)  # the client went away: nobody reads the bridge's stdout any more
    try:
        async with stdio_transport((to_server, from_server)) as (_, write):
            with pytest.raises(anyio.BrokenResourceError):  # by name, as /mcp-stream's relay gone
                for n in range(3):  # the write that finds the pipe broken is lost with it
                    await write.send(_message(n))
    finally:
        for fd in (to_server, from_client, from_server):
            os.close(fd)
