"""``context``: every available tool as compact markdown (for agents without tool search)."""

from __future__ import annotations

from typing import Any

from ..registry import CategoryEntry, ToolEntry
from ..trust.text import ShownResult, listed, shown_result
from .base import BuiltinTool, ToolContext, listed_schema

__all__ = ["CONTEXT"]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"source": {"type": "string"}, "category": {"type": "string"}},
    "additionalProperties": False,
}

DEFINITION: dict[str, Any] = {
    "name": "context",
    "title": "Tools as markdown",
    "description": "Every available tool with its arguments, as compact markdown.",
    "inputSchema": listed_schema(SCHEMA),
    "annotations": {"readOnlyHint": True},
}


async def context(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    body = ctx.bridge.disclosure.context_markdown(
        source=arguments.get("source") or None, category=arguments.get("category") or None
    )
    origins = sorted({e.tab.origin for e in ctx.bridge.registry.entries()
                      if isinstance(e, ToolEntry) and ctx.bridge.gate.visible(e)}
                     | {m.tab.origin for e in ctx.bridge.registry.entries()
                        if isinstance(e, CategoryEntry) for m in ctx.bridge.gate.visible_members(e)})
    bound = {o: names for o in origins if (names := ctx.bridge.secrets.names_for(o))}
    if bound:
        body += ("\n\n## Secrets by name\nPass a secret as a string argument that is exactly {{secret:NAME}}; "
                 "the bridge puts its value in for the site's tools only, and you never see it.\n"
                 + "\n".join(f"- {origin}: {', '.join(names)}" for origin, names in bound.items()))
    return shown_result([listed(body)])  # checked definitions (Disclosure.context_markdown)


CONTEXT = BuiltinTool("context", context, DEFINITION, SCHEMA)
