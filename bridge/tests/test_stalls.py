"""The event loop says when it stalls, and whose work filled the stall: the meter's rules on a
clock made by hand, then a real bridge whose work for one origin blocks, read through ``/health``
(the counts only with the control key) and ``tabmcp doctor``."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from dataclasses import replace
from typing import Any

import httpx
import pytest
from mcp import Client
from tabmcp.cli.doctor import Status, diagnose
from tabmcp.core import registry as registry_module
from tabmcp.core.stalls import LINK_WORK, MAX_ORIGINS, UNATTRIBUTED, StallMeter
from tabmcp.core.tools import call as call_module
from tabmcp.server.app import BridgeApp
from tabmcp.server.loop_watch import run_queue_wait

from .conftest import eventually
from .helpers import ScriptedExtension, tab, tool
from .test_doctor import HEALTHY


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def meter() -> tuple[StallMeter, Clock]:
    clock = Clock()
    m = StallMeter(clock=clock, wall=lambda: 1_700_000_000.0, cpu=clock, tick_s=0.05, stall_s=0.1)  # working throughout
    m.start()
    return m, clock


def test_a_tick_on_time_or_a_little_late_is_no_stall() -> None:
    m, clock = meter()
    clock.now += 0.05
    assert m.tick() is None
    clock.now += 0.05 + 0.099  # late, but not by more than the bound
    assert m.tick() is None
    assert m.count == 0 and m.status()["worstMs"] == 0


def test_a_late_tick_is_a_stall_named_for_the_origin_whose_work_filled_it() -> None:
    m, clock = meter()
    with m.work("https://innocent.example"):
        clock.now += 0.01
    with m.work("https://bomb.example"):
        clock.now += 0.4
    clock.now += 0.05 - 0.01  # the tick was due 0.05 after start; it comes 0.4 late
    stall = m.tick()
    assert stall is not None
    assert stall.origin == "https://bomb.example"
    assert stall.lag_s == pytest.approx(0.4) and stall.work_s == pytest.approx(0.4)
    status = m.status()
    assert status["stalls"] == 1 and status["worstMs"] == 400
    assert status["byOrigin"] == {"https://bomb.example": 1}
    assert status["recent"] == [{"n": 1, "ms": 400, "origin": "https://bomb.example", "workMs": 400,
                                 "cpuMs": 450, "starved": False, "at": 1_700_000_000.0}]
    assert status["starved"] == 0 and status["worstWorkMs"] == 400


def test_a_stall_the_process_spent_waiting_for_a_cpu_is_the_machines_and_kept_apart() -> None:
    """Wall time ran on while the process had almost no CPU (a busy machine, a suspended process):
    counted and listed like any stall, marked starved, and not the worst the bridge worked through."""
    clock, cpu = Clock(), Clock()
    m = StallMeter(clock=clock, wall=lambda: 1_700_000_000.0, cpu=cpu, tick_s=0.05, stall_s=0.1)
    m.start()
    clock.now += 0.05 + 0.3  # 0.3 late, with 0.02 of CPU
    cpu.now += 0.02
    waited = m.tick()
    assert waited is not None and waited.starved and waited.cpu_s == pytest.approx(0.02)
    with m.work("https://bomb.example"):  # then 0.2 late, working throughout
        clock.now += 0.25
        cpu.now += 0.25
    worked = m.tick()
    assert worked is not None and not worked.starved and worked.origin == "https://bomb.example"
    status = m.status()
    assert status["stalls"] == 2 and status["starved"] == 1
    assert status["worstMs"] == 300 and status["worstWorkMs"] == 200
    assert [s["starved"] for s in status["recent"]] == [True, False]  # type: ignore[index, union-attr]
    clock.now += 0.05 + 0.15  # a late tick whose CPU went to another thread (a snapshot read off the loop)
    cpu.now += 0.1
    assert (off_loop := m.tick()) is not None and not off_loop.starved


def test_a_page_whose_section_the_machine_held_up_is_not_named_for_the_stall() -> None:
    """A section's time is wall time: a process that lost its CPU in the middle of a page's work
    (a busy machine) charged that page the whole wait, and doctor told the person to close its tabs
    for a stall the process had a CPU for a fraction of. What the page's work can account for is at
    most the CPU the process had."""
    clock, cpu, waited = Clock(), Clock(), Clock()
    m = StallMeter(clock=clock, wall=lambda: 1_700_000_000.0, cpu=cpu, waited=waited, tick_s=0.05, stall_s=0.1)
    m.start()
    with m.work("https://innocent.example"):
        clock.now += 0.4  # 0.4 of wall time: 0.03 of it with a CPU, 0.37 waiting for one
        cpu.now += 0.03
        waited.now += 0.37
    clock.now += 0.05
    stall = m.tick()
    assert stall is not None and stall.starved and stall.waited_s == pytest.approx(0.37)
    assert stall.origin == UNATTRIBUTED and stall.work_s == 0.0
    assert m.status()["byOrigin"] == {UNATTRIBUTED: 1}
    full = {**(HEALTHY.full_health or {}), "loop": m.status()}
    check = {c.name: c for c in diagnose(replace(HEALTHY, full_health=full))}["loop"]
    assert check.fix is not None and "innocent" not in check.fix and "no page" in check.fix


def test_a_loop_blocked_in_a_call_of_its_own_did_not_wait_for_a_cpu() -> None:
    """A section blocked in a call (a write the disk holds up, a lock): no CPU, and no wait for one
    either. Where the wait is known, that stall is the bridge's own (named for the page whose work
    blocked), not a busy machine's."""
    clock, cpu, waited = Clock(), Clock(), Clock()
    m = StallMeter(clock=clock, wall=lambda: 1_700_000_000.0, cpu=cpu, waited=waited, tick_s=0.05, stall_s=0.1)
    m.start()
    with m.work("https://bomb.example"):
        clock.now += 0.4  # blocked: neither CPU nor a wait for one
    clock.now += 0.05
    stall = m.tick()
    assert stall is not None and not stall.starved and stall.origin == "https://bomb.example"
    assert m.status()["starved"] == 0 and m.status()["worstWorkMs"] == 400


