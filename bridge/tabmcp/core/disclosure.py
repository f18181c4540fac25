"""What an MCP client sees: the tools/list view, category answers, describe, introspect, context.

The profiles (``disclosure.profile``) are described in docs/guide.md. Every profile lists
``search_tools`` and ``call_tool``, so every allowed tool stays reachable by a client that never
re-reads tools/list; tools the page state or policy rules out are never listed, searched or
described (:mod:`tabmcp.core.scoping`).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any

from .introspection import CategoryView, Introspection, refusals
from .listing_fields import (
    _WEBMCP_ANNOTATIONS,
    META_CATEGORY,
    META_ENHANCEMENT,
    META_EXPANDED,
    META_PAGE_FORM,
    META_PAGE_NAME,
    META_REVISION,
    META_SOURCE,
    META_UNCHECKED,
    META_WARNINGS,
    META_WEBMCP_ANNOTATIONS,
    PROFILES,
    ClientView,
    Profile,
    _tool_annotations,
    category_marker,
    read_category_marker,
    summary,
)
from .lru import IdentityMemo
from .registry import CategoryEntry, Registry, SourceKey, Tab, ToolEntry
from .scoping import PolicyCheck
from .tools import PROFILE_BUILTINS, builtin_tool
from .trust.gate import PageSource, TextGate, definition_schema, definition_text
from .trust.settings import TrustSettings
from .trust.text import Listed, PageJson, Shown, ShownTree, listed_definition
from .wording import one_line

__all__ = [
    "META_CATEGORY",
    "META_ENHANCEMENT",
    "META_EXPANDED",
    "META_PAGE_NAME",
    "META_REVISION",
    "META_SOURCE",
    "META_UNCHECKED",
    "META_WARNINGS",
    "PROFILES",
    "ClientView",
    "Disclosure",
    "Introspection",
    "Profile",
    "category_marker",
    "one_line",
    "read_category_marker",
    "summary",
]

_SHOWN_SCHEMAS: IdentityMemo[PageJson, ShownTree] = IdentityMemo(definition_schema, 8192)
"""A tool's schemas as listed (:func:`definition_schema`), per schema object: a listing rebuilt after
a change costs a lookup per unchanged tool, not a walk."""

def _shown_schema(schema: PageJson) -> ShownTree:
    return _SHOWN_SCHEMAS.get(schema)


def _described(origin: str, text: Shown) -> Shown:
    return Shown(f"[{origin}] {text}") if origin else text


def _headed(head: str, text: Shown, tail: str = "") -> Shown:
    """A checked text between the bridge's words (a category's marker, its member names)."""
    return Shown(f"{head} {text}{tail}".rstrip())


def _signature(entry: ToolEntry) -> str:
    # the schema as listed: its property names and enum values are the page's words too
    schema = _shown_schema(entry.tool.input_schema)
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    parts = []
    for name, spec in props.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        if isinstance(spec, dict) and "enum" in spec:
            kind = "|".join(str(v) for v in spec["enum"][:6])
        parts.append(f"{name}{'' if name in required else '?'}{': ' + str(kind) if kind else ''}")
    return ", ".join(parts)


class Disclosure:
    """Turns the registry into what one profile shows, under one policy check."""

    def __init__(
        self,
        registry: Registry,
        *,
        profile: Profile = "categories",
        policy_check: PolicyCheck | None = None,
        core_tools: Iterable[str] = (),
        usage_core: Callable[[], set[tuple[str, str]]] | None = None,
        extra_tools: Callable[[ClientView], list[dict[str, Any]]] | None = None,
        extra_key: Callable[[ClientView], Hashable] | None = None,
        definition_hook: Callable[[ToolEntry, Listed], Listed] | None = None,
        hook_version: Callable[[], int] | None = None,
    ) -> None:
        self.registry = registry
        self.extra_tools = extra_tools
        """Tools listed right after the profile's built-ins, except in ``meta`` (the telemetry
        tools, whose definitions depend on the data and on the client)."""
        self.extra_key = extra_key
        """A cheap key of what :attr:`extra_tools` returns for a view (equal keys, equal tools),
        for :meth:`listing_key`; without it the extra tools are built and fingerprinted."""
        self.profile: Profile = profile
        self.policy_check = policy_check or PolicyCheck()
        self.core_tools = tuple(core_tools)
        self.usage_core = usage_core
        self._listing_cache: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
        self.definition_hook = definition_hook
        """Called on every tool definition shown (the trust guard marks changed definitions)."""
        self.hook_version: Callable[[], int] = hook_version or (lambda: 0)
        """Part of the listing cache key: goes up when what the hook adds changes."""

    # -- what is allowed ------------------------------------------------------------------

    def allowed_tools(self) -> Iterator[ToolEntry]:
        for entry in self.registry.tool_entries():
            if self.policy_check.visible(entry):
                yield entry

    def visible_members(self, entry: CategoryEntry) -> tuple[ToolEntry, ...]:
        return self.policy_check.visible_members(entry)

    def is_core(self, entry: ToolEntry) -> bool:
        names = [entry.public_name, entry.tool.name]
        if self.core_tools:
            return any(fnmatch.fnmatchcase(n, g) for g in self.core_tools for n in names)
        scope = entry.tool.scope
        if scope is not None and scope.core:
            return True
        if self.usage_core is not None:
            return (entry.tab.origin, entry.tool.name) in self.usage_core()
        return False

    # -- single definitions ---------------------------------------------------------------

    def tool_definition(self, entry: ToolEntry) -> Listed:
        tool = entry.tool
        meta: dict[str, Any] = {META_SOURCE: entry.tab.source_meta(), META_PAGE_NAME: tool.name}
        if entry.category is not None:
            meta[META_CATEGORY] = self.registry.public_name(entry.tab.key, entry.category.name)
        if tool.enhancement:
            meta[META_ENHANCEMENT] = tool.enhancement
        if tool.warnings:
            meta[META_WARNINGS] = list(tool.warnings)
        if tool.unchecked:
            meta[META_UNCHECKED] = list(tool.unchecked)
        if tool.page_form:
            meta[META_PAGE_FORM] = {
                "offeredBy": "person", "switch": "forms_as_tools", "origin": entry.tab.forms_origin,
            }
        webmcp = {k: tool.annotations[k] for k in _WEBMCP_ANNOTATIONS if k in tool.annotations}
        if webmcp:
            meta[META_WEBMCP_ANNOTATIONS] = webmcp
        out = listed_definition(
            entry.public_name,
            _described(entry.tab.origin, definition_text(tool.description)),
            _shown_schema(tool.input_schema),
            meta=meta,
            output_schema=_shown_schema(tool.output_schema) if tool.output_schema is not None else None,
            title=definition_text(tool.title) if tool.title else None,
            annotations=_tool_annotations(entry),
        )
        if self.definition_hook is not None:
            out = self.definition_hook(entry, out)
        return out

    def category_definition(
        self, entry: CategoryEntry, members: tuple[ToolEntry, ...], *, full: bool = False
    ) -> Listed:
        """A category as one tool: the compact listing entry, or (``full``) what describe_tools gives.

        The entry keeps the origin in its bracket (:func:`category_marker`) so evil.test's "bank
        transfers" never reads like the bank's, and the read-only hint, by which clients open it
        without asking; member names are one call away, so they are not repeated.
        """
        names = [m.public_name for m in members]
        marker = category_marker(entry.tab.origin, len(names))
        if not full:
            return listed_definition(
                entry.public_name,
                _headed(marker, definition_text(summary(entry.category.description))),
                ShownTree({"type": "object"}),  # the bridge's own schema
                annotations={"readOnlyHint": True},
            )
        purpose = definition_text(entry.category.description.rstrip().rstrip("."))
        return listed_definition(
            entry.public_name,
            _headed(marker, purpose, f". Tools: {', '.join(names)}."),
            ShownTree({"type": "object", "properties": {}, "additionalProperties": False}),
            title=definition_text(f"{entry.category.name} (category)"),
            annotations={"readOnlyHint": True},
            meta={
                META_SOURCE: entry.tab.source_meta(),
                META_PAGE_NAME: entry.category.name,
                META_CATEGORY: {"isCategory": True, "toolCount": len(names), "tools": names},
            },
        )

    # -- listings -------------------------------------------------------------------------

    def listing(self, view: ClientView | None = None, *, profile: Profile | None = None) -> list[Mapping[str, Any]]:
        """The whole tools/list for a client: built-ins, then :attr:`extra_tools` (not in
        ``meta``), then the page tools as the profile shows them."""
        view = view or ClientView()
        chosen = profile or self.profile
        tools = self.list_tools(view, profile=chosen)
        if chosen != "meta" and self.extra_tools is not None:
            at = len(PROFILE_BUILTINS[chosen])
            tools[at:at] = self.extra_tools(view)
        return tools

    def list_tools(self, view: ClientView | None = None, *, profile: Profile | None = None) -> list[Mapping[str, Any]]:
        """The tools/list answer for a client (``profile`` overrides the configured one).

        Memoized per registry, hook and policy version, so polling an unchanged browser is a dictionary lookup.
        """
        view = view or ClientView()
        profile = profile or self.profile
        key = self._memo_key(view, profile)
        cached = self._listing_cache.get(key)
        if cached is None:
            if len(self._listing_cache) > 64 or any(k[:3] != key[:3] for k in self._listing_cache):
                self._listing_cache.clear()
            cached = self._listing_cache[key] = self._build_listing(view, profile)
        return list(cached)

    def _memo_key(self, view: ClientView, profile: Profile) -> tuple[Any, ...]:
        """What :meth:`list_tools` depends on: the registry (and hook) version, the profile, the
        client's opened categories, and in ``hybrid`` the usage-ranked core set."""
        expanded = frozenset(view.expanded) if view.dynamic else None
        usage = None
        if profile == "hybrid" and self.usage_core is not None and not self.core_tools:
            usage = frozenset(self.usage_core())
        return (self.registry.version, self.hook_version(), self.policy_check.version, profile, view.dynamic, expanded, usage)

    def listing_key(self, view: ClientView | None = None, *, profile: Profile | None = None) -> tuple[Any, ...]:
        """A hashable identity of :meth:`listing` for this client: equal keys mean equal listings,
        so a server can reuse the wire form it built for that key."""
        view = view or ClientView()
        chosen = profile or self.profile
        key = self._memo_key(view, chosen)
        if chosen != "meta" and self.extra_tools is not None:
            if self.extra_key is not None:
                key += (self.extra_key(view),)
            else:
                key += (json.dumps(self.extra_tools(view), sort_keys=True, default=str),)
        return key

    def _build_listing(self, view: ClientView, profile: Profile) -> list[Mapping[str, Any]]:
        out: list[Mapping[str, Any]] = list(self.builtins(profile))
        core = self.core_set(profile)
        for doc in self.registry.documents():
            out += self.document_part(doc, view, profile, core=core)
        return out

    @staticmethod
    def builtins(profile: Profile) -> list[dict[str, Any]]:
        """The profile's built-in tools, which open every listing."""
        return [builtin_tool(name) for name in PROFILE_BUILTINS[profile]]

    def core_set(self, profile: Profile) -> frozenset[tuple[str, str]] | None:
        """In ``hybrid`` with usage-ranked core tools: the ``(origin, tool)`` pairs ranked core now
        (read once per listing); ``None`` otherwise."""
        if profile == "hybrid" and self.usage_core is not None and not self.core_tools:
            return frozenset(self.usage_core())
        return None

    def _core(self, entry: ToolEntry, core: frozenset[tuple[str, str]] | None) -> bool:
        if core is None or self.core_tools or (entry.tool.scope is not None and entry.tool.scope.core):
            return self.is_core(entry)
        return (entry.tab.origin, entry.tool.name) in core

    def document_part(
        self, doc: Tab, view: ClientView, profile: Profile, *, core: frozenset[tuple[str, str]] | None = None
    ) -> list[Listed]:
        """One document's share of a listing, in listing order (builtins, extra tools, then documents).

        It depends only on what :class:`tabmcp.core.listing_json.ListingRenderer` keys its cached bytes on.
        """
        out: list[Listed] = []
        if profile == "meta":
            return out
        entries = self.registry.document_entries(doc.key)
        if profile in ("passthrough", "hybrid"):
            for entry in entries:
                if (isinstance(entry, ToolEntry) and self.policy_check.visible(entry)
                        and (profile == "passthrough" or self._core(entry, core))):
                    out.append(self.tool_definition(entry))
            return out
        for entry in entries:
            if isinstance(entry, CategoryEntry):
                members = self.visible_members(entry)
                if not members:
                    continue
                out.append(self.category_definition(entry, members))
                if view.dynamic and (entry.tab.key, entry.category.name) in view.expanded:
                    out.extend(self.tool_definition(m) for m in members)
            elif entry.category is None and self.policy_check.visible(entry):
                out.append(self.tool_definition(entry))
        return out

    def expand(self, entry: CategoryEntry, view: ClientView | None = None) -> tuple[str, dict[str, Any], bool]:
        """Answer a call of a category tool: the readable listing, the ``structuredContent`` and
        whether this client's tools/list changed (members join only on dynamic connections)."""
        members = self.visible_members(entry)
        tools = [
            listed_definition(
                m.public_name,
                definition_text(m.tool.description),
                _shown_schema(m.tool.input_schema),
                output_schema=_shown_schema(m.tool.output_schema) if m.tool.output_schema is not None else None,
                title=definition_text(m.tool.title) if m.tool.title else None,
                annotations=_tool_annotations(m),
            )
            for m in members
        ]
        # the tab is named by its origin and id, never its title: the title is the page's text
        where = f"tab {entry.tab.tab_id}" if entry.tab.is_open else "not open"
        lines = [f"Category {entry.public_name} on {entry.tab.origin} ({where}): {len(tools)} tools."]
        lines += [f"- {m.public_name}({_signature(m)}): {definition_text(m.tool.description)}" for m in members]
        changed = False
        if view is not None and view.dynamic and self.profile == "categories":
            key = (entry.tab.key, entry.category.name)
            if key not in view.expanded:
                view.expanded.add(key)
                changed = True
            lines.append("These tools are now also listed directly; call them by name.")
        else:
            lines.append("Run them with call_tool(name, arguments).")
        structured = {"category": entry.public_name, "source": entry.tab.origin, "tools": tools}
        return "\n".join(lines), structured, changed

    def describe(self, names: Iterable[str]) -> tuple[list[Mapping[str, Any]], list[str]]:
        """Full definitions of the named tools; the second list holds names not found or not allowed."""
        found: list[Mapping[str, Any]] = []
        missing: list[str] = []
        for name in names:
            entry = self.registry.resolve(name)
            if isinstance(entry, ToolEntry) and self.policy_check.visible(entry):
                found.append(self.tool_definition(entry))
            elif isinstance(entry, CategoryEntry) and (members := self.visible_members(entry)):
                found.append(self.category_definition(entry, members, full=True))
            else:
                missing.append(name)
        return found, missing

    # -- overviews ------------------------------------------------------------------------

    def introspect(self, trust: TrustSettings | None = None) -> Introspection:
        """Sources, categories, counts and states: the meta profile's map of the browser.

        Every page string goes through one gate per document; the caller starts the lockdown on a flag."""
        sources: dict[SourceKey, dict[str, Any]] = {}
        gates: dict[SourceKey, TextGate] = {}
        hidden = 0
        for tab in self.registry.documents():
            gate = gates[tab.key] = TextGate(PageSource(origin=tab.origin or "a web page"), trust)
            sources[tab.key] = {
                "tabId": tab.tab_id if tab.is_open else None,
                **({} if tab.is_open else {"open": False}),  # a closed reachable site: a call opens it
                **({"frameId": tab.frame_id} if tab.frame_id else {}),
                "origin": tab.origin,
                "url": gate.field(tab.url, 2_000),
                "title": gate.field(tab.title, 500),
                "states": [gate.field(state, 128) for state in tab.states],
                "native": tab.native,
                "tools": 0,
                "categories": [],
                "uncategorized": [],
                **({"refused": refusals(tab, gate)} if tab.rejected else {}),
            }
        for entry in self.registry.entries():
            src = sources[entry.tab.key]
            if isinstance(entry, CategoryEntry):
                members = self.visible_members(entry)
                if members:
                    description = gates[entry.tab.key].field(one_line(entry.category.description), 500)
                    src["categories"].append(
                        CategoryView(name=entry.public_name, description=description, toolCount=len(members))
                    )
            elif self.policy_check.visible(entry):
                src["tools"] += 1
                if entry.category is None:
                    src["uncategorized"].append(entry.public_name)
                if entry.tool.unchecked:
                    src.setdefault("unchecked", []).append({"name": entry.public_name, "notes": list(entry.tool.unchecked)})
            else:
                hidden += 1
        checked: list[tuple[TextGate, dict[str, Any]]] = []
        for key, src in sources.items():
            gate = gates[key]
            gate.scan()
            src["trust"] = gate.trust_meta()
            checked.append((gate, src["trust"]))
        policy = self.policy_check.policy
        data = {
            "profile": self.profile,
            "sources": list(sources.values()),
            "counts": {
                "tabs": len(self.registry.tabs),
                "frames": sum(1 for key in sources if key[1]),
                "tools": sum(s["tools"] for s in sources.values()),
                "categories": sum(len(s["categories"]) for s in sources.values()),
                "hidden": hidden,
            },
            "policy": {"allowWrites": policy.allow_writes, "focus": policy.focus, "role": policy.role},
        }
        return Introspection(data, checked)

    def context_markdown(self, *, source: str | None = None, category: str | None = None) -> str:
        """Every allowed tool, grouped by tab and category, one line each with its arguments."""
        lines: list[str] = []
        by_doc: dict[SourceKey, list[ToolEntry]] = {}
        for entry in self.allowed_tools():
            if source and source not in (entry.tab.origin, str(entry.tab.tab_id)) and source not in entry.tab.url:
                continue
            cat_public = (
                self.registry.public_name(entry.tab.key, entry.category.name) if entry.category else None
            )
            if category and category not in (cat_public, entry.category.name if entry.category else None):
                continue
            by_doc.setdefault(entry.tab.key, []).append(entry)
        for (tab_id, frame_id), entries in by_doc.items():
            tab = entries[0].tab
            where = f"tab {tab_id}, frame {frame_id}" if frame_id else f"tab {tab_id}"
            if not entries[0].tab.is_open:
                where = "not open: a call opens it"
            lines.append(f"## {tab.origin} ({where})")  # not the page's title: its text, not checked
            groups: dict[str | None, list[ToolEntry]] = {}
            for e in entries:
                groups.setdefault(e.category.name if e.category else None, []).append(e)
            for cat_name, members in groups.items():
                if cat_name:
                    cat = members[0].category
                    assert cat is not None
                    lines.append(f"### {cat_name}: {definition_text(one_line(cat.description))}")
                for e in members:
                    flags = "" if e.tool.read_only else " (writes)"
                    shown = definition_text(one_line(e.tool.description))
                    lines.append(f"- `{e.public_name}({_signature(e)})`{flags}: {shown}")
            lines.append("")
        if not lines:
            return "No tools are available in the open tabs."
        lines.append("Run any of them with call_tool(name, arguments).")
        return "\n".join(lines)
