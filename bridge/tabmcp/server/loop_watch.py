"""The timer that measures the event loop's lag for :class:`tabmcp.core.stalls.StallMeter`.

One ``call_later`` every :data:`~tabmcp.core.stalls.TICK_S` on the running loop (uvloop in the
bridge): a tick later than :data:`~tabmcp.core.stalls.STALL_S` is a stall, logged with the origin
whose work filled it; the full ``/health`` and ``tabmcp doctor`` show the counts.
"""

from __future__ import annotations

import asyncio
import logging
import os

from ..core.stalls import UNATTRIBUTED, StallMeter

__all__ = ["LoopWatch", "RunQueueWait", "run_queue_wait"]

log = logging.getLogger("tabmcp.loop")


class LoopWatch:
    """Ticks ``meter`` on the running loop from :meth:`start` until :meth:`stop`."""

    def __init__(self, meter: StallMeter) -> None:
        self.meter = meter
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waited: RunQueueWait | None = None
        """The loop thread's run queue delay, opened by :meth:`start` (closed by :meth:`stop`)."""

    def start(self) -> None:
        if self._timer is not None:
            return
        self._loop = asyncio.get_running_loop()
        if self.meter.waited is None:
            self._waited = run_queue_wait()  # this thread's: the loop's
        self.meter.start(waited=self._waited)
        self._timer = self._loop.call_later(self.meter.tick_s, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.meter.stop()
        if self._waited is not None:
            self._waited.close()
            self._waited = None

    def _tick(self) -> None:
        assert self._loop is not None
        self._timer = self._loop.call_later(self.meter.tick_s, self._tick)
        stall = self.meter.tick()
        if stall is None:
            return
        cpu = ("" if not stall.starved else
               f"; it waited {stall.waited_s * 1000:.0f} ms of it for a CPU: a busy machine" if stall.waited_s is not None
               else f"; the process had a CPU for {stall.cpu_s * 1000:.0f} ms of it: a busy machine")
        if stall.origin == UNATTRIBUTED:
            log.warning("event loop stalled %.0f ms (no tab's work accounts for it%s)", stall.lag_s * 1000, cpu)
        else:
            log.warning("event loop stalled %.0f ms: work for %s took %.0f ms of it (every other tab and "
                        "agent waited%s)", stall.lag_s * 1000, stall.origin, stall.work_s * 1000, cpu)



class RunQueueWait:
    """The thread that opened it: its time waiting for a CPU so far, in seconds, when called (Linux:
    ``/proc/thread-self/schedstat``'s run queue delay, read again on the one open file)."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def __call__(self) -> float:
        if self._fd is None:
            return 0.0
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return 0.0

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def run_queue_wait() -> RunQueueWait | None:
    """The calling thread's :class:`RunQueueWait`; None where the system does not tell it (the meter
    then judges a stall by the process's CPU time)."""
    try:
        fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
    except OSError:
        return None
    try:
        fields = os.pread(fd, 128, 0).split()
        if len(fields) >= 2 and int(fields[0]) > 0:  # its CPU time reads 0 where nothing is accounted
            return RunQueueWait(fd)
    except (OSError, ValueError):
        pass
    os.close(fd)
    return None
