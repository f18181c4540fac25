"""Which tool answers a name: the built-in tools' tables, and :func:`run`, the path of every
tools/call (a built-in, a category, a page tool; see :mod:`.call`).

``call_tool``'s handler is here, beside :func:`run`: it runs any name, so it sits above every
tool module rather than in one (no module below imports this one).
"""

from __future__ import annotations

import difflib
from typing import Any

from ...errors import ToolGone, ToolNotFound, ToolValidationError
from ..registry import CategoryEntry, ToolEntry
from ..telemetry import TELEMETRY_TOOLS
from ..trust.text import ShownResult
from ..validation import validate_arguments
from . import call
from .base import BuiltinTool, ToolContext
from .context import CONTEXT
from .describe import DESCRIBE_TOOLS
from .introspect import INTROSPECT
from .open_page import OPEN_PAGE, not_reachable
from .query_dom import QUERY_DOM
from .search import SEARCH_TOOLS, allowed
from .telemetry import ANALYZE, CONFIGURE, GENERATE, OBSERVE

__all__ = [
    "BUILTIN_TOOLS",
    "CALL_TOOL",
    "META_TOOLS",
    "PROFILE_BUILTINS",
    "RESERVED_NAMES",
    "TELEMETRY",
    "builtin_tool",
    "closest",
    "run",
]


async def run(ctx: ToolContext, name: str, arguments: dict[str, Any]) -> ShownResult:
    """Answer a tools/call of ``name``.

    Raises:
        ToolCallError: a named failure the agent sees as an ``isError`` result.
    """
    ctx.bridge.sync_controls()  # ``tabmcp controls pause`` counts at once, extension or not
    ctx.bridge.controls.check_not_paused()
    builtin = BUILTIN_TOOLS.get(name)
    if builtin is not None:
        if builtin.input_schema is not None:
            validate_arguments(name, builtin.input_schema, arguments)
        return await builtin.handler(ctx, arguments)
    entry = ctx.bridge.registry.resolve(name)
    if isinstance(entry, CategoryEntry):
        return await call.expand_category(ctx, entry, name)
    if isinstance(entry, ToolEntry):
        return await call.call_page_tool(ctx, entry, arguments)
    not_reachable(ctx, name)  # a tool of a site agents may not open: say how the person can allow it
    gone_from = ctx.bridge.registry.retired(name)
    if gone_from is not None:  # listed for an origin whose tool left: never another origin's tool
        raise ToolGone(
            f"{name!r} was {gone_from or 'a page'}'s tool, which no longer offers it; the name is never given "
            "to another site's tool. List the tools again to see what is offered now.",
            tool=name, origin=gone_from,
        )
    raise ToolNotFound(f"no tool named {name!r} in any open tab", tool=name, closest=closest(ctx, name) or None)


async def call_tool(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    """``call_tool``: a page tool (or a category) by name, through :func:`run`."""
    target = arguments["name"]
    if target in META_TOOLS:
        raise ToolValidationError(f"call_tool runs page tools; call {target} directly", field="name")
    return await run(ctx, target, arguments.get("arguments") or {})


def closest(ctx: ToolContext, name: str) -> list[str]:
    """Names close to a name that matched nothing: built-ins first, then allowed page tools."""
    names = ctx.bridge.search.closest_names(name, 5, allow=allowed(ctx))
    builtins = difflib.get_close_matches(name, list(META_TOOLS), n=2, cutoff=0.6)
    return (builtins + names)[:5]


CALL_TOOL = BuiltinTool("call_tool", call_tool, call.DEFINITION, call.SCHEMA)

META_TOOLS: dict[str, BuiltinTool] = {
    t.name: t for t in (INTROSPECT, SEARCH_TOOLS, DESCRIBE_TOOLS, CALL_TOOL, CONTEXT, OPEN_PAGE)
}
"""The meta tools: fixed definitions, listed by profile (:data:`PROFILE_BUILTINS`)."""

TELEMETRY: dict[str, BuiltinTool] = {t.name: t for t in (OBSERVE, ANALYZE, GENERATE, CONFIGURE, QUERY_DOM)}
"""The telemetry tools: definitions built per client by the exposure rules."""
assert tuple(TELEMETRY) == TELEMETRY_TOOLS

BUILTIN_TOOLS: dict[str, BuiltinTool] = {**META_TOOLS, **TELEMETRY}
RESERVED_NAMES = frozenset(BUILTIN_TOOLS)
"""Names page tools cannot take: such a page tool is always qualified with its tab."""

PROFILE_BUILTINS: dict[str, tuple[str, ...]] = {
    "passthrough": ("search_tools", "call_tool"),
    "categories": ("search_tools", "describe_tools", "call_tool"),
    "meta": ("introspect", "search_tools", "describe_tools", "call_tool", "context"),
    "hybrid": ("introspect", "search_tools", "describe_tools", "call_tool", "context"),
}
"""Which meta tools each disclosure profile lists (all of them can always be called)."""


def builtin_tool(name: str) -> dict[str, Any]:
    """A copy of a meta tool's MCP definition (with our ``_meta`` marker)."""
    return META_TOOLS[name].listed()
