"""Tabs, their tools and categories, and the public names the agent sees.

No I/O: the extension layer feeds snapshots in, the MCP layer reads entries out.

Naming across tabs (documented in docs/architecture.md): every page tool and category
shares one namespace with the bridge's built-in tools. A name offered by one tab is used as
is. When several tabs offer the same name, the tab that offered it first keeps the plain
name and every later tab's copy is named ``t<tabId>.<name>`` (for example
``t42.create_user``). Built-in names are reserved: a page tool called ``call_tool`` is
always ``t<tabId>.call_tool``. Names stay stable while their tab lives; when the first tab
closes, the next-oldest copy takes the plain name (and clients are notified).

Child frames: a frame whose tools the top page allows (see docs/architecture.md) is a source
of its own, a :class:`Tab` with ``frame_id > 0`` and the frame's origin, held in its tab's
``frames``. Its tools follow the same naming rule; their qualified form is
``t<tabId>f<frameId>.<name>``.

Closed sites: the tools of a reachable site with no open tab (:mod:`tabmcp.core.sites`) are held
as one more document per site, a :class:`Tab` whose ``closed_site`` is set and whose id is
negative (:meth:`Registry.set_closed_sites`). They share the namespace and the rules above, so
search, describe and every profile see them like any tab's; a call of one opens the site first.

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
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from ..protocol import FrameSnapshot, TabSnapshot
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
from .page_forms import PAGE_FORM_MARK

__all__ = [
    "CategoryEntry",
    "ClosedSite",
    "Registry",
    "RegistryChange",
    "SourceKey",
    "Tab",
    "ToolEntry",
    "origin_of",
    "snapshot_origin",
    "trusted_url",
]

MAX_TOOLS_PER_TAB = 10_000

SourceKey = tuple[int, int]
"""``(tab_id, frame_id)``: one document that offers tools (frame 0 is the tab's top document)."""


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower-cased, default port dropped (as Chrome spells
    origins, and as :func:`tabmcp.core.controls.normalize_origin` does); ``"file://"`` for file
    URLs; ``""`` for URLs without one (``about:blank``). User info never counts as the host."""
    try:
        parts = urlsplit(str(url).strip())
        port = parts.port
    except ValueError:
        return ""
    scheme = parts.scheme.lower()
    if scheme == "file":
        return "file://"
    host = (parts.hostname or "").lower()  # hostname drops "user:pass@" and lower-cases
    if not scheme or not host:
        return ""
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != _DEFAULT_PORTS.get(scheme) else "")


def snapshot_origin(snap: TabSnapshot | FrameSnapshot) -> str:
    """A document's origin: Chrome's word for it (``origin``) when the extension sent one, never
    the URL the page itself reported (a page script can claim any URL); the URL's for old
    extensions that send no origin."""
    chrome = origin_of(snap.origin) if snap.origin and snap.origin != "null" else ""
    return chrome or origin_of(snap.url)


def trusted_url(snap: TabSnapshot | FrameSnapshot, origin: str) -> str:
    """The page's URL if it is of the origin Chrome reported, else just that origin (a page that
    claims another site's URL does not get to show it)."""
    return snap.url if origin_of(snap.url) == origin else origin


@dataclass(frozen=True)
class ClosedSite:
    """What a closed site's document knows beyond its tools: where each tool was last registered."""

    urls: tuple[tuple[str, str], ...] = ()
    """``(tool name, URL of the document that registered it)``, the URL a call of it opens."""

    def url_of(self, tool: str, default: str = "") -> str:
        return next((url for name, url in self.urls if name == tool), default)


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
    frame_id: int = 0
    """0 for a tab's top-level document; a child frame's id otherwise."""
    frames: tuple[Tab, ...] = ()
    """The child frames whose tools the top page allows (each a ``Tab`` with ``frame_id > 0``)."""
    closed_site: ClosedSite | None = None
    """Set on the stand-in of a reachable site with no open tab (its ``tab_id`` is negative)."""

    @property
    def is_open(self) -> bool:
        """A real tab's document, not a closed site's stand-in."""
        return self.closed_site is None
    forms_origin: str = ""
    """The origin Chrome gave the document that sent page forms (``TabSnapshot.forms.origin``)."""

    @property
    def key(self) -> SourceKey:
        """Identifies this document among every tab's documents: ``(tab_id, frame_id)``."""
        return (self.tab_id, self.frame_id)

    def documents(self) -> tuple[Tab, ...]:
        """This document and its allowed child frames."""
        return (self, *self.frames)

    def source_meta(self) -> dict[str, object]:
        if self.closed_site is not None:  # no tab yet: a call opens ``url`` in a background tab
            return {"origin": self.origin, "url": self.url, "title": self.title, "open": False}
        meta: dict[str, object] = {"tabId": self.tab_id, "origin": self.origin, "url": self.url, "title": self.title}
        if self.frame_id:
            meta["frameId"] = self.frame_id
        return meta


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
    top = _document(snap, snap.tab_id, 0, snapshot_origin(snap))
    frames = tuple(
        _document(f, snap.tab_id, f.frame_id, snapshot_origin(f))
        for f in snap.frames
        if f.frame_id
    )
    rejected = top.rejected + tuple(
        r.model_copy(update={"name": f"frame {f.frame_id}: {r.name}"}) for f in frames for r in f.rejected
    )
    forms_origin = origin_of(snap.forms.origin) if snap.forms is not None else ""
    return replace(top, native=snap.native, active=snap.active, focused=snap.focused, rejected=rejected,
                   frames=frames, forms_origin=forms_origin)


def _as_page_form(tool: PageTool) -> PageTool:
    """A page form as the agent sees it: marked, never read-only, in no category, no page scope."""
    description = tool.description
    if not description.startswith(PAGE_FORM_MARK):
        description = f"{PAGE_FORM_MARK} {description}"[:8_000]
    return tool.model_copy(
        update={"description": description, "annotations": {}, "scope": None, "category": None}
    )


def _document(snap: TabSnapshot | FrameSnapshot, tab_id: int, frame_id: int, origin: str) -> Tab:
    """Validate one document's tools, categories and states (each bad one rejected alone)."""
    rejected: list[Rejection] = []
    tools: dict[str, PageTool] = {}
    for raw in snap.tools[:MAX_TOOLS_PER_TAB]:
        parsed = parse_tool(raw)
        if isinstance(parsed, Rejection):
            rejected.append(parsed)
        elif parsed.page_form and frame_id:
            continue  # page forms are the top document's only
        elif parsed.name in tools:
            rejected.append(Rejection(kind="tool", name=parsed.name, reason="duplicate tool name in this tab"))
        else:
            if parsed.page_form:
                parsed = _as_page_form(parsed)
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
        members = tuple(n for n in cat.tools if n in tools and not tools[n].page_form)
        missing = [n for n in cat.tools if n not in tools or tools[n].page_form]
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
        tab_id=tab_id,
        frame_id=frame_id,
        url=trusted_url(snap, origin),
        title=snap.title[:500],
        origin=origin,
        document_id=snap.document_id,
        native=False,
        active=False,
        states=states,
        tools=tools,
        categories=categories,
        rejected=tuple(rejected),
    )


