"""Where the browser's JavaScript time goes per no-op call: Chrome's sampling profiler over CDP on
the extension's service worker and on the page's renderer (the content script's isolated world,
the page agent and the polyfill share its isolate), during a burst of sequential no-op calls from
an SDK client over stdio (as bench/roundtrip.py drives them).

Chromium runs with ``--remote-debugging-port`` beside Playwright's pipe; the profiler attaches to
the worker and the page target over their own DevTools WebSockets. Printed: each side's sampled
JavaScript time per call split by script (self time), the top functions, and the time the
profiler saw no JavaScript (``(idle)``: waiting for IPC and the network). The sampling interval is
50 µs: figures under a few µs per call are noise.

``--floor`` profiles the architecture floor instead (bench/floor: the same hops, no tabmcp code,
server-started calls as a bridge makes them), for the same table of the bare relay.

    python -m bench.worker_profile [--calls 2000] [--top 15] [--native] [--floor] [--save DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import websockets
from playwright.async_api import async_playwright
from tabmcp.launch.launcher import launch_browser

from bench._client import ClientProcess
from bench._floor import FLOOR_EXTENSION, floor_server
from bench._table import print_table
from bench.roundtrip import TABMCP, _poll, free_port, loadavg

INTERVAL_US = 50


class Cdp:
    """One DevTools target over its own WebSocket: commands in, replies matched by id."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ids = itertools.count(1)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        mid = next(self.ids)
        await self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(await self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))


def short(url: str) -> str:
    if not url:
        return "(native or builtin)"
    if url.startswith("chrome-extension://"):
        return "ext:" + url.split("/", 3)[3]
    return url.rsplit("/", 1)[-1] or url


def self_times(profile: dict[str, Any]) -> tuple[Counter[str], Counter[str], float]:
    """Self time (ms) per script and per function of a CPU profile, and its span (ms)."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    by_script: Counter[str] = Counter()
    by_fn: Counter[str] = Counter()
    for node_id, delta in zip(profile.get("samples", []), profile.get("timeDeltas", []), strict=False):
        frame = nodes[node_id]["callFrame"]
        name = frame["functionName"] or "(anonymous)"
        ms = delta / 1000
        if name.startswith("(") and name.endswith(")"):
            by_script[name] += ms
            by_fn[name] += ms
            continue
        script = short(frame["url"])
        by_script[script] += ms
        by_fn[f"{name} {script}:{frame['lineNumber'] + 1}"] += ms
    span = (profile["endTime"] - profile["startTime"]) / 1000
    return by_script, by_fn, span


async def _targets(devtools: int, worker: str, page: str) -> list[tuple[str, str]]:
    async with httpx.AsyncClient() as http:
        targets = (await http.get(f"http://127.0.0.1:{devtools}/json/list")).json()
    w = next(t for t in targets if t["type"] == "service_worker" and t["url"].endswith(worker))
    p = next(t for t in targets if t["type"] == "page" and t["url"].endswith(page))
    return [("service worker", w["webSocketDebuggerUrl"]), ("page renderer", p["webSocketDebuggerUrl"])]


async def stdio_bridge(stack: contextlib.AsyncExitStack) -> tuple[asyncio.Task[ClientProcess], int]:
    """``tabmcp serve --stdio`` launched by an SDK client in its own process (its store in a
    temporary folder), healthy: the client's start (it waits for the ``noop`` tool) and the port."""
    tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="tabmcp-bench-"))
    config = Path(tmp, "config.toml")
    config.write_text(f'[store]\npath = "{Path(tmp, "tabmcp.db")}"\n')
    os.environ["TABMCP_CONFIG"] = str(config)
    port = free_port()
    start = asyncio.create_task(ClientProcess.start(
        "stdio", "--tool", "noop", "--wait", "60", "--stdio", TABMCP, "serve", "--stdio", "--port", str(port)))

    async def healthy() -> bool:
        async with httpx.AsyncClient(timeout=1) as http:
            return (await http.get(f"http://127.0.0.1:{port}/health")).status_code == 200

    await _poll("tabmcp bridge", healthy, 60)
    return start, port


async def _tabmcp(stack: contextlib.AsyncExitStack, args: argparse.Namespace, floor: Any, pw: Any,
                  devtools: int) -> tuple[list[tuple[str, str]], Callable[[int], Awaitable[list[float]]]]:
    """tabmcp's bridge (launched over stdio by an SDK client) and browser; calls of the noop tool."""
    start, port = await stdio_bridge(stack)
    browser = await stack.enter_async_context(launch_browser(
        bridge_url=f"ws://127.0.0.1:{port}/extension", headless=True, webmcp=args.native, playwright=pw,
        extra_args=[f"--remote-debugging-port={devtools}"]))
    page = await browser.context.new_page()
    await page.goto(floor.url("roundtrip.html"))
    client = await start
    stack.push_async_callback(client.close)

    async def calls(n: int) -> list[float]:
        out = await client.ask(op="time", tool="noop", calls=n, warmup=0)
        return [float(x) for x in out["samples"]]

    return await _targets(devtools, "background.js", "roundtrip.html"), calls


