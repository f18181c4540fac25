"""Event-loop stalls and whose work caused them, with no I/O and no timer of its own.

Every tab's work shares one event loop, so a page that makes the bridge compute for a second
freezes everyone: :class:`StallMeter` names that page. A shell ticks it every :data:`TICK_S`; code
doing a tab's work runs inside ``with meter.work(origin):`` (synchronous, so the time is that
origin's alone), and a stall names the origin charged most since the last tick.

A late tick is not always the bridge's work: on a busy machine the process may wait for a CPU, or
be suspended, while nothing of its own runs. Each stall says how much CPU the process had in it
(every thread: a snapshot read off the loop holds the loop too): one that had less than half its
lag is ``starved`` (the machine's, not a page's), and the worst stall of work is kept apart.
Where the system tells how long the loop's thread waited for a CPU (Linux: its run queue delay),
that decides instead: a loop blocked in a call of its own (a write the disk holds up, a lock) has
no CPU either, but it did not wait for one, and is no busy machine's; and a stall the thread spent
mostly waiting is no page's, though a page's section (wall time) took it.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

__all__ = ["LINK_WORK", "STALL_S", "TICK_S", "UNATTRIBUTED", "Stall", "StallMeter"]

TICK_S = 0.05
"""How often the shell's timer ticks: a stall shows within this much of its end."""

STALL_S = 0.1
"""A tick later than this is a stall (the issue's bound: no page may hold the loop longer)."""

UNATTRIBUTED = "(the bridge)"
"""A stall no work section accounts for: the bridge's own work (a listing, start-up), or the
process was suspended."""

LINK_WORK = "(the extension link)"
"""A frame's work before its tab is known (reading the frame; a sync of many tabs as a whole)."""

MAX_ORIGINS = 64
"""Origins kept in the per-origin counts (the ones with the fewest stalls go first)."""

RECENT = 32
"""Stalls kept in :attr:`StallMeter.recent` (the newest)."""


@dataclass(frozen=True)
class Stall:
    """One stall: how late the tick came, and whose work filled the time before it."""

    n: int
    """Its number (1 for the bridge's first stall): readers of :attr:`StallMeter.recent` tell new from seen."""
    lag_s: float
    origin: str
    """The origin charged most since the tick before, or :data:`UNATTRIBUTED`."""
    work_s: float
    """What that origin's work took in that time."""
    at: float
    """Wall-clock time of the tick that saw it (epoch seconds)."""
    cpu_s: float = 0.0
    """The process's CPU time (all its threads) from the tick before to this one."""
    starved: bool = False
    """The process had a CPU for less than half the lag: it waited (a busy machine, suspended),
    it was not working. Where :attr:`waited_s` is known: the loop's thread waited for a CPU for
    half the lag or more."""
    waited_s: float | None = None
    """How long the loop's thread waited for a CPU (in a run queue) in that time; None: not known."""

    def to_dict(self) -> dict[str, object]:
        return {"n": self.n, "ms": round(self.lag_s * 1000), "origin": self.origin,
                "workMs": round(self.work_s * 1000), "cpuMs": round(self.cpu_s * 1000),
                "starved": self.starved, "at": round(self.at, 3),
                **({"waitedMs": round(self.waited_s * 1000)} if self.waited_s is not None else {})}


class _Section:
    """One ``with meter.work(origin)`` block."""

    __slots__ = ("meter", "nested", "origin", "start")

    def __init__(self, meter: StallMeter, origin: str) -> None:
        self.meter = meter
        self.origin = origin
        self.start = 0.0
        self.nested = 0.0

    def __enter__(self) -> None:
        self.meter._open.append(self)
        self.start = self.meter.clock()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        meter = self.meter
        took = meter.clock() - self.start
        stack = meter._open
        if stack and stack[-1] is self:
            stack.pop()
        if stack:
            stack[-1].nested += took  # the enclosing section is charged its own time only
        own = took - self.nested
        if own > 0:
            meter._since_tick[self.origin] = meter._since_tick.get(self.origin, 0.0) + own


