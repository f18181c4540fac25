"""The token budgets of issue 10 on the real 682-tool catalog, without a browser.

The catalog is registered in-process as one site (raw schemas; ``./dev bench tokens`` registers
it through a page in Chromium and prints the figures): the ``categories`` profile must stay at
least 96% below ``passthrough`` and ``meta`` at most 400 tokens (o200k_base). Skipped when the
catalog (outside the repository) is not there.
"""

from __future__ import annotations

import pytest
from tabmcp.core.disclosure import Disclosure
from tabmcp.core.tokens import get_counter, profile_report

from bench._data import catalog_path
from bench.tokens import catalog_registry, choosing_a_category


def catalog() -> Disclosure:
    path = catalog_path()
    if path is None:
        pytest.skip("mcp_catalog.json not found (set TABMCP_DATA)")
    registry = catalog_registry(path)
    assert registry.counts()["tools"] == 682 and registry.counts()["categories"] == 102
    return Disclosure(registry)


def test_catalog_budgets() -> None:
    disc = catalog()
    counter = get_counter()
    assert counter.encoding == "o200k_base"
    reports = {r.profile: r for r in profile_report(
        {p: disc.list_tools(profile=p) for p in ("passthrough", "categories", "meta")}, counter)}
    assert reports["categories"].tools == 3 + 102  # the built-ins and one entry per category
    assert reports["categories"].saving is not None and reports["categories"].saving >= 0.96, reports
    assert reports["meta"].tokens <= 400, reports


def test_the_category_choice_proxy_ranks_every_variant() -> None:
    catalog()  # skips without the catalog
    rows = choosing_a_category()
    variants = {row[0] for row in rows}
    assert len(variants) == 3 and len(rows) % 3 == 0 and rows
    for _, _, first, top3 in rows:
        assert 0 < float(first) <= float(top3) <= 1  # a ranker that found nothing would read 0
