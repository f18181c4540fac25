"""The extension's WebSocket (server/extension.py): batched frames over a real socket.

An extension that says ``batch`` in its ``hello`` gets what the bridge sends in one turn of its
event loop as one frame, one message a line, and may answer the same way; an extension that
does not gets one message a frame, as before. The flood gate counts messages, not frames.
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import pytest
import tabmcp.server.extension as extension_module
import websockets
from tabmcp.core.extension_links import ExtensionLinks
from tabmcp.core.registry import ToolEntry
from tabmcp.errors import ErrorCode
from tabmcp.protocol import PROTOCOL_VERSION, WireError
from tabmcp.server.app import BridgeApp
from tabmcp.server.hub import Hub

from .conftest import eventually
from .helpers import ScriptedExtension, tab, tool

CALLS = 5


async def connected(bridge: BridgeApp, *, batch: bool) -> ScriptedExtension:
    assert bridge.port is not None
    ext = ScriptedExtension(bridge.port)
    welcome = await ext.connect(batch=batch)
    assert welcome is not None and welcome["type"] == "welcome"
    assert welcome.get("batch", False) is batch
    await ext.sync(tab(1, tools=[tool("echo")]))
    await eventually(lambda: bridge.core.tool("echo"))
    return ext


def echo_entry(bridge: BridgeApp) -> ToolEntry:
    entry = bridge.core.tool("echo")
    assert isinstance(entry, ToolEntry)
    return entry


def result_of(start: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(start["arguments"])
    return {"type": "call.result", "callId": start["callId"], "ok": True,
            "result": {"content": [{"type": "text", "text": text}]}}


async def test_calls_started_together_leave_in_one_frame_and_batched_answers_end_them_all(bridge: BridgeApp):
    ext = await connected(bridge, batch=True)
    entry = echo_entry(bridge)
    held = asyncio.ensure_future(bridge.core.call_tool(entry, {"n": -1}))  # in flight: the link is not quiet
    first = await ext.wait_for(lambda m: m["type"] == "call.start")
    frames_before = len(ext.frames)
    received_before = bridge.core.session.frames_received, bridge.core.session.messages_received
    calls = asyncio.gather(*(bridge.core.call_tool(entry, {"n": n}) for n in range(CALLS)))
    starts = [await ext.wait_for(lambda m: m["type"] == "call.start") for _ in range(CALLS)]
    # Started in the same turn of the bridge's loop: one frame, one call.start a line.
    assert ext.frames[frames_before:] == [CALLS]
    # All the answers in one frame too; each ends its own call.
    await ext.send("\n".join(json.dumps(result_of(s)) for s in [*reversed(starts), first]))
    results = await asyncio.wait_for(calls, 10)
    assert [json.loads(r["content"][0]["text"]) for r in results] == [{"n": n} for n in range(CALLS)]
    assert json.loads((await asyncio.wait_for(held, 10))["content"][0]["text"]) == {"n": -1}
    frames, messages = bridge.core.session.frames_received, bridge.core.session.messages_received
    assert (frames - received_before[0], messages - received_before[1]) == (1, CALLS + 1)
    assert len(bridge.core.session.requests) == 0
    await ext.close()


async def test_on_a_quiet_link_a_call_start_leaves_at_once_and_the_rest_of_its_turn_after_it(bridge: BridgeApp):
    ext = await connected(bridge, batch=True)
    entry = echo_entry(bridge)
    frames_before = len(ext.frames)
    calls = asyncio.gather(*(bridge.core.call_tool(entry, {"n": n}) for n in range(CALLS)))
    starts = [await ext.wait_for(lambda m: m["type"] == "call.start") for _ in range(CALLS)]
    # Nothing else was in flight: the first call.start was written by its own task, without
    # waiting a turn; those started in that turn meanwhile follow in one frame.
    assert ext.frames[frames_before:] == [1, CALLS - 1]
    assert [s["arguments"] for s in starts] == [{"n": n} for n in range(CALLS)]
    await ext.send("\n".join(json.dumps(result_of(s)) for s in starts))
    assert len(await asyncio.wait_for(calls, 10)) == CALLS
    await ext.close()


class _Socket:
    """What the outbox writes to: texts in order; a write waits while ``blocked`` is clear (as
    uvicorn's does, before it writes); after ``close`` a write raises, as Starlette's does."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.blocked = asyncio.Event()
        self.blocked.set()
        self.closed = False

    async def send_text(self, data: str) -> None:
        await self.blocked.wait()
        if self.closed:
            raise RuntimeError('Cannot call "send" once a close message has been sent.')
        self.texts.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = True


class _BatchedLink(extension_module.Link):
    @property
    def batched(self) -> bool:  # as after a hello with batch: true
        return True


def _batched_outbox(socket: _Socket, quiet: bool) -> extension_module.Outbox:
    outbox = extension_module.Outbox(socket, quiet=lambda: quiet)
    outbox.peer = _BatchedLink(outbox)
    return outbox


async def test_a_quiet_outbox_writes_in_the_sending_task_and_a_busy_one_a_turn_later():
    quiet = _Socket()
    await _batched_outbox(quiet, quiet=True).send_text("a")
    assert quiet.texts == ["a"]  # on the socket when the send returns
    busy = _Socket()
    outbox = _batched_outbox(busy, quiet=False)
    await outbox.send_text("a")
    await outbox.send_text("b")
    assert busy.texts == []
    await asyncio.sleep(0)  # the loop's next turn: the turn's texts as one frame
    assert busy.texts == ["a\nb"]


async def test_a_quiet_write_that_waits_keeps_the_order_and_a_cancelled_one_loses_nothing():
    socket = _Socket()
    outbox = _batched_outbox(socket, quiet=True)
    socket.blocked.clear()  # the socket is not writable (flow control)
    first = asyncio.create_task(outbox.send_text("a"))
    await asyncio.sleep(0)
    await outbox.send_text("b")  # behind the write that waits, not a frame of its own before it
    first.cancel()  # the sending task goes (its client cancelled): its text is still written
    with pytest.raises(asyncio.CancelledError):
        await first
    socket.blocked.set()
    for _ in range(5):
        await asyncio.sleep(0)
    assert socket.texts == ["a\nb"]
    await outbox.close()


async def test_close_waits_for_the_texts_a_cancelled_quiet_write_left_to_a_writer():
    socket = _Socket()
    outbox = _batched_outbox(socket, quiet=True)
    socket.blocked.clear()  # the socket is not writable (flow control)
    first = asyncio.create_task(outbox.send_text("a"))
    await asyncio.sleep(0)
    closing = asyncio.create_task(outbox.close())  # the session closes the link (flood, replaced)
    await asyncio.sleep(0)
    first.cancel()  # the sending task goes: a writer task takes its text over
    with pytest.raises(asyncio.CancelledError):
        await first
    for _ in range(5):
        await asyncio.sleep(0)
    assert not closing.done() and not socket.closed  # "a" is not written yet: the close waits for it
    socket.blocked.set()
    await asyncio.wait_for(closing, 5)
    assert socket.texts == ["a"] and socket.closed


def _hub_on_a_quiet_link() -> tuple[ExtensionLinks, Hub, _Socket, extension_module.Outbox]:
    session = ExtensionLinks(session_id="s", bridge_version="t")
    socket = _Socket()
    return session, Hub(session), socket, _batched_outbox(socket, quiet=True)


def _queue(session: ExtensionLinks, outbox: extension_module.Outbox, n: int) -> None:
    assert isinstance(outbox.peer, extension_module.Link)
    session.send(outbox.peer, WireError(type="error", code="TEST", message=str(n)))


def _sent(socket: _Socket) -> list[str]:
    return [json.loads(line)["message"] for text in socket.texts for line in text.split("\n")]


async def test_a_flush_cancelled_while_its_quiet_write_waits_loses_none_of_its_messages():
    session, hub, socket, outbox = _hub_on_a_quiet_link()
    socket.blocked.clear()  # the socket is not writable (flow control)
    _queue(session, outbox, 1)
    _queue(session, outbox, 2)
    flushing = asyncio.create_task(hub.flush())  # a call's task, sending what the session queued
    await asyncio.sleep(0)  # its first message is written at once (quiet), and waits
    flushing.cancel()  # the call's client cancelled it
    with pytest.raises(asyncio.CancelledError):
        await flushing
    socket.blocked.set()
    await asyncio.wait_for(outbox.close(), 5)  # (waits for what is left to write)
    assert _sent(socket) == ["1", "2"]


async def test_a_flush_whose_quiet_write_waits_is_not_overtaken_by_a_later_flush():
    # What the session queued leaves in that order: a later flush (a call.cancel) never goes
    # between the messages of an earlier one (its call.start) whose first write waits.
    session, hub, socket, outbox = _hub_on_a_quiet_link()
    socket.blocked.clear()  # the socket is not writable (flow control)

    def queue(n: int) -> None:
        _queue(session, outbox, n)

    queue(1)
    queue(2)
    first = asyncio.create_task(hub.flush())
    await asyncio.sleep(0)  # its first message is written at once (quiet), and waits
    queue(3)
    second = asyncio.create_task(hub.flush())
    await asyncio.sleep(0)
    socket.blocked.set()
    await asyncio.wait_for(asyncio.gather(first, second), 5)
    assert _sent(socket) == ["1", "2", "3"]


async def test_an_extension_that_does_not_batch_gets_one_message_a_frame(bridge: BridgeApp):
    ext = await connected(bridge, batch=False)
    entry = echo_entry(bridge)
    frames_before = len(ext.frames)
    ext.handler = lambda msg: asyncio.sleep(0, result_of(msg))  # answered one frame each
    results = await asyncio.wait_for(
        asyncio.gather(*(bridge.core.call_tool(entry, {"n": n}) for n in range(CALLS))), 10
    )
    assert len(results) == CALLS
    assert ext.frames[frames_before:] == [1] * CALLS
    await ext.close()


def test_the_flood_gate_takes_a_frame_s_messages_at_once():
    now = [0.0]
    gate = extension_module.FloodGate(rate=10.0, burst=20.0, clock=lambda: now[0])
    assert gate.allow(15)
    assert not gate.allow(6)  # five left: a frame of six does not fit
    assert gate.allow(5)
    now[0] += 1.0  # ten more
    assert gate.allow(10) and not gate.allow()


async def test_a_batched_flood_is_flooded(bridge: BridgeApp, monkeypatch: pytest.MonkeyPatch):
    small = functools.partial(extension_module.FloodGate, 20.0, 40.0)
    monkeypatch.setattr(extension_module, "FloodGate", small)
    monkeypatch.setattr(extension_module, "FLOOD_RATE", 20.0)
    ext = await connected(bridge, batch=True)  # its hello and tabs.sync: two messages of the 40
    pongs = "\n".join(json.dumps({"type": "pong", "ts": i}) for i in range(60))
    try:
        await ext.send(pongs)  # one frame of 60 messages: more than the burst
    except websockets.ConnectionClosed:
        pass
    await asyncio.wait_for(ext.ws.wait_closed(), 10)
    assert ext.ws.close_code == 1008
    # The error was queued in the outbox; the close waited for it.
    errors = [m for m in ext.received if m["type"] == "error"]
    assert errors[-1]["code"] == "FLOODED" and "messages per second" in errors[-1]["message"]
    await ext.close()


async def test_a_later_hello_without_batch_takes_it_back(bridge: BridgeApp):
    ext = await connected(bridge, batch=True)
    await ext.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extensionVersion": "test",
                    "instanceId": "again", "pairing": ext.pairing})
    welcome = await ext.wait_for(lambda m: m["type"] == "welcome")
    assert welcome["batch"] is False
    entry = echo_entry(bridge)
    frames_before = len(ext.frames)
    ext.handler = lambda msg: asyncio.sleep(0, result_of(msg))
    results = await asyncio.wait_for(
        asyncio.gather(*(bridge.core.call_tool(entry, {"n": n}) for n in range(CALLS))), 10
    )
    assert len(results) == CALLS and ext.frames[frames_before:] == [1] * CALLS
    await ext.close()


