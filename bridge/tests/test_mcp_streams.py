"""The byte transports' message streams (server/mcp_streams.py): anyio's unbuffered memory streams'
semantics on a lighter channel: nothing lost to a cancel, nothing buffered, closing as anyio says."""

from __future__ import annotations

import asyncio
import contextvars

import anyio
import pytest
from tabmcp.server.mcp_streams import message_streams

MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="")


async def test_a_send_waits_until_the_item_is_taken_and_carries_its_context():
    send, receive, _, _ = message_streams()

    async def sender() -> None:
        MARK.set("sender's")
        await send.send("one")

    task = asyncio.create_task(sender())
    await asyncio.sleep(0.01)
    assert not task.done()  # unbuffered: the sender waits for a receiver
    assert await receive.receive() == "one"
    await task
    assert receive.last_context is not None and receive.last_context[MARK] == "sender's"


async def test_an_item_handed_to_a_receiver_cancelled_before_it_ran_goes_to_the_next_receive():
    send, receive, _, _ = message_streams()
    first = asyncio.create_task(receive.receive())
    await asyncio.sleep(0)  # the receiver waits
    await send.send("kept")  # handed straight to the waiting receiver
    first.cancel()  # ... which is cancelled before it resumes
    with pytest.raises(asyncio.CancelledError):
        await first
    assert await asyncio.wait_for(receive.receive(), 5) == "kept"


async def test_a_cancelled_send_is_never_delivered():
    send, receive, _, _ = message_streams()
    task = asyncio.create_task(send.send("dropped"))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await send.aclose()
    with pytest.raises(anyio.EndOfStream):
        await receive.receive()


async def test_closing_either_end_says_so_as_anyio_does():
    send, receive, write, write_reader = message_streams()
    waiting = asyncio.create_task(receive.receive())
    await asyncio.sleep(0)
    await send.aclose()
    with pytest.raises(anyio.EndOfStream):
        await waiting
    assert [item async for item in receive] == []
    with pytest.raises(anyio.ClosedResourceError):
        await send.send("late")

    blocked = asyncio.create_task(write.send("unread"))
    await asyncio.sleep(0)
    await write_reader.aclose()
    with pytest.raises(anyio.BrokenResourceError):
        await blocked
    with pytest.raises(anyio.BrokenResourceError):
        await write.send("again")
    with pytest.raises(anyio.ClosedResourceError):
        await write_reader.receive()
