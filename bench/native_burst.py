"""Do no harm on native: what our extension costs a page registering many tools with the browser.

In Chromium's native WebMCP (``--enable-features=WebMCP``), a page (``bench/pages/catalog-as-is.html?flat&n=N``)
registers the first N tools of the MCP catalog, one ``await registerTool`` each, as their servers
wrote them. Measured in the same run, in the same browser build, with and without our extension
(both open, runs alternated, the median of ``--repeat``):

* **page ms**: the page's own time from its first ``registerTool`` to its last one's promise
  settled (its main thread shares the time with the extension's page scripts);
* **to bridge ms** (with the extension): from the first ``registerTool`` until every tool the
  page's ``getTools()`` lists is in the bridge's registry.

    ./dev bench native_burst        (python -m bench.native_burst [--n 100 --n 300 --n 682])
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass
from typing import Any

from tabmcp.config import Config
from tabmcp.core import models
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import launch_browser
from tabmcp.server.app import BridgeApp, running_bridge

from bench._bridge import until_settled
from bench._data import catalog_path
from bench._table import print_table
from bench.catalog_as_is import PAGES

SIZES = [100, 300, 682]


@dataclass
class Burst:
    n: int
    accepted: int
    page_ms: float
    bridge_ms: float | None = None


def forget_parsed() -> None:
    """The bridge's memo of parsed tool definitions, emptied: each run is a page it never saw."""
    models._PARSED.clear()
    models._DIALECTS.clear()


async def burst(browser: Any, site: str, n: int, bridge: BridgeApp | None) -> Burst:
    if bridge is not None:
        forget_parsed()
    page = await browser.context.new_page()
    try:
        await page.goto(f"{site}catalog-as-is.html?flat&n={n}")
        await page.locator("body[data-ready]").wait_for(timeout=600_000)
        out = await page.evaluate("window.catalog")
        result = Burst(n, len(out["accepted"]), out["registerMs"])
        if bridge is not None:
            await until_settled(bridge.core, page.url, out["accepted"], timeout_s=600, poll_s=0.02)
            result.bridge_ms = time.time() * 1000 - out["startedAt"]
        return result
    finally:
        await page.close()


async def measure(sizes: list[int], repeat: int) -> tuple[list[Burst], list[Burst]]:
    """Both browsers open at once, their runs alternated (the machine's load drifts); each N the
    run of median page time of ``repeat``."""
    catalog = catalog_path()
    if catalog is None:
        raise SystemExit("mcp_catalog.json not found (set TABMCP_DATA)")
    config = Config().with_overrides({"server": {"port": 0}, "store": {"path": ":memory:"}})
    runs: dict[tuple[bool, int], list[Burst]] = {}
    async with serve_demo_site(site_dir=PAGES, files={"/data/catalog.json": catalog}) as site:
        async with running_bridge(config) as bridge:
            url = f"ws://127.0.0.1:{bridge.port}/extension"
            async with launch_browser(headless=True, webmcp=True, extension=False) as plain, \
                    launch_browser(bridge_url=url, headless=True, webmcp=True) as browser:
                assert await bridge.core.wait_connected(20), "the extension did not connect"
                for _ in range(repeat):
                    for n in sizes:
                        runs.setdefault((False, n), []).append(await burst(plain, site, n, None))
                        runs.setdefault((True, n), []).append(await burst(browser, site, n, bridge))

    def median(group: list[Burst]) -> Burst:
        return sorted(group, key=lambda b: b.page_ms)[len(group) // 2]

    return [median(runs[False, n]) for n in sizes], [median(runs[True, n]) for n in sizes]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.native_burst")
    parser.add_argument("--n", type=int, action="append", help="tools registered (repeatable; default 100, 300, 682)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each N in each browser (the median is shown)")
    args = parser.parse_args(argv)
    without, with_ext = asyncio.run(measure(args.n or SIZES, args.repeat))
    rows = []
    for plain, ours in zip(without, with_ext, strict=True):
        rows.append([plain.n, "without the extension", plain.accepted, f"{plain.page_ms:.0f}", "", "-"])
        rows.append([ours.n, "with the extension", ours.accepted, f"{ours.page_ms:.0f}",
                     f"{ours.page_ms / max(plain.page_ms, 1e-9):.2f}x", f"{ours.bridge_ms:.0f}"])
    print_table(
        "Native WebMCP: a page registering N tools, one await registerTool each",
        ["N", "browser", "accepted (getTools)", "page ms", "page vs without", "to bridge ms"],
        rows,
        note=f"median of {args.repeat} runs each, the two browsers alternated. page ms = the page's first "
             "registerTool to its last one's promise settled; to bridge ms = from its first registerTool until "
             "all accepted tools are in the bridge's registry.",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(__import__("sys").argv[1:]))
