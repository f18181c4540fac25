"""How fast the popup opens: 20 tabs with tools and 1,000 rows in the activity log.

A real bridge, real Chromium with the extension, 20 tabs of the demo site (each with its tools),
and 1,000 activity rows recorded in the bridge's log (real summaries, over the 20 tabs). The
popup (``popup/popup.html``, opened in a tab as the e2e tests do) is loaded ``--rounds`` times;
each load reports, from the popup's own clock (``performance.now()``, 0 = navigation start):

* ``data``: both answers are in (the worker's report, and the bridge's ``panel.state`` through
  the worker over the WebSocket);
* ``ready``: the first full render is done (``performance.mark("tabmcp-popup-ready")``).

Baselines in the same run: the popup with no tabs with tools and an empty log (before the tabs
open), and the options page (a small extension page with a module script; ``DOMContentLoaded``)
as the floor of loading any extension page. Also the bridge's share: ``BridgeCore.panel_state()``
in-process. The target (issue 13): open in < 100 ms with 20 tabs and 1,000 rows.

    python -m bench.popup [--rounds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from tabmcp.config import Config
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import launch_browser
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.protocol import PanelQuery
from tabmcp.server.app import running_bridge

from bench._table import percentile, print_table

TABS = 20
ROWS = 1_000
TARGET_MS = 100.0
POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"
MARKS = """() => {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  return { data: at('tabmcp-popup-data'), ready: at('tabmcp-popup-ready') };
}"""


async def _popup_times(page: Any, url: str, rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"data": [], "ready": []}
    for _ in range(rounds):
        await page.goto(url)
        await page.locator("body[data-ready]").wait_for()
        marks = await page.evaluate(MARKS)
        for k in out:
            out[k].append(float(marks[k]))
    return out


async def _options_times(page: Any, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        await page.goto(OPTIONS)
        times.append(float(await page.evaluate(
            "() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")))
    return times


def _record_rows(core: Any) -> None:
    tabs = list(core.registry.tabs.values())
    for i in range(ROWS):
        tab = tabs[i % len(tabs)]
        core.activity.record(
            at=time.time() - (ROWS - i), client="bench-agent", tool=f"tool_{i % 37}", tab_id=tab.tab_id,
            origin=tab.origin, outcome="ok" if i % 9 else "WRITES_DISABLED", duration_ms=3.0 + i % 50,
            arguments={"query": f"item {i}", "page": i % 7}, result={"items": [f"result {i}"] * 3},
        )
    core.activity.flush()


async def run(rounds: int) -> list[list[Any]]:
    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        config = Config().with_overrides({"server": {"port": 0}, "store": {"path": str(Path(tmp) / "b.db")},
                                          "policy": {"allow_writes": True}})
        async with running_bridge(config) as bridge, serve_demo_site() as site:
            async with launch_browser(bridge_url=f"ws://127.0.0.1:{bridge.port}/extension", headless=True) as browser:
                assert await bridge.core.wait_connected(20), "the extension did not connect"
                popup = await browser.context.new_page()
                await popup.set_viewport_size({"width": 424, "height": 600})
                await _popup_times(popup, POPUP, 2)  # warm up: the worker's modules, the popup's files
                empty = await _popup_times(popup, POPUP, rounds)
                options = await _options_times(popup, rounds)
                for i in range(TABS):
                    page = await browser.context.new_page()
                    await page.goto(f"{site}/?tab={i}")
                deadline = time.monotonic() + 60
                while sum(1 for t in bridge.core.registry.tabs.values() if t.tools) < TABS:
                    if time.monotonic() > deadline:
                        raise RuntimeError("the demo tabs did not all register their tools")
                    await asyncio.sleep(0.1)
                _record_rows(bridge.core)
                tools = sum(len(t.tools) for t in bridge.core.registry.tabs.values())
                full = await _popup_times(popup, POPUP, rounds)
                all_rows = await _popup_times(popup, POPUP + "?rows=1000", rounds)
                core = []
                for _ in range(rounds):
                    t0 = time.perf_counter()
                    bridge.core.panel_state(PanelQuery(type="panel.query", request_id="b", limit=100))
                    core.append((time.perf_counter() - t0) * 1000)

        def row(label: str, times: dict[str, list[float]] | None, ready: list[float]) -> list[Any]:
            data = times["data"] if times else []
            return [label, f"{percentile(data, 50):.1f}" if data else "–", f"{percentile(ready, 50):.1f}",
                    f"{percentile(ready, 95):.1f}", f"{percentile(ready, 50) / percentile(options, 50):.2f}"]

        rows.append(row("options page (floor: any extension page, DOMContentLoaded)", None, options))
        rows.append(row("popup, no tabs with tools, empty log", empty, empty["ready"]))
        rows.append(row(f"popup, {TABS} tabs ({tools} tools), {ROWS} rows in the log, 100 shown", full, full["ready"]))
        rows.append(row(f"popup, {TABS} tabs, {ROWS} rows in the log, all {ROWS} shown", all_rows, all_rows["ready"]))
        rows.append(["bridge: BridgeCore.panel_state() in-process (100 rows)", "–", f"{percentile(core, 50):.1f}",
                     f"{percentile(core, 95):.1f}", "–"])
        verdict = percentile(full["ready"], 50)
        print_table(
            f"Popup open time, {rounds} loads each (ms from navigation start)",
            ["what", "data p50", "ready p50", "ready p95", "× floor"],
            rows,
            note=f"Target (issue 13): open in < {TARGET_MS:.0f} ms with {TABS} tabs and {ROWS} log rows: "
                 f"{'PASS' if verdict < TARGET_MS else 'FAIL'} (p50 {verdict:.1f} ms).",
        )
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.popup")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    asyncio.run(run(args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(__import__("sys").argv[1:]))
