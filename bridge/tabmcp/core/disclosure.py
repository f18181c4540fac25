"""What an MCP client sees: the tools/list view and the answers of category tools.

Profiles (``disclosure.profile``):

* ``categories`` (default) — each page category is one tool; calling it returns its members.
  On connections whose protocol lets tools/list change after a call (before 2026-07-28),
  the expanded members then join that client's tools/list.
* ``passthrough`` — every page tool as registered, categories flattened (the baseline).

Built-in tools come first, then tabs in id order. Every page tool and category carries its
source (tab, origin, URL) in ``_meta`` and its origin in its description, so an agent never
mistakes one site's tool for another's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from .builtins import builtin_tool
from .registry import CategoryEntry, Registry, ToolEntry

__all__ = [
    "META_CATEGORY",
    "META_PAGE_NAME",
    "META_SOURCE",
    "ClientView",
    "Disclosure",
    "Profile",
]

Profile = Literal["categories", "passthrough"]

META_SOURCE = "tabmcp/source"
META_PAGE_NAME = "tabmcp/pageName"
META_CATEGORY = "tabmcp/category"
_MCP_ANNOTATIONS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_MAX_NAMES_IN_DESCRIPTION = 12


@dataclass
class ClientView:
    """Disclosure state of one MCP client connection.

    ``dynamic`` is whether tools/list may change as a side effect of this client's requests:
    allowed before protocol 2026-07-28, forbidden from it on.
    """

    dynamic: bool = False
    expanded: set[tuple[int, str]] = field(default_factory=set)
    """(tab id, category name as the page registered it) of categories this client opened."""


def _tool_annotations(entry: ToolEntry) -> dict[str, Any]:
    ann = {k: entry.tool.annotations[k] for k in _MCP_ANNOTATIONS if k in entry.tool.annotations}
    if entry.tool.destructive:
        ann["destructiveHint"] = True
    return ann


def _described(origin: str, text: str) -> str:
    return f"[{origin}] {text}" if origin else text


class Disclosure:
    """Turns the registry into MCP tool definitions for one profile."""

    def __init__(self, registry: Registry, *, profile: Profile = "categories", builtins: Iterable[str] = ()) -> None:
        self.registry = registry
        self.profile: Profile = profile
        self.builtins = tuple(builtins)

    # -- single definitions ---------------------------------------------------------------

    def tool_definition(self, entry: ToolEntry) -> dict[str, Any]:
        tool = entry.tool
        meta: dict[str, Any] = {META_SOURCE: entry.tab.source_meta(), META_PAGE_NAME: tool.name}
        if entry.category is not None:
            cat_public = self.registry.public_name(entry.tab.tab_id, entry.category.name)
            meta[META_CATEGORY] = cat_public
        out: dict[str, Any] = {
            "name": entry.public_name,
            "description": _described(entry.tab.origin, tool.description),
            "inputSchema": tool.input_schema,
            "_meta": meta,
        }
        if tool.title:
            out["title"] = tool.title
        ann = _tool_annotations(entry)
        if ann:
            out["annotations"] = ann
        return out

    def category_definition(self, entry: CategoryEntry) -> dict[str, Any]:
        names = [m.public_name for m in entry.members]
        shown = ", ".join(names[:_MAX_NAMES_IN_DESCRIPTION])
        if len(names) > _MAX_NAMES_IN_DESCRIPTION:
            shown += f", and {len(names) - _MAX_NAMES_IN_DESCRIPTION} more"
        text = (
            f"{entry.category.description.rstrip('.')}. Category of {len(names)} tools: {shown}. "
            "Call it (no arguments) to get their descriptions and input schemas; "
            "run them with call_tool."
        )
        return {
            "name": entry.public_name,
            "title": f"{entry.category.name} (category, {len(names)} tools)",
            "description": _described(entry.tab.origin, text),
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
            "annotations": {"readOnlyHint": True},
            "_meta": {
                META_SOURCE: entry.tab.source_meta(),
                META_PAGE_NAME: entry.category.name,
                META_CATEGORY: {"isCategory": True, "toolCount": len(names), "tools": names},
            },
        }

    # -- listings -------------------------------------------------------------------------

    def list_tools(self, view: ClientView | None = None) -> list[dict[str, Any]]:
        """The tools/list answer for a client."""
        view = view or ClientView()
        out = [builtin_tool(name) for name in self.builtins]
        for entry in self.registry.entries():
            if self.profile == "passthrough":
                if isinstance(entry, ToolEntry):
                    out.append(self.tool_definition(entry))
                continue
            if isinstance(entry, CategoryEntry):
                out.append(self.category_definition(entry))
                if view.dynamic and (entry.tab.tab_id, entry.category.name) in view.expanded:
                    out.extend(self.tool_definition(m) for m in entry.members)
            elif entry.category is None:
                out.append(self.tool_definition(entry))
        return out

    def expand(self, entry: CategoryEntry, view: ClientView | None = None) -> tuple[str, dict[str, Any], bool]:
        """Answer a call of a category tool.

        Returns the readable listing, the ``structuredContent`` and whether this client's
        tools/list changed (members join it only on dynamic connections).
        """
        tools = [
            {
                "name": m.public_name,
                "description": m.tool.description,
                "inputSchema": m.tool.input_schema,
                **({"title": m.tool.title} if m.tool.title else {}),
                **({"annotations": a} if (a := _tool_annotations(m)) else {}),
            }
            for m in entry.members
        ]
        lines = [
            f"Category {entry.public_name} on {entry.tab.title or entry.tab.url} ({entry.tab.origin}): "
            f"{len(tools)} tools."
        ]
        for m in entry.members:
            props = m.tool.input_schema.get("properties") or {}
            required = set(m.tool.input_schema.get("required") or [])
            args = ", ".join(f"{k}{'' if k in required else '?'}" for k in props)
            lines.append(f"- {m.public_name}({args}): {m.tool.description}")
        changed = False
        if view is not None and view.dynamic:
            key = (entry.tab.tab_id, entry.category.name)
            if key not in view.expanded:
                view.expanded.add(key)
                changed = True
            lines.append("These tools are now also listed directly; call them by name.")
        else:
            lines.append("Run them with call_tool(name, arguments).")
        structured = {"category": entry.public_name, "tools": tools}
        return "\n".join(lines), structured, changed

    def describe(self, names: Iterable[str]) -> tuple[list[dict[str, Any]], list[str]]:
        """Full definitions of the named tools; the second list holds names not found."""
        found: list[dict[str, Any]] = []
        missing: list[str] = []
        for name in names:
            entry = self.registry.resolve(name)
            if isinstance(entry, ToolEntry):
                found.append(self.tool_definition(entry))
            elif isinstance(entry, CategoryEntry):
                found.append(self.category_definition(entry))
            else:
                missing.append(name)
        return found, missing