def test_a_nested_section_is_charged_to_its_own_origin_not_the_enclosing_one() -> None:
    m, clock = meter()
    with m.work(LINK_WORK):  # a sync of several tabs: the link's, until a tab is being read
        clock.now += 0.02
        with m.work("https://bomb.example"):
            clock.now += 0.3
        with m.work("https://innocent.example"):
            clock.now += 0.01
    clock.now += 0.05
    stall = m.tick()
    assert stall is not None and stall.origin == "https://bomb.example"
    assert stall.work_s == pytest.approx(0.3)


def test_work_spread_over_many_small_sections_adds_up() -> None:
    m, clock = meter()
    for _ in range(300):  # a flood: many small batches in one turn of the loop
        with m.work("https://flood.example"):
            clock.now += 0.001
    clock.now += 0.05
    stall = m.tick()
    assert stall is not None and stall.origin == "https://flood.example"


def test_a_stall_no_work_accounts_for_is_not_pinned_on_a_page() -> None:
    m, clock = meter()
    with m.work("https://small.example"):
        clock.now += 0.02  # a fifth of the stall: not its cause
    clock.now += 0.05 + 0.2
    stall = m.tick()
    assert stall is not None and stall.origin == UNATTRIBUTED and stall.work_s == 0


def test_each_tick_starts_a_new_account() -> None:
    m, clock = meter()
    with m.work("https://earlier.example"):
        clock.now += 0.04
    clock.now += 0.01
    assert m.tick() is None  # on time: the earlier work is forgotten
    clock.now += 0.3
    stall = m.tick()
    assert stall is not None and stall.origin == UNATTRIBUTED


def test_the_worst_and_the_counts_stay_bounded() -> None:
    m, clock = meter()
    for i in range(MAX_ORIGINS + 10):
        with m.work(f"https://o{i}.example"):
            clock.now += 0.2 + (0.1 if i == 3 else 0)
        clock.now += 0.05
        assert m.tick() is not None
    status = m.status()
    assert status["stalls"] == MAX_ORIGINS + 10
    assert len(m.by_origin) == MAX_ORIGINS and len(status["byOrigin"]) == 10  # type: ignore[arg-type]
    assert status["worst"]["origin"] == "https://o3.example"  # type: ignore[index]
    assert len(status["recent"]) == 32 and status["recent"][-1]["n"] == MAX_ORIGINS + 10  # type: ignore[index]


def test_doctor_names_the_origin_that_stalled_the_bridge() -> None:
    full = {**(HEALTHY.full_health or {}), "loop": {
        "stalls": 3, "worstMs": 900, "thresholdMs": 100, "worst": {"origin": "https://bomb.example", "ms": 900},
        "byOrigin": {"https://bomb.example": 3}}}
    check = {c.name: c for c in diagnose(replace(HEALTHY, full_health=full))}["loop"]
    assert check.status == Status.WARN and "https://bomb.example" in check.detail and "900 ms" in check.detail
    assert check.fix is not None and "https://bomb.example" in check.fix
    machine = {**full, "loop": {**full["loop"], "byOrigin": {UNATTRIBUTED: 3}}}  # type: ignore[dict-item]
    check = {c.name: c for c in diagnose(replace(HEALTHY, full_health=machine))}["loop"]
    assert check.status == Status.WARN and check.fix is not None and "no page" in check.fix
    busy = {**full, "loop": {**full["loop"], "starved": 2, "worstWorkMs": 140}}  # type: ignore[dict-item]
    check = {c.name: c for c in diagnose(replace(HEALTHY, full_health=busy))}["loop"]
    assert "2 of them while the bridge waited for a CPU" in check.detail and "140 ms" in check.detail
    quiet = {**full, "loop": {"stalls": 0, "worstMs": 0, "thresholdMs": 100}}
    assert {c.name: c for c in diagnose(replace(HEALTHY, full_health=quiet))}["loop"].status == Status.OK


BOMB = "https://bomb.example"


