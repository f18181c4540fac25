"""Telemetry flood: a page logging as fast as it can while numbered errors keep coming.

``bench/pages/flood.html`` calls ``console.log`` in bursts, one MessageChannel task after
another, for ``--seconds`` (default 30), and every ~100 ms raises a numbered error (odd: thrown,
uncaught; even: ``console.error``). The extension's page scripts (``extension/page/*.js``)
capture it and posts batches that reach the bridge's telemetry store (``core.telemetry``),
whose memory ceiling (``--max-bytes``, default 1 MiB) is small enough to be hit within seconds.
The per-tab entry caps for logs and errors are raised far above it, so the byte ceiling is the
bound that bites.

Reported: events/s ingested (page → bridge), logs captured vs dropped (by the page and by the
store), the numbered errors emitted vs held by the bridge (every one, or exactly which are
missing and why), the store's bytes against its ceiling every second (and after every batch),
delivery latency (capture in the page → batch at the bridge, and where the time goes), CPU by
process, the bridge process's memory before and after, and the capture overhead in the page.

Baselines, same run: the same page in a Chromium without the extension
(``launch_browser(extension=False)``) — time per ``console.log`` paced (interleaved round by
round with the extension's browser, both open at once) and flooding — plus, inside the
extension's page, an iframe's ``console.log``, which the extension does not wrap. The bridge
process's memory across the baseline flood (it receives nothing then) is the noise row.

The browsers run in child processes (``bench.soak``'s browser process), so this process holds
the bridge and the static page server only.

    python -m bench.telemetry_flood [--seconds 30] [--max-bytes 1048576]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import sys
import time
import tracemalloc
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabmcp.config import Config
from tabmcp.core.telemetry.buffers import BufferKind
from tabmcp.demo.server import serve_demo_site
from tabmcp.server.app import BridgeApp, running_bridge

from bench._table import percentile, print_table
from bench.soak import (
    MEMORY_HEADERS,
    PLAYWRIGHT,
    Child,
    Memory,
    cpu_by_group,
    growth_rows,
    loadavg,
    memory_row,
    rss_bytes,
    waiting_by_group,
)

PAGES = Path(__file__).parent / "pages"
HOOK = "window[Symbol.for('tabmcp.telemetry')]"
NUMBERED = re.compile(r"FLOOD-ERROR #(\d+)")


def progress(message: str) -> None:
    print(f"[telemetry_flood {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Samples:
    """Up to ``capacity`` values in a preallocated array (a uniform sample beyond that)."""

    def __init__(self, capacity: int) -> None:
        self._buf = array("d", bytes(8 * capacity))
        self._n = 0
        self.seen = 0
        self._rng = random.Random(0)

    def add(self, value: float) -> None:
        self.seen += 1
        if self._n < len(self._buf):
            self._buf[self._n] = value
            self._n += 1
        elif (j := self._rng.randrange(self.seen)) < len(self._buf):
            self._buf[j] = value

    def values(self) -> Sequence[float]:
        return self._buf[: self._n]


@dataclass
class Ingest:
    """What reached the bridge from the flood tab, counted around ``core.telemetry.ingest``."""

    tab_url: str
    active: bool = False
    batches: int = 0
    flood_logs: int = 0
    console_events: int = 0  # every console event (flood logs and the console.error ones)
    events: int = 0
    page_dropped: Counter[str] = field(default_factory=Counter)
    error_events: Counter[int] = field(default_factory=Counter)  # error number → error events received
    # Capture in the page → batch at the bridge, ms. Preallocated, so recording them does not grow
    # the heap the flood measures.
    error_latency_ms: Samples = field(default_factory=lambda: Samples(20_000))
    log_latency_ms: Samples = field(default_factory=lambda: Samples(200_000))
    batch_ages_ms: Samples = field(default_factory=lambda: Samples(20_000))  # each batch's first event
    paced_latency_ms: list[float] = field(default_factory=list)
    cpu: float = 0.0  # thread CPU seconds inside ingest (the whole process, every tab)
    max_bytes_after_batch: int = 0
    last_at: float = 0.0


def watch_ingest(bridge: BridgeApp, ingest: Ingest) -> None:
    """Wrap the store's ``ingest`` (the core calls it for every batch) to count what arrives."""
    store = bridge.core.telemetry
    original = store.ingest

    def counted(batch: Any) -> Any:
        arrived_ms = time.time() * 1000
        start = time.thread_time()
        report = original(batch)
        ingest.cpu += time.thread_time() - start
        # The core hands the store a typed batch (protocol.Telemetry); read it as the wire has it.
        message = batch.model_dump(mode="json", by_alias=True) if hasattr(batch, "model_dump") else batch
        if str(message.get("url", "")) != ingest.tab_url:
            return report
        if not ingest.active:  # the paced rounds: delivery latency without a flood
            ingest.paced_latency_ms += [
                arrived_ms - float(e.get("ts") or arrived_ms)
                for e in message.get("events") or []
                if isinstance(e, dict) and e.get("kind") == "console"
            ]
            return report
        ingest.batches += 1
        ingest.last_at = time.monotonic()
        first = (message.get("events") or [None])[0]
        if isinstance(first, dict) and first.get("ts"):
            ingest.batch_ages_ms.add(arrived_ms - float(first["ts"]))
        ingest.max_bytes_after_batch = max(ingest.max_bytes_after_batch, store.buffers.total_bytes)
        for kind, n in (message.get("dropped") or {}).items():
            ingest.page_dropped[kind] += n
        for event in message.get("events") or []:
            if not isinstance(event, dict):
                continue
            ingest.events += 1
            if event.get("kind") == "console":
                ingest.console_events += 1
                args = event.get("args") or []
                ingest.flood_logs += bool(args) and args[0] == "flood"
                ingest.log_latency_ms.add(arrived_ms - float(event.get("ts") or arrived_ms))
            elif event.get("kind") == "error" and (m := NUMBERED.search(str(event.get("message", "")))):
                ingest.error_events[int(m.group(1))] += 1
                ingest.error_latency_ms.add(arrived_ms - float(event.get("ts") or arrived_ms))
        return report

    store.ingest = counted  # type: ignore[method-assign, assignment]