async def test_a_handler_that_fails_does_not_strand_the_call_answered_after_it_in_the_frame(
    bridge: BridgeApp, monkeypatch: pytest.MonkeyPatch
):
    """A bridge bug handling one message (here: a tab update) is logged and answered as an internal
    error; the call.result on the next line of the same batched frame still ends its call."""
    ext = await connected(bridge, batch=True)
    call = asyncio.ensure_future(bridge.core.call_tool(echo_entry(bridge), {"n": 1}))
    start = await ext.wait_for(lambda m: m["type"] == "call.start")

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("a bug in the bridge")

    monkeypatch.setattr(bridge.core.mediation, "intake", broken)
    update = {"type": "tab.update", "tab": tab(1, tools=[tool("echo"), tool("more")])}
    await ext.send(json.dumps(update) + "\n" + json.dumps(result_of(start)))
    result = await asyncio.wait_for(call, 10)
    assert json.loads(result["content"][0]["text"]) == {"n": 1}
    report = await ext.wait_for(lambda m: m["type"] == "error" and m.get("code") == "INTERNAL_ERROR")
    assert "RuntimeError" in report["message"]
    await ext.close()


async def an_extension_that_stopped_reading(
        bridge: BridgeApp) -> tuple[ScriptedExtension, extension_module.Outbox, ToolEntry]:
    """A paired, batched extension with one tool, that then reads no more (its socket's window
    fills as the bridge writes): it, the bridge's outbox for it, and its tool."""
    assert bridge.port is not None
    ext = ScriptedExtension(bridge.port)
    ext.ws = await websockets.connect(ext.url, origin=ext.origin, max_size=None, max_queue=1)  # type: ignore[arg-type]
    reader = asyncio.create_task(ext._read())
    ext._reader = reader
    assert (await ext.hello(batch=True))["type"] == "welcome"
    await ext.sync(tab(1, tools=[tool("echo")]))
    await eventually(lambda: bridge.core.tool("echo"))
    reader.cancel()
    link = bridge.core.hub.link
    assert link is not None
    outbox = link._socket
    assert isinstance(outbox, extension_module.Outbox)
    return ext, outbox, echo_entry(bridge)


