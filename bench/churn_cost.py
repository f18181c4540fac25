"""Does a call cost more after tabs have come and gone? Per-call CPU before and after tab churn.

The soak (bench/soak.py) saw its rate fall while tabs closed, reopened and navigated. This bench
takes churn and calls apart: the stdio bridge, real Chromium with the extension and one
``roundtrip.html`` tab whose ``noop`` tool is called ``--calls`` times sequentially (an SDK
client over stdio, as bench/roundtrip.py); then ``--churn`` tab changes with no calls (close the
oldest of ``--spare`` extra tabs and open a new one, every third step a navigation instead), then
the same calls again, and so on for ``--rounds``. Each churn reports Chromium's CPU per tab change
(opening, loading and closing tabs: if closed tabs' teardown piled up, it would climb). Each
measured block reports the CPU per call of Chromium (every process of it, from /proc), of the
bridge process and of the MCP client, the service worker's JavaScript time per call (Chrome's
sampling profiler over CDP) and its heap after a forced GC; ``--heap`` diffs the worker's heap
snapshots after the first and the last churn by object. A part that grows with the tabs ever
seen shows as a column that climbs from block to block; the calls themselves are identical, so
the blocks compare directly within one run. The MCP client is the control: its work per call
does not depend on tabs, so its CPU per call moves only with the machine, and the ratios to it
take the machine out.

    python -m bench churn_cost [--calls 2000] [--churn 150] [--rounds 3] [--spare 5] [--heap] [--top 10]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections import Counter, defaultdict
from typing import Any

import websockets
from playwright.async_api import async_playwright

from bench import worker_profile
from bench._floor import floor_server
from bench._table import print_table
from bench.roundtrip import free_port, loadavg
from bench.soak import _proc_table, reference_loop
from bench.worker_profile import INTERVAL_US, Cdp, _tabmcp, self_times


async def heap_counts(cdp: Cdp) -> Counter[tuple[str, str]]:
    """(node type, name) → count of the worker's heap after a GC (a heap snapshot over CDP)."""
    await cdp.send("HeapProfiler.enable")
    await cdp.send("HeapProfiler.collectGarbage")
    mid = next(cdp.ids)
    await cdp.ws.send(json.dumps({"id": mid, "method": "HeapProfiler.takeHeapSnapshot",
                                  "params": {"reportProgress": False}}))
    chunks: list[str] = []
    while True:
        msg = json.loads(await cdp.ws.recv())
        if msg.get("method") == "HeapProfiler.addHeapSnapshotChunk":
            chunks.append(msg["params"]["chunk"])
        elif msg.get("id") == mid:
            break
    snap = json.loads("".join(chunks))
    meta = snap["snapshot"]["meta"]
    fields = meta["node_fields"]
    types = meta["node_types"][0]
    width, t_at, n_at = len(fields), fields.index("type"), fields.index("name")
    nodes, strings = snap["nodes"], snap["strings"]
    out: Counter[tuple[str, str]] = Counter()
    for i in range(0, len(nodes), width):
        kind = types[nodes[i + t_at]]
        if kind in ("object", "closure", "array", "code", "hidden", "object shape"):
            out[(kind, strings[nodes[i + n_at]][:60])] += 1
    return out


def cpu_groups() -> defaultdict[str, float]:
    """CPU seconds of this process's descendants: Chromium, the bridge, the MCP client, Playwright."""
    table = _proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out: defaultdict[str, float] = defaultdict(float)
    stack = [(pid, "") for pid in children.get(os.getpid(), [])]
    while stack:
        pid, group = stack.pop()
        _, comm, cpu = table[pid]
        if not group:
            group = "Playwright" if comm == "node" else ("python" if comm.startswith(("python", "tabmcp")) else "")
        if group == "python":
            # the client process (ours) and the bridge it launched over stdio (its child)
            group = "MCP client" if table[pid][0] == os.getpid() else "bridge"
        elif group == "Playwright" and comm != "node":
            group = "Chromium"
        out[group or "Chromium"] += cpu
        stack.extend((c, group if group != "MCP client" else "python") for c in children.get(pid, []))
    return out