async def ev(child: Child, js: str, arg: Any = None, timeout: float = 60) -> Any:
    """``page.evaluate(js, arg)`` in the child's page (slot 0)."""
    answer = await child.ask(timeout=timeout, op="eval", slot=0, js=js, arg=arg)
    if not answer["ok"]:
        raise RuntimeError(f"evaluate failed: {answer['error']}: {answer['message']}")
    return answer["value"]


PAGE_NOW = f"() => ({{raised: window.flood.state.errors, ...{HOOK}.stats()}})"


async def page_stats(child: Child) -> dict[str, Any]:
    stats: dict[str, Any] = await ev(child, f"() => {HOOK} ? {HOOK}.stats() : null") or {}
    return stats


async def flood(child: Child, args: argparse.Namespace, seconds: float) -> dict[str, Any]:
    state: dict[str, Any] = await ev(
        child,
        "(o) => window.flood.start(o)",
        {"seconds": seconds, "burst": args.burst, "errorEveryMs": args.error_every_ms},
        timeout=seconds + 120,
    )
    return state


@dataclass
class Results:
    overhead: list[list[str]] = field(default_factory=list)
    throughput: list[list[str]] = field(default_factory=list)
    logs: list[list[str]] = field(default_factory=list)
    errors: list[list[str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    series: list[list[str]] = field(default_factory=list)
    latency: list[list[str]] = field(default_factory=list)
    cpu: list[list[str]] = field(default_factory=list)
    ceiling: list[list[str]] = field(default_factory=list)
    memory: list[list[str]] = field(default_factory=list)
    growth: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ok: bool = True


async def measure(args: argparse.Namespace) -> Results:
    res = Results()
    res.notes.append(
        f"load average at the start: {loadavg()} ({os.cpu_count()} cores, shared with other jobs)"
    )
    config = Config().with_overrides(
        {
            "server": {"port": 0},
            "store": {"path": ":memory:"},
            "telemetry": {
                "max_bytes": args.max_bytes,
                "max_event_bytes": min(64 * 1024, args.max_bytes // 4),
                # Entry caps far above what the ceiling lets in: the byte ceiling is the bound.
                "buffers": {"logs": 100_000, "errors": 10_000},
            },
        }
    )
    async with running_bridge(config) as bridge, serve_demo_site(site_dir=PAGES) as site:
        store = bridge.core.telemetry
        url = site + "flood.html"
        ingest = Ingest(url)
        watch_ingest(bridge, ingest)
        progress("starting two Chromiums (child processes): without and with the extension")
        plain = await Child.start("--child", "browser", "-", "--no-extension")
        ext = await Child.start("--child", "browser", f"ws://127.0.0.1:{bridge.port}/extension")
        try:
            for child in (plain, ext):
                child.serve_replies()
            if not await bridge.core.wait_connected(15):
                raise RuntimeError("the extension did not connect to the bridge")
            for child in (plain, ext):
                opened = await child.ask(op="open", slot=0, url=url)
                if not opened["ok"]:
                    raise RuntimeError(f"could not open {url}: {opened}")
            if not await page_stats(ext):
                raise RuntimeError(f"{HOOK} is missing in the page: the capture scripts (extension/page/*.js) did not load")
            tab_id = await _tab_id(bridge, url)

            # -- capture cost, paced: rounds alternate between the browsers -------------------
            progress(f"paced console.log: {args.paced_rounds} rounds of 100 calls in each browser")
            per_call: dict[str, list[float]] = {"plain": [], "wrapped": [], "iframe": []}
            for r in range(args.paced_rounds):
                order = (plain, ext) if r % 2 else (ext, plain)
                for child in order:
                    out = await ev(
                        child, "(o) => window.flood.round(o)", {"perRound": 100, "rawFirst": bool(r % 2)}
                    )
                    if child is plain:
                        per_call["plain"].append(out["wrapped"] * 1000 / out["calls"])
                    else:
                        per_call["wrapped"].append(out["wrapped"] * 1000 / out["calls"])
                        per_call["iframe"].append(out["raw"] * 1000 / out["calls"])
                        if out["rawWrapped"]:
                            res.notes.append(
                                "the iframe's console.log was wrapped too: the in-page baseline is void"
                            )
                await asyncio.sleep(0.35)  # the extension's batch goes (250 ms timer), its cap resets
            await ev(ext, f"() => {HOOK}.flush()")
            await asyncio.sleep(0.5)

            # -- baseline flood: the browser without the extension --------------------------------
            store.clear()
            progress(f"baseline flood without the extension: {args.baseline_seconds:g} s")
            idle_before = Memory.take()
            base = await flood(plain, args, args.baseline_seconds)
            idle_after = Memory.take()

            # -- the flood ------------------------------------------------------------------------
            progress(
                f"flood with the extension: {args.seconds:g} s, tab {tab_id}, "
                f"ceiling {args.max_bytes:,} bytes"
            )
            store.clear()  # the paced rounds' logs out: the flood starts from an empty store
            stats0 = await page_stats(ext)
            posted0 = int(stats0.get("batches", 0))  # batches of the paced rounds
            snapshot = tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None
            before = Memory.take()
            ingest.active = True
            labels = {plain.proc.pid: PLAYWRIGHT, ext.proc.pid: PLAYWRIGHT}
            prefixes = {plain.proc.pid: "no extension: ", ext.proc.pid: "extension: "}
            cpu0, t0, pcpu0 = cpu_by_group(labels, prefixes), time.monotonic(), time.process_time()
            wait0 = waiting_by_group(labels, prefixes)
            flooding = asyncio.create_task(flood(ext, args, args.seconds))
            # The page's own counters, read as often as an evaluate gets through (each round trip
            # is also a measure of how far behind the CDP connection is).
            latest: dict[str, Any] = {}
            round_trips: list[float] = []

            async def poll_page() -> None:
                while not flooding.done():
                    sent = time.monotonic()
                    value = await ev(ext, PAGE_NOW)
                    round_trips.append(time.monotonic() - sent)
                    latest.update(value, at=sent)
                    await asyncio.sleep(0.5)

            poller = asyncio.create_task(poll_page())
            last_events = 0
            while not flooding.done():
                await asyncio.wait({flooding}, timeout=1.0)
                page = latest or {"raised": 0, "batches": posted0, "queued": 0, "at": t0}
                used = store.buffers.total_bytes
                res.series.append(
                    [
                        f"{time.monotonic() - t0:.0f}",
                        f"{used:,}",
                        f"{used / args.max_bytes:.0%}",
                        f"{store.buffers.count(BufferKind.LOGS):,}",
                        f"{store.buffers.count(BufferKind.ERRORS):,}",
                        f"{ingest.events - last_events:,}",
                        f"{ingest.batches:,}",
                        f"{page['raised']} / {page['batches'] - posted0:,} / {page['queued']:,}",
                        f"{time.monotonic() - page['at']:.1f}",
                        f"{sum(ingest.page_dropped.values()):,}",
                        f"{rss_bytes() / 2**20:.1f}",
                    ]
                )
                last_events = ingest.events
            state = flooding.result()
            flood_wall = time.monotonic() - t0
            cpu1, wait1 = cpu_by_group(labels, prefixes), waiting_by_group(labels, prefixes)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(poller, 30)
            progress("flood over; draining the page's queue")
            for _ in range(40):
                if not (await page_stats(ext)).get("queued"):
                    break
                await ev(ext, f"() => {HOOK}.flush()")
                await asyncio.sleep(0.3)
            drain_deadline = time.monotonic() + 120
            while time.monotonic() - ingest.last_at < 1.0 and time.monotonic() < drain_deadline:
                await asyncio.sleep(0.2)  # until a second passes without a batch: the last one is in
            ingest.active = False
            wall = time.monotonic() - t0
            cpu = time.process_time() - pcpu0
            stats1 = await page_stats(ext)
            after = Memory.take()
            if snapshot is not None:
                res.growth = growth_rows(snapshot, tracemalloc.take_snapshot())
                del snapshot
            drops = store.buffers.drop_table().get(tab_id, {})
            held_errors = Counter(
                int(m.group(1))
                for e in store.buffers.entries(BufferKind.ERRORS, tab_id)
                if (m := NUMBERED.search(getattr(e.event, "message", "") or ""))
            )
            logs_held = store.buffers.count(BufferKind.LOGS, tab_id)
            bytes_held = store.buffers.total_bytes
            removed = store.clear()
            cleared = Memory.take()
        finally:
            for child in (plain, ext):
                await child.close()

    # -- tables -----------------------------------------------------------------------------------
    def store_dropped(kind: str, reason: str) -> int:
        return int(drops.get(kind, {}).get(reason, 0))

    def page_dropped(kind: str) -> int:
        return int((stats1.get("dropped") or {}).get(kind, 0)) - int(
            (stats0.get("dropped") or {}).get(kind, 0)
        )

    med = {k: statistics.median(v) for k, v in per_call.items()}
    p90 = {k: percentile(v, 90) for k, v in per_call.items()}
    base_flood = base["logMs"] * 1000 / max(1, base["logs"])
    ext_flood = state["logMs"] * 1000 / max(1, state["logs"])
    res.overhead = [
        [
            "paced: every call captured",
            "Chromium without the extension (baseline)",
            f"{med['plain']:.1f}",
            f"{p90['plain']:.1f}",
            "1.00x",
        ],
        [
            "",
            "with the extension: page console.log (wrapped)",
            f"{med['wrapped']:.1f}",
            f"{p90['wrapped']:.1f}",
            f"{med['wrapped'] / med['plain']:.2f}x",
        ],
        [
            "",
            "with the extension: iframe console.log (not wrapped)",
            f"{med['iframe']:.1f}",
            f"{p90['iframe']:.1f}",
            f"{med['iframe'] / med['plain']:.2f}x",
        ],
        [
            "flood: most calls dropped by the page's cap",
            "Chromium without the extension (baseline)",
            f"{base_flood:.1f}",
            "-",
            "1.00x",
        ],
        ["", "with the extension", f"{ext_flood:.1f}", "-", f"{ext_flood / base_flood:.2f}x"],
    ]
    flood_s = (state["endedAt"] - state["startedAt"]) / 1000
    base_s = (base["endedAt"] - base["startedAt"]) / 1000
    res.throughput = [
        [
            "without the extension (baseline)",
            f"{base_s:.1f}",
            f"{base['logs']:,}",
            f"{base['logs'] / base_s:,.0f}",
            str(base["errors"]),
            f"{base['maxGapMs']:.0f}",
            "-",
            "-",
            "-",
            "-",
        ],
        [
            "with the extension",
            f"{flood_s:.1f}",
            f"{state['logs']:,}",
            f"{state['logs'] / flood_s:,.0f}",
            str(state["errors"]),
            f"{state['maxGapMs']:.0f}",
            f"{ingest.batches:,}",
            f"{ingest.events / wall:,.0f}",
            f"{ingest.cpu * 1e6 / max(1, ingest.events):.0f}",
            f"{cpu / wall:.0%}",
        ],
    ]

    console_calls = state["logs"] + state["consoleErrors"]
    dropped_in_page = page_dropped("console")
    received = ingest.console_events
    evicted_memory, evicted_capacity = store_dropped("logs", "memory"), store_dropped("logs", "capacity")
    res.logs = [
        ["console calls in the page (console.log + console.error)", f"{console_calls:,}", "100%"],
        [
            "dropped in the page (its per-batch cap), reported in the batches",
            f"{dropped_in_page:,}",
            _pct(dropped_in_page, console_calls),
        ],
        ["received by the bridge (console events)", f"{received:,}", _pct(received, console_calls)],
        [
            "lost between page and bridge (calls - dropped - received)",
            f"{console_calls - dropped_in_page - received:,}",
            "must be 0",
        ],
        [
            "evicted by the store's byte ceiling (reason memory)",
            f"{evicted_memory:,}",
            _pct(evicted_memory, received),
        ],
        [
            "evicted by the per-tab cap (reason capacity)",
            f"{evicted_capacity:,}",
            _pct(evicted_capacity, received),
        ],
        ["held by the bridge at the end", f"{logs_held:,}", _pct(logs_held, received)],
        [
            "lost in the store (received - evicted - held)",
            f"{received - evicted_memory - evicted_capacity - logs_held:,}",
            "must be 0",
        ],
        [
            "page drops the store counted (kind logs, reason page)",
            f"{store_dropped('logs', 'page'):,}",
            "= dropped in the page",
        ],
    ]
    if stats1.get("queued"):
        res.notes.append(f"{stats1['queued']} events were still queued in the page at the end")
    if stats1.get("internalErrors"):
        res.notes.append(f"the capture scripts counted {stats1['internalErrors']} internal errors")

    emitted = set(range(1, int(state["errors"]) + 1))
    received_numbers = set(ingest.error_events)
    held = set(held_errors)
    lost = sorted(emitted - held)
    res.errors = [
        [
            "numbered errors raised by the page",
            f"{len(emitted):,}",
            f"{state['thrown']} thrown, {state['consoleErrors']} console.error",
        ],
        [
            "dropped in the page (kind error)",
            f"{page_dropped('error'):,}",
            "the page holds up to 100 per batch",
        ],
        [
            "received by the bridge (distinct numbers)",
            f"{len(received_numbers):,}",
            f"{sum(ingest.error_events.values()):,} error events",
        ],
        [
            "held by the bridge at the end (distinct numbers)",
            f"{len(held):,}",
            f"{sum(held_errors.values()):,} entries, "
            f"{sum(1 for n in held_errors.values() if n > 1)} numbers twice",
        ],
        [
            "evicted from errors (memory / capacity)",
            f"{store_dropped('errors', 'memory')} / {store_dropped('errors', 'capacity')}",
            "must be 0 / 0",
        ],
        ["missing (raised, not held)", f"{len(lost)}", "must be 0"],
    ]
    for n in lost[:20]:
        why = "never reached the bridge" if n not in received_numbers else "reached the bridge, then evicted"
        res.missing.append(f"#{n} ({'thrown' if n % 2 else 'console.error'}): {why}")
    for label, samples in (
        ("numbered errors (flood)", ingest.error_latency_ms),
        ("console events (flood)", ingest.log_latency_ms),
        ("console events (paced rounds, no flood)", ingest.paced_latency_ms),
        ("a batch's first event, when the batch reaches the bridge", ingest.batch_ages_ms),
    ):
        values = samples.values() if isinstance(samples, Samples) else samples
        res.latency.append(
            [
                label,
                f"{samples.seen if isinstance(samples, Samples) else len(values):,}",
                *(f"{percentile(values, p):.0f}" for p in (50, 90, 99)),
                f"{max(values, default=float('nan')):.0f}",
            ]
        )
    res.latency.append(
        [
            "page.evaluate round trip (Playwright, for comparison)",
            f"{len(round_trips):,}",
            *(f"{percentile(round_trips, p) * 1000:.0f}" for p in (50, 90, 99)),
            f"{max(round_trips, default=float('nan')) * 1000:.0f}",
        ]
    )
    duration = flood_wall
    res.cpu = [
        [
            group,
            f"{(cpu1.get(group, 0.0) - cpu0.get(group, 0.0)):.1f}",
            f"{(cpu1.get(group, 0.0) - cpu0.get(group, 0.0)) / duration:.0%}",
            f"{wait1.get(group, 0.0) - wait0.get(group, 0.0):.1f}",
        ]
        for group in sorted(cpu1, key=lambda g: cpu0.get(g, 0.0) - cpu1[g])
        if cpu1[group] - cpu0.get(group, 0.0) >= 0.05
    ]
    peak = max((int(r[1].replace(",", "")) for r in res.series), default=0)
    res.ceiling = [
        [
            f"{args.max_bytes:,}",
            f"{peak:,}",
            f"{ingest.max_bytes_after_batch:,}",
            "yes" if ingest.max_bytes_after_batch <= args.max_bytes else "NO",
            f"{bytes_held:,}",
            f"{removed:,}",
        ]
    ]
    res.ok = not lost and ingest.max_bytes_after_batch <= args.max_bytes
    res.memory = [
        memory_row("baseline flood, browser without the extension (bridge idle)", idle_before, idle_after),
        memory_row("flood with the extension (store filled to its ceiling)", before, after),
        memory_row("from before the flood to after store.clear()", before, cleared),
    ]
    res.notes.append(
        f"load average at the end: {loadavg()}; flood wall time incl. drain {wall:.1f} s "
        f"(the page's own flood {flood_wall:.1f} s)"
    )
    return res


async def _tab_id(bridge: BridgeApp, url: str) -> int:
    for _ in range(200):
        for tab in bridge.core.registry.tabs.values():
            if tab.url == url:
                return tab.tab_id
        await asyncio.sleep(0.05)
    raise RuntimeError(f"the bridge never saw a tab at {url}")


def _pct(n: int, of: int) -> str:
    return f"{n / of:.1%}" if of else "-"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.telemetry_flood")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument(
        "--baseline-seconds", type=float, help="flood without the extension (default: --seconds)"
    )
    parser.add_argument(
        "--max-bytes", type=int, default=1024 * 1024, help="the store's memory ceiling in bytes"
    )
    parser.add_argument("--burst", type=int, default=200, help="console.log calls per task")
    parser.add_argument("--error-every-ms", type=int, default=100)
    parser.add_argument(
        "--paced-rounds", type=int, default=30, help="rounds of 100 captured calls per browser"
    )
    parser.add_argument(
        "--tracemalloc", action="store_true", help="trace allocations too (costs much bridge CPU)"
    )
    args = parser.parse_args(argv)
    if args.baseline_seconds is None:
        args.baseline_seconds = args.seconds
    if args.tracemalloc:
        tracemalloc.start()
    try:
        res = asyncio.run(measure(args))
    finally:
        tracemalloc.stop()

    print_table(
        "Capture cost in the page: µs per console.log",
        ["mode", "console.log of", "median µs", "p90 µs", "vs baseline"],
        res.overhead,
        note="performance.now() around the calls, in the page. Paced: rounds of 100 calls, alternating "
        "between the two browsers (both open), a pause after each so every call is captured. Flood: the "
        "page's whole run. "
        "Playwright's CDP session receives every console message in every browser, so all rows include that.",
    )
    print_table(
        f"Flood: {args.seconds:g} s, bursts of {args.burst} console.log per task, a numbered error every "
        f"{args.error_every_ms} ms",
        [
            "browser",
            "s",
            "console.log calls",
            "calls/s",
            "errors raised",
            "longest gap between tasks ms",
            "batches",
            "events/s ingested",
            "bridge ingest CPU µs/event",
            "bridge process CPU",
        ],
        res.throughput,
        note="Ingested: the flood tab's events through core.telemetry.ingest, over the flood and its drain; "
        "CPU is the share of one core (tracemalloc only with --tracemalloc).",
    )
    print_table("Logs: captured vs dropped", ["", "count", "share"], res.logs)
    print_table(
        "Numbered errors: raised by the page vs held by the bridge",
        ["", "count", "detail"],
        res.errors,
        note="Held: an entry of the errors buffer carries the number (a thrown error arrives as an error "
        "event, a "
        "console.error as a console event plus an error event).",
    )
    for line in res.missing:
        print(f"- missing {line}")
    print_table(
        "Store bytes vs ceiling, every second",
        [
            "s",
            "bytes",
            "of ceiling",
            "logs held",
            "errors held",
            "events in the last s",
            "batches ingested",
            "page: errors raised / batches posted / queued",
            "page figures read ≤ s ago",
            "page drops so far",
            "bridge RSS MiB",
        ],
        res.series,
        note="Page figures: flood.state and the extension's own counters (the capture's stats()), read by "
        "page.evaluate as often as one gets through (so they lag: at most the given age).",
    )
    print_table(
        f"CPU during the flood ({args.seconds:g} s)",
        ["process", "CPU s", "of one core", "waited for a CPU s"],
        res.cpu,
        note="From /proc: utime+stime, and the schedstat run-queue time of the threads (ready to run, no CPU "
        "free: the machine is shared). Over the page's flood, not its drain.",
    )
    print_table(
        "Delivery latency: captured in the page → batch at the bridge (ms)",
        ["events", "count", "p50", "p90", "p99", "max"],
        res.latency,
        note="The event's ts (the page's clock at capture) against the bridge's clock when the batch reaches "
        "ingest; one machine, so the clocks agree to about a millisecond.",
    )
    print_table(
        "Ceiling",
        [
            "ceiling",
            "max sampled",
            "max after any batch",
            "held under the ceiling",
            "held at the end",
            "entries cleared after",
        ],
        res.ceiling,
        note="Bytes as the store counts them (the JSON size of the events), checked after every batch.",
    )
    print_table(
        "Bridge process memory (after gc.collect())",
        MEMORY_HEADERS,
        res.memory,
        note="This process holds the bridge and the static page server (the browsers run in child "
        "processes). The "
        "ceiling bounds the events' JSON size; the Python objects that hold them take more.",
    )
    if res.growth:
        print_table(
            "Largest tracemalloc differences across the flood (by line)",
            ["where", "KiB", "blocks"],
            res.growth,
        )
    for note in res.notes:
        print(f"- {note}")
    return 0 if res.ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
