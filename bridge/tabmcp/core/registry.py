"""Tabs, their tools and categories, and the public names the agent sees.

No I/O: the extension layer feeds snapshots in, the MCP layer reads entries out. A child frame
(``frame_id > 0``) and a closed reachable site (negative id, ``closed_site``) are sources like a
tab. The naming rules (first tab keeps the plain name, ``t<tabId>.<name>`` for the others, no
name ever moves to another origin) are in docs/architecture.md, "Names across tabs".
"""

from __future__ import annotations

import contextlib
import itertools
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import replace

from ..protocol import TabSnapshot
from .budget import TabWork, budget_scope
from .models import Rejection
from .public_names import _Index, _plain, _qualified, _same_names, is_qualified_form
from .snapshot_reading import _CUT_OFF, _keep_unchanged, _tab_from_snapshot, check_definition
from .tab_records import (
    CategoryEntry,
    ClosedSite,
    Reading,
    RegistryChange,
    SourceKey,
    Tab,
    ToolEntry,
    origin_of,
    snapshot_origin,
    trusted_url,
)

__all__ = [
    "CategoryEntry",
    "ClosedSite",
    "Reading",
    "Registry",
    "RegistryChange",
    "SourceKey",
    "Tab",
    "ToolEntry",
    "check_definition",
    "is_qualified_form",
    "origin_of",
    "snapshot_origin",
    "trusted_url",
]


