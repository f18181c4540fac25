"""Tabs, their tools and categories, and the public names the agent sees.

No I/O: the extension layer feeds snapshots in, the MCP layer reads entries out.

Naming across tabs (documented in docs/architecture.md): every page tool and category
shares one namespace with the bridge's built-in tools. A name offered by one tab is used as
is. When several tabs offer the same name, the tab that offered it first keeps the plain
name and every later tab's copy is named ``t<tabId>.<name>`` (for example
``t42.create_user``). Built-in names are reserved: a page tool called ``call_tool`` is
always ``t<tabId>.call_tool``. Names stay stable while their tab lives; when the first tab
closes, the next-oldest copy takes the plain name (and clients are notified).

A plain name never moves to another origin at once: for ``rebind_guard_s`` (60 s) after a name
was bound to one origin, a tool of another origin that would take it is qualified instead. A
client holding a stale listing that calls ``create_user`` meaning shop.test's tool therefore
gets TOOL_NOT_FOUND, never bank.test's ``create_user``.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..protocol import TabSnapshot
from .injection import scan_tool
from .models import (
    MAX_STATES,
    TOOL_NAME_RE,
    PageCategory,
    PageTool,
    Rejection,
    parse_category,
    parse_tool,
)

__all__ = [
    "CategoryEntry",
    "Registry",
    "RegistryChange",
    "Tab",
    "ToolEntry",
    "origin_of",
]

MAX_TOOLS_PER_TAB = 10_000


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, or ``""`` for URLs without one (``about:blank``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if not parts.scheme or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


@dataclass(frozen=True)
class Tab:
    """One tab's top-level document as last reported by the extension."""

    tab_id: int
    url: str
    title: str
    origin: str
    document_id: str | None
    native: bool
    active: bool
    states: tuple[str, ...]
    tools: dict[str, PageTool]
    categories: dict[str, PageCategory]
    rejected: tuple[Rejection, ...] = ()
    focused: bool = False

    def source_meta(self) -> dict[str, object]:
        return {"tabId": self.tab_id, "origin": self.origin, "url": self.url, "title": self.title}


@dataclass(frozen=True)
class ToolEntry:
    """A page tool under its public name."""

    public_name: str
    tab: Tab
    tool: PageTool

    @property
    def category(self) -> PageCategory | None:
        name = self.tool.category
        return self.tab.categories.get(name) if name else None


@dataclass(frozen=True)
class CategoryEntry:
    """A page category under its public name, with its member tools."""

    public_name: str
    tab: Tab
    category: PageCategory
    members: tuple[ToolEntry, ...]


@dataclass(frozen=True)
class RegistryChange:
    """What one update did. ``changed`` is True when any listing may differ."""

    changed: bool
    tab_id: int | None = None
    closed: tuple[int, ...] = ()
    navigated: tuple[int, ...] = ()
    """Tabs whose document changed: calls pending in the old document cannot complete."""
    rejected: tuple[Rejection, ...] = ()


def _tab_from_snapshot(snap: TabSnapshot) -> Tab:
    rejected: list[Rejection] = []
    tools: dict[str, PageTool] = {}
    for raw in snap.tools[:MAX_TOOLS_PER_TAB]:
        parsed = parse_tool(raw)
        if isinstance(parsed, Rejection):
            rejected.append(parsed)
        elif parsed.name in tools:
            rejected.append(Rejection(kind="tool", name=parsed.name, reason="duplicate tool name in this tab"))
        else:
            warnings = tuple(scan_tool(parsed.name, parsed.title, parsed.description, parsed.input_schema))
            tools[parsed.name] = parsed.model_copy(update={"warnings": warnings}) if warnings else parsed
    if len(snap.tools) > MAX_TOOLS_PER_TAB:
        rejected.append(
            Rejection(
                kind="tool",
                name="(overflow)",
                reason=f"{len(snap.tools) - MAX_TOOLS_PER_TAB} tools beyond the {MAX_TOOLS_PER_TAB}-tool limit",
            )
        )
    categories: dict[str, PageCategory] = {}
    for raw in snap.categories:
        cat = parse_category(raw)
        if isinstance(cat, Rejection):
            rejected.append(cat)
            continue
        if cat.name in tools or cat.name in categories:
            rejected.append(Rejection(kind="category", name=cat.name, reason="name already used in this tab"))
            continue
        members = tuple(n for n in cat.tools if n in tools)
        missing = [n for n in cat.tools if n not in tools]
        rejected.extend(
            Rejection(kind="member", name=cat.name, reason=f"lists {str(m)[:128]!r}, a tool this tab does not have")
            for m in missing[:20]
        )
        categories[cat.name] = cat.model_copy(update={"tools": members})
    # A tool's category is whatever category lists it (the page's word for it wins over a
    # stale `category` field), so the two views can never disagree.
    owner = {m: c.name for c in categories.values() for m in c.tools}
    tools = {
        n: (t if t.category == owner.get(n) else t.model_copy(update={"category": owner.get(n)}))
        for n, t in tools.items()
    }
    states = tuple(dict.fromkeys(s for s in snap.states if isinstance(s, str) and 0 < len(s) <= 128))
    if len(states) > MAX_STATES:
        rejected.append(Rejection(kind="state", name="(overflow)", reason=f"more than {MAX_STATES} states"))
        states = states[:MAX_STATES]
    return Tab(
        tab_id=snap.tab_id,
        url=snap.url,
        title=snap.title[:500],
        origin=origin_of(snap.url),
        document_id=snap.document_id,
        native=snap.native,
        active=snap.active,
        focused=snap.focused,
        states=states,
        tools=tools,
        categories=categories,
        rejected=tuple(rejected),
    )


