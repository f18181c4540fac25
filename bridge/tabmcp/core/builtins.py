"""Definitions of the bridge's own tools (schemas and descriptions; handlers live in server/).

Kept apart from the handlers so the disclosure logic and token accounting can list them
without touching any I/O.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BUILTIN_NAMES", "BUILTINS", "builtin_tool"]

_CALL_TOOL = {
    "name": "call_tool",
    "title": "Call a page tool",
    "description": (
        "Run any tool offered by an open browser tab, by name, including tools inside a "
        "category that are not listed directly. Get exact names and input schemas from a "
        "category tool, search_tools or describe_tools first."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The tool's name, as listed or as returned by a category."},
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
    "description": "Full descriptions and input schemas of page tools, by name (for example names found in a category).",
    "inputSchema": {
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "maxItems": 50,
                "description": "Tool names.",
            }
        },
        "required": ["tools"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}

BUILTINS: dict[str, dict[str, Any]] = {t["name"]: t for t in (_CALL_TOOL, _DESCRIBE_TOOLS)}  # type: ignore[misc]
BUILTIN_NAMES = frozenset(BUILTINS) | frozenset({"search_tools", "introspect", "context"})
"""Reserved names: page tools with these names are always qualified with their tab."""


def builtin_tool(name: str) -> dict[str, Any]:
    """A copy of a built-in tool's MCP definition (with our ``_meta`` marker)."""
    tool = dict(BUILTINS[name])
    tool["_meta"] = {"tabmcp/builtin": True}
    return tool
