"""Tokens that tools/list costs an agent in each disclosure profile, on real pages in Chromium.

Sites: the demo back office (95 tools in 10 categories and uncategorized ones) and the MCP
catalog as one large site (682 real tools of 17 public MCP servers in 102 categories). The
baseline is the ``passthrough`` profile (every tool as registered), measured in the same run.
Counts use o200k_base (the label names the library that counted).

A second table says what the ``categories`` profile defers: the tokens of the answer an agent
reads when it opens one category (calling it: member names, arguments and descriptions), so
the saving is read against what a choice then costs. The server instructions, sent once per
session, are counted in the note.

    ./dev bench tokens        (python -m bench.tokens)
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tabmcp.config import Config
from tabmcp.core.disclosure import PROFILES
from tabmcp.core.registry import CategoryEntry
from tabmcp.core.tokens import get_counter, profile_report
from tabmcp.demo.server import serve_demo_site
from tabmcp.launcher import launch_browser
from tabmcp.server.app import running_bridge
from tabmcp.server.mcp import INSTRUCTIONS

from bench._data import catalog_path
from bench._table import print_table

PAGES = Path(__file__).parent / "pages"


Measured = tuple[dict[str, list[dict[str, object]]], list[str]]


async def _listings(site_url: str, ready_tools: int) -> Measured:
    """Every profile's tools/list for one site, and the text of opening each listed category."""
    config = Config().with_overrides({"server": {"port": 0}, "store": {"path": ":memory:"}})
    async with running_bridge(config) as bridge:
        url = f"ws://127.0.0.1:{bridge.port}/extension"
        async with launch_browser(bridge_url=url, headless=True) as browser:
            page = await browser.context.new_page()
            await page.goto(site_url)
            last, stable = -1, 0
            for _ in range(600):  # until at least ready_tools are in and the count is stable for 1 s
                count = bridge.hub.registry.counts()["tools"]
                stable = stable + 1 if count == last else 0
                last = count
                if count >= ready_tools and stable >= 20:
                    break
                await asyncio.sleep(0.05)
            else:
                raise RuntimeError(f"only {bridge.hub.registry.counts()} after 30 s on {site_url}")
            for tab in bridge.hub.registry.tabs.values():
                for rejection in tab.rejected:
                    print(f"  (rejected by the bridge: {rejection.kind} {rejection.name}: {rejection.reason})")
            disclosure = bridge.hub.disclosure
            opened = [
                disclosure.expand(entry)[0]
                for entry in bridge.hub.registry.entries()
                if isinstance(entry, CategoryEntry) and disclosure.visible_members(entry)
            ]
            return {p: disclosure.list_tools(profile=p) for p in PROFILES}, opened


async def measure() -> tuple[list[list[str]], list[list[str]], str]:
    counter = get_counter()
    rows: list[list[str]] = []
    opening: list[list[str]] = []
    sites: list[tuple[str, str, int, dict[str, Path]]] = []
    async with serve_demo_site() as demo:
        sites.append(("demo back office", demo, 90, {}))
        catalog = catalog_path()
        files = {"/data/catalog.json": catalog} if catalog else {}
        async with serve_demo_site(site_dir=PAGES, files=files) as pages:
            if catalog:
                sites.append(("MCP catalog", pages + "catalog.html", 600, files))
            for label, url, ready, _ in sites:
                listings, opened = await _listings(url, ready)
                for report in profile_report(listings, counter):
                    rows.append(
                        [
                            label,
                            report.profile,
                            str(report.tools),
                            f"{report.tokens:,}",
                            "baseline" if report.saving is None else f"{report.saving:.1%}",
                        ]
                    )
                costs = sorted(counter.count(text) for text in opened)
                if costs:
                    opening.append([label, str(len(costs)), f"{sum(costs) / len(costs):,.0f}",
                                    f"{costs[len(costs) // 2]:,}", f"{costs[-1]:,}"])
    return rows, opening, counter.label


def main(argv: list[str]) -> int:
    rows, opening, label = asyncio.run(measure())
    instructions = get_counter().count(INSTRUCTIONS)
    print_table(
        "tools/list tokens per disclosure profile",
        ["site", "profile", "tools listed", "tokens", "below passthrough"],
        rows,
        note=f"Counted with {label}: the compact JSON of the tools/list result, as a client puts it in "
        f"context. The server instructions add {instructions} tokens once per session, in every profile.",
    )
    print_table(
        "opening one category (categories profile): tokens of the answer the agent reads",
        ["site", "categories", "mean", "median", "max"],
        opening,
        note="The text of calling a category: each member's name, arguments and description.",
    )
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