async def _floor(stack: contextlib.AsyncExitStack, floor: Any, pw: Any,
                 devtools: int) -> tuple[list[tuple[str, str]], Callable[[int], Awaitable[list[float]]]]:
    """The floor extension (bench/floor) and its echo server: server-started calls, a bridge's direction."""
    ext = os.fspath(FLOOR_EXTENSION)
    browser = await stack.enter_async_context(launch_browser(
        extension=False, headless=True, playwright=pw,
        extra_args=[f"--disable-extensions-except={ext}", f"--load-extension={ext}",
                    f"--remote-debugging-port={devtools}"]))
    context = browser.context
    worker = next((w for w in context.service_workers if w.url.endswith("/worker.js")), None)
    if worker is None:
        worker = await context.wait_for_event("serviceworker", timeout=15_000)
    await worker.evaluate("(url) => connectTo(url)", floor.echo_url())
    await asyncio.wait_for(floor.connected.wait(), 15)
    page = await context.new_page()
    await page.goto(floor.url("floor.html"))
    tabs: list[int] = []

    async def connected() -> bool:
        tabs[:] = await worker.evaluate("() => floorTabs()")
        return bool(tabs)

    await _poll("floor page", connected, 15)

    async def calls(n: int) -> list[float]:
        return list(await floor.time_calls(tabs[0], n, 0))

    return await _targets(devtools, "/worker.js", "floor.html"), calls


async def measure(args: argparse.Namespace) -> None:
    async with contextlib.AsyncExitStack() as stack:
        floor = await stack.enter_async_context(floor_server())
        pw = await stack.enter_async_context(async_playwright())
        devtools = free_port()
        what = _floor(stack, floor, pw, devtools) if args.floor else _tabmcp(stack, args, floor, pw, devtools)
        targets, calls = await what
        sides = {}
        for label, url in targets:
            ws = await stack.enter_async_context(websockets.connect(url, max_size=None))
            sides[label] = Cdp(ws)
        await calls(args.warmup)
        for cdp in sides.values():
            await cdp.send("Profiler.enable")
            await cdp.send("Profiler.setSamplingInterval", interval=INTERVAL_US)
            await cdp.send("Profiler.start")
        load = loadavg()
        samples = sorted(await calls(args.calls))
        profiles = {label: (await cdp.send("Profiler.stop"))["profile"] for label, cdp in sides.items()}
        p50 = samples[len(samples) // 2] * 1000
        per_call = 1000 / args.calls  # ms in all → µs per call
        for label, profile in profiles.items():
            by_script, by_fn, span = self_times(profile)
            busy = sum(ms for name, ms in by_script.items() if name != "(idle)")
            rows = [[name, f"{ms * per_call:.1f}", f"{100 * ms / busy:.0f}%" if busy else "-"]
                    for name, ms in by_script.most_common() if name != "(idle)"]
            rows.append(["all but (idle)", f"{busy * per_call:.1f}", "100%"])
            print_table(
                f"{'floor ' if args.floor else ''}{label}: sampled time per call by script (µs, self time; "
                f"{args.calls} calls, {span:.0f} ms profiled)", ["script", "µs per call", "share"], rows)
            print_table(
                f"{'floor ' if args.floor else ''}{label}: top functions (µs per call, self time)",
                ["function", "µs per call"],
                [[name, f"{ms * per_call:.1f}"] for name, ms in by_fn.most_common()
                 if name not in ("(idle)", "(program)")][: args.top])
        print(f"\ncall p50 while profiled: {p50:.3f} ms (the profiler slows both sides); "
              f"load average at start: {load}; at end: {loadavg()}")
        if args.save:
            Path(args.save).mkdir(parents=True, exist_ok=True)
            for label, profile in profiles.items():
                Path(args.save, label.replace(" ", "_") + ".cpuprofile").write_text(json.dumps(profile))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.worker_profile")
    parser.add_argument("--calls", type=int, default=2000, help="profiled sequential calls (default 2000)")
    parser.add_argument("--warmup", type=int, default=200, help="unprofiled calls first")
    parser.add_argument("--top", type=int, default=15, help="functions listed per side")
    parser.add_argument("--native", action="store_true", help="Chromium's native WebMCP instead of the polyfill")
    parser.add_argument("--floor", action="store_true",
                        help="profile the architecture floor (bench/floor, no tabmcp code) instead, for comparison")
    parser.add_argument("--save", help="a folder to write the .cpuprofile files to (DevTools opens them)")
    asyncio.run(measure(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