async def test_an_extension_that_stopped_reading_does_not_hold_up_forgetting_its_pairing(
        bridge: BridgeApp, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture):
    """A peer that stopped reading fills its TCP window: what is queued for it can never be
    written, so closing its link (the person forgot its pairing) gives the write
    ``CLOSE_TIMEOUT_S`` and then cuts the socket, instead of waiting for ever."""
    monkeypatch.setattr(extension_module, "CLOSE_TIMEOUT_S", 0.5)
    monkeypatch.setattr(extension_module, "WRITE_TIMEOUT_S", 3600.0)  # only closing's own bound may end it
    ext, outbox, entry = await an_extension_that_stopped_reading(bridge)
    blob = "x" * 100_000
    calls: list[asyncio.Future[Any]] = []
    while not (outbox._writer is not None and outbox._lines):  # until a write waits for the socket
        assert len(calls) < 2_000, "the socket never filled"
        calls.append(asyncio.ensure_future(bridge.core.call_tool(entry, {"blob": blob, "n": len(calls)})))
        await asyncio.sleep(0.01)  # a frame of its own: what the peer has not read piles up
    assert ext.pairing is not None
    with caplog.at_level("INFO", logger="tabmcp.extension"):
        assert await asyncio.wait_for(bridge.core.forget_pairing(ext.pairing["id"]), 30)
        assert "is not reading: cut" in caplog.text
        await eventually(lambda: "closed: in" in caplog.text)  # cut: its endpoint saw the connection lost
    for call in calls:
        call.cancel()
    await asyncio.gather(*calls, return_exceptions=True)


