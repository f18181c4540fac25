"""The timer that measures the event loop's lag for :class:`tabmcp.core.stalls.StallMeter`.

One ``call_later`` every :data:`~tabmcp.core.stalls.TICK_S` on the running loop (uvloop in the
bridge): a tick later than :data:`~tabmcp.core.stalls.STALL_S` is a stall, logged with the origin
whose work filled it; the full ``/health`` and ``tabmcp doctor`` show the counts.
"""

from __future__ import annotations

import asyncio
import logging

from ..core.stalls import UNATTRIBUTED, StallMeter

__all__ = ["LoopWatch"]

log = logging.getLogger("tabmcp.loop")


class LoopWatch:
    """Ticks ``meter`` on the running loop from :meth:`start` until :meth:`stop`."""

    def __init__(self, meter: StallMeter) -> None:
        self.meter = meter
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        if self._timer is not None:
            return
        self._loop = asyncio.get_running_loop()
        self.meter.start()
        self._timer = self._loop.call_later(self.meter.tick_s, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self) -> None:
        assert self._loop is not None
        self._timer = self._loop.call_later(self.meter.tick_s, self._tick)
        stall = self.meter.tick()
        if stall is None:
            return
        cpu = (f"; the process had a CPU for {stall.cpu_s * 1000:.0f} ms of it: a busy machine"
               if stall.starved else "")
        if stall.origin == UNATTRIBUTED:
            log.warning("event loop stalled %.0f ms (no tab's work accounts for it%s)", stall.lag_s * 1000, cpu)
        else:
            log.warning("event loop stalled %.0f ms: work for %s took %.0f ms of it (every other tab and "
                        "agent waited%s)", stall.lag_s * 1000, stall.origin, stall.work_s * 1000, cpu)