def _plain(entry: ToolEntry | CategoryEntry) -> str:
    return entry.tool.name if isinstance(entry, ToolEntry) else entry.category.name


def _qualified(tab_id: int, name: str) -> str:
    prefixed = f"t{tab_id}.{name}"
    if len(prefixed) <= 128:
        return prefixed
    head = f"t{tab_id}." if len(str(tab_id)) <= 20 else f"t{hashlib.sha1(str(tab_id).encode()).hexdigest()[:12]}."
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return head + name[: 128 - len(head) - 9] + "_" + digest


@dataclass
class _Index:
    by_public: dict[str, ToolEntry | CategoryEntry] = field(default_factory=dict)
    by_page: dict[tuple[int, str], str] = field(default_factory=dict)


class Registry:
    """The bridge's picture of every tab.

    ``version`` increases on every change that can alter a listing, so callers can cheaply
    tell whether anything they derived is stale.
    """

    def __init__(
        self,
        reserved_names: Iterable[str] = (),
        *,
        rebind_guard_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._tabs: dict[int, Tab] = {}
        self._reserved = frozenset(reserved_names)
        self._seq = itertools.count()
        self._first_seen: dict[tuple[int, str], int] = {}
        self._index: _Index | None = None
        self._bound: dict[str, tuple[str, float]] = {}
        """Plain name → (origin it was last bound to, when that binding was last known valid)."""
        self._guard = rebind_guard_s
        self._clock = clock
        self.version = 0

    # -- updates ------------------------------------------------------------------------

    def apply(self, snap: TabSnapshot) -> RegistryChange:
        """Replace one tab with its new snapshot."""
        new = _tab_from_snapshot(snap)
        old = self._tabs.get(new.tab_id)
        navigated: tuple[int, ...] = ()
        if old is not None and old.document_id and new.document_id and old.document_id != new.document_id:
            navigated = (new.tab_id,)
        if old == new:
            return RegistryChange(changed=False, tab_id=new.tab_id, rejected=new.rejected)
        self._tabs[new.tab_id] = new
        self._note_names(new)
        self._bump()
        return RegistryChange(changed=True, tab_id=new.tab_id, navigated=navigated, rejected=new.rejected)

    def sync(self, snaps: Iterable[TabSnapshot]) -> RegistryChange:
        """Replace every tab: tabs missing from ``snaps`` are gone."""
        snaps = list(snaps)
        seen = {s.tab_id for s in snaps}
        closed = tuple(t for t in self._tabs if t not in seen)
        changed = False
        rejected: list[Rejection] = []
        navigated: list[int] = []
        for tab_id in closed:
            self._drop(tab_id)
            changed = True
        for snap in snaps:
            change = self.apply(snap)
            changed |= change.changed
            rejected.extend(change.rejected)
            navigated.extend(change.navigated)
        if changed:
            self._bump()
        return RegistryChange(changed=changed, closed=closed, navigated=tuple(navigated), rejected=tuple(rejected))

    def remove(self, tab_id: int) -> RegistryChange:
        if tab_id not in self._tabs:
            return RegistryChange(changed=False, tab_id=tab_id)
        self._drop(tab_id)
        self._bump()
        return RegistryChange(changed=True, tab_id=tab_id, closed=(tab_id,))

    def clear(self) -> RegistryChange:
        closed = tuple(self._tabs)
        for tab_id in closed:
            self._drop(tab_id)
        if closed:
            self._bump()
        return RegistryChange(changed=bool(closed), closed=closed)

    def _drop(self, tab_id: int) -> None:
        self._tabs.pop(tab_id, None)
        for key in [k for k in self._first_seen if k[0] == tab_id]:
            del self._first_seen[key]

    def _note_names(self, tab: Tab) -> None:
        names = set(tab.tools) | set(tab.categories)
        for key in [k for k in self._first_seen if k[0] == tab.tab_id and k[1] not in names]:
            del self._first_seen[key]
        for name in sorted(names):
            self._first_seen.setdefault((tab.tab_id, name), next(self._seq))

    def _bump(self) -> None:
        if self._index is not None:  # the old bindings were valid until now
            now = self._clock()
            for name, entry in self._index.by_public.items():
                if name == _plain(entry):
                    self._bound[name] = (entry.tab.origin, now)
        self.version += 1
        self._index = None

    # -- reads --------------------------------------------------------------------------

    @property
    def tabs(self) -> dict[int, Tab]:
        return dict(self._tabs)

    def tab(self, tab_id: int) -> Tab | None:
        return self._tabs.get(tab_id)

    def _build_index(self) -> _Index:
        index = _Index()
        claims: dict[str, list[tuple[int, int, str]]] = {}
        for (tab_id, name), seq in self._first_seen.items():
            claims.setdefault(name, []).append((seq, tab_id, name))
        taken: set[str] = set(self._reserved)
        plain: dict[tuple[int, str], str] = {}
        now = self._clock()
        # First pass: the oldest claim of each non-reserved name takes it plainly, unless the
        # name was bound to another origin moments ago (see the module docstring).
        for name, owners in claims.items():
            owners.sort()
            if name in self._reserved:
                continue
            previous = self._bound.get(name)
            for _, tab_id, _ in owners:
                origin = self._tabs[tab_id].origin if tab_id in self._tabs else ""
                if previous is not None and previous[0] != origin and now - previous[1] < self._guard:
                    continue
                plain[(tab_id, name)] = name
                taken.add(name)
                self._bound[name] = (origin, now)
                break
        # Second pass: every other claim is qualified with its tab, avoiding any collision.
        for name, owners in sorted(claims.items()):
            for _, tab_id, _ in owners:
                if (tab_id, name) in plain:
                    continue
                candidate = _qualified(tab_id, name)
                n = 2
                while candidate in taken:
                    candidate = _qualified(tab_id, f"{name}.{n}")
                    n += 1
                taken.add(candidate)
                plain[(tab_id, name)] = candidate
        index.by_page = plain
        for tab in self._tabs.values():
            for tool in tab.tools.values():
                public = plain[(tab.tab_id, tool.name)]
                index.by_public[public] = ToolEntry(public, tab, tool)
            for cat in tab.categories.values():
                public = plain[(tab.tab_id, cat.name)]
                members = tuple(
                    ToolEntry(plain[(tab.tab_id, m)], tab, tab.tools[m]) for m in cat.tools if m in tab.tools
                )
                index.by_public[public] = CategoryEntry(public, tab, cat, members)
        return index

    def _idx(self) -> _Index:
        if self._index is None:
            self._index = self._build_index()
        return self._index

    def resolve(self, public_name: str) -> ToolEntry | CategoryEntry | None:
        """The tool or category behind a public name, or ``None``."""
        return self._idx().by_public.get(public_name)

    def public_name(self, tab_id: int, page_name: str) -> str | None:
        return self._idx().by_page.get((tab_id, page_name))

    def entries(self) -> Iterator[ToolEntry | CategoryEntry]:
        """Every tool and category, tabs in id order, names in registration order."""
        by_public = self._idx().by_public
        for tab_id in sorted(self._tabs):
            tab = self._tabs[tab_id]
            for cat in tab.categories.values():
                entry = by_public[self._idx().by_page[(tab_id, cat.name)]]
                yield entry
            for tool in tab.tools.values():
                yield by_public[self._idx().by_page[(tab_id, tool.name)]]

    def tool_entries(self) -> Iterator[ToolEntry]:
        for entry in self.entries():
            if isinstance(entry, ToolEntry):
                yield entry

    def category_entries(self) -> Iterator[CategoryEntry]:
        for entry in self.entries():
            if isinstance(entry, CategoryEntry):
                yield entry

    def all_public_names(self) -> list[str]:
        return list(self._idx().by_public)

    def counts(self) -> dict[str, int]:
        tools = sum(len(t.tools) for t in self._tabs.values())
        cats = sum(len(t.categories) for t in self._tabs.values())
        return {"tabs": len(self._tabs), "tools": tools, "categories": cats}


def is_valid_tool_name(name: str) -> bool:
    return bool(TOOL_NAME_RE.fullmatch(name))
