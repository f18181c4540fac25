"""The bridge's flood rules for the extension link, as plain objects (no I/O; the clock is injected).

The extension limits every page itself; these rules are for whatever reaches the bridge anyway,
and keep one tab's flood to that tab: :class:`TabFlood` sheds one tab's telemetry past
:data:`TAB_RATE`, while the link's own limit (``FLOODED``, server/extension.py) counts a shed
message as :data:`SHED_COST` of one, so only a flood beyond any tab rule ends the link.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

__all__ = ["MAX_TABS", "SHED_COST", "TAB_BURST", "TAB_RATE", "TabFlood", "TokenBucket"]

TAB_RATE = 100.0
"""Telemetry batches a second one tab may sustain (its page's own capture sends 4 to 20; the
extension lets 40 through)."""
TAB_BURST = 400.0
SHED_COST = 0.1
"""What a shed message costs the link's own gate, in messages."""
MAX_TABS = 1024
"""Tabs with a bucket at a time (the least recently heard from is forgotten first)."""
QUIET_S = 10.0
"""A tab that sent nothing past its rate for this long is no longer flooding (a new episode is logged)."""


class TokenBucket:
    """``take(n)`` is False once a sender is past ``rate`` a second beyond ``burst``."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = burst
        self._clock = clock
        self._last = clock()

    def take(self, n: float = 1) -> bool:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens < n:
            return False
        self._tokens -= n
        return True


class TabFlood:
    """The per-tab rule: which tabs' telemetry to shed, and how much was.

    ``admit`` returns ``None`` when it refused a tab that was not flooding a moment ago, so the
    caller names the tab once per episode.
    """

    def __init__(
        self,
        rate: float = TAB_RATE,
        burst: float = TAB_BURST,
        clock: Callable[[], float] = time.monotonic,
        max_tabs: int = MAX_TABS,
    ) -> None:
        self.rate = rate
        self._burst = burst
        self._clock = clock
        self._max_tabs = max_tabs
        self._buckets: OrderedDict[int, TokenBucket] = OrderedDict()
        self._last_shed: dict[int, float] = {}
        self.shed: dict[int, int] = {}
        self.shed_total = 0

    def admit(self, tab_id: int) -> bool | None:
        """True: the batch goes on. False: shed (the tab is flooding). None: shed, and the tab
        just started flooding (name it)."""
        bucket = self._buckets.get(tab_id)
        if bucket is None:
            bucket = self._buckets[tab_id] = TokenBucket(self.rate, self._burst, self._clock)
            while len(self._buckets) > self._max_tabs:
                self.forget(next(iter(self._buckets)))
        else:
            self._buckets.move_to_end(tab_id)
        if bucket.take():
            return True
        now = self._clock()
        started = now - self._last_shed.get(tab_id, -QUIET_S - 1) > QUIET_S
        self._last_shed[tab_id] = now
        self.shed[tab_id] = self.shed.get(tab_id, 0) + 1
        self.shed_total += 1
        return None if started else False

    def flooding(self) -> list[int]:
        """The tabs shedding now (refused a batch in the last :data:`QUIET_S` seconds)."""
        now = self._clock()
        return sorted(t for t, at in self._last_shed.items() if now - at <= QUIET_S)

    def forget(self, tab_id: int) -> None:
        """The tab closed (or is the least recently heard from): its bucket and counts go."""
        self._buckets.pop(tab_id, None)
        self._last_shed.pop(tab_id, None)
        self.shed.pop(tab_id, None)
