"""The links' timers (one job): the sweep that expires transient origins' state while a browser is
linked, and each gone browser's reconnect grace, after which its tabs go. Built by the composition
root (tabmcp/wiring.py).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Hashable

from ..config import Config
from ..core.browsers import slot_of
from ..core.extension_links import ExtensionLinks, Peer
from ..core.registry import Registry, RegistryChange
from ..core.trust.retention import Retention
from .reader import OffLoop

__all__ = ["LinkTimers"]

log = logging.getLogger("tabmcp.core")


class LinkTimers:
    """The sweep timer and the reconnect-grace timers of one bridge."""

    def __init__(self, config: Config, session: ExtensionLinks, reader: OffLoop, registry: Registry,
                 retention: Retention, apply: Callable[[RegistryChange], None]) -> None:
        self.config = config
        self.session = session
        self.reader = reader
        self.registry = registry
        self.retention = retention
        self._apply = apply
        self._sweep: asyncio.TimerHandle | None = None
        self._grace: dict[Hashable, asyncio.TimerHandle] = {}
        """A browser whose link went: the timer after which its tabs go (by its browser key)."""

    def came_back(self, peer: Peer) -> None:
        """A browser's link is back: its tabs stay."""
        grace = self._grace.pop(peer.key, None)
        if grace is not None:
            grace.cancel()

    def start_grace(self, peer: Peer) -> None:
        """A browser's link went: its tabs stay for the reconnect grace, then go."""
        grace = self.config.server.reconnect_grace_s
        old = self._grace.pop(peer.key, None)
        if old is not None:
            old.cancel()
        self._grace[peer.key] = asyncio.get_running_loop().call_later(
            grace, self._grace_expired, peer.key, peer.slot
        )
        log.info("extension disconnected; keeping its tabs for %.1fs", grace)

    def _grace_expired(self, key: Hashable, slot: int) -> None:
        self._grace.pop(key, None)
        if key not in self.session.links:  # the browser did not come back: its tabs go, only its
            self.session.revisions.forget(key)  # and no later sync may keep one
            self.reader.submit(None, lambda _: self._apply(self.registry.clear(
                within=lambda tab_id: slot_of(tab_id) == slot)))

    def arm_sweep(self) -> None:
        """One timer for the expiry of transient origins' state, re-armed while an extension is
        linked (the next handshake or registry change arms it again). It holds the timers weakly:
        a bridge nobody uses any more is not kept alive by its timer."""
        if self._sweep is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # driven without a loop (tests of the core): the next change arms it
            return
        self._sweep = loop.call_later(self.retention.interval_s, _sweep_due, weakref.ref(self))

    def _swept(self) -> None:
        self._sweep = None
        try:
            self.retention.sweep()
        except Exception:  # the database may be busy or gone; the next sweep tries again
            log.exception("expiring the state of transient origins failed")
        if self.session.links:
            self.arm_sweep()


def _sweep_due(timers: weakref.ref[LinkTimers]) -> None:
    target = timers()
    if target is not None:
        target._swept()
