"""Does every tool the browser accepts reach the agent? The MCP catalog registered as written.

One page (``bench/pages/catalog-as-is.html``) registers the catalog's 682 real tools of 17 public
MCP servers, each of its 102 categories one ``registerCategory``, every schema exactly as its
server wrote it (``$ref``/``$defs``, ``format``, ``additionalProperties``, patterns). In each
flavour (``polyfill``: our polyfill alone; ``native``: Chromium's WebMCP with the polyfill on
it), counted:

* **accepted**: what the page's own ``getTools()`` lists (the browser's word);
* **in the bridge**: those the bridge registered (a refusal is counted apart, with its reason);
* **via search_tools**: those an MCP client finds with ``search_tools`` (each category listed
  with ``search_tools(category=…)`` through the official SDK ``Client``).

Baselines in the same run: the same page with the polyfill's opt-in strict schemas (the WebMCP
draft's subset rules, which the polyfill applied to every page before it followed the shipping
browser; its members outside the subset are refused, the rest of their category kept), and the catalog
rewritten into the draft's subset first (``bench/pages/catalog.html``: references inlined,
formats moved into descriptions), what a site had to do to keep every tool.

    ./dev bench catalog_as_is        (python -m bench.catalog_as_is [--flavour polyfill|native])
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client
from tabmcp.config import Config
from tabmcp.core.registry import ToolEntry
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import launch_browser
from tabmcp.server.app import BridgeApp, running_bridge

from bench._bridge import until_settled
from bench._data import catalog_path
from bench._table import print_table

PAGES = Path(__file__).parent / "pages"
AS_IS = "catalog-as-is.html"
STRICT = "catalog-as-is.html?strict"
REWRITTEN = "catalog.html"
LABELS = {
    AS_IS: "as written (catalog-as-is.html)",
    STRICT: "baseline: as written, strict schemas (the draft's rules, opt-in)",
    REWRITTEN: "baseline: rewritten into the draft's subset (catalog.html)",
}
ACCEPTED_JS = "async () => (await document.modelContext.getTools()).map((t) => t.name)"


@dataclass
class Count:
    page: str
    flavour: str
    given: int
    accepted: set[str]
    in_bridge: set[str]
    reached: set[str]
    refused: list[str] = field(default_factory=list)
    seconds: float = 0.0


async def reached_by_search(bridge: BridgeApp, url: str) -> set[str]:
    """The page's tools an MCP client finds with ``search_tools``, each category listed in turn."""
    registry = bridge.core.registry
    categories = [e.public_name for e in registry.category_entries() if e.tab.url == url]
    found: set[str] = set()
    async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
        for name in categories:
            result = await client.call_tool("search_tools", {"category": name})
            for hit in (result.structured_content or {}).get("tools", []):
                entry = registry.resolve(hit["name"])
                if isinstance(entry, ToolEntry) and entry.tab.url == url:
                    found.add(entry.tool.name)
        for entry in registry.tool_entries():  # tools outside any category are listed directly
            if entry.tab.url == url and entry.category is None:
                result = await client.call_tool("search_tools", {"query": entry.tool.name, "limit": 50})
                if any(h["name"] == entry.public_name for h in (result.structured_content or {}).get("tools", [])):
                    found.add(entry.tool.name)
    return found


async def count_page(bridge: BridgeApp, browser: Any, url: str, flavour: str, given: int) -> Count:
    started = time.monotonic()
    page = await browser.context.new_page()
    await page.goto(url)
    await page.locator("body[data-ready]").wait_for(timeout=300_000)
    accepted = set(await page.evaluate(ACCEPTED_JS))
    await until_settled(bridge.core, page.url, accepted, timeout_s=300)
    tab = next(t for t in bridge.core.registry.tabs.values() if t.url == page.url)
    in_bridge = set(tab.tools)
    refused = [f"{r.kind} {r.name}: {r.reason}" for r in tab.rejected]
    reached = await reached_by_search(bridge, page.url)
    seconds = time.monotonic() - started
    await page.close()
    return Count(url.rsplit("/", 1)[-1], flavour, given, accepted, in_bridge, reached, refused, seconds)


async def measure(flavours: list[str]) -> list[Count]:
    catalog = catalog_path()
    if catalog is None:
        raise SystemExit("mcp_catalog.json not found (set TABMCP_DATA)")
    given = sum(len(c["tools"]) for c in json.loads(catalog.read_text())["categories"])
    counts: list[Count] = []
    config = Config().with_overrides({"server": {"port": 0}, "store": {"path": ":memory:"}})
    async with serve_demo_site(site_dir=PAGES, files={"/data/catalog.json": catalog}) as pages:
        for flavour in flavours:
            async with running_bridge(config) as bridge:
                url = f"ws://127.0.0.1:{bridge.port}/extension"
                async with launch_browser(bridge_url=url, headless=True, webmcp=flavour == "native") as browser:
                    assert await bridge.core.wait_connected(20), "the extension did not connect"
                    for page in (AS_IS, STRICT, REWRITTEN):
                        counts.append(await count_page(bridge, browser, pages + page, flavour, given))
    return counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.catalog_as_is")
    parser.add_argument("--flavour", choices=["polyfill", "native"], action="append",
                        help="run only this flavour (repeatable; default both)")
    args = parser.parse_args(argv)
    counts = asyncio.run(measure(args.flavour or ["polyfill", "native"]))
    rows = []
    for c in counts:
        rows.append([LABELS[c.page], c.flavour, c.given, len(c.accepted), len(c.in_bridge & c.accepted),
                     len(c.reached & c.accepted), f"{len(c.reached & c.accepted) / max(1, len(c.accepted)):.1%}",
                     f"{c.seconds:.1f}"])
    print_table(
        "MCP catalog on one page: tools the browser accepts that reach search_tools",
        ["schemas", "flavour", "in catalog", "accepted (getTools)", "in the bridge", "via search_tools",
         "reached / accepted", "s"],
        rows,
        note="accepted = the page's own getTools(); via search_tools = found by an MCP client (SDK Client) "
             "listing each category with search_tools(category=...).",
    )
    for c in counts:
        for line in c.refused[:10]:
            print(f"  refused by the bridge ({c.flavour}, {c.page}): {line}")
        missing = sorted(c.accepted - c.reached)
        if missing:
            print(f"  accepted but not found ({c.flavour}, {c.page}): {', '.join(missing[:20])}")
        if c.page == STRICT:
            print(f"  strict schemas ({c.flavour}): {c.given - len(c.accepted)} of {c.given} tools refused by the page's "
                  "own API (now the polyfill's opt-in only)")
    return 0 if all(c.accepted <= c.reached for c in counts) else 1


if __name__ == "__main__":
    raise SystemExit(main(__import__("sys").argv[1:]))
