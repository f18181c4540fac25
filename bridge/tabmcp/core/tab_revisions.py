"""Which revision of each tab the bridge holds, per browser: what lets a reconnect to the same bridge
run keep the unchanged tabs instead of sending them again (issue 35, docs/protocol.md "A reconnect
keeps what the bridge holds").

The worker gives every tab state it sends an opaque ``revision`` (its instance id and a counter).
The links' protocol notes, in the order the messages come, the revision of each tab a sync or an
update put in, and forgets a closed tab's. After a drop, while the reconnect grace keeps the tabs,
``welcome`` lists them to the same worker instance (the same ``instanceId``, naming this run's
``sessionId``); its sync then keeps the tabs unchanged since by reference (``tabs.sync.kept``). A
reference this table does not hold in that revision refuses the whole sync (``UNKNOWN_REVISION``):
the worker sends every tab, so a tab is never kept stale nor dropped.

A revision is the paired extension's word, never a page's: the worker makes it, its length is capped
on the wire, and at most :data:`~tabmcp.protocol.MAX_KEPT_TABS` are kept per browser.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from ..errors import UnknownRevision
from ..protocol import MAX_KEPT_TABS, Hello, TabRef, TabSnapshot
from .browsers import wire_tab_id

__all__ = ["TabRevisions"]


class _Held:
    """One browser's worker instance and the revision of each tab the bridge holds from it."""

    def __init__(self, instance_id: str | None) -> None:
        self.instance_id = instance_id
        self.tabs: dict[int, str] = {}
        """Wire tab id → the revision of its state the bridge took last."""


class TabRevisions:
    """Each browser's tab revisions, noted as its messages are taken (no I/O)."""

    def __init__(self, limit: int = MAX_KEPT_TABS) -> None:
        self.limit = limit
        self._held: dict[Hashable, _Held] = {}

    def welcome(self, key: Hashable, hello: Hello, session_id: str) -> list[TabRef]:
        """A browser said ``hello``: what ``welcome.held`` lists. Only a worker that can keep tabs,
        names this run and is the very instance whose revisions these are gets them; any other
        starts afresh (its full sync sends every tab and notes their revisions)."""
        held = self._held.get(key)
        if (held is not None and hello.revisions and hello.session_id == session_id
                and hello.instance_id is not None and held.instance_id == hello.instance_id):
            return [TabRef(tab_id=tab_id, revision=revision) for tab_id, revision in held.tabs.items()]
        self._held[key] = _Held(hello.instance_id)
        return []

    def synced(self, key: Hashable, tabs: Iterable[TabSnapshot], kept: Iterable[TabRef]) -> None:
        """A whole sync was taken: its tabs and the ones it keeps are what the bridge holds now.

        Raises:
            UnknownRevision: a kept tab is not held in that revision (nothing is noted: the sync is
                refused whole).
        """
        held = self._held.setdefault(key, _Held(None))
        tabs = list(tabs)
        sent = {wire_tab_id(t.tab_id) for t in tabs}
        refs = [(wire_tab_id(ref.tab_id), ref.revision) for ref in kept]
        stale = [(tab_id, revision) for tab_id, revision in refs
                 if tab_id not in sent and held.tabs.get(tab_id) != revision]
        if stale:
            named = ", ".join(f"tab {tab_id} revision {revision!r}" for tab_id, revision in stale[:5])
            raise UnknownRevision(
                f"the sync keeps {len(stale)} tab(s) by a revision this bridge does not hold ({named}): "
                "it is refused whole; send every tab", ref="tabs.sync")
        now = {tab_id: revision for tab_id, revision in refs if tab_id not in sent}
        for tab in tabs:
            if tab.revision is not None:
                now[wire_tab_id(tab.tab_id)] = tab.revision
        held.tabs = dict(list(now.items())[: self.limit])

    def updated(self, key: Hashable, tab: TabSnapshot) -> None:
        """A tab's update was taken: its revision now (none: the tab cannot be kept)."""
        held = self._held.setdefault(key, _Held(None))
        tab_id = wire_tab_id(tab.tab_id)
        if tab.revision is None:
            held.tabs.pop(tab_id, None)
        elif tab_id in held.tabs or len(held.tabs) < self.limit:
            held.tabs[tab_id] = tab.revision

    def unread(self, key: Hashable, tab_id: int, revision: str | None) -> None:
        """A tab's snapshot in ``revision`` was taken but not put in the registry (cut off for work
        over budget: the tab stays as last read): the bridge does not hold that revision, so a
        reconnect sends the tab whole, read again once the cut-off has ended. A later revision
        noted meanwhile stays (its own reading says)."""
        held = self._held.get(key)
        if held is not None and revision is not None and held.tabs.get(wire_tab_id(tab_id)) == revision:
            del held.tabs[wire_tab_id(tab_id)]

    def closed(self, key: Hashable, tab_id: int) -> None:
        """A tab closed: it cannot be kept."""
        held = self._held.get(key)
        if held is not None:
            held.tabs.pop(wire_tab_id(tab_id), None)

    def forget(self, key: Hashable) -> None:
        """The browser's tabs went (its reconnect grace ran out): nothing of it can be kept."""
        self._held.pop(key, None)

    def held(self, key: Hashable) -> dict[int, str]:
        """The browser's tabs and their revisions (wire tab ids), for tests and the log."""
        held = self._held.get(key)
        return dict(held.tabs) if held is not None else {}