def _plain(entry: ToolEntry | CategoryEntry) -> str:
    return entry.tool.name if isinstance(entry, ToolEntry) else entry.category.name


def _qualified(key: SourceKey, name: str) -> str:
    tab_id, frame_id = key
    where = f"t{tab_id}f{frame_id}" if frame_id else f"t{tab_id}"
    prefixed = f"{where}.{name}"
    if len(prefixed) <= 128:
        return prefixed
    head = f"{where}." if len(where) <= 21 else f"t{hashlib.sha1(where.encode()).hexdigest()[:12]}."
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return head + name[: 128 - len(head) - 9] + "_" + digest


@dataclass
class _Index:
    by_public: dict[str, ToolEntry | CategoryEntry] = field(default_factory=dict)
    by_page: dict[tuple[SourceKey, str], str] = field(default_factory=dict)
    by_doc: dict[SourceKey, tuple[ToolEntry | CategoryEntry, ...]] = field(default_factory=dict)
    """Each document's entries in listing order: its categories, then its tools."""
    names: dict[SourceKey, tuple[str, ...]] = field(default_factory=dict)
    """Each document's public names, in the order of ``by_doc``."""


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
        self._sites: dict[int, Tab] = {}
        """Closed reachable sites' stand-ins, by their negative id (:meth:`set_closed_sites`)."""
        self._reserved = frozenset(reserved_names)
        self._seq = itertools.count()
        self._first_seen: dict[tuple[SourceKey, str], int] = {}
        self._index: _Index | None = None
        self._bound: dict[str, tuple[str, float]] = {}
        """Plain name → (origin it was last bound to, when that binding was last known valid)."""
        self._guard = rebind_guard_s
        self._clock = clock
        self.version = 0
        self.touches = 0
        """Goes up on :meth:`touch` only: a change of what listings show with no document changed."""

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

    def set_closed_sites(self, sites: Iterable[Tab]) -> RegistryChange:
        """Replace the stand-ins of closed reachable sites (each a ``Tab`` with ``closed_site`` set
        and a negative id); unchanged ones keep their names."""
        new = {t.tab_id: t for t in sites}
        assert all(t.tab_id < 0 and t.closed_site is not None for t in new.values())
        if new == self._sites:
            return RegistryChange(changed=False)
        for tab_id in [t for t in self._sites if t not in new]:
            self._drop(tab_id)
        for tab in new.values():
            if self._sites.get(tab.tab_id) != tab:
                self._sites[tab.tab_id] = tab
                self._note_names(tab)
        self._bump()
        return RegistryChange(changed=True)

    @property
    def closed_sites(self) -> dict[int, Tab]:
        return dict(self._sites)

    def touch(self) -> RegistryChange:
        """Nothing in the tabs changed, but what a listing shows of them may have (a policy the
        gate reads changed): a new version, so listings built before are known to be stale."""
        self.touches += 1
        self._bump()
        return RegistryChange(changed=True)

    def _drop(self, tab_id: int) -> None:
        self._tabs.pop(tab_id, None)
        self._sites.pop(tab_id, None)
        for key in [k for k in self._first_seen if k[0][0] == tab_id]:
            del self._first_seen[key]

    def _note_names(self, tab: Tab) -> None:
        names = {(doc.key, name) for doc in tab.documents() for name in (*doc.tools, *doc.categories)}
        for key in [k for k in self._first_seen if k[0][0] == tab.tab_id and k not in names]:
            del self._first_seen[key]
        for key in sorted(names):
            self._first_seen.setdefault(key, next(self._seq))

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

    def focused_tab(self, recent: int | None = None) -> int | None:
        """The tab the person looks at; else ``recent`` (the tab that last sent telemetry) if it
        is open; else an active tab; else any tab."""
        tabs = self._tabs
        for tab in tabs.values():
            if tab.focused:
                return tab.tab_id
        if recent in tabs:
            return recent
        for tab in tabs.values():
            if tab.active:
                return tab.tab_id
        return next(iter(tabs), None)

    def tab(self, tab_id: int) -> Tab | None:
        return self._tabs.get(tab_id)

    def documents(self) -> Iterator[Tab]:
        """Every document that offers tools: each tab in id order, then its allowed frames, then
        the closed reachable sites' stand-ins."""
        for tab_id in sorted(self._tabs):
            yield from self._tabs[tab_id].documents()
        for tab_id in sorted(self._sites, reverse=True):
            yield self._sites[tab_id]

    def _build_index(self) -> _Index:
        index = _Index()
        docs = {doc.key: doc for doc in self.documents()}
        claims: dict[str, list[tuple[int, SourceKey, str]]] = {}
        for (key, name), seq in self._first_seen.items():
            claims.setdefault(name, []).append((seq, key, name))
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
            for _, key, _ in owners:
                origin = docs[key].origin if key in docs else ""
                if previous is not None and previous[0] != origin and now - previous[1] < self._guard:
                    continue
                plain[(key, name)] = name
                taken.add(name)
                self._bound[name] = (origin, now)
                break
        # Second pass: every other claim is qualified with its tab, avoiding any collision.
        for name, owners in sorted(claims.items()):
            for _, key, _ in owners:
                if (key, name) in plain:
                    continue
                candidate = _qualified(key, name)
                n = 2
                while candidate in taken:
                    candidate = _qualified(key, f"{name}.{n}")
                    n += 1
                taken.add(candidate)
                plain[(key, name)] = candidate
        index.by_page = plain
        for doc in docs.values():
            tools = {name: ToolEntry(plain[(doc.key, name)], doc, tool) for name, tool in doc.tools.items()}
            cats = [
                CategoryEntry(plain[(doc.key, cat.name)], doc, cat, tuple(tools[m] for m in cat.tools if m in tools))
                for cat in doc.categories.values()
            ]
            ordered = (*cats, *tools.values())
            for entry in ordered:
                index.by_public[entry.public_name] = entry
            index.by_doc[doc.key] = ordered
            index.names[doc.key] = tuple(entry.public_name for entry in ordered)
        return index

    def _idx(self) -> _Index:
        if self._index is None:
            self._index = self._build_index()
        return self._index

    def resolve(self, public_name: str) -> ToolEntry | CategoryEntry | None:
        """The tool or category behind a public name, or ``None``."""
        return self._idx().by_public.get(public_name)

    def public_name(self, source: int | SourceKey, page_name: str) -> str | None:
        """The public name of a tool or category of a document (a tab id means its top document)."""
        key = (source, 0) if isinstance(source, int) else source
        return self._idx().by_page.get((key, page_name))

    def entries(self) -> Iterator[ToolEntry | CategoryEntry]:
        """Every tool and category, tabs in id order (each before its frames), names in registration order."""
        index = self._idx()
        for doc in self.documents():
            yield from index.by_doc[doc.key]

    def document_entries(self, key: SourceKey) -> tuple[ToolEntry | CategoryEntry, ...]:
        """One document's entries in the order of :meth:`entries` (empty for an unknown document)."""
        return self._idx().by_doc.get(key, ())

    def document_names(self, key: SourceKey) -> tuple[str, ...]:
        """The public names of :meth:`document_entries`: a document's part of a listing depends on
        them besides the document itself (a name moves when another tab takes or frees it)."""
        return self._idx().names.get(key, ())

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
        docs = [d for d in self.documents() if d.is_open]
        tools = sum(len(d.tools) for d in docs)
        cats = sum(len(d.categories) for d in docs)
        return {"tabs": len(self._tabs), "frames": len(docs) - len(self._tabs), "tools": tools, "categories": cats}

    def closed_site_counts(self) -> dict[str, int]:
        """How many closed reachable sites stand in for tabs, and their tools."""
        return {"closedSites": len(self._sites), "closedSiteTools": sum(len(t.tools) for t in self._sites.values())}


def is_valid_tool_name(name: str) -> bool:
    return bool(TOOL_NAME_RE.fullmatch(name))
