"""Tokens that tools/list costs an agent in each disclosure profile, on real pages in Chromium.

Sites: the demo back office (95 tools in 10 categories and uncategorized ones) and the MCP
catalog as one large site (682 real tools of 17 public MCP servers in 102 categories). The
baseline is the ``passthrough`` profile (every tool as registered), measured in the same run.
Counts use o200k_base (the label names the library that counted).

A second table says what the ``categories`` profile defers: the tokens of the answer an agent
reads when it opens one category (calling it: member names, arguments and descriptions), so
the saving is read against what a choice then costs. The server instructions, sent once per
session, are counted in the note.

A third table asks whether dropping member names from the listing costs the agent its choice.
Proxy: for the catalog requests written in people's words (bench/data, both halves; nothing is
tuned here), rank the 102 listed category entries by the request, with plain BM25 and with the
embedding model, and count how often a category holding a right tool comes first or in the top
three. Compared: the entry as listed now (site, size, purpose), as listed before (purpose and up
to 12 member names) and with every member name. A model reads better than either ranker; the
table shows how much the names carry, not how an agent will do.

    ./dev bench tokens        (python -m bench.tokens)
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
from tabmcp.config import Config
from tabmcp.core.disclosure import PROFILES, Disclosure
from tabmcp.core.registry import CategoryEntry, Registry
from tabmcp.core.search import default_embedder, semantic_available
from tabmcp.core.tokens import get_counter, profile_report
from tabmcp.core.tools import RESERVED_NAMES
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import launch_browser
from tabmcp.protocol import TabSnapshot
from tabmcp.server.app import running_bridge
from tabmcp.server.mcp import INSTRUCTIONS

from bench._data import catalog_path
from bench._table import print_table

PAGES = Path(__file__).parent / "pages"


Measured = tuple[dict[str, list[Mapping[str, object]]], list[str]]


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
                count = bridge.core.registry.counts()["tools"]
                stable = stable + 1 if count == last else 0
                last = count
                if count >= ready_tools and stable >= 20:
                    break
                await asyncio.sleep(0.05)
            else:
                raise RuntimeError(f"only {bridge.core.registry.counts()} after 30 s on {site_url}")
            for tab in bridge.core.registry.tabs.values():
                for rejection in tab.rejected:
                    print(f"  (rejected by the bridge: {rejection.kind} {rejection.name}: {rejection.reason})")
            disclosure = bridge.core.disclosure
            opened = [
                disclosure.expand(entry)[0]
                for entry in bridge.core.registry.entries()
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


@functools.lru_cache(maxsize=2)
def catalog_registry(path: Path) -> Registry:
    """The catalog as one site registered in-process (raw schemas), as catalog.html registers it."""
    catalog = json.loads(path.read_text())
    names = {t["name"] for c in catalog["categories"] for t in c["tools"]}
    tools, categories = [], []
    for cat in catalog["categories"]:
        tools += [
            {"name": t["name"], "description": t.get("description") or "",
             "inputSchema": t.get("inputSchema") or {"type": "object"},
             **({"annotations": t["annotations"]} if t.get("annotations") else {})}
            for t in cat["tools"]
        ]
        # As catalog.html does: two categories are named like one of their tools.
        categories.append({"name": cat["name"] + ("_tools" if cat["name"] in names else ""),
                           "description": cat["description"], "tools": [t["name"] for t in cat["tools"]]})
    registry = Registry(reserved_names=RESERVED_NAMES)
    registry.apply(TabSnapshot.model_validate({
        "tabId": 1, "url": "http://127.0.0.1:41234/catalog.html", "title": "MCP catalog as a site",
        "documentId": "catalog", "tools": tools, "categories": categories, "states": []}))
    return registry


def _entry_texts(registry: Registry) -> dict[str, dict[str, str]]:
    """Per variant, category public name -> the text an agent reads for it in tools/list."""
    disclosure = Disclosure(registry)
    out: dict[str, dict[str, str]] = {"listed now (site, size, purpose)": {},
                                      "before (purpose, up to 12 member names)": {},
                                      "purpose and every member name": {}}
    for entry in registry.entries():
        if not isinstance(entry, CategoryEntry):
            continue
        members = disclosure.visible_members(entry)
        names = [m.public_name for m in members]
        now = disclosure.category_definition(entry, members)["description"]
        shown = ", ".join(names[:12]) + (f", and {len(names) - 12} more" if len(names) > 12 else "")
        purpose = entry.category.description.rstrip(".")
        out["listed now (site, size, purpose)"][entry.public_name] = now
        out["before (purpose, up to 12 member names)"][entry.public_name] = (
            f"[{entry.tab.origin}] {purpose}. Tools: {shown}.")
        out["purpose and every member name"][entry.public_name] = f"{now} Tools: {', '.join(names)}."
    return out


def choosing_a_category() -> list[list[str]]:
    """Hit@1 / hit@3 of the right category among the listed entries, per entry text and ranker."""
    path = catalog_path()
    if path is None:
        return []
    registry = catalog_registry(path)
    home = {e.public_name: registry.public_name(e.tab.key, e.category.name)
            for e in registry.tool_entries() if e.category is not None}
    requests = []
    for half in ("tune", "test"):
        data = json.loads((Path(__file__).parent / "data" / f"catalog_requests_{half}.json").read_text())
        requests += [(q["query"], {home[t] for t in q["tools"] if t in home}) for q in data["queries"]]
    queries = [query for query, _ in requests]
    # A ranker takes the entry texts and answers every request with its top three entries.
    rankers: list[tuple[str, Callable[[list[str]], list[list[int]]]]] = []
    try:
        import bm25s  # type: ignore[import-untyped]

        def bm25(texts: list[str]) -> list[list[int]]:
            retriever = bm25s.BM25()
            retriever.index(bm25s.tokenize([re.sub(r"[_.\-]", " ", t) for t in texts], stopwords="en",
                                           show_progress=False), show_progress=False)
            out = []
            for query in queries:
                res, scores = retriever.retrieve(bm25s.tokenize([query], stopwords="en", show_progress=False),
                                                 k=3, show_progress=False)
                out.append([int(i) for i, sc in zip(res[0], scores[0], strict=True) if sc > 0])
            return out

        rankers.append(("plain BM25 (bm25s)", bm25))
    except ImportError:
        pass
    if semantic_available():
        embedder = default_embedder(threads=1)
        query_vectors = embedder.encode(queries)

        def embed(texts: list[str]) -> list[list[int]]:
            sims = query_vectors @ embedder.encode(texts).T
            return [[int(i) for i in row] for row in np.argsort(-sims, axis=1)[:, :3]]

        rankers.append(("embedding model (MiniLM-L6)", embed))
    rows = []
    for variant, texts in _entry_texts(registry).items():
        keys = list(texts)
        for ranker_name, rank_all in rankers:
            top = [[keys[i] for i in ranked] for ranked in rank_all([texts[k] for k in keys])]
            hit1 = sum(bool(t) and t[0] in gold for t, (_, gold) in zip(top, requests, strict=True))
            hit3 = sum(bool(gold & set(t)) for t, (_, gold) in zip(top, requests, strict=True))
            rows.append([variant, ranker_name, f"{hit1 / len(requests):.2f}", f"{hit3 / len(requests):.2f}"])
    return rows


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
    choice = choosing_a_category()
    if choice:
        print_table(
            "choosing a category from its listed entry (proxy; 217 catalog requests in people's words)",
            ["entry text", "ranker", "right category first", "in the top 3"],
            choice,
            note="Proxy rankers, not an agent: how much the member names in an entry carry for picking it.",
        )
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
