"""bench.hostile's instruments: its reading of the bridge's stall counts per phase, its verdicts,
and one small run of the whole corpus (every page opens, every hostile tool answers, the report
prints its aims). No timing is asserted: speed lives in the tables.

    .venv/bin/python -m pytest bench/tests/test_hostile.py
"""

from __future__ import annotations

import argparse
import os

import pytest

from bench import hostile
from bench.hostile import Phase, control_ratios, stalls_between, verdicts


def stall(n: int, ms: int, origin: str = "http://localhost:1") -> dict[str, object]:
    return {"n": n, "ms": ms, "origin": origin, "workMs": ms, "at": 0.0}


def test_a_phase_counts_only_the_stalls_after_its_start() -> None:
    before = {"stalls": 2, "worstMs": 900, "recent": [stall(1, 900), stall(2, 150)]}
    after = {"stalls": 4, "worstMs": 900, "recent": [stall(1, 900), stall(2, 150), stall(3, 300), stall(4, 120)]}
    count, worst, listed, partial = stalls_between(before, after)
    assert (count, worst, [s["n"] for s in listed], partial) == (2, 300, [3, 4], False)


def test_a_phase_with_more_stalls_than_listed_still_knows_its_worst() -> None:
    before = {"stalls": 0, "worstMs": 0, "recent": []}
    after = {"stalls": 40, "worstMs": 7000, "recent": [stall(n, 110) for n in range(9, 41)]}
    count, worst, listed, partial = stalls_between(before, after)
    assert (count, worst, len(listed), partial) == (40, 7000, 32, True)


def test_the_aims_are_the_issues() -> None:
    base = Phase("no hostile page", samples=[0.005] * 99 + [0.010])
    calm = Phase("hostile", samples=[0.006] * 100, worst_ms=80)
    stalled = Phase("hostile", samples=[0.006] * 98 + [3.0, 3.0], worst_ms=2900, stall_count=3,
                    errors={"EXTENSION_DISCONNECTED": 1, "TIMEOUT": 2})
    assert [ok for ok, _ in verdicts(base, calm)] == [True, True, True]
    assert [ok for ok, _ in verdicts(base, stalled)] == [False, False, False]
    assert "2 of 103" in verdicts(base, stalled)[2][1]  # the reconnect's failure is not the pages'
    starved = Phase("hostile", samples=[0.006] * 100, worst_ms=300, stall_count=2,
                    stalls=[{"n": 1, "ms": 300, "starved": True}, {"n": 2, "ms": 120, "starved": False}])
    ok, line = verdicts(base, starved)[1]
    assert not ok and "1 of those listed while the bridge waited for a CPU" in line and "worked through 120 ms" in line


def test_the_control_divides_out_the_machine_s_slowdown() -> None:
    base = Phase("no hostile page", samples=[0.010] * 100, control=[0.002] * 100)
    slow_machine = Phase("hostile", samples=[0.040] * 100, control=[0.008] * 100)  # both 4x: the machine's
    slow_bridge = Phase("hostile", samples=[0.040] * 100, control=[0.002] * 100)  # ours alone 4x
    assert [round(r, 2) for r in control_ratios(base, slow_machine)] == [4.0, 4.0, 1.0]
    assert [ok for ok, _ in verdicts(base, slow_machine)] == [False, True, True, True]
    assert [ok for ok, _ in verdicts(base, slow_bridge)] == [False, True, True, False]
    assert "4.00 / 1.00 = 4.00" in verdicts(base, slow_bridge)[3][1]


