"""Expiry of what pages of origins the person never trusted leave behind (pins, usage rows), once
no tab of the origin has been open for ``grace_s``; the rule is in docs/security.md ("A page
churning tool names").

An expired pin makes a changed tool ``new`` rather than ``changed``, acceptable only for transient
origins: a page could always have used a fresh name. The bridge core calls
:meth:`Retention.note_open` after each registry change and :meth:`Retention.sweep` on a timer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol

from .pins import Pins

__all__ = ["Retention"]


class _Usage(Protocol):
    def origins(self) -> dict[str, float]: ...

    def forget(self, origin: str) -> None: ...


class Retention:
    """When the state of transient origins goes (``pins`` carry ``grace_s`` and decide trust;
    ``usage`` counts expire with them)."""

    def __init__(
        self, pins: Pins, usage: _Usage | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self.pins = pins
        self.usage = usage
        self.clock = clock
        self.expired = 0
        """Origins whose state expired since this object was made (tests and the bench read it)."""
        self._open: frozenset[str] = frozenset()
        self._present: dict[str, float] = {}

    @property
    def interval_s(self) -> float:
        """How often :meth:`sweep` should run: often enough that state lives at most about one
        and a half grace periods, at least every 30 s (the total cap is held there too)."""
        return min(max(self.pins.limits.grace_s / 2, 0.05), 30.0)

    def note_open(self, origins: Iterable[str]) -> None:
        """The origins with an open tab now (an origin no longer listed closed now)."""
        now = self.clock()
        current = frozenset(o for o in origins if o)
        for origin in self._open | current:
            self._present[origin] = now
        self._open = current

    def sweep(self) -> list[str]:
        """Delete the state of transient origins gone for longer than the grace period, then
        hold the transient pins to their total cap; the origins whose state expired."""
        now = self.clock()
        grace = self.pins.limits.grace_s
        pins = self.pins.origins()
        usage = self.usage.origins() if self.usage is not None else {}
        expired: list[str] = []
        for origin in sorted(set(pins) | set(usage)):
            if origin in self._open or self.pins.is_trusted(origin):
                continue
            last = max(pins.get(origin, (0, 0.0))[1], usage.get(origin, 0.0), self._present.get(origin, 0.0))
            if now - last < grace:
                continue
            self.pins.drop(origin)
            if self.usage is not None:
                self.usage.forget(origin)
            self._present.pop(origin, None)
            expired.append(origin)
        self.pins.cap_transient()
        for origin in [o for o in self._present if o not in self._open and o not in pins and o not in usage]:
            del self._present[origin]  # nothing of it is stored: nothing to remember
        if expired:
            self.expired += len(expired)
            self.pins.store.reclaim()
        return expired
