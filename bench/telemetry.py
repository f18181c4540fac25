"""tools/list with full telemetry buffers, and what the telemetry tools cost in tokens.

The design note asks tools/list to answer "in under 1 ms, just reading buffer lengths". This
measures the telemetry tools' definitions built from a store whose every buffer is full, against
the same build from an empty store (the baseline), and the whole tools/list answer of a bridge
holding 1,000 page tools with and without full buffers.

    python -m bench.telemetry
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tabmcp.config import Config
from tabmcp.core.disclosure import ClientView
from tabmcp.core.telemetry import TelemetryState, build_tool_definitions
from tabmcp.core.tokens import get_counter, listing_text
from tabmcp.protocol import TabSnapshot
from tabmcp.wiring import BridgeCore

from bench._table import fmt_ms, percentile, print_table

ORIGIN = "https://shop.test"


def _events(n: int, start: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"kind": "navigation", "ts": start, "loadId": "L1", "url": ORIGIN + "/", "navType": "load"}]
    for i in range(n):
        ts = start + i
        out += [
            {"kind": "console", "ts": ts, "level": "log", "args": [f"log line {i}"]},
            {"kind": "error", "ts": ts, "message": f"TypeError {i}", "errorType": "uncaught"},
            {"kind": "network", "ts": ts, "requestId": f"r{i}", "api": "fetch", "method": "GET",
             "url": f"{ORIGIN}/api/items/{i}", "status": 200, "statusText": "OK", "startTime": ts, "duration": 12,
             "requestHeaders": {}, "responseHeaders": {"content-type": "application/json"},
             "responseBody": '{"id": %d, "name": "item"}' % i, "mimeType": "application/json"},
            {"kind": "websocket", "ts": ts, "connectionId": "ws1", "event": "message", "url": "wss://shop.test/ws",
             "direction": "in", "data": f"frame {i}", "size": 8},
            {"kind": "action", "ts": ts, "action": "click", "url": ORIGIN + "/",
             "selectors": {"testId": f"b{i}", "css": f"#b{i}"}, "tag": "button"},
        ]
    return out


def full_store() -> TelemetryState:
    store = TelemetryState()
    start = time.time() * 1000
    for chunk in range(20):  # well past every per-kind buffer limit
        store.ingest({"type": "telemetry", "tabId": 1, "url": ORIGIN + "/", "events": _events(200, start + chunk * 1000)})
    store.ingest({"type": "telemetry", "tabId": 1, "url": ORIGIN + "/", "events": [
        {"kind": "vitals", "ts": start, "loadId": "L1", "metrics": {"LCP": 1200, "CLS": 0.02}}]})
    store.focus(1)
    return store


def _time(fn: Callable[[], object], n: int) -> list[float]:
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return samples


def _core_with_tools(store: TelemetryState | None) -> BridgeCore:
    core = BridgeCore(Config().with_overrides({"store": {"path": ":memory:"}}))
    for tab in range(20):
        tools = [{"name": f"tool_{tab}_{i}", "description": f"Tool {i} of tab {tab}.",
                  "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}}} for i in range(50)]
        core.registry.apply(TabSnapshot.model_validate({"tabId": tab, "url": f"{ORIGIN}/{tab}", "tools": tools}))
    if store is not None:
        core.telemetry = store
    return core


def main(argv: list[str]) -> int:
    empty, full = TelemetryState(), full_store()
    counts = full.counts()
    rows = []
    for label, store in (("empty buffers (baseline)", empty), ("full buffers", full)):
        samples = _time(lambda s=store: build_tool_definitions(s.counts(), dynamic=False, observed=True,  # type: ignore[misc]
                                                               exposure_enabled=True), 5000)
        rows.append(["telemetry tool definitions", label, fmt_ms(percentile(samples, 50)),
                     fmt_ms(percentile(samples, 99))])
    base = percentile(_time(lambda: _core_with_tools(None).listing(ClientView()), 1), 50)  # warm imports
    for label, maybe_store in (("empty buffers (baseline)", None), ("full buffers", full)):
        core = _core_with_tools(maybe_store)
        core.listing(ClientView(), profile="passthrough")
        samples = _time(lambda h=core: h.listing(ClientView(), profile="passthrough"), 300)  # type: ignore[misc]
        rows.append(["whole tools/list, 1,000 page tools", label, fmt_ms(percentile(samples, 50)),
                     fmt_ms(percentile(samples, 99))])
    del base
    print_table(
        "tools/list with telemetry buffers",
        ["what is built", "store", "p50 ms", "p99 ms"],
        rows,
        note=(f"Full store: {counts.logs} logs, {counts.errors} errors, {counts.network} requests, "
              f"{counts.websocket_events} WebSocket frames, {counts.actions} actions (every buffer at its limit)."),
    )
    counter = get_counter()
    tokens = counter.count(listing_text(build_tool_definitions(full.counts(), dynamic=False, observed=True,
                                                               exposure_enabled=True)))
    first = counter.count(listing_text(build_tool_definitions(empty.counts(), dynamic=True, observed=False,
                                                              exposure_enabled=True)))
    print_table(
        "Tokens of the telemetry tools in tools/list",
        ["state", "tokens"],
        [["every tool, modes with data (full store)", f"{tokens:,}"],
         ["before the first observe (pre-2026-07-28 client, no data)", f"{first:,}"]],
        note=f"Counted with {counter.label}.",
    )
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
