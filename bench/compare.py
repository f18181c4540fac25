"""The guard against the next regression: run roundtrip and soak again and say which kept figure moved.

bench/results.json keeps the figures ``./dev bench roundtrip`` and ``./dev bench soak`` wrote last
(same-run ratios and CPU per call, committed with the code that made them). This runs each
benchmark ``--runs`` times (default 2) back to back, side by side, and takes the spread between
those runs as each figure's noise on this machine now; a figure moved when the new runs' mean is
further from the kept value than twice that spread (and at least ``--min-change``). Not a test:
the machine is shared, so a verdict is a prompt to look, quoted with its load average.

    python -m bench.compare [--only roundtrip,soak] [--runs 2] [--soak-calls 10000] [--min-change 0.05]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import mean

from bench import _results as results
from bench._table import print_table
from bench.roundtrip import loadavg

ROOT = Path(__file__).resolve().parent.parent
HIGHER_IS_BETTER = {"soak_calls_per_s", "soak_rate_x_no_churn", "soak_last_10s_x_first_10s"}


def verdict(name: str, kept: float | None, runs: list[float], min_change: float) -> tuple[str, str]:
    """(the noise as text, what the figure did) for one figure."""
    if not runs:
        return "-", "not measured"
    now = mean(runs)
    spread = max(runs) - min(runs)
    noise = f"±{spread / 2 / abs(now):.0%}" if now else f"±{spread / 2:.3g}"
    if kept is None:
        return noise, "new (nothing kept)"
    change = now - kept
    limit = max(2 * spread, min_change * abs(kept))
    if abs(change) <= limit:
        return noise, "within noise"
    better = (change > 0) == (name in HIGHER_IS_BETTER)
    return noise, f"MOVED {'better' if better else 'WORSE'} ({change / kept:+.0%})" if kept else "MOVED"


def run(bench: str, out: Path, extra: list[str]) -> None:
    cmd = [sys.executable, "-m", "bench", bench, "--results", str(out), *extra]
    print(f"[compare] {' '.join(cmd[1:])} (load {loadavg()})", file=sys.stderr, flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, env=os.environ.copy())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compare")
    parser.add_argument("--only", default="roundtrip,soak")
    parser.add_argument("--runs", type=int, default=2, help="runs of each benchmark (their spread is the noise)")
    parser.add_argument("--soak-calls", type=int, help="--calls for the soak (default: the soak's own)")
    parser.add_argument("--min-change", type=float, default=0.05, help="a smaller change never counts as moved")
    args = parser.parse_args(argv)
    kept = results.read()
    start = loadavg()
    rows = []
    moved = 0
    with tempfile.TemporaryDirectory(prefix="tabmcp-compare-") as tmp:
        for bench in args.only.split(","):
            extra = ["--calls", str(args.soak_calls)] if bench == "soak" and args.soak_calls else []
            got = []
            for i in range(args.runs):
                out = Path(tmp, f"{bench}-{i}.json")
                run(bench, out, extra)
                got.append(results.read(out).get(bench, {}).get("figures", {}))
            before = kept.get(bench, {})
            figures = before.get("figures", {})
            for name in sorted(set(figures) | {k for g in got for k in g}):
                runs = [float(g[name]) for g in got if name in g]
                noise, what = verdict(name, figures.get(name), runs, args.min_change)
                moved += what.startswith("MOVED")
                rows.append([bench, name, f"{figures[name]:.3f}" if name in figures else "-",
                             " / ".join(f"{r:.3f}" for r in runs), noise, what])
            print(f"[compare] {bench}: kept figures from {before.get('measured', '?')} "
                  f"(commit {before.get('commit', '?')}, load {before.get('load', '?')})", file=sys.stderr)
    print_table(
        f"Kept figures (bench/results.json) against {args.runs} new runs each",
        ["bench", "figure", "kept", "new runs", "noise", "verdict"],
        rows,
        note=f"Noise: half the spread between the new runs. Moved: the new runs' mean is more than twice "
        f"their spread from the kept value, and more than {args.min_change:.0%} of it. Load average at "
        f"start: {start}; at end: {loadavg()}. A figure that moved WORSE is a prompt to profile "
        "(bench/call_profile.py), not a verdict on a shared machine.",
    )
    print(f"\n{moved} figure(s) moved beyond their noise.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
