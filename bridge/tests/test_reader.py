"""Pages' snapshots are read off the event loop and put in in the order they came (issue 35).

The ordering rule alone (:class:`InOrder`, no thread), the registry's read/commit split (a tab
cut off between a snapshot's reading and its putting in keeps its tools as last read), then a
real bridge: a page whose reading never ends holds no other tab, no call and no ``/health``; a
tab closed, or sent again, while its snapshot is read ends as its last message says; and a
snapshot of real schema bombs beside an innocent tab is read on the reader's thread, outside
the loop's thread, and no stall is charged to it.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from tabmcp.core import registry as registry_module
from tabmcp.core.budget import CUT_AFTER, OVER_BUDGET_NOTE, TAB_OVER_BUDGET, BudgetScope, OverBudget
from tabmcp.core.in_order import InOrder
from tabmcp.core.registry import Registry
from tabmcp.core.tools import call as call_module
from tabmcp.core.validation import LOOP_STEPS
from tabmcp.errors import InvalidState
from tabmcp.protocol import TabSnapshot
from tabmcp.server.app import BridgeApp

from .conftest import eventually
from .helpers import ScriptedExtension, tab, tool
from .test_budget import ref_chain

pytestmark = pytest.mark.timeout(90)

BOMB = "https://bomb.example"
INNOCENT = "https://innocent.example"


# -- the rule ------------------------------------------------------------------------------------


@given(st.permutations(range(8)), st.lists(st.booleans(), min_size=8, max_size=8))
def test_outcomes_are_handed_on_in_the_order_the_work_came(finish_order: list[int], ok: list[bool]) -> None:
    order = InOrder()
    handed: list[int] = []
    tickets = [order.take(handed.append) for _ in range(8)]
    done: set[int] = set()
    for i in finish_order:
        for step in order.finish(tickets[i], i, ok=ok[i]):
            step()
        done.add(i)
        first_running = next((j for j in range(8) if j not in done), 8)
        # exactly the work before the first still running is handed on, in order; failed work is not
        assert handed == [j for j in range(first_running) if ok[j]]
    assert order.pending == 0


def test_a_ticket_finishes_once() -> None:
    order = InOrder()
    ticket = order.take(lambda _: None)
    order.take(lambda _: None)
    order.finish(ticket)
    with pytest.raises(InvalidState):
        order.finish(ticket)


def snap(tab_id: int, url: str, names: list[str], **fields: Any) -> TabSnapshot:
    return TabSnapshot.model_validate({"tabId": tab_id, "url": url, "title": "t", **fields,
                                       "tools": [tool(n) for n in names]})


def test_a_reading_committed_after_its_tab_was_cut_off_is_not_put_in() -> None:
    registry = Registry()
    first = Registry.read(snap(1, f"{BOMB}/", ["first"]))
    later = Registry.read(snap(1, f"{BOMB}/", ["later"]))  # read before the first was put in
    spent = BudgetScope(limit=2, steps=0)
    spent.overruns = CUT_AFTER  # the first snapshot's checks ran over budget enough to cut the tab off
    assert registry.commit(replace(first, scope=spent)).changed
    change = registry.commit(later)
    assert not change.changed and any(TAB_OVER_BUDGET in r.reason for r in change.rejected)
    assert {e.tool.name for e in registry.tool_entries()} == {"first"}  # its tools as last read
    assert registry.commit(Registry.read(snap(2, f"{INNOCENT}/", ["fine"]))).changed  # other tabs go on


def test_read_touches_no_state_of_the_registry() -> None:
    registry = Registry()
    version = registry.version
    reading = Registry.read(snap(1, f"{INNOCENT}/", ["fine"]))
    assert registry.version == version and registry.tab(1) is None
    assert reading.tab is not None and list(reading.tab.tools) == ["fine"]


# -- a real bridge -------------------------------------------------------------------------------


class HeldReading:
    """Holds the reading of ``origin``'s snapshots on the reader's thread until released, and
    records on which thread each reading ran."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, origin: str, *, hold: bool) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()
        self.threads: list[int] = []
        read = registry_module._tab_from_snapshot

        def held(snapshot: TabSnapshot, *args: Any) -> Any:
            if not snapshot.url.startswith(origin):
                return read(snapshot, *args)
            self.threads.append(threading.get_ident())
            self.started.set()
            if hold:
                self.release.wait(20)  # on the loop this would hold everything: a bounded wait, not a hang
            try:
                return read(snapshot, *args)
            finally:
                self.finished.set()

        monkeypatch.setattr(registry_module, "_tab_from_snapshot", held)

    async def wait_started(self) -> None:
        assert await asyncio.to_thread(self.started.wait, 20)


