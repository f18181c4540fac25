"""The regression guard's instruments: the kept figures file, the soak's windows and flatness
verdict, compare's verdicts and call_profile's attribution. No timing is asserted."""

from __future__ import annotations

import json
from pathlib import Path

from bench import _results as results
from bench.call_profile import OTHER, part_of
from bench.compare import verdict
from bench.soak import Phase, flatness_line


def test_figures_are_kept_per_bench_and_dash_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    results.write("roundtrip", {"stdio_x_evaluate": 2.123456}, load="1.0 0.5 0.2", where=str(path))
    results.write("soak", {"soak_calls_per_s": 400.0}, load="2.0", where=str(path))
    results.write("soak", {"soak_calls_per_s": 999.0}, load="2.0", where="-")
    data = json.loads(path.read_text())
    assert data["roundtrip"]["figures"] == {"stdio_x_evaluate": 2.1235} and data["roundtrip"]["load"] == "1.0 0.5 0.2"
    assert data["soak"]["figures"] == {"soak_calls_per_s": 400.0}
    assert results.read(tmp_path / "missing.json") == {}


def test_the_committed_file_holds_both_benches() -> None:
    kept = results.read()
    assert {"roundtrip", "soak"} <= set(kept), "run ./dev bench roundtrip and ./dev bench soak to write them"
    assert kept["roundtrip"]["figures"]["stdio_x_evaluate"] > 0 and kept["soak"]["figures"]["soak_calls_per_s"] > 0


def _phase(done_at: list[float]) -> Phase:
    phase = Phase("soak", 10, 10, len(done_at))
    for t in done_at:
        phase.calls += 1
        phase.done_at(t)
    phase.wall = max(done_at)
    return phase


def test_the_soak_says_fail_when_its_last_seconds_are_slower_than_its_first() -> None:
    steady = _phase([i / 100 for i in range(3000)])  # 100 calls/s for 30 s
    assert steady.flatness() is not None and "PASS" in flatness_line(steady)
    slowing = _phase([i / 100 for i in range(1000)] + [10 + i / 50 for i in range(1000)])  # 100 then 50 calls/s
    first, last = slowing.flatness() or (0, 0)
    assert round(first) == 100 and round(last) == 50 and "FAIL" in flatness_line(slowing)
    assert "n/a" in flatness_line(_phase([i / 100 for i in range(500)]))  # 5 s: too short to tell


def test_the_soaks_rate_ends_at_the_last_call_sent_not_at_a_straggler() -> None:
    # 100 calls/s for 30 s, every call sent by 29.99 s; one straggler answers 8 s later.
    drained = _phase([i / 100 for i in range(2999)] + [38.0])
    drained.loaded_until = 29.99
    first, last = drained.flatness() or (0, 0)
    assert round(first) == 100 and round(last) == 100 and "PASS" in flatness_line(drained)
    drained.loaded_until = 0.0  # measured to the last answer instead, the drain reads as a slowdown
    assert "FAIL" in flatness_line(drained)


def test_the_soaks_work_line_holds_cpu_per_call_to_the_control() -> None:
    def phase(factors: tuple[float, float, float]) -> Phase:
        steady = _phase([i / 100 for i in range(3000)])
        for k in range(6):  # six 5 s windows of 500 calls; the last two scaled per process
            bridge, chromium, client = factors if k >= 4 else (1.0, 1.0, 1.0)
            steady.windows.append((5.0, 500, {"bridge process": 0.5 * bridge, "Chromium": 0.8 * chromium,
                                              "MCP client process": 0.4 * client}))
        return steady

    # Every process ×1.3 at once (the machine): flat work; the bridge alone ×1.3: it grew.
    assert "PASS work per call flat" in flatness_line(phase((1.3, 1.3, 1.3)))
    assert "FAIL work per call flat" in flatness_line(phase((1.3, 1.0, 1.0)))


def test_compare_flags_a_move_beyond_the_runs_spread_only() -> None:
    assert verdict("stdio_x_evaluate", 2.0, [2.02, 1.98], 0.05)[1] == "within noise"
    assert verdict("stdio_x_evaluate", 2.0, [2.6, 2.5], 0.05)[1].startswith("MOVED WORSE")
    assert verdict("soak_calls_per_s", 400.0, [300.0, 310.0], 0.05)[1].startswith("MOVED WORSE")
    assert verdict("soak_calls_per_s", 400.0, [300.0, 500.0], 0.05)[1] == "within noise"  # noisy runs: no verdict
    assert verdict("stdio_x_evaluate", None, [2.0, 2.0], 0.05)[1] == "new (nothing kept)"


def test_call_profile_puts_a_sample_to_its_innermost_known_part() -> None:
    gate = ("run_loop (tabmcp/event_loop.py:20);CallPath.run (tabmcp/server/call_path.py:80);"
            "scan (tabmcp/core/trust/gate.py:9);dumps (json/__init__.py:1)")
    assert part_of(gate).startswith("trust gate")
    assert part_of("run (uvloop/__init__.py:1);handle (mcp/server/runner.py:3)").startswith("MCP SDK")
    assert part_of("x (foo.py:1)") == OTHER


async def test_call_profile_runs_long_while_the_stand_in_churns_tabs(tmp_path: Path) -> None:
    """Notifications of the churn do not pass for answers, and every chunk is reported."""
    import argparse

    from bench.call_profile import measure

    args = argparse.Namespace(long=300, chunk=100, churn=0.02, warmup=10, paths="stream", py_spy=False,
                              native=False, out=str(tmp_path), calls=10)
    chunks = (await measure(args))["_long"]["chunks"]
    assert [c[0] for c in chunks] == ["100", "200", "300"] and all(float(c[1]) > 0 for c in chunks)
    assert int(chunks[-1][4]) > int(chunks[0][4])  # the registry moved: tabs came and went meanwhile