async def test_a_page_whose_work_blocks_the_loop_is_logged_and_counted_for_the_person_only(
        bridge: BridgeApp, extension: ScriptedExtension, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    commit = registry_module.Registry.commit

    def slow_for_the_bomb(self: Any, reading: Any) -> Any:
        if reading.origin.startswith(BOMB):
            time.sleep(0.4)  # stands in for a tab whose putting in costs the bridge's loop this much
        return commit(self, reading)

    monkeypatch.setattr(registry_module.Registry, "commit", slow_for_the_bomb)
    caplog.set_level(logging.WARNING, logger="tabmcp.loop")
    url = f"http://127.0.0.1:{bridge.port}/health"
    async with httpx.AsyncClient() as http:
        person = {"Authorization": f"Bearer {bridge.control_key}"}
        before = (await http.get(url, headers=person)).json()["loop"]
        # One sync, two tabs: the stall is the bomb's, not the innocent tab's nor the link's.
        await extension.sync(tab(1, url="https://innocent.example/", tools=[tool("fine")]),
                             tab(2, url=f"{BOMB}/", tools=[tool("bomb")]))
        await eventually(lambda: bridge.core.tool("bomb"))
        loop = await eventually(lambda: BOMB in bridge.core.stalls.by_origin and bridge.core.stalls.status())
        full = (await http.get(url, headers=person)).json()
        anonymous = (await http.get(url)).json()
        wrong = (await http.get(url, headers={"Authorization": "Bearer guess"})).json()
    # The machine may stall the loop too (a loaded CI box): only the bomb's stall is the page's.
    assert BOMB not in before["byOrigin"]
    assert loop["byOrigin"][BOMB] == 1
    assert [s["ms"] >= 300 and s["workMs"] >= 300 for s in loop["recent"] if s["origin"] == BOMB] == [True]
    if sys.platform == "linux":  # the loop's wait for a CPU is known: blocked in a call, the loop did not wait
        assert bridge.core.stalls.waited is not None
        assert [s["starved"] for s in loop["recent"] if s["origin"] == BOMB] == [False]
    assert not {"https://innocent.example", LINK_WORK} & set(loop["byOrigin"])
    assert full["loop"]["byOrigin"][BOMB] == 1 and full["loop"]["stalls"] >= 1
    for answer in (anonymous, wrong):
        assert set(answer) == {"ok", "bridge", "protocol"}, answer
    logged = [r.getMessage() for r in caplog.records if r.name == "tabmcp.loop" and BOMB in r.getMessage()]
    assert len(logged) == 1 and "stalled" in logged[0], logged


async def test_a_calls_argument_check_and_result_are_charged_to_the_tools_origin(
        bridge: BridgeApp, extension: ScriptedExtension, monkeypatch: pytest.MonkeyPatch) -> None:
    checks = call_module.validate_arguments
    gate = call_module._gated

    def slow_arguments(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "bomb_in":
            time.sleep(0.4)  # stands in for an inputSchema whose check costs this much
        return checks(name, *args, **kwargs)

    def slow_result(ctx: Any, entry: Any, result: Any) -> Any:
        if entry.public_name == "bomb_out":
            time.sleep(0.4)  # stands in for a result whose gate or outputSchema costs this much
        return gate(ctx, entry, result)

    monkeypatch.setattr(call_module, "validate_arguments", slow_arguments)
    monkeypatch.setattr(call_module, "_gated", slow_result)

    async def answer(msg: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "result": {"content": [{"type": "text", "text": "ok"}]}}

    extension.handler = answer
    await extension.sync(tab(1, url=f"{BOMB}/", tools=[tool("bomb_in"), tool("bomb_out")]))
    await eventually(lambda: bridge.core.tool("bomb_out"))
    async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
        for name in ("bomb_in", "bomb_out"):
            before = bridge.core.stalls.by_origin.get(BOMB, 0)
            assert not (await client.call_tool(name, {})).is_error
            await eventually(lambda before=before: bridge.core.stalls.by_origin.get(BOMB, 0) == before + 1)


@pytest.mark.skipif(sys.platform != "linux", reason="the run queue's delay is read from Linux's /proc")
def test_the_loops_wait_for_a_cpu_is_read_from_its_run_queue_delay() -> None:
    """This thread and two busy processes on one CPU: the thread has a third of it, so it waits for
    it about twice as long as it runs, and the reader says so (not its own CPU time, another field)."""
    waited = run_queue_wait()
    assert waited is not None
    cpus = os.sched_getaffinity(0)
    one = min(cpus)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        for process in busy:
            os.sched_setaffinity(process.pid, {one})
        os.sched_setaffinity(0, {one})
        before, cpu_before = waited(), time.thread_time()
        while time.thread_time() - cpu_before < 0.1:  # 0.1 s of CPU, shared with the busy processes
            pass
        assert waited() - before > 1.3 * (time.thread_time() - cpu_before)
    finally:
        os.sched_setaffinity(0, cpus)
        for process in busy:
            process.kill()
            process.wait()
        waited.close()