async def test_an_extension_that_stopped_reading_does_not_hold_up_the_calls_sent_to_it(
        bridge: BridgeApp, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture):
    """A peer that stopped reading and is never closed (it still sends: no idle close comes): the
    frame whose write waits for its full socket waits ``WRITE_TIMEOUT_S`` at most, then the link is
    cut and every call sent to it ends by name, instead of waiting as long as the peer does not read."""
    monkeypatch.setattr(extension_module, "WRITE_TIMEOUT_S", 0.5)
    _ext, _outbox, entry = await an_extension_that_stopped_reading(bridge)
    blob = "x" * 100_000
    calls: list[asyncio.Future[Any]] = []
    with caplog.at_level("INFO", logger="tabmcp.extension"):
        while "is not reading: cut" not in caplog.text:  # calls until a write has waited its limit
            assert len(calls) < 2_000, "the link was never cut"
            calls.append(asyncio.ensure_future(bridge.core.call_tool(entry, {"blob": blob, "n": len(calls)})))
            await asyncio.sleep(0.01)
        assert "to be written" in caplog.text
        results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 30)
    assert {getattr(r, "code", None) for r in results} == {ErrorCode.EXTENSION_DISCONNECTED}, results[:3]


async def test_writes_that_keep_starting_do_not_keep_a_stuck_write_from_its_bound(monkeypatch: pytest.MonkeyPatch):
    """An extension that does not batch gets each message written by its sender, side by side: a
    write stuck on a peer that stopped reading is bounded from its own start, not from the latest
    write's (a call every few seconds, each blocking too, kept the link from ever being cut)."""
    monkeypatch.setattr(extension_module, "WRITE_TIMEOUT_S", 0.3)
    socket = _Socket()
    socket.blocked.clear()  # the peer reads nothing
    cut: list[bool] = []
    outbox = extension_module.Outbox(socket, abort=lambda: cut.append(True))
    writes = [asyncio.ensure_future(outbox.send_text("first"))]
    while not cut:  # a write starts more often than the bound: the first's wait still ends it
        assert len(writes) < 40, "a write waited 4 bounds and the link was never cut"
        await asyncio.sleep(0.1)
        writes.append(asyncio.ensure_future(outbox.send_text(f"then {len(writes)}")))
    assert socket.texts == []
    for write in writes:
        write.cancel()
    await asyncio.gather(*writes, return_exceptions=True)
    await outbox.close()
