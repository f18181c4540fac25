"""tools/list latency at 100, 1,000 and 5,000 page tools, per disclosure profile, over real HTTP.

Tools are the MCP catalog's real definitions (replicated with distinct names past 682), spread
over tabs of 50 with categories of 10, registered straight into the bridge's registry (no
browser: this measures the bridge). Each size is measured twice: "after a change" (the first
tools/list after the registry changed: the listing is built) and "unchanged" (memoized). The
baseline is the passthrough profile of the same size, in the same run. The MCP client (the
official SDK ``Client`` over Streamable HTTP) runs in its own process, as users run it
(bench/_client.py), and times each tools/list there; the bridge runs in this process. Then
issue 12's targets as PASS/FAIL lines: at 5,000 tools, p50 after a change ≤ 5 ms in every profile
and unchanged ≤ 1 ms.

    python -m bench.listing_latency [--rounds 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from bench._client import ClientProcess
from bench._data import catalog_path
from bench._table import fmt_ms, percentile, print_table
from tabmcp.config import Config
from tabmcp.protocol import TabSnapshot
from tabmcp.server.app import running_bridge

SIZES = (100, 1_000, 5_000)
PROFILES = ("passthrough", "categories", "meta", "hybrid")
TARGET_SIZE = 5_000


def catalog_tools() -> list[dict[str, Any]]:
    path = catalog_path()
    if path is None:
        return [{"name": f"tool_{i}", "description": f"Tool number {i}.",
                 "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}}} for i in range(682)]
    data = json.loads(path.read_text())
    return [t for c in data["categories"] for t in c["tools"]]


def snapshots(n: int) -> list[TabSnapshot]:
    base = catalog_tools()
    tools = []
    for i in range(n):
        t = dict(base[i % len(base)])
        t["name"] = f"{t['name']}_{i // len(base)}" if i >= len(base) else t["name"]
        tools.append(t)
    out = []
    for tab, start in enumerate(range(0, n, 50)):
        chunk = tools[start:start + 50]
        cats = [{"name": f"group_{tab}_{j}", "description": f"Group {j} of tab {tab}",
                 "tools": [t["name"] for t in chunk[j * 10:(j + 1) * 10]]} for j in range((len(chunk) + 9) // 10)]
        out.append(TabSnapshot.model_validate({"tabId": tab + 1, "url": f"https://site{tab}.test/",
                                               "tools": chunk, "categories": cats}))
    return out


async def measure(n: int, profile: str, rounds: int) -> tuple[list[float], list[float], int]:
    config = Config().with_overrides({"server": {"port": 0}, "store": {"path": ":memory:"},
                                      "disclosure": {"profile": profile}})
    async with running_bridge(config) as bridge:
        snaps = snapshots(n)
        bridge.hub.registry.sync(snaps)
        client = await ClientProcess.start("lister", "--http", f"http://127.0.0.1:{bridge.port}/mcp")
        try:
            cold: list[float] = []
            warm: list[float] = []
            for _ in range(rounds):
                bridge.hub.registry.apply(snaps[0].model_copy(update={"title": f"t{time.perf_counter()}"}))
                cold += (await client.ask(op="list", rounds=1))["samples"]
                warm += (await client.ask(op="list", rounds=1))["samples"]
            return cold, warm, int(client.ready["tools"])
        finally:
            await client.close()


async def run(rounds: int) -> tuple[list[list[str]], list[str]]:
    rows: list[list[str]] = []
    targets: list[str] = []
    for n in SIZES:
        base: float | None = None
        for profile in PROFILES:
            r = max(5, rounds // (n // 100 or 1)) if n > 100 else rounds
            cold, warm, listed = await measure(n, profile, r)
            if profile == "passthrough":
                base = percentile(cold, 50)
            assert base is not None
            rows.append([f"{n:,}", profile, str(listed), fmt_ms(percentile(cold, 50)), fmt_ms(percentile(cold, 99)),
                         fmt_ms(percentile(warm, 50)), f"{percentile(cold, 50) / base:.2f}x"])
            if n == TARGET_SIZE:
                for what, value, limit in (("after a change", percentile(cold, 50), 0.005),
                                           ("unchanged", percentile(warm, 50), 0.001)):
                    verdict = "PASS" if value <= limit else "FAIL"
                    targets.append(f"- {verdict} {profile}, {n:,} tools, {what}: p50 {fmt_ms(value)} ms "
                                   f"(target ≤ {fmt_ms(limit)} ms)")
    return rows, targets


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.listing_latency")
    parser.add_argument("--rounds", type=int, default=40, help="changes measured at 100 tools (fewer at larger sizes)")
    args = parser.parse_args(argv)
    rows, targets = asyncio.run(run(rounds=args.rounds))
    print_table(
        "tools/list latency through the MCP SDK client in its own process, over HTTP (2026-07-28)",
        ["page tools", "profile", "tools listed", "after a change p50 ms", "p99 ms", "unchanged p50 ms",
         "vs passthrough"],
        rows,
        note="After a change: the listing is rebuilt; unchanged: served from the memo. Timed in the client process: "
        "HTTP and the SDK on both sides are included. The machine is shared: absolute numbers move with its load.",
    )
    print("\nTargets (issue 12):")
    print("\n".join(targets))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
