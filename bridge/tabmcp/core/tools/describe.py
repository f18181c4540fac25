"""``describe_tools``: full descriptions and input schemas of page tools, by name."""

from __future__ import annotations

import json
from typing import Any

from ..registry import CategoryEntry, ToolEntry
from ..secrets import secrets_line
from ..trust.text import ShownResult, listed, shown_result
from .base import BuiltinTool, ToolContext, listed_schema

__all__ = ["DESCRIBE_TOOLS", "secrets_for"]

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


async def describe_tools(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    found, missing = ctx.bridge.disclosure.describe(arguments["tools"])
    body = json.dumps(found, indent=1)
    if missing:
        body += "\nNot found or not available: " + ", ".join(missing)
    structured: dict[str, Any] = {"tools": found, "notFound": missing}
    secrets = secrets_for(ctx, [n for n in arguments["tools"] if n not in missing])
    if secrets:
        structured["secrets"] = secrets
        body += "\n" + secrets_line(secrets)
    return shown_result([listed(body)], structured)  # checked definitions (Disclosure.describe)


def secrets_for(ctx: ToolContext, names: list[str]) -> dict[str, list[str]]:
    """Tool name → the secret names it may be given (those bound to its origin; core/secrets.py)."""
    out: dict[str, list[str]] = {}
    for name in names:
        entry = ctx.bridge.registry.resolve(name)
        members = entry.members if isinstance(entry, CategoryEntry) else (entry,) if isinstance(entry, ToolEntry) else ()
        for member in members:
            bound = ctx.bridge.secrets.names_for(member.tab.origin)
            if bound:
                out[member.public_name] = bound
    return out


DESCRIBE_TOOLS = BuiltinTool("describe_tools", describe_tools, DEFINITION, SCHEMA)
