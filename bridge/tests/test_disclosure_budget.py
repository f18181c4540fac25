"""What tools/list costs an agent before it searches: the budgets of issue 10, held by tests.

Counted with the project's counter (o200k_base). In the ``categories`` profile a category entry
costs its name, the page's purpose and a fixed bracket (site, "category", member count); text
every entry would repeat — member names, how-to sentences, ``_meta`` — is said once (the
server's instructions, ``call_tool``) or is one call away. A change that brings such text back
into every entry, or grows the meta tools past 400 tokens, fails here. ``./dev bench tokens``
prints the figures on the demo site and the 682-tool catalog.
"""

from __future__ import annotations

import json
import re

from tabmcp.core.disclosure import Disclosure, read_category_marker
from tabmcp.core.registry import Registry
from tabmcp.core.tokens import get_counter, listing_text
from tabmcp.core.tools import PROFILE_BUILTINS, RESERVED_NAMES, builtin_tool
from tabmcp.protocol import TabSnapshot

from .helpers import tab, tool

ORIGIN = "https://shop.example.com"
TOPICS = ["orders", "refunds", "invoices", "customers", "products", "inventory", "shipping", "coupons",
          "reviews", "returns", "suppliers", "payroll", "reports", "newsletters", "tickets", "warehouses"]

BRACKET_AND_SHAPE = 31
"""Tokens of a listed category beyond its name, its site and the page's purpose: the JSON keys,
the bracket's fixed words and count, the empty schema and the read-only hint (measured: 30).
Member names, ``_meta`` (14) or a how-to sentence (5 or more) each break it."""


def shop(categories: int = len(TOPICS), members: int = 6) -> Disclosure:
    """One site with ``categories`` categories of ``members`` tools each (long, distinct names)."""
    tools, cats = [], []
    for topic in TOPICS[:categories]:
        names = [f"{topic}_{verb}_record_for_the_back_office" for verb in
                 ("list", "get", "create", "update", "delete", "export", "import", "archive")[:members]]
        tools += [tool(n, f"{n.replace('_', ' ')}.", inputSchema={"type": "object", "properties": {
            "id": {"type": "integer", "description": f"Id of the {topic} record."}}}) for n in names]
        purpose = f"Everything about {topic} in the shop: {topic} listed, read, changed and exported."
        cats.append({"name": topic, "tools": names, "description": purpose})
    registry = Registry(reserved_names=RESERVED_NAMES)
    registry.apply(TabSnapshot.model_validate(tab(1, url=f"{ORIGIN}/admin", tools=tools, categories=cats)))
    return Disclosure(registry)


def tokens(value: object) -> int:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return get_counter().count(text)


def test_counts_use_o200k_base():
    assert get_counter().encoding == "o200k_base"


def test_the_meta_profile_costs_at_most_400_tokens():
    listing = Disclosure(Registry()).list_tools(profile="meta")
    assert [t["name"] for t in listing] == list(PROFILE_BUILTINS["meta"])
    assert tokens(listing_text(listing)) <= 400


def test_a_listed_category_costs_its_name_site_and_purpose_plus_a_fixed_bracket():
    disc = shop()
    listed = [t for t in disc.list_tools() if read_category_marker(t["description"])]
    assert len(listed) == len(TOPICS)
    for entry in listed:
        page_text = disc.registry.resolve(entry["name"]).category.description
        own = tokens(entry["name"]) + tokens(ORIGIN) + tokens(page_text)
        assert tokens(entry) - own <= BRACKET_AND_SHAPE, entry
        assert "_meta" not in entry  # client details are in describe_tools' full form


def test_member_names_are_not_repeated_in_the_listing():
    disc = shop()
    body = listing_text(disc.list_tools())
    for entry in disc.registry.tool_entries():
        assert entry.public_name not in body


def test_no_sentence_repeats_in_every_category_entry():
    """How to open a category and run its tools is said once (instructions, call_tool), not per entry."""
    disc = shop()
    listed = [t["description"] for t in disc.list_tools() if read_category_marker(t["description"])]

    def shingles(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z]+", text.split("] ", 1)[-1].lower())  # after our bracket
        return {tuple(words[i:i + 3]) for i in range(len(words) - 2)}

    common = set.intersection(*(shingles(d) for d in listed))
    # The page's own descriptions share "in the shop" and "listed read changed"; nothing of ours may.
    assert common <= shingles("Everything about x in the shop: x listed, read, changed and exported.")


def test_the_categories_listing_grows_by_categories_not_by_tools():
    small, large = shop(members=2), shop(members=8)
    # Only each bracket's count differs ("2 tools" / "8 tools": one token each).
    assert tokens(listing_text(small.list_tools())) == tokens(listing_text(large.list_tools()))


def test_the_categories_built_ins_are_the_meta_tools_they_name():
    listing = Disclosure(Registry()).list_tools()
    assert listing == [builtin_tool(n) for n in PROFILE_BUILTINS["categories"]]
    call_tool = next(t for t in listing if t["name"] == "call_tool")
    assert "category" in call_tool["description"]  # said here once, not in every category entry
