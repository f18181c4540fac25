"""The bridge's own tools: one registry, one module per topic, each tool's schema beside its handler.

Adding a tool is one module here plus one line in :mod:`.catalog`. Page tools can never take these names
(:data:`RESERVED_NAMES`): a page tool called ``observe`` is always qualified with its tab.

=====================  ==============================================================
``search_tools``       :mod:`.search`
``describe_tools``     :mod:`.describe`
``call_tool``          :mod:`.call` (its handler and the path of every tools/call, :func:`run`: :mod:`.catalog`)
``introspect``         :mod:`.introspect`
``context``            :mod:`.context`
``observe`` …          :mod:`.telemetry_tools` (``observe``, ``analyze``, ``generate``, ``configure``)
``query_dom``          :mod:`.query_dom`
``open_page``          :mod:`.open_page` (callable in every profile, listed in none: reachable sites)
=====================  ==============================================================
"""

from __future__ import annotations

from .base import Bridge, BuiltinTool, ToolContext
from .catalog import BUILTIN_TOOLS, META_TOOLS, PROFILE_BUILTINS, RESERVED_NAMES, TELEMETRY, builtin_tool, run

__all__ = [
    "BUILTIN_TOOLS",
    "META_TOOLS",
    "PROFILE_BUILTINS",
    "RESERVED_NAMES",
    "TELEMETRY",
    "Bridge",
    "BuiltinTool",
    "ToolContext",
    "builtin_tool",
    "run",
]
