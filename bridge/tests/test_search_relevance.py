"""Relevance guard: Recall@5 over the tuning half of the catalog requests must not fall.

The requests (people's words over the 682 tools of the public MCP catalog) are
``bench/data/catalog_requests_tune.json``: the half the ranking was tuned on, so these floors
guard against regressions and say nothing of unseen wording (``./dev bench search_quality``
reports the test half). Floors sit a little under the measured figures (docs/search.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tabmcp.core.search import SearchDoc, SearchIndex, missing_parts, semantic_available
from tabmcp.core.search.semantic import default_embedder

REPO = Path(__file__).resolve().parents[2]
KEYWORD_FLOOR = 0.50  # measured 0.55 over the whole tuning half and all 682 tools
FUSED_FLOOR = 0.70  # measured on the small set below
SMALL_SET = 40
"""The semantic guard embeds only the categories its first ``SMALL_SET`` requests point into
(a few hundred tools), so it runs in seconds, not minutes, on a busy 2-core machine."""


def _catalog() -> list[tuple[str, list[SearchDoc]]]:
    import sys

    sys.path.insert(0, str(REPO))
    from bench._data import catalog_path
    from bench.search_quality import catalog_sources

    path = catalog_path()
    if path is None:
        pytest.skip("the MCP catalog (shared/data/mcp_catalog.json) is not beside the checkout")
    return catalog_sources(path.parent)


def _requests() -> list[dict[str, object]]:
    return list(json.loads((REPO / "bench" / "data" / "catalog_requests_tune.json").read_text())["queries"])


def _recall_at_5(index: SearchIndex, requests: list[dict[str, object]]) -> float:
    hits = sum(bool({h.key for h in index.search(r["query"], limit=5)} & set(r["tools"])) for r in requests)
    return hits / len(requests)


def _index(semantic: object, requests: list[dict[str, object]] | None = None) -> SearchIndex:
    """The catalog, or only the categories holding a wanted tool of ``requests``."""
    wanted = {t for r in requests for t in r["tools"]} if requests else None  # type: ignore[attr-defined]
    index = SearchIndex(semantic=semantic)  # type: ignore[arg-type]
    for source, docs in _catalog():
        if wanted is None or any(d.key in wanted for d in docs):
            index.replace_source(source, docs)
    return index


def test_keyword_ranking_recall_at_5_on_the_tuning_half() -> None:
    assert _recall_at_5(_index(False), _requests()) >= KEYWORD_FLOOR


@pytest.mark.slow
def test_fused_ranking_recall_at_5_on_the_tuning_half() -> None:
    if not semantic_available():
        pytest.skip("the default model is not installed: missing " + ", ".join(missing_parts()))
    requests = _requests()[:SMALL_SET]
    index = _index(default_embedder(), requests)
    index.compute_embeddings()
    assert _recall_at_5(index, requests) >= FUSED_FLOOR
