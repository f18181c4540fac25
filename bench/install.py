"""Install line → first tool call, from a clean virtualenv (issue 25's aim: under 60 s).

What a person's second machine does, with the wheel and its packages already in the local cache
(here ``.wheelhouse``, which ``./dev setup`` fills; pip installs offline from it):

1. ``python -m venv`` (a clean virtualenv outside the checkout);
2. ``pip install tabmcp-*.whl`` (the install line);
3. ``tabmcp serve`` until its ``/health`` answers;
4. ``tabmcp browser PAGE`` (the person's Chromium, the installed extension, paired) until the
   bridge lists the page's tools;
5. the first tool call through the official MCP client (connect, initialize, ``tools/call``).

The wheel is built first and not timed (a person downloads it). The total is steps 1-5.

    python -m bench.install [--runs 1]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client
from tabmcp.demo.server import serve_demo_site

from bench._installed import WHEELHOUSE, build_wheel, install, serving
from bench._table import print_table

PAGES = Path(__file__).resolve().parent.parent / "e2e" / "pages"
AIM_S = 60.0


async def one_run(base: Path, wheel: Path, pages_url: str) -> dict[str, float]:
    start = time.perf_counter()
    installed = install(base / "venv", wheel)
    home = base / "home"
    home.mkdir()
    async with serving(installed, home, pages_url + "basic.html", tools=6) as served:
        t = time.perf_counter()
        async with Client(served.mcp_url) as client:
            result = await client.call_tool("page_title", {})
        if result.is_error:
            raise RuntimeError(f"the first tool call failed: {result}")
        first_call = time.perf_counter() - t
        total = time.perf_counter() - start
    return {**installed.timings, **served.timings, "first tool call": first_call, "total": total}


async def run(runs: int) -> int:
    if not any(WHEELHOUSE.glob("*.whl")):
        print(f"no packages in {WHEELHOUSE}: run ./dev setup first", file=sys.stderr)
        return 1
    results: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="tabmcp-install-bench-") as tmp:
        wheel = build_wheel(Path(tmp) / "dist")
        async with serve_demo_site(site_dir=PAGES) as pages_url:
            for i in range(runs):
                base = Path(tmp) / f"run{i}"
                base.mkdir()
                results.append(await one_run(base, wheel, pages_url))
    steps = list(results[0])
    rows = [[step, *(f"{r[step]:.1f}" for r in results)] for step in steps]
    print_table("install line → first tool call (s)", ["step", *(f"run {i + 1}" for i in range(runs))], rows,
                note=f"wheel {wheel.name}; packages from {WHEELHOUSE} (offline); aim: total under {AIM_S:.0f} s")
    worst = max(r["total"] for r in results)
    print(f"\n{'PASS' if worst < AIM_S else 'FAIL'}: install line → first tool call {worst:.1f} s (aim < {AIM_S:.0f} s)")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.install", description=__doc__)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    return asyncio.run(run(args.runs))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
