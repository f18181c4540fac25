"""The browser half of a no-op call split on one clock per side, tabmcp beside the floor.

``bridge.sent → bridge.frame`` (the bridge's clock) is the browser half; ``worker.in →
worker.out`` (the worker's clock) is the part from the call leaving the worker for the page to
its answer back in the worker (Port both ways, the content script, the page agent, the polyfill,
the tool); the difference is the rest: the WebSocket both ways with the bridge's own encode and
read of the frames and the worker's routing before and after. The floor (bench/floor, server-
started calls from its Python echo server) is split the same way: the Python side's round trip,
and the worker's span from the call's frame to the page's result, kept by the floor's worker
only while this bench asks. Chromium coarsens ``performance.now()`` to 0.1 ms in the worker and the
page, so each span is a trimmed mean (10% off each end) over many calls, an unbiased figure
where a median of coarse stamps is not; the p50 of the whole half is given too.

``--echo websockets,asgi,starlette`` runs the floor once per way of serving its ``/echo`` (bench/
_floor.py): the bare ``websockets`` server, uvicorn with the bridge's WebSocket settings and a plain
ASGI app, and the same with starlette's ``WebSocket``: what the bridge's ASGI layer costs a round
trip, against the bare echo in the same run. ``--uvloop`` runs the bench's own loop (the floor's
servers) on uvloop, as ``tabmcp serve`` runs the bridge.

    python -m bench.browser_half [--calls 300] [--rounds 3] [--no-floor] [--no-tabmcp]
                                 [--echo websockets,asgi,starlette] [--uvloop]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import statistics
import sys
import time
from collections.abc import Sequence

from playwright.async_api import async_playwright
from tabmcp.launch.launcher import launch_browser

from bench._floor import ECHOES, Echo, floor_server
from bench._table import print_table
from bench.roundtrip import floor_browser, loadavg
from bench.worker_profile import stdio_bridge


def trimmed_mean(xs: Sequence[float]) -> float:
    """The mean of the middle 80% (robust to the loaded machine's outliers, unbiased for coarse clocks)."""
    s = sorted(xs)
    k = len(s) // 10
    s = s[k : len(s) - k] if k else s
    return sum(s) / len(s)


async def tabmcp_rounds(args: argparse.Namespace) -> list[list[float]]:
    """Per round: [half p50, half, worker span, rest, content] in ms (traced calls over stdio)."""
    out = []
    async with contextlib.AsyncExitStack() as stack:
        floor = await stack.enter_async_context(floor_server())  # serves the bench page
        pw = await stack.enter_async_context(async_playwright())
        os.environ["TABMCP_TRACE"] = "1"
        start, port = await stdio_bridge(stack)
        browser = await stack.enter_async_context(launch_browser(
            bridge_url=f"ws://127.0.0.1:{port}/extension", headless=True, playwright=pw))
        page = await browser.context.new_page()
        await page.goto(floor.url("roundtrip.html"))
        client = await start
        stack.push_async_callback(client.close)
        await client.ask(op="time", tool="noop", calls=args.warmup, warmup=0)
        for _ in range(args.rounds):
            res = await client.ask(op="trace", tool="noop", calls=args.calls, warmup=20)
            if "error" in res:
                raise RuntimeError(f"traced calls: {res['error']}")
            half, worker, content = [], [], []
            for trace in res["traces"]:
                at = dict(trace)
                half.append(at["bridge.frame"] - at["bridge.sent"])
                worker.append(at["worker.out"] - at["worker.in"])
                content.append(at["content.out"] - at["content.in"])
            h, w = trimmed_mean(half), trimmed_mean(worker)
            out.append([statistics.median(half), h, w, h - w, trimmed_mean(content)])
    return out


async def floor_rounds(args: argparse.Namespace, echoes: Sequence[Echo] = ("websockets",)
                       ) -> list[tuple[Echo, list[float]]]:
    """Per round and way of serving ``/echo`` (one browser, its worker switched between them, every
    echo once before the next round, each after ``--warmup`` calls of its own): [half p50, half,
    worker span, rest] in ms and the server's CPU µs per call (server-started calls)."""
    out = []
    async with contextlib.AsyncExitStack() as stack:
        floor = await stack.enter_async_context(floor_server(tuple(echoes)))
        pw = await stack.enter_async_context(async_playwright())
        browser, _page, tab = await stack.enter_async_context(floor_browser(pw, floor))
        worker = next(w for w in browser.context.service_workers if w.url.endswith("/worker.js"))
        for _, echo in itertools.product(range(args.rounds), echoes):
            floor.connected.clear()
            await worker.evaluate("(url) => connectTo(url)", floor.echo_url(echo))
            await asyncio.wait_for(floor.connected.wait(), 15)
            await floor.time_calls(tab, args.warmup, 0)
            await worker.evaluate("() => timeSpans(true)")
            cpu = time.process_time()
            half = [s * 1000 for s in await floor.time_calls(tab, args.calls, 0)]
            cpu = (time.process_time() - cpu) / args.calls * 1e6
            spans = [float(x) for x in await worker.evaluate("() => timeSpans(false)")]
            h, w = trimmed_mean(half), trimmed_mean(spans)
            out.append((echo, [statistics.median(half), h, w, h - w, cpu]))
    return out


async def measure(args: argparse.Namespace) -> None:
    load = loadavg()
    rows = []
    echoes = [e for e in args.echo.split(",") if e]
    for echo in [] if args.no_floor else echoes:
        if echo not in ECHOES:
            raise SystemExit(f"--echo: {echo!r} is not one of {', '.join(ECHOES)}")
    if not args.no_floor:
        print(f"[browser_half] floor ({', '.join(echoes)})", file=sys.stderr, flush=True)
        rounds: dict[str, int] = {}
        for echo, r in await floor_rounds(args, echoes):
            rounds[echo] = rounds.get(echo, 0) + 1
            label = "floor" if echo == "websockets" else f"floor, {echo} echo"
            rows.append([f"{label}, round {rounds[echo]}", *(f"{x:.3f}" for x in r[:4]), "–", f"{r[4]:.0f}"])
    if not args.no_tabmcp:
        print("[browser_half] tabmcp", file=sys.stderr, flush=True)
        for i, r in enumerate(await tabmcp_rounds(args)):
            rows.append([f"tabmcp, round {i + 1}", *(f"{x:.3f}" for x in r), "–"])
    print_table(
        f"The browser half on one clock per side ({args.calls} calls a round, ms)",
        ["", "half p50", "half", "worker span", "rest", "content.in → content.out", "server CPU µs/call"],
        rows,
        note=("half: bridge.sent → bridge.frame (the floor: its server's round trip); worker span: the call "
              "out of the worker to the page's answer back in it (the floor: its frame in to the result); "
              "rest = half − worker span: the WebSocket both ways, the server's own send and read, the "
              "worker's routing (tabmcp: before worker.in and after worker.out). Trimmed means but the p50. "
              "server CPU: the bench process's CPU time over the timed calls (the floor's server, in it). "
              f"Floor servers on {'uvloop' if args.uvloop else 'asyncio'}. "
              f"Load average at start: {load}; at end: {loadavg()}."),
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.browser_half")
    parser.add_argument("--calls", type=int, default=300, help="calls per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=200, help="untimed calls first")
    parser.add_argument("--no-floor", action="store_true", help="tabmcp only")
    parser.add_argument("--no-tabmcp", action="store_true", help="the floor only")
    parser.add_argument("--echo", default="websockets",
                        help=f"comma-separated ways to serve the floor's /echo: {', '.join(ECHOES)}")
    parser.add_argument("--uvloop", action="store_true", help="the floor's servers on uvloop")
    args = parser.parse_args(argv)
    if args.uvloop:
        import uvloop

        uvloop.run(measure(args))
    else:
        asyncio.run(measure(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