@pytest.mark.timeout(300)
async def test_a_small_run_opens_the_corpus_and_reports_its_aims(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(rate=10.0, seconds=1.0, warmup=2, depth=4, evil=4, hostile_calls=1, flood_tools=5, flood_s=0.5,
                              heavy_tabs=1, native=False, trace=True, profile_worker=False, profile_pages=True,
                              pin_pages=False)
    base, phase, calls, notes = await hostile.measure(args)
    assert len(base.samples) >= 10 and len(phase.samples) >= 10
    assert {c.tool for c in calls} == {"ref_output", "ref_input", "evil_result", "evil_argument"}
    assert all(not c.failed or c.failed.isupper() for c in calls)  # every call answered, failures by code
    hostile.report(args, base, phase, calls, notes)
    out = capsys.readouterr().out
    assert out.count("PASS ") + out.count("FAIL ") == 4 and "worst loop stall" in out
    # the control: Runtime.evaluate("1") in the innocent tab beside the calls, in both phases
    assert len(base.control) >= 10 and len(phase.control) >= 10 and base.control_failed == phase.control_failed == 0
    assert "control p99 ms" in out and "over the control's" in out
    # --trace: every timed call's hops, from when it was due to its answer, and where the slowest waited
    assert len(phase.traces) == len(phase.samples) and phase.bridge_cpu_s > 0
    assert all(t[0][0] == "client.due" and t[-1][0] == "client.recv" and "worker.in" in {h for h, _ in t}
               for t in phase.traces)
    assert "Where the slowest innocent calls waited" in out and "bridge.sent→worker.in" in out
    # Chromium's CPU per phase by process; --profile-pages: the tool flood's and the heavy tab's renderers
    assert phase.browser_cpu["extension"] > 0 and phase.browser_cpu["pages"] > 0 and "Chromium's CPU seconds" in out
    assert sorted(phase.page_profiles) == sorted([hostile.TOOL_FLOOD, hostile.GIANT_SYNC])
    assert "The giant sync's renderers (1 tab(s)" in out


def test_chromium_s_processes_are_told_apart_and_their_cpu_counted_per_phase() -> None:
    assert hostile.process_kind("browser", "/chrome --no-sandbox") == "browser"
    assert hostile.process_kind("renderer", "/chrome --type=renderer --extension-process") == "extension"
    assert hostile.process_kind("renderer", "/chrome --type=renderer") == "pages"
    assert hostile.process_kind("GPU", "/chrome --type=gpu-process") == "gpu"
    assert hostile.process_kind("utility", "/chrome --type=utility --utility-sub-type=network.mojom.NetworkService") == "other"
    before = {1: ("browser", 1.0), 2: ("pages", 0.5)}
    after = {1: ("browser", 1.5), 2: ("pages", 0.75), 3: ("pages", 0.25)}  # 3 opened in the phase
    assert hostile.cpu_by_kind(before, after) == {"browser": 0.5, "extension": 0.0, "pages": 0.5, "gpu": 0.0, "other": 0.0}


def test_the_browser_s_own_slowdown_with_the_extension_and_without() -> None:
    base = Phase("no hostile page", control=[0.004] * 100)
    hostile_ = Phase("hostile", control=[0.004] * 90 + [0.040] * 10)  # the p99 10x, the p50 the same
    bare_base = Phase("browser alone", control=[0.004] * 100)
    bare_hostile = Phase("browser alone", control=[0.004] * 90 + [0.020] * 10)
    line = hostile.bare_line(base, hostile_, bare_base, bare_hostile)
    assert "10.00x with the extension, 5.00x without it (2.00 of it)" in line
    assert "with hostile pages 40.00 ms with the extension, 20.00 ms without" in line


@pytest.mark.timeout(300)
async def test_the_browser_alone_opens_the_corpus_without_the_extension(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(rate=10.0, seconds=1.0, warmup=2, depth=4, evil=4, hostile_calls=1, flood_tools=5,
                              flood_s=0.5, heavy_tabs=1, native=False, trace=False, profile_worker=False,
                              pin_pages=False)
    bare = await hostile.measure_bare(args)
    assert len(bare[0].control) >= 10 and len(bare[1].control) >= 10
    assert bare[0].control_failed == bare[1].control_failed == 0
    assert "heavy tabs" in bare[1].marks  # the driver got through the corpus (each page's tools registered)
    base = Phase("no hostile page", samples=[0.005] * 20, control=[0.004] * 20)
    with_pages = Phase("hostile pages open", samples=[0.006] * 20, control=[0.005] * 20)
    hostile.report(args, base, with_pages, [], [], bare)
    out = capsys.readouterr().out
    assert "browser alone (no extension): hostile pages open" in out and "the browser's own slowdown" in out


@pytest.mark.timeout(300)
async def test_a_small_pinned_run_puts_the_hostile_renderers_on_a_cpu_of_their_own(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(rate=10.0, seconds=1.0, warmup=2, depth=4, evil=4, hostile_calls=1, flood_tools=5,
                              flood_s=0.5, heavy_tabs=1, native=False, trace=False, profile_worker=False,
                              profile_pages=False, pin_pages=True)
    before = os.sched_getaffinity(0)
    # Each run checks after its hostile phase that every hostile tab's renderer (found by a busy loop in
    # it) runs on the pages' CPU alone and every other Chromium process on the other alone, or fails.
    base, phase, calls, notes = await hostile.measure(args)
    bare = await hostile.measure_bare(args)
    assert os.sched_getaffinity(0) == before  # the bench put itself back
    assert len(phase.samples) >= 10 and len(bare[1].control) >= 10
    for phase_ in (base, phase, bare[0], bare[1]):  # the innocent tab's renderer counted apart
        assert "innocent" in phase_.browser_cpu and set(phase_.cpu_busy) == before
    assert phase.browser_cpu["pages"] > 0 and bare[1].browser_cpu["pages"] > 0
    checked = [n for n in [*notes, *bare[2]] if n.startswith("pinned: the 4 hostile tabs' 4 renderer(s)")]
    assert len(checked) == 2
    hostile.report(args, base, phase, calls, notes, bare)
    out = capsys.readouterr().out
    assert "(--pin-pages:" in out and "the hostile pages' renderers on a CPU of their own (--pin-pages):" in out
    assert "| innocent |" in out and f"CPU {max(before)} busy" in out and "is on the pinned CPU" in out
