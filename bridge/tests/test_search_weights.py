"""A search-ranking weight is one constant, and docs/search.md quotes it as the code has it.

Changing a weight (docs/architecture.md's recipes) is the constant plus the docs' line this test
names; ``./dev bench search_quality`` then measures what it did (test_search_relevance.py holds
the rankings that must not move).
"""

from __future__ import annotations

import re
from pathlib import Path

import tabmcp
from tabmcp.core.search.fusion import FUSION_DEPTH, KEYWORD_WEIGHT, RRF_K, SEMANTIC_WEIGHT
from tabmcp.core.search.index import CLAUSE_CONTEXT
from tabmcp.core.search.keyword import BM25_B, BM25_K1, FIELD_WEIGHTS, SHORT_QUERY_TERMS, TYPO_WEIGHT

SEARCH_MD = Path(tabmcp.__file__).resolve().parents[2] / "docs" / "search.md"


def test_the_field_weights_table_is_the_codes() -> None:
    text = SEARCH_MD.read_text(encoding="utf-8")
    table = text[text.index("| field | weight | what |"):].split("\n\n", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([\d.]+) \|", table, re.M))
    assert rows == {name: f"{weight:g}" for name, weight in FIELD_WEIGHTS.items()}, (
        "docs/search.md's field weights differ from keyword.py's FIELD_WEIGHTS")


def test_the_docs_quote_every_other_weight_as_the_code_has_it() -> None:
    text = " ".join(SEARCH_MD.read_text(encoding="utf-8").split())  # lines joined: a quote may wrap
    quoted = {
        "BM25_K1": f"`k1 = {BM25_K1:g}`",
        "BM25_B": f"`b = {BM25_B:g}`",
        "TYPO_WEIGHT": f"count with weight {TYPO_WEIGHT:g}",
        "SHORT_QUERY_TERMS": f"short ones ({SHORT_QUERY_TERMS} terms or fewer)",
        "KEYWORD_WEIGHT": f"score = cosine(query, tool) + {KEYWORD_WEIGHT:g} x BM25(query, tool)",
        "KEYWORD_WEIGHT ": f"`KEYWORD_WEIGHT = {KEYWORD_WEIGHT:g}` is the one constant tuned",
        "RRF_K": f"(`Σ w / ({RRF_K} + rank)`) of the keyword, semantic and fuzzy-name rankings",
        "FUSION_DEPTH, SEMANTIC_WEIGHT": f"(each read {FUSION_DEPTH} deep, `w = {SEMANTIC_WEIGHT:g}` for the semantic one)",
        "CLAUSE_CONTEXT": f"`normalise(clause + {CLAUSE_CONTEXT:g} x whole request)` (`CLAUSE_CONTEXT`",
    }
    stale = {name for name, quote in quoted.items() if quote not in text}
    assert not stale, f"docs/search.md quotes another value of {sorted(stale)}"
