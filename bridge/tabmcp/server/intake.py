"""What the links say of the tabs, read and put in the registry (one job: the registry's intake).

A page's snapshot is read on the reader's thread (server/reader.py) and put in on the loop in the
order the messages came; a mediator's rewrite goes the same way. What putting it in changed fans out
through ``apply`` (server/changes.py). Built by the composition root (tabmcp/wiring.py).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.browsers import slot_of, wire_tab_id
from ..core.extension_links import ExtensionLinks, Peer
from ..core.registry import Reading, Registry, RegistryChange, origin_of
from ..core.search.sync import warm as warm_search
from ..core.stalls import LINK_WORK, StallMeter
from ..errors import ErrorCode
from ..protocol import TabClosedMessage, TabSnapshot, TabsSync, TabUpdate
from .hub import Hub
from .reader import OffLoop

if TYPE_CHECKING:
    from ..mediation import Mediation

__all__ = ["RegistryIntake"]

log = logging.getLogger("tabmcp.core")


class RegistryIntake:
    """The links' tab messages into the registry, each change handed to ``apply``."""

    def __init__(self, registry: Registry, reader: OffLoop, mediation: Mediation, stalls: StallMeter,
                 session: ExtensionLinks, hub: Hub, apply: Callable[[RegistryChange], None]) -> None:
        self.registry = registry
        self.reader = reader
        self.mediation = mediation
        self.stalls = stalls
        self.session = session
        self.hub = hub
        self._apply = apply
        self.several = False
        """A second browser linked during this run: sources name their browser from then on."""
        self.enhancing = 0
        """A middleware's snapshots not yet put in (``BridgeCore.settle`` waits for them)."""

    def tab_closed(self, _peer: Peer, m: TabClosedMessage) -> None:
        self.reader.submit(
            None, lambda _: self._apply(self.registry.remove(m.tab_id)))  # after its tab's readings

    def second_browser(self, peer: Peer) -> None:
        """A link completed its handshake: if it is a second browser, every tab's source names its
        browser now; after that, a browser that comes back has its tabs named too (those it had while
        away were read naming none, and its sync may keep them by reference: ``tabs.sync.kept``)."""
        if peer.slot and not self.several:  # a second browser: every tab's source names its browser now
            self.several = True
            links = list(self.session.links.values())
        elif self.several:
            links = [peer]
        else:
            return
        for link in links:
            stamp = functools.partial(self.registry.stamp, functools.partial(_in_slot, link.slot),
                                      self.browser_of(link))
            self.reader.submit(None, functools.partial(self._stamped, stamp))

    def browser_of(self, peer: Peer) -> tuple[str, str]:
        """What a tab's source says of its browser: nothing while one browser was ever linked (the
        listing an agent pays for is as it was), its browser and profile once there were two."""
        return (peer.browser, peer.profile) if self.several else ("", "")

    # A page's snapshot is read on the reader's thread (its definitions checked, scanned, split for
    # search: the work a page chooses) and put in on the loop, in the order the messages came.

    def on_sync(self, peer: Peer, message: TabsSync) -> None:
        snaps = [self.mediation.intake(t) for t in message.tabs]
        cut = [self.registry.cut_off(s) for s in snaps]  # a cut-off tab's snapshot is not read
        browser = self.browser_of(peer)

        def read() -> list[Reading]:
            return [Reading(s.tab_id, origin_of(s.url)) if skip else _read(s, browser)
                    for s, skip in zip(snaps, cut, strict=True)]

        kept = frozenset(ref.tab_id for ref in message.kept)  # unchanged: held as they are, not read again
        revisions = {s.tab_id: s.revision for s in snaps}
        self.reader.submit(read, functools.partial(self._synced, peer, kept, revisions),
                           functools.partial(self._not_read, peer, revisions))

    def _synced(self, peer: Peer, kept: frozenset[int], revisions: dict[int, str | None],
                readings: list[Reading]) -> None:
        slot = peer.slot
        with self.stalls.work(LINK_WORK):  # each tab's part is charged to its origin (Registry.commit_sync)
            change = self.registry.commit_sync(readings, within=lambda tab_id: slot_of(tab_id) == slot, kept=kept)
            self._apply(change)
        for tab_id in change.unread:  # not put in: the bridge does not hold the revision it came with
            self.session.revisions.unread(peer.key, tab_id, revisions.get(tab_id))
        unread = set(change.unread)  # cut off: told so, as an update's reading is
        for tab in self.registry.tabs.values():
            if (tab.rejected or tab.tab_id in unread) and slot_of(tab.tab_id) == slot:
                rejected = self.registry.rejected_of(tab.tab_id, unread=tab.tab_id in unread)
                self._report_rejections(peer, RegistryChange(changed=False, tab_id=tab.tab_id, rejected=rejected))
        self._send_soon()

    def on_update(self, peer: Peer, message: TabUpdate) -> None:
        snap = self.mediation.intake(message.tab)
        work = None if self.registry.cut_off(snap) else functools.partial(_read, snap, self.browser_of(peer))
        self.reader.submit(work, functools.partial(self._updated, peer, snap),
                           functools.partial(self._not_read, peer, {snap.tab_id: snap.revision}))

    def _not_read(self, peer: Peer, revisions: dict[int, str | None]) -> None:
        """Reading a message's tabs failed (a bridge bug, logged): none was put in, so the bridge
        holds none in the revision it came with, and a reconnect sends them whole."""
        for tab_id, revision in revisions.items():
            self.session.revisions.unread(peer.key, tab_id, revision)

    def _updated(self, peer: Peer | None, snap: TabSnapshot, reading: Reading | None) -> None:
        """Put one tab's reading in (``None``: not read, the tab is cut off); ``peer``: the link to
        tell of rejected definitions (none for a mediator's rewrite)."""
        if reading is None:
            reading = Reading(snap.tab_id, origin_of(snap.url))
        with self.stalls.work(reading.tab.origin if reading.tab else reading.origin):
            change = self.registry.commit(reading)
            self._apply(change)
        if change.unread and peer is not None:  # not put in: the bridge does not hold the revision it came with
            self.session.revisions.unread(peer.key, snap.tab_id, snap.revision)
        if change.rejected and peer is not None:
            self._report_rejections(peer, change)
        self._send_soon()

    def _send_soon(self) -> None:
        """A reading was put in after its frame's turn: send what it queued (reports, ended calls)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # driven without a loop (tests of the core): nothing to send on
            return
        self.hub.flush_soon()

    def _report_rejections(self, peer: Peer, change: RegistryChange) -> None:
        text = "; ".join(f"{r.kind} {r.name!r}: {r.reason}" for r in change.rejected[:20])
        log.warning("tab %s: rejected %d definitions: %s", change.tab_id, len(change.rejected), text)
        tab = wire_tab_id(change.tab_id) if change.tab_id is not None else None  # the browser's own id
        self.session.report(peer, ErrorCode.INVALID_TOOL, text, ref=f"tab:{tab}")

    def enhanced(self, snap: TabSnapshot) -> None:
        tab = self.registry.tab(snap.tab_id)
        if tab and not self.registry.cut_off(snap):
            self.enhancing += 1
            self.reader.submit(functools.partial(_read, snap, (tab.browser, tab.profile)),
                               functools.partial(self._enhanced_in, snap))

    def _enhanced_in(self, snap: TabSnapshot, reading: Reading) -> None:
        self.enhancing -= 1
        self._updated(None, snap, reading)

    def _stamped(self, stamp: Callable[[], RegistryChange], _: object) -> None:
        self._apply(stamp())


def _in_slot(slot: int, tab_id: int) -> bool:
    return slot_of(tab_id) == slot


def _read(snap: TabSnapshot, browser: tuple[str, str]) -> Reading:
    """One snapshot read on the reader's thread: its definitions, and its texts split for search."""
    reading = Registry.read(snap, browser=browser)
    if reading.tab is not None:
        warm_search(reading.tab)
    return reading
