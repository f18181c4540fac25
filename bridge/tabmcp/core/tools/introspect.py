"""``introspect``: what the browser offers, at a glance."""

from __future__ import annotations

import json
from typing import Any

from .base import BuiltinTool, ToolContext, listed_schema, text

__all__ = ["INTROSPECT"]

SCHEMA: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

DEFINITION: dict[str, Any] = {
    "name": "introspect",
    "title": "Overview",
    "description": (
        "The open tabs offering tools: origins, categories, page states, profile and policy."
    ),
    "inputSchema": listed_schema(SCHEMA),
    "annotations": {"readOnlyHint": True},
}


async def introspect(ctx: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    data = ctx.bridge.disclosure.introspect()
    data["extension"] = ctx.bridge.status()["extension"]
    return {"content": [text(json.dumps(data, indent=1))], "structuredContent": data}


INTROSPECT = BuiltinTool("introspect", introspect, DEFINITION, SCHEMA)
