"""``search_tools``: find page tools by what they do (BM25 + fuzzy names + optional embeddings)."""

from __future__ import annotations

import functools
from typing import Any

from ..registry import CategoryEntry, ToolEntry
from ..secrets import secrets_line
from ..trust.gate import definition_text, definition_tree
from ..trust.text import ShownResult, listed, shown_result
from ..wording import one_line
from .base import BuiltinTool, ToolContext, listed_schema
from .search_hits import DETAILED_HITS, detail_line, hit_line, required_arguments

__all__ = ["SEARCH_TOOLS"]

MAX_LIMIT = 50
DEFAULT_LIMIT = 8
"""Hits without ``limit``: the first ready to call, the rest compact, together within what five hits
cost in the previous form (core/tools/search_hits.py)."""
FOOTER = "Full definitions: describe_tools; run: call_tool."

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "category": {"type": "string"},
        "source": {"type": "string", "description": "origin or tab id"},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
    },
    "additionalProperties": False,
}

DEFINITION: dict[str, Any] = {
    "name": "search_tools",
    "title": "Search page tools",
    "description": (
        "Find page tools by what you want done (e.g. 'refund an order'), or list one category's tools."
    ),
    "inputSchema": listed_schema(SCHEMA),
    "annotations": {"readOnlyHint": True},
}


def allowed(ctx: ToolContext) -> Any:
    """A filter for the search index: tools that exist and the gate lets this client see."""
    bridge = ctx.bridge

    def allow(key: str) -> bool:
        entry = bridge.registry.resolve(key)
        return isinstance(entry, ToolEntry) and bridge.gate.visible(entry)

    return allow


def _site_fields(entry: ToolEntry) -> dict[str, Any]:
    """A closed reachable site's tool is marked: not open, and the URL a call of it opens."""
    site = entry.tab.closed_site
    if site is None:
        return {}
    return {"open": False, "opens": site.url_of(entry.tool.name, entry.tab.url)}


def empty_hint(query: str | None, category: str | None, source: str | None) -> str:
    """What to try when nothing was found: only tools every profile lists (search_tools itself)."""
    if query is not None:
        return "No matching tools. Try other words, or search_tools without a query to list every tool."
    if category is not None or source is not None:
        return "No tools in this category or source. search_tools without arguments lists every tool."
    return "No page tools to show: no open page offers one this client may use."


def use_client(ctx: ToolContext) -> object:
    """Who searched, for learning from the call that follows (core/search/usage.py): a
    connection's own view, or one shared key for stateless clients (no connection to tell
    them apart; a call is learned only if that search showed the tool, so little can go wrong)."""
    return id(ctx.view) if ctx.view.dynamic else "stateless"


async def search_tools(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    bridge = ctx.bridge
    query = (arguments.get("query") or "").strip() or None
    category = arguments.get("category") or None
    source = arguments.get("source") or None
    # A category alone lists the category (the listing shows categories without member names).
    listing = category is not None and query is None
    limit = int(arguments.get("limit") or (MAX_LIMIT if listing else DEFAULT_LIMIT))
    index = bridge.search
    run = functools.partial(index.search, query, category=category, source=source, limit=limit,
                            allow=allowed(ctx))
    # Embedding the query takes tens of milliseconds: keep it off the event loop.
    hits = await ctx.offload(run) if index.semantic and query else run()
    tools: list[dict[str, Any]] = []
    lines: list[str] = []
    for hit in hits:
        entry = bridge.registry.resolve(hit.key)
        if not isinstance(entry, ToolEntry):
            continue
        cat = entry.category
        tools.append(
            {
                "name": entry.public_name,
                "description": definition_text(one_line(entry.tool.description)),
                "required": required_arguments(definition_tree(entry.tool.input_schema)),
                "category": bridge.registry.public_name(entry.tab.key, cat.name) if cat else None,
                "source": entry.tab.origin,
                "score": round(hit.score, 4),
                **_site_fields(entry),
                **({"secrets": names} if (names := bridge.secrets.names_for(entry.tab.origin)) else {}),
            }
        )
        if len(lines) < DETAILED_HITS:  # the best hits ready to call, the rest compact
            lines.append(detail_line(entry.public_name, definition_text(entry.tool.description),
                                     definition_tree(entry.tool.input_schema), tools[-1].get("opens")))
        else:
            lines.append(hit_line(entry.public_name, definition_text(entry.tool.description), tools[-1]["required"],
                                  tools[-1].get("opens")))
    index.note_search(use_client(ctx), query, [t["name"] for t in tools])  # learning from use
    if not tools:
        lines = [empty_hint(query, category, source)]
    else:
        held = bridge.registry.resolve(category) if listing and category else None
        if isinstance(held, CategoryEntry):
            total = len(bridge.disclosure.visible_members(held))
            if total > len(tools):
                lines.append(f"({len(tools)} of {total}: call {held.public_name} for all of them)")
        secrets = {t["name"]: t["secrets"] for t in tools if "secrets" in t}
        if secrets:
            lines.append(secrets_line(secrets))
        lines.append(FOOTER)
    return shown_result([listed("\n".join(lines))],  # hits of checked definitions (definition_text)
                        {"tools": tools, "total": len(tools), "query": query, "category": category,
                         **index.describe_ranking()})


SEARCH_TOOLS = BuiltinTool("search_tools", search_tools, DEFINITION, SCHEMA)
