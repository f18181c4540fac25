"""Definitions of the bridge's own tools (schemas and descriptions; handlers live in server/).

Kept apart from the handlers so the disclosure logic and token accounting can list them
without touching any I/O. Descriptions are short on purpose: they are paid for in every
conversation.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["BUILTIN_NAMES", "BUILTINS", "PROFILE_BUILTINS", "builtin_tool"]

_CALL_TOOL = {
    "name": "call_tool",
    "title": "Call a page tool",
    "description": (
        "Run a page tool by exact name, including tools inside a category or found with search_tools. "
        "A category entry lists its tools: call it (no arguments) for their schemas."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "arguments": {"type": "object"},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
    "annotations": {"openWorldHint": True},
}

_DESCRIBE_TOOLS = {
    "name": "describe_tools",
    "title": "Describe page tools",
    "description": "Descriptions and input schemas of page tools, by name.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "tools": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 50},
        },
        "required": ["tools"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}

_SEARCH_TOOLS = {
    "name": "search_tools",
    "title": "Search page tools",
    "description": (
        "Find page tools by what you want done (e.g. 'refund an order'); a category alone lists it."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The goal, in words."},
            "category": {"type": "string"},
            "source": {"type": "string", "description": "An origin or tab id."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        },
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}

_INTROSPECT = {
    "name": "introspect",
    "title": "Overview",
    "description": (
        "The open tabs offering tools: origins, categories, page states, profile and policy."
    ),
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    "annotations": {"readOnlyHint": True},
}

_CONTEXT = {
    "name": "context",
    "title": "Tools as markdown",
    "description": "Every available tool with its arguments, as compact markdown.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "source": {"type": "string", "description": "An origin or tab id."},
            "category": {"type": "string"},
        },
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}

BUILTINS: dict[str, dict[str, Any]] = {
    t["name"]: t  # type: ignore[misc]
    for t in (_INTROSPECT, _SEARCH_TOOLS, _DESCRIBE_TOOLS, _CALL_TOOL, _CONTEXT)
}
BUILTIN_NAMES = frozenset(BUILTINS)
"""Reserved names: page tools with these names are always qualified with their tab."""

PROFILE_BUILTINS: dict[str, tuple[str, ...]] = {
    "passthrough": ("search_tools", "call_tool"),
    "categories": ("search_tools", "describe_tools", "call_tool"),
    "meta": ("introspect", "search_tools", "describe_tools", "call_tool", "context"),
    "hybrid": ("introspect", "search_tools", "describe_tools", "call_tool", "context"),
}
"""Which built-ins each disclosure profile lists (all of them can always be called)."""


def builtin_tool(name: str) -> dict[str, Any]:
    """A copy of a built-in tool's MCP definition (with our ``_meta`` marker)."""
    tool = copy.deepcopy(BUILTINS[name])
    tool["_meta"] = {"tabmcp/builtin": True}
    return tool
