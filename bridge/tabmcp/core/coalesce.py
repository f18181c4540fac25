"""When to announce a burst of changes: a pure timing rule, clock passed in.

A page registering 75 tools one by one costs clients one ``tools/list_changed``: it goes out after
``debounce_s`` of quiet, and at the latest ``max_wait_s`` after the burst began.
"""

from __future__ import annotations

__all__ = ["Coalescer"]


class Coalescer:
    """Decides the delay of the next announcement; the caller owns the timer."""

    def __init__(self, *, debounce_s: float, max_wait_s: float) -> None:
        if debounce_s < 0 or max_wait_s < debounce_s:
            raise ValueError("need 0 <= debounce_s <= max_wait_s")
        self.debounce_s = debounce_s
        self.max_wait_s = max_wait_s
        self._burst_started: float | None = None

    @property
    def pending(self) -> bool:
        """A change happened that has not been announced yet."""
        return self._burst_started is not None

    def changed(self, now: float) -> float:
        """A change at ``now``: seconds from ``now`` until the announcement (re-arm the timer)."""
        if self._burst_started is None:
            self._burst_started = now
        return min(self.debounce_s, max(0.0, self._burst_started + self.max_wait_s - now))

    def fired(self) -> None:
        """The announcement went out: the next change starts a new burst."""
        self._burst_started = None