class Registry:
    """The bridge's picture of every tab.

    ``version`` increases on every change that can alter a listing, so callers can tell cheaply what is stale.
    """

    def __init__(
        self,
        reserved_names: Iterable[str] = (),
        *,
        max_names_per_origin: int = 20_000,
        max_names: int = 200_000,
        charge: Callable[[str], AbstractContextManager[None]] | None = None,
    ) -> None:
        self._tabs: dict[int, Tab] = {}
        self._sites: dict[int, Tab] = {}
        """Closed reachable sites' stand-ins, by their negative id (:meth:`set_closed_sites`)."""
        self._reserved = frozenset(reserved_names)
        self._seq = itertools.count()
        self._first_seen: dict[int, dict[tuple[SourceKey, str], int]] = {}
        """Tab id → (document, page name) → when that name was first offered there (a sequence)."""
        self._claims: dict[str, dict[SourceKey, int]] = {}
        """Page name → the documents offering it → when each first did (``_first_seen`` by name)."""
        self._index: _Index | None = None
        self._documents: tuple[Tab, ...] | None = None
        """:meth:`documents`, in order, until the next change."""
        self._stale = True
        """The index lags the tabs: :meth:`_idx` brings it up to date."""
        self._dirty: set[int] = set()
        """Tabs (and closed sites) replaced or dropped since the index was last brought up to date."""
        self._bound: dict[str, str] = {}
        """Public name (plain or qualified) → the origin a listing ever named it for: no document of
        another origin gets it (docs/architecture.md, "Names across tabs")."""
        self._bound_by_origin: dict[str, OrderedDict[str, None]] = {}
        """The names of :attr:`_bound` per origin, least recently bound first (what :meth:`_forget` drops)."""
        self.work = TabWork()
        """The per-tab rule for schema work over budget (core/budget.py)."""
        self.max_names_per_origin = max_names_per_origin
        self.max_names = max_names
        self.incremental = True
        """Update the index from the tabs that changed (False: rebuild it whole every time)."""
        self.version = 0
        self.touches = 0
        """Goes up on :meth:`touch` only: a change of what listings show with no document changed."""
        self.charge: Callable[[str], AbstractContextManager[None]] = charge or (
            lambda _origin: contextlib.nullcontext())
        """Charges the reading of a tab's snapshot to its origin (:meth:`tabmcp.core.stalls.StallMeter.work`)."""

    # -- updates ------------------------------------------------------------------------

    def apply(self, snap: TabSnapshot, *, browser: tuple[str, str] = ("", "")) -> RegistryChange:
        """Replace one tab with its new snapshot: :meth:`read` and :meth:`commit` in one go.

        A tab whose schemas keep running over the work budget is cut off alone
        (:class:`~tabmcp.core.budget.TabWork`): its last tools stay, the change says why."""
        if self.cut_off(snap):
            return self.commit(Reading(snap.tab_id, origin_of(snap.url)))
        # a page chooses this cost: charged to it (core/stalls.py), and bounded (core/budget.py)
        with self.charge(snapshot_origin(snap)):
            reading = self.read(snap, browser=browser)
        return self.commit(reading)

    def cut_off(self, snap: TabSnapshot) -> bool:
        """Is this snapshot's tab cut off for work over budget (its snapshot is not to be read)?"""
        return self.work.cut_off(snap.tab_id, origin_of(snap.url))

    @staticmethod
    def read(snap: TabSnapshot, *, browser: tuple[str, str] = ("", "")) -> Reading:
        """Read one snapshot's definitions (the work a page chooses: schemas, checks, scans),
        touching no state of the registry: safe on a worker thread while the event loop goes on
        (:mod:`tabmcp.server.reader`); :meth:`commit` puts the outcome in, on the loop."""
        with budget_scope() as scope:
            tab = _tab_from_snapshot(snap, browser)
        return Reading(snap.tab_id, origin_of(snap.url), tab, scope)

    def commit(self, reading: Reading) -> RegistryChange:
        """Put one :meth:`read` outcome in (cheap: no definition is read again). A tab cut off
        since (an earlier snapshot's overruns) keeps its tools as last read; so does a reading
        with no tab (not read, the tab was cut off)."""
        tab_id = reading.tab_id
        new = reading.tab
        if new is None or self.work.cut_off(tab_id, reading.origin):
            return RegistryChange(changed=False, tab_id=tab_id, rejected=self.rejected_of(tab_id, unread=True),
                                  unread=(tab_id,))
        if reading.scope is not None and self.work.note(tab_id, reading.origin, reading.scope):
            new = replace(new, rejected=(*new.rejected, _CUT_OFF))
        old = self._tabs.get(new.tab_id)
        navigated: tuple[int, ...] = ()
        if old is not None and old.document_id and new.document_id and old.document_id != new.document_id:
            navigated = (new.tab_id,)
        if old == new:
            return RegistryChange(changed=False, tab_id=new.tab_id, rejected=new.rejected)
        if old is not None:
            _keep_unchanged(old, new)
        self._tabs[new.tab_id] = new
        self._note_names(new)
        self._bump()
        return RegistryChange(changed=True, tab_id=new.tab_id, navigated=navigated, rejected=new.rejected)

    def rejected_of(self, tab_id: int, *, unread: bool = False) -> tuple[Rejection, ...]:
        """What the tab's definitions had refused; ``unread``: and that its last snapshot was not
        read (cut off for work over budget: its tools as last read are kept)."""
        tab = self._tabs.get(tab_id)
        rejected = tab.rejected if tab is not None else ()
        return (*rejected, _CUT_OFF) if unread else rejected

    def sync(
        self, snaps: Iterable[TabSnapshot], *, within: Callable[[int], bool] | None = None,
        browser: tuple[str, str] = ("", ""),
    ) -> RegistryChange:
        """Replace every tab (``within``: every tab whose id it accepts, one browser's): tabs
        missing from ``snaps`` are gone."""
        readings = []
        for snap in snaps:
            if self.cut_off(snap):
                readings.append(Reading(snap.tab_id, origin_of(snap.url)))
                continue
            with self.charge(snapshot_origin(snap)):
                readings.append(self.read(snap, browser=browser))
        return self.commit_sync(readings, within=within)

    def commit_sync(self, readings: Iterable[Reading], *, within: Callable[[int], bool] | None = None,
                    kept: Iterable[int] = ()) -> RegistryChange:
        """:meth:`sync` with every tab read already (:meth:`read`, on any thread). ``kept``: tabs
        the sync keeps as they are (unchanged since their last snapshot: ``tabs.sync.kept``)."""
        readings = list(readings)
        seen = {r.tab_id for r in readings} | set(kept)
        closed = tuple(t for t in self._tabs if t not in seen and (within is None or within(t)))
        changed = False
        rejected: list[Rejection] = []
        navigated: list[int] = []
        unread: list[int] = []
        for tab_id in closed:
            self._drop(tab_id)
            changed = True
        for reading in readings:
            with self.charge(reading.tab.origin if reading.tab else reading.origin):
                change = self.commit(reading)
            changed |= change.changed
            rejected.extend(change.rejected)
            navigated.extend(change.navigated)
            unread.extend(change.unread)
        if changed:
            self._bump()
        return RegistryChange(changed=changed, closed=closed, navigated=tuple(navigated), rejected=tuple(rejected),
                              unread=tuple(unread))

    def remove(self, tab_id: int) -> RegistryChange:
        if tab_id not in self._tabs:
            return RegistryChange(changed=False, tab_id=tab_id)
        self._drop(tab_id)
        self._bump()
        return RegistryChange(changed=True, tab_id=tab_id, closed=(tab_id,))

    def clear(self, within: Callable[[int], bool] | None = None) -> RegistryChange:
        """Forget every tab (``within``: those whose id it accepts, one browser's)."""
        closed = tuple(t for t in self._tabs if within is None or within(t))
        for tab_id in closed:
            self._drop(tab_id)
        if closed:
            self._bump()
        return RegistryChange(changed=bool(closed), closed=closed)

    def stamp(self, within: Callable[[int], bool], browser: tuple[str, str]) -> RegistryChange:
        """Say which browser and profile hold the tabs whose id ``within`` accepts (their source
        names it from now on); their names do not change."""
        changed = False
        for tab_id, tab in list(self._tabs.items()):
            if within(tab_id) and (tab.browser, tab.profile) != browser:
                frames = tuple(replace(f, browser=browser[0], profile=browser[1]) for f in tab.frames)
                self._tabs[tab_id] = replace(tab, browser=browser[0], profile=browser[1], frames=frames)
                self._dirty.add(tab_id)
                changed = True
        if changed:
            self._bump()
        return RegistryChange(changed=changed)

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
        self.work.forget(tab_id)
        self._documents = None
        self._tabs.pop(tab_id, None)
        self._sites.pop(tab_id, None)
        self._dirty.add(tab_id)
        for key in self._first_seen.pop(tab_id, {}):
            self._unclaim(key)

    def _unclaim(self, key: tuple[SourceKey, str]) -> None:
        doc, name = key
        owners = self._claims[name]
        del owners[doc]
        if not owners:
            del self._claims[name]

    def _note_names(self, tab: Tab) -> None:
        self._documents = None
        self._dirty.add(tab.tab_id)
        names = {(doc.key, name) for doc in tab.documents() for name in (*doc.tools, *doc.categories)}
        seen = self._first_seen.setdefault(tab.tab_id, {})
        for key in [k for k in seen if k not in names]:
            del seen[key]
            self._unclaim(key)
        for key in sorted(names):
            if key not in seen:
                seq = seen[key] = next(self._seq)
                self._claims.setdefault(key[1], {})[key[0]] = seq

    def _bump(self) -> None:
        self.version += 1
        self._stale = True
        self._documents = None

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
        docs = self._documents
        if docs is None:
            docs = self._documents = (
                *(doc for tab_id in sorted(self._tabs) for doc in self._tabs[tab_id].documents()),
                *(self._sites[tab_id] for tab_id in sorted(self._sites, reverse=True)),
            )
        return iter(docs)

    def _idx(self) -> _Index:
        if self._stale:
            old = self._index
            many = len(self._dirty) > 8 and len(self._dirty) * 4 > len(self._tabs)
            if old is None or not self.incremental or old.collided or many:
                self._index = self._build_index(old)
            else:
                self._index = self._update_index(old) or self._build_index(old)
            self._stale = False
            self._dirty.clear()
            self._forget(self._index)
        assert self._index is not None
        return self._index

    def _plain_allowed(self, name: str) -> bool:
        """A page name that may be listed as it is: not a built-in's, not of the qualified form."""
        return name not in self._reserved and not is_qualified_form(name)

    def _elsewhere(self, public: str, origin: str) -> bool:
        """``public`` was named for another origin than ``origin``: it may not be ``origin``'s."""
        bound = self._bound.get(public)
        return bound is not None and bound != origin

    def _note_bound(self, public: str, origin: str) -> None:
        self._bound[public] = origin
        names = self._bound_by_origin.setdefault(origin, OrderedDict())
        names[public] = None
        names.move_to_end(public)

    def _forget(self, index: _Index) -> None:
        """Keep :attr:`_bound` bounded: drop the least recently bound names no document holds or
        claims, of each origin over ``max_names_per_origin``, then of the origins holding the most
        while the total is over ``max_names``. Another origin's churn never frees a name."""
        def drop(origin: str, excess: int) -> int:
            names = self._bound_by_origin[origin]
            gone: list[str] = []
            for public in names:
                if len(gone) >= excess:
                    break
                if public not in index.by_public and public not in index.blocked:
                    gone.append(public)
            for public in gone:
                del names[public]
                del self._bound[public]
            if not names:
                del self._bound_by_origin[origin]
            return len(gone)

        for origin in [o for o, names in self._bound_by_origin.items() if len(names) > self.max_names_per_origin]:
            drop(origin, len(self._bound_by_origin[origin]) - self.max_names_per_origin)
        while len(self._bound) > self.max_names:
            origin = max(self._bound_by_origin, key=lambda o: len(self._bound_by_origin[o]))
            if not drop(origin, len(self._bound) - self.max_names):
                break

    def retired(self, public_name: str) -> str | None:
        """The origin ``public_name`` was named for when no tool or category holds it now (its tool
        left; the name is not given to another origin): the call answers ``TOOL_GONE``."""
        index = self._idx()
        return None if public_name in index.by_public else self._bound.get(public_name)

    def _bind(self, name: str, owners: list[tuple[int, SourceKey]],
              docs: dict[SourceKey, Tab]) -> tuple[SourceKey | None, str, bool]:
        """Which document's claim of a name takes it plainly (the oldest of the origin it was named
        for, if any), its origin, and whether a claim of another origin was passed over."""
        held = False
        for _, key in owners:
            origin = docs[key].origin if key in docs else ""
            if self._elsewhere(name, origin):
                held = True
                continue
            return key, origin, held
        return None, "", held

    def _build_index(self, old: _Index | None) -> _Index:
        """The whole index from the tabs (the naming rules of docs/architecture.md, "Names across tabs")."""
        index = _Index()
        docs = {doc.key: doc for doc in self.documents()}
        taken: set[str] = set(self._reserved)
        plain: dict[tuple[SourceKey, str], str] = {}
        # First pass: the oldest claim of each name a page may hold plainly takes it, unless the
        # name was shown for another origin (docs/architecture.md).
        for name, claims in self._claims.items():
            if not self._plain_allowed(name):
                continue
            owners = sorted((seq, key) for key, seq in claims.items())
            winner, _, held = self._bind(name, owners, docs)
            if held:
                index.held.add(name)
                index.blocked.add(name)
            if winner is not None:
                plain[(winner, name)] = name
                taken.add(name)
        # Second pass: every other claim is qualified with its tab, avoiding any collision and any
        # qualified name shown for another origin (a tab that navigated to another site).
        for name, claims in sorted(self._claims.items()):
            for _, key in sorted((seq, key) for key, seq in claims.items()):
                if (key, name) in plain:
                    continue
                origin = docs[key].origin if key in docs else ""
                candidate = _qualified(key, name)
                n = 2
                while candidate in taken or self._elsewhere(candidate, origin):
                    index.collided = True
                    if candidate not in taken:
                        index.blocked.add(candidate)
                    candidate = _qualified(key, f"{name}.{n}")
                    n += 1
                taken.add(candidate)
                plain[(key, name)] = candidate
        index.by_page = plain
        for (key, _), public in plain.items():
            self._note_bound(public, docs[key].origin if key in docs else "")
        for (key, name), public in plain.items():
            index.by_name.setdefault(name, {})[key] = public
        for doc in docs.values():
            self._index_document(index, doc)
        return index

    def _index_document(self, index: _Index, doc: Tab) -> None:
        plain = index.by_page
        tools = {name: ToolEntry(plain[(doc.key, name)], doc, tool) for name, tool in doc.tools.items()}
        cats = [
            CategoryEntry(plain[(doc.key, cat.name)], doc, cat, tuple(tools[m] for m in cat.tools if m in tools))
            for cat in doc.categories.values()
        ]
        ordered: tuple[ToolEntry | CategoryEntry, ...] = (*cats, *tools.values())
        for entry in ordered:
            index.by_public[entry.public_name] = entry
        index.by_doc[doc.key] = ordered
        index.names[doc.key] = tuple(entry.public_name for entry in ordered)

    def _update_index(self, old: _Index) -> _Index | None:
        """``old`` renamed only where the changed tabs' names touch (other documents keep their
        entries); equal to :meth:`_build_index`'s result, or ``None`` when the whole build must number names."""
        docs = {doc.key: doc for doc in self.documents()}
        changed = {key for key in old.by_doc if key[0] in self._dirty}
        changed |= {key for key in docs if key[0] in self._dirty}
        if not old.held and all(_same_names(old.by_doc.get(key, ()), docs.get(key)) for key in changed):
            # The changed documents offer the same names from the same origins (a new title, URL,
            # state or definition): every name stays where it was; only their entries are new.
            for key in changed:
                for entry in old.by_doc.get(key, ()):
                    del old.by_public[entry.public_name]
                self._index_document(old, docs[key])
            return old
        names = set(old.held)
        for key in changed:
            for entry in old.by_doc.get(key, ()):
                names.add(_plain(entry))
            doc = docs.get(key)
            if doc is not None:
                names.update(doc.tools)
                names.update(doc.categories)
        held: set[str] = set()
        assigned: dict[str, dict[SourceKey, str]] = {}
        for name in sorted(names):
            claims = self._claims.get(name, {})
            owners = sorted((seq, key) for key, seq in claims.items())
            winner = None
            if self._plain_allowed(name) and owners:
                winner, _, was_held = self._bind(name, owners, docs)
                if was_held:
                    held.add(name)
            assigned[name] = {key: name if key == winner else _qualified(key, name) for _, key in owners}
        # Collisions: a new public name that another name's entry holds, that two claims share, or
        # that was shown for another origin (the whole build numbers it).
        fresh: set[str] = set()
        for publics in assigned.values():
            for key, public in publics.items():
                holder = old.by_public.get(public)
                if public in fresh or public in self._reserved or (holder is not None and _plain(holder) not in names):
                    return None
                if self._elsewhere(public, docs[key].origin if key in docs else ""):
                    return None
                fresh.add(public)
        for publics in assigned.values():
            for key, public in publics.items():
                self._note_bound(public, docs[key].origin if key in docs else "")
        # Documents to index again: the changed ones, and every one whose names moved.
        touched = set(changed)
        for name, publics in assigned.items():
            before = old.by_name.get(name, {})
            if before != publics:
                touched.update(key for key in before.keys() | publics.keys() if before.get(key) != publics.get(key))
        # From here ``old`` is updated in place (everything above only read it).
        index = old
        index.blocked = (index.blocked - names) | held
        index.held = held
        for key in touched:
            for entry in old.by_doc.get(key, ()):
                if index.by_public.get(entry.public_name) is entry:
                    del index.by_public[entry.public_name]
            index.by_doc.pop(key, None)
            index.names.pop(key, None)
        for name, publics in assigned.items():
            for key in old.by_name.get(name, {}):
                index.by_page.pop((key, name), None)
            for key, public in publics.items():
                index.by_page[(key, name)] = public
            if publics:
                index.by_name[name] = publics
            else:
                index.by_name.pop(name, None)
        for key in touched:
            doc = docs.get(key)
            if doc is not None:
                self._index_document(index, doc)
        return index

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
