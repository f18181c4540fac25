"""Where the browser's JavaScript time goes per no-op call: Chrome's sampling profiler over CDP on
the extension's service worker and on the page's renderer (the content script's isolated world,
the page agent and the polyfill share its isolate), during a burst of sequential no-op calls from
an SDK client over stdio (as bench/roundtrip.py drives them).

Chromium runs with ``--remote-debugging-port`` beside Playwright's pipe; the profiler attaches to
the worker and the page target over their own DevTools WebSockets. Printed: each side's sampled
JavaScript time per call split by script (self time), the top functions, and the time the
profiler saw no JavaScript (``(idle)``: waiting for IPC and the network). The sampling interval is
50 µs: figures under a few µs per call are noise.

    python -m bench.worker_profile [--calls 2000] [--top 15] [--native]
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
from pathlib import Path
from typing import Any

import httpx
import websockets
from playwright.async_api import async_playwright
from tabmcp.launcher import launch_browser

from bench._client import ClientProcess
from bench._floor import floor_server
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


async def measure(args: argparse.Namespace) -> None:
    async with contextlib.AsyncExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="tabmcp-bench-"))
        config = Path(tmp, "config.toml")
        config.write_text(f'[store]\npath = "{Path(tmp, "tabmcp.db")}"\n')
        os.environ["TABMCP_CONFIG"] = str(config)
        floor = await stack.enter_async_context(floor_server())
        pw = await stack.enter_async_context(async_playwright())
        port, devtools = free_port(), free_port()
        start = asyncio.create_task(ClientProcess.start(
            "stdio", "--tool", "noop", "--wait", "60", "--stdio", TABMCP, "serve", "--stdio", "--port", str(port)))

        async def healthy() -> bool:
            async with httpx.AsyncClient(timeout=1) as http:
                return (await http.get(f"http://127.0.0.1:{port}/health")).status_code == 200

        await _poll("tabmcp bridge", healthy, 60)
        browser = await stack.enter_async_context(launch_browser(
            bridge_url=f"ws://127.0.0.1:{port}/extension", headless=True, webmcp=args.native, playwright=pw,
            extra_args=[f"--remote-debugging-port={devtools}"]))
        page = await browser.context.new_page()
        await page.goto(floor.url("roundtrip.html"))
        client = await start
        stack.push_async_callback(client.close)
        async with httpx.AsyncClient() as http:
            targets = (await http.get(f"http://127.0.0.1:{devtools}/json/list")).json()
        worker_t = next(t for t in targets if t["type"] == "service_worker" and "background.js" in t["url"])
        page_t = next(t for t in targets if t["type"] == "page" and t["url"].endswith("roundtrip.html"))
        sides = {}
        for label, target in (("service worker", worker_t), ("page renderer", page_t)):
            ws = await stack.enter_async_context(websockets.connect(target["webSocketDebuggerUrl"], max_size=None))
            sides[label] = Cdp(ws)
        await client.ask(op="time", tool="noop", calls=args.warmup, warmup=0)
        for cdp in sides.values():
            await cdp.send("Profiler.enable")
            await cdp.send("Profiler.setSamplingInterval", interval=INTERVAL_US)
            await cdp.send("Profiler.start")
        load = loadavg()
        out = await client.ask(op="time", tool="noop", calls=args.calls, warmup=0)
        profiles = {label: (await cdp.send("Profiler.stop"))["profile"] for label, cdp in sides.items()}
        samples = sorted(float(s) for s in out["samples"])
        p50 = samples[len(samples) // 2] * 1000
        for label, profile in profiles.items():
            by_script, by_fn, span = self_times(profile)
            busy = sum(ms for name, ms in by_script.items() if name != "(idle)")
            per_call = 1000 / args.calls  # ms total → µs per call
            rows = [[name, f"{ms * per_call:.1f}", f"{100 * ms / busy:.0f}%" if busy else "-"]
                    for name, ms in by_script.most_common() if name != "(idle)"]
            rows.append(["all but (idle)", f"{busy * per_call:.1f}", "100%"])
            print_table(
                f"{label}: sampled time per call by script (µs, self time; {args.calls} calls, "
                f"{span:.0f} ms profiled)", ["script", "µs per call", "share"], rows)
            print_table(
                f"{label}: top functions (µs per call, self time)", ["function", "µs per call"],
                [[name, f"{ms * per_call:.1f}"] for name, ms in by_fn.most_common()
                 if name not in ("(idle)", "(program)")][: args.top])
        print(f"\nstdio call p50 while profiled: {p50:.3f} ms (the profiler slows both sides); "
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
    parser.add_argument("--save", help="a folder to write the .cpuprofile files to (DevTools opens them)")
    asyncio.run(measure(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