async def test_a_snapshot_whose_reading_never_ends_holds_no_other_tab(
        bridge: BridgeApp, extension: ScriptedExtension, monkeypatch: pytest.MonkeyPatch) -> None:
    async def answer(msg: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "result": {"content": [{"type": "text", "text": "ok"}]}}

    extension.handler = answer
    await extension.sync(tab(1, url=f"{INNOCENT}/", tools=[tool("fine")]))
    await eventually(lambda: bridge.core.tool("fine"))
    held = HeldReading(monkeypatch, BOMB, hold=True)
    bombs = [tool(f"bomb{i}", inputSchema=ref_chain(20 + i)) for i in range(3)]
    await extension.send({"type": "tab.update", "tab": tab(2, url=f"{BOMB}/", tools=bombs)})
    await held.wait_started()
    async with httpx.AsyncClient() as http, Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
        health = (await http.get(f"http://127.0.0.1:{bridge.port}/health")).json()
        called = await client.call_tool("fine", {})
        # Both answered while the bomb's reading is still held: the loop never waited for it.
        assert not held.finished.is_set()
        assert health["ok"] and not called.is_error
        held.release.set()
        await eventually(lambda: bridge.core.tool("bomb2"))
    assert held.threads and threading.get_ident() not in held.threads
    entry = bridge.core.tool("bomb0")
    assert entry is not None and f"the input schema: {OVER_BUDGET_NOTE}" in entry.tool.unchecked


async def test_a_tab_closed_or_sent_again_while_its_snapshot_is_read_ends_as_its_last_message_says(
        bridge: BridgeApp, extension: ScriptedExtension, monkeypatch: pytest.MonkeyPatch) -> None:
    held = HeldReading(monkeypatch, BOMB, hold=True)
    await extension.send({"type": "tab.update", "tab": tab(2, url=f"{BOMB}/", tools=[tool("old")])})
    await held.wait_started()
    await extension.send({"type": "tab.closed", "tabId": 2})
    await extension.send({"type": "tab.update", "tab": tab(3, url=f"{INNOCENT}/", tools=[tool("early")])})
    await extension.send({"type": "tab.update", "tab": tab(3, url=f"{INNOCENT}/", tools=[tool("late")])})
    await eventually(lambda: bridge.core.reader.pending == 4)  # all behind the held reading
    assert bridge.core.registry.tab(3) is None  # nothing overtakes it
    held.release.set()
    await bridge.core.reader.drain()
    assert bridge.core.registry.tab(2) is None  # closed after its snapshot: it stays closed
    third = bridge.core.registry.tab(3)
    assert third is not None and list(third.tools) == ["late"]  # the later snapshot is the one kept


async def test_schema_bombs_beside_an_innocent_tab_are_read_outside_the_loops_work(
        bridge: BridgeApp, extension: ScriptedExtension, monkeypatch: pytest.MonkeyPatch) -> None:
    held = HeldReading(monkeypatch, BOMB, hold=False)
    bombs = [tool(f"sync_bomb{i}", inputSchema=ref_chain(22 + i), outputSchema=ref_chain(22 + i))
             for i in range(4)]
    before = bridge.core.stalls.by_origin.get(BOMB, 0)
    await extension.sync(tab(1, url=f"{INNOCENT}/", tools=[tool("fine")]), tab(2, url=f"{BOMB}/", tools=bombs))
    await eventually(lambda: bridge.core.tool("sync_bomb3") and bridge.core.tool("fine"))
    await bridge.core.reader.drain()
    assert held.threads and threading.get_ident() not in held.threads  # on the reader's thread, not the loop's
    assert bridge.core.stalls.by_origin.get(BOMB, 0) == before  # so no stall is the bomb's
    entry = bridge.core.tool("sync_bomb0")
    assert entry is not None and f"the input schema: {OVER_BUDGET_NOTE}" in entry.tool.unchecked


async def test_an_argument_check_past_a_few_milliseconds_runs_off_the_loop(
        bridge: BridgeApp, extension: ScriptedExtension, monkeypatch: pytest.MonkeyPatch) -> None:
    checks = call_module.validate_arguments
    ran: list[tuple[int | None, bool, str]] = []

    def recorded(name: str, *args: Any, steps: int | None = None) -> Any:
        try:
            out = checks(name, *args, steps=steps)
        except OverBudget:
            ran.append((steps, threading.get_ident() == loop_thread, "over"))
            raise
        ran.append((steps, threading.get_ident() == loop_thread, "done"))
        return out

    async def answer(msg: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "result": {"content": [{"type": "text", "text": "ok"}]}}

    loop_thread = threading.get_ident()
    monkeypatch.setattr(call_module, "validate_arguments", recorded)
    extension.handler = answer
    await extension.sync(tab(1, url=f"{BOMB}/", tools=[tool("chain_in", inputSchema=ref_chain(12)), tool("plain")]))
    await eventually(lambda: bridge.core.tool("chain_in") and bridge.core.tool("plain"))
    async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
        assert not (await client.call_tool("plain", {})).is_error
        assert ran == [(LOOP_STEPS, True, "done")]  # an ordinary check: on the loop, no hop
        ran.clear()
        assert not (await client.call_tool("chain_in", {})).is_error
    # 2^12 steps: past the loop's share, so checked again, whole, on a worker thread
    assert ran == [(LOOP_STEPS, True, "over"), (None, False, "done")]
