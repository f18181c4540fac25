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
        "Run any tool offered by an open browser tab, by name, including tools not listed directly "
        "(inside a category, or found with search_tools). Check its input schema first "
        "(describe_tools or the category)."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Exact tool name."},
            "arguments": {"type": "object", "description": "Arguments matching the tool's input schema."},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
    "annotations": {"openWorldHint": True},
}

_DESCRIBE_TOOLS = {
    "name": "describe_tools",
    "title": "Describe page tools",
    "description": "Full descriptions and input schemas of page tools, by name.",
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
        "Find tools offered by the user's open browser tabs by what they do (e.g. 'refund an order'). "
        "A category alone lists that category. Returns names and one-line descriptions; "
        "then describe_tools and call_tool."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What you want to do, in words."},
            "category": {"type": "string", "description": "Only tools of this category."},
            "source": {"type": "string", "description": "Only tools of this origin or tab (e.g. https://shop.test)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        },
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}

_INTROSPECT = {
    "name": "introspect",
    "title": "What the browser offers",
    "description": (
        "Overview of the open tabs that offer tools: origins, categories with tool counts, page states, "
        "the disclosure profile and policy. Call first."
    ),
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    "annotations": {"readOnlyHint": True},
}

_CONTEXT = {
    "name": "context",
    "title": "All tools as markdown",
    "description": "A compact markdown list of every available tool with its arguments (for agents without tool search).",
    "inputSchema": {
        "type": "object",
        "properties": {
            "source": {"type": "string", "description": "Only this origin or tab."},
            "category": {"type": "string", "description": "Only this category."},
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
