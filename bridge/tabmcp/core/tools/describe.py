"""``describe_tools``: full descriptions and input schemas of page tools, by name."""

from __future__ import annotations

import json
from typing import Any

from .base import BuiltinTool, ToolContext, listed_schema, text

__all__ = ["DESCRIBE_TOOLS"]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tools": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 50},
    },
    "required": ["tools"],
    "additionalProperties": False,
}

DEFINITION: dict[str, Any] = {
    "name": "describe_tools",
    "title": "Describe page tools",
    "description": "Descriptions and input schemas of page tools, by name (a category: its members).",
    "inputSchema": listed_schema(SCHEMA),
    "annotations": {"readOnlyHint": True},
}


async def describe_tools(ctx: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    found, missing = ctx.bridge.disclosure.describe(arguments["tools"])
    body = json.dumps(found, indent=1)
    if missing:
        body += "\nNot found or not available: " + ", ".join(missing)
    return {"content": [text(body)], "structuredContent": {"tools": found, "notFound": missing}}


DESCRIBE_TOOLS = BuiltinTool("describe_tools", describe_tools, DEFINITION, SCHEMA)
