"""The bridge's own tools: one registry, one module per topic, each tool's schema beside its handler.

Adding a tool is one module here plus one line below. Page tools can never take these names
(:data:`RESERVED_NAMES`): a page tool called ``observe`` is always qualified with its tab.

=====================  ==============================================================
``search_tools``       :mod:`.search`
``describe_tools``     :mod:`.describe`
``call_tool``          :mod:`.call` (also the path of every tools/call, see :func:`run`)
``introspect``         :mod:`.introspect`
``context``            :mod:`.context`
``observe`` …          :mod:`.telemetry` (``observe``, ``analyze``, ``generate``, ``configure``)
``query_dom``          :mod:`.query_dom`
``open_page``          :mod:`.open_page` (callable in every profile, listed in none: reachable sites)
=====================  ==============================================================
"""

from __future__ import annotations

from typing import Any

from ..telemetry import TELEMETRY_TOOLS
from .base import Bridge, BuiltinTool, ToolContext
from .call import CALL_TOOL, run
from .context import CONTEXT
from .describe import DESCRIBE_TOOLS
from .introspect import INTROSPECT
from .open_page import OPEN_PAGE
from .query_dom import QUERY_DOM
from .search import SEARCH_TOOLS
from .telemetry import ANALYZE, CONFIGURE, GENERATE, OBSERVE

__all__ = [
    "BUILTIN_TOOLS",
    "META_TOOLS",
    "PROFILE_BUILTINS",
    "RESERVED_NAMES",
    "Bridge",
    "BuiltinTool",
    "ToolContext",
    "builtin_tool",
    "run",
]

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
