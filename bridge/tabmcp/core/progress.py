"""What a long tools/call is doing now, for the progress notifications that keep its client waiting.

A client may reset its timeout on each ``notifications/progress``; waiting code says what it waits
for with :func:`doing`, a no-op for a call without a ``progressToken``. No I/O here.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

__all__ = ["PHASE", "Phase", "doing"]


class Phase:
    """What one call waits for now, and how many notifications said so."""

    def __init__(self, what: str, started: float) -> None:
        self.what = what
        self.started = started
        self.sent = 0

    def next(self, now: float) -> tuple[float, str]:
        """The next notification's ``progress`` (rising, as the spec asks) and ``message``."""
        self.sent += 1
        return float(self.sent), f"{self.what} ({now - self.started:.0f} s so far)"


PHASE: contextvars.ContextVar[Phase | None] = contextvars.ContextVar("tabmcp.phase", default=None)
"""The running call's phase, set by the MCP layer only when the client sent a progress token."""


@contextlib.contextmanager
def doing(what: str) -> Iterator[None]:
    """Name what the current call waits for during the block (progress messages say it)."""
    phase = PHASE.get()
    if phase is None:
        yield
        return
    before, phase.what = phase.what, what
    try:
        yield
    finally:
        phase.what = before
