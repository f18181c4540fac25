"""The token budgets of issue 10 on the real 682-tool catalog, without a browser.

The catalog is registered in-process as one site (raw schemas; ``./dev bench tokens`` registers
it through a page in Chromium and prints the figures): the ``categories`` profile must stay at
least 96% below ``passthrough`` and ``meta`` at most 400 tokens (o200k_base). Skipped when the
catalog (outside the repository) is not there.
"""

from __future__ import annotations

import json

import pytest

from bench._data import catalog_path
from tabmcp.core.disclosure import Disclosure
from tabmcp.core.registry import Registry
from tabmcp.core.tokens import get_counter, profile_report
from tabmcp.core.tools import RESERVED_NAMES
from tabmcp.protocol import TabSnapshot


def catalog_site() -> Disclosure:
    path = catalog_path()
    if path is None:
        pytest.skip("mcp_catalog.json not found (set TABMCP_DATA)")
    catalog = json.loads(path.read_text())
    names = {t["name"] for c in catalog["categories"] for t in c["tools"]}
    tools, categories = [], []
    for cat in catalog["categories"]:
        tools += [{"name": t["name"], "description": t.get("description") or "",
                   "inputSchema": t.get("inputSchema") or {"type": "object"},
                   **({"annotations": t["annotations"]} if t.get("annotations") else {})} for t in cat["tools"]]
        # As bench/pages/catalog.html does: two categories are named like one of their tools.
        categories.append({"name": cat["name"] + ("_tools" if cat["name"] in names else ""),
                           "description": cat["description"], "tools": [t["name"] for t in cat["tools"]]})
    registry = Registry(reserved_names=RESERVED_NAMES)
    change = registry.apply(TabSnapshot.model_validate({
        "tabId": 1, "url": "http://127.0.0.1:41234/catalog.html", "title": "MCP catalog as a site",
        "documentId": "catalog", "tools": tools, "categories": categories, "states": []}))
    assert not change.rejected and registry.counts()["tools"] == len(names)
    return Disclosure(registry)


def test_catalog_budgets():
    disc = catalog_site()
    counter = get_counter()
    assert counter.encoding == "o200k_base"
    reports = {r.profile: r for r in profile_report(
        {p: disc.list_tools(profile=p) for p in ("passthrough", "categories", "meta")}, counter)}
    assert reports["categories"].tools == 3 + 102  # the built-ins and one entry per category
    assert reports["categories"].saving is not None and reports["categories"].saving >= 0.96, reports
    assert reports["meta"].tokens <= 400, reports
