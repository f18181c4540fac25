"""``context``: every available tool as compact markdown (for agents without tool search)."""

from __future__ import annotations

from typing import Any

from .base import BuiltinTool, ToolContext, listed_schema, text

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


async def context(ctx: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    body = ctx.bridge.disclosure.context_markdown(
        source=arguments.get("source") or None, category=arguments.get("category") or None
    )
    return {"content": [text(body)]}


CONTEXT = BuiltinTool("context", context, DEFINITION, SCHEMA)
