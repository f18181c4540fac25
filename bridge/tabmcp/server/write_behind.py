"""Write-behind on the event loop: pending rows reach SQLite within a bound, with no write per call.

One loop timer per batch, so a burst pays one write per ``delay_s`` and a ``kill -9`` loses at most
that much; the core stores get no timers or asyncio of their own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

__all__ = ["WriteBehind"]

log = logging.getLogger("tabmcp.database")


class WriteBehind:
    """One lazily armed timer per store: :meth:`poke` when a batch starts, ``flush`` runs once
    ``delay_s`` later (on the loop that was running at the poke)."""

    def __init__(self, flush: Callable[[], object], *, delay_s: float, name: str = "") -> None:
        self._flush = flush
        self.delay_s = delay_s
        self.name = name
        self._timer: asyncio.TimerHandle | None = None
        self._soon: asyncio.Handle | None = None
        self.flushes = 0
        """How many timed flushes ran (for tests and benches)."""

    @property
    def armed(self) -> bool:
        return self._timer is not None

    def poke(self) -> None:
        """A row is pending: make sure a flush is due within ``delay_s``.

        Without a running loop (the CLI, synchronous tests) nothing is armed: the store's reads
        and ``close`` write what is pending, as before.
        """
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(self.delay_s, self._fire)

    def soon(self) -> bool:
        """A batch is full: write it in the loop's next turn, after what the running task does
        now (a call's answer, which stdio and ``/mcp-stream`` write in that task), not before it.
        False without a running loop: the caller writes it itself."""
        if self._soon is not None:
            return True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._soon = loop.call_soon(self._fire_soon)
        return True

    def _fire_soon(self) -> None:
        self._soon = None
        self._fire(timed=False)

    def _fire(self, timed: bool = True) -> None:
        if timed:
            self._timer = None
        self.flushes += 1
        try:
            self._flush()
        except Exception:  # a locked file: the rows stay pending; try again after another delay
            log.exception("writing %s behind failed; trying again in %.1fs", self.name or "a batch", self.delay_s)
            self.poke()

    def close(self) -> None:
        """Cancel the timer (the owner writes what is pending itself on shutdown)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._soon is not None:
            self._soon.cancel()
            self._soon = None