async def measure(args: argparse.Namespace) -> None:
    async with contextlib.AsyncExitStack() as stack:
        floor = await stack.enter_async_context(floor_server())
        pw = await stack.enter_async_context(async_playwright())
        devtools = free_port()
        opened: list[Any] = []
        real_launch = worker_profile.launch_browser  # type: ignore[attr-defined]

        @contextlib.asynccontextmanager
        async def launch(**kw: Any) -> Any:
            async with real_launch(**kw) as browser:
                opened.append(browser)
                yield browser

        worker_profile.launch_browser = launch  # type: ignore[attr-defined]  # to keep the browser _tabmcp opens (its context)
        try:
            targets, calls = await _tabmcp(stack, args, floor, pw, devtools)
        finally:
            worker_profile.launch_browser = real_launch  # type: ignore[attr-defined]
        ctx = opened[0].context
        spare: list[Any] = []
        worker_url = dict(targets)["service worker"]
        cdp = Cdp(await stack.enter_async_context(websockets.connect(worker_url, max_size=None)))
        await cdp.send("Profiler.enable")
        await cdp.send("Profiler.setSamplingInterval", interval=INTERVAL_US)
        # The spare tabs open from the start: every block runs with the same tabs open.
        for _ in range(args.spare):
            page = await ctx.new_page()
            await page.goto(floor.url("roundtrip.html?spare"))
            spare.append(page)
        await calls(args.warmup)
        rows: list[list[str]] = []
        fns: list[Counter[str]] = []
        seen = 0
        load0 = loadavg()
        heaps: list[Counter[tuple[str, str]]] = []
        for rnd in range(args.rounds + 1):
            per_change = "-"
            if rnd:
                before = cpu_groups()
                seen += await churn(ctx, floor, spare, args)
                per_change = f"{(cpu_groups()['Chromium'] - before['Chromium']) * 1000 / args.churn:.0f}"
            if args.heap and rnd in (1, args.rounds):
                heaps.append(await heap_counts(cdp))
            await cdp.send("HeapProfiler.collectGarbage")
            heap = (await cdp.send("Runtime.getHeapUsage"))["usedSize"]
            cpu0 = cpu_groups()
            await cdp.send("Profiler.start")
            t0 = time.perf_counter()
            await calls(args.calls)
            wall = time.perf_counter() - t0
            profile = (await cdp.send("Profiler.stop"))["profile"]
            cpu1 = cpu_groups()
            ref = sorted(reference_loop() for _ in range(5))[2]
            by_script, by_fn, _ = self_times(profile)
            busy = sum(ms for name, ms in by_script.items() if name != "(idle)")
            fns.append(by_fn)
            per = {k: (cpu1[k] - cpu0[k]) * 1000 / args.calls for k in ("Chromium", "bridge", "MCP client")}
            control = max(1e-9, per["MCP client"])
            rows.append([str(seen), per_change, f"{args.calls / wall:.0f}", f"{per['Chromium']:.3f}",
                         f"{per['bridge']:.3f}", f"{per['MCP client']:.3f}", f"{per['Chromium'] / control:.2f}",
                         f"{per['bridge'] / control:.2f}", f"{busy * 1000 / args.calls:.1f}", f"{heap / 1024:.0f}",
                         f"{ref * 1000:.2f}", loadavg().split()[0]])
            print(rows[-1], file=sys.stderr, flush=True)
        print_table(
            f"{args.calls} sequential noop calls after N tab changes ({args.churn} per round, no calls during "
            "churn); CPU per call from /proc, worker JS from Chrome's profiler",
            ["tab changes so far", "Chromium CPU ms per tab change (the churn before)", "calls/s",
             "Chromium CPU ms/call", "bridge CPU ms/call", "MCP client ms/call (control)", "Chromium ÷ control",
             "bridge ÷ control", "worker JS µs/call", "worker heap KiB (after GC)", "reference loop ms",
             "load (1 min)"],
            rows,
        )
        first, last = fns[0], fns[-1]
        names = sorted(set(first) | set(last), key=lambda n: last[n] - first[n], reverse=True)
        print_table(
            "worker functions whose self time per call changed most (µs per call, first block → last)",
            ["function", "first", "last"],
            [[n, f"{first[n] * 1000 / args.calls:.1f}", f"{last[n] * 1000 / args.calls:.1f}"]
             for n in names[: args.top] if n not in ("(idle)",)],
        )
        if len(heaps) == 2:
            grown = heaps[1].copy()
            grown.subtract(heaps[0])
            print_table(
                f"worker heap objects that grew most between {args.churn} and {args.churn * args.rounds} tab changes",
                ["type", "name", "count before", "change"],
                [[k, n, str(heaps[0][(k, n)]), f"{d:+,}"] for (k, n), d in grown.most_common(args.top) if d > 0],
            )
        print(f"\nLoad average at start: {load0}; at end: {loadavg()}.")


async def churn(ctx: Any, floor: Any, spare: list[Any], args: argparse.Namespace) -> int:
    """``args.churn`` tab changes: open a new tab (closing the oldest spare past ``--spare``), or
    every third step navigate a spare to a new load. Each waits for the page's load event."""
    opens = churn.__dict__.setdefault("opens", [0])
    for step in range(1, args.churn + 1):
        opens[0] += 1
        url = floor.url(f"roundtrip.html?churn={opens[0]}")
        if step % 3 == 0 and spare:
            await spare[step % len(spare)].goto(url)
            continue
        if len(spare) >= args.spare:
            await spare.pop(0).close()
        page = await ctx.new_page()
        await page.goto(url)
        spare.append(page)
        await asyncio.sleep(args.pause)
    return int(args.churn)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench churn_cost")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--churn", type=int, default=150, help="tab changes between two measured blocks")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--spare", type=int, default=5, help="extra tabs kept open while churning")
    parser.add_argument("--pause", type=float, default=0.05, help="seconds after each new tab")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--heap", action="store_true", help="diff two heap snapshots of the worker")
    parser.add_argument("--native", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    asyncio.run(measure(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