class StallMeter:
    """Counts the loop's stalls and names the origin whose work filled each.

    Args:
        clock: a monotonic clock in seconds (the shell's and the sections' must be the same).
        wall: the wall clock, for :attr:`Stall.at`.
        cpu: the process's CPU time in seconds (all threads), for :attr:`Stall.starved`.
        waited: the loop thread's time waiting for a CPU in seconds, for :attr:`Stall.starved`
            (None: not known; the shell sets it where the system tells it, :attr:`waited`).
        tick_s: the shell's timer period; :meth:`tick` expects a tick this long after the last.
        stall_s: a tick later than this is a stall.
    """

    def __init__(self, *, clock: Callable[[], float] = time.perf_counter, wall: Callable[[], float] = time.time,
                 cpu: Callable[[], float] = time.process_time, waited: Callable[[], float] | None = None,
                 tick_s: float = TICK_S, stall_s: float = STALL_S) -> None:
        self.clock = clock
        self.wall = wall
        self.cpu = cpu
        self._cpu_at = 0.0
        self.waited = waited
        self._waited_given = waited
        self._waited_at = 0.0
        self.tick_s = tick_s
        self.stall_s = stall_s
        self._open: list[_Section] = []
        self._since_tick: dict[str, float] = {}
        self._due: float | None = None
        self.count = 0
        """Stalls since the bridge started."""
        self.worst: Stall | None = None
        self.worst_work: Stall | None = None
        """The worst stall the process was working through (not :attr:`Stall.starved`)."""
        self.starved = 0
        """Stalls the process spent mostly waiting for a CPU."""
        self.stalled_s = 0.0
        """The stalls' lags, added up."""
        self.recent: deque[Stall] = deque(maxlen=RECENT)
        self.by_origin: dict[str, int] = {}
        """Origin → how many stalls it was named for (at most :data:`MAX_ORIGINS` origins)."""

    def work(self, origin: str) -> _Section:
        """A block of work done for ``origin`` (synchronous: no ``await`` inside)."""
        return _Section(self, origin or UNATTRIBUTED)

    def start(self, now: float | None = None, *, waited: Callable[[], float] | None = None) -> None:
        """The shell's timer starts now: the first tick is due one period later. ``waited``: the
        loop thread's wait for a CPU as the shell reads it (where the system tells it), until :meth:`stop`."""
        if waited is not None:
            self.waited = waited
        self._due = (self.clock() if now is None else now) + self.tick_s
        self._cpu_at = self.cpu()
        self._waited_at = self.waited() if self.waited is not None else 0.0
        self._since_tick.clear()

    def stop(self) -> None:
        """The shell's timer stopped: the wait it handed to :meth:`start` is no longer read."""
        self.waited = self._waited_given
        self._due = None

    def tick(self, now: float | None = None) -> Stall | None:
        """The shell's timer fired (at ``now``): the stall it came late for, if it did. The next
        tick is due one period from now."""
        now = self.clock() if now is None else now
        due, self._due = self._due, now + self.tick_s
        charged, self._since_tick = self._since_tick, {}
        cpu_at, self._cpu_at = self._cpu_at, self.cpu()
        waited_at, self._waited_at = self._waited_at, (self.waited() if self.waited is not None else 0.0)
        if due is None:
            return None
        lag = now - due
        if lag <= self.stall_s:
            return None
        cpu = max(0.0, self._cpu_at - cpu_at)
        waited = max(0.0, self._waited_at - waited_at) if self.waited is not None else None
        starved = waited >= lag / 2 if waited is not None else cpu < lag / 2
        origin, work = max(charged.items(), key=lambda kv: kv[1], default=(UNATTRIBUTED, 0.0))
        # What was charged does not account for the stall: say so, not guess. A section's time is wall
        # time: one the loop's thread spent mostly waiting for a CPU is the machine's, not the page's.
        if work < lag / 2 or (starved and waited is not None):
            origin, work = UNATTRIBUTED, 0.0
        self.count += 1
        stall = Stall(n=self.count, lag_s=lag, origin=origin, work_s=work, at=self.wall(), cpu_s=cpu,
                      starved=starved, waited_s=waited)
        self.stalled_s += lag
        if self.worst is None or lag > self.worst.lag_s:
            self.worst = stall
        if stall.starved:
            self.starved += 1
        elif self.worst_work is None or lag > self.worst_work.lag_s:
            self.worst_work = stall
        self.recent.append(stall)
        self.by_origin[origin] = self.by_origin.get(origin, 0) + 1
        if len(self.by_origin) > MAX_ORIGINS:
            del self.by_origin[min(self.by_origin, key=lambda o: (self.by_origin[o], o == origin))]
        return stall

    def status(self) -> dict[str, object]:
        """For the full ``/health`` and ``tabmcp doctor``."""
        top = sorted(self.by_origin.items(), key=lambda kv: -kv[1])[:10]
        return {
            "stalls": self.count,
            "worstMs": round(self.worst.lag_s * 1000) if self.worst else 0,
            "worst": self.worst.to_dict() if self.worst else None,
            "starved": self.starved,
            "worstWorkMs": round(self.worst_work.lag_s * 1000) if self.worst_work else 0,
            "stalledMs": round(self.stalled_s * 1000),
            "thresholdMs": round(self.stall_s * 1000),
            "byOrigin": dict(top),
            "recent": [s.to_dict() for s in self.recent],
        }
