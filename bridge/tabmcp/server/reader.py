"""Reading the pages' definitions off the event loop, in order.

A page chooses what its snapshot costs to read (up to its budgets: seconds of CPU), and on the
loop that time would be everyone's. :class:`OffLoop` reads on one worker thread and hands each
outcome back to the loop in message order (:class:`tabmcp.core.in_order.InOrder`). One thread,
not a pool: readings stay in order, the memos have one writer, and a busy page delays only later
snapshots' reading, never a call.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..core.in_order import InOrder

__all__ = ["SWITCH_S", "OffLoop"]

SWITCH_S = 0.001
"""The GIL switch interval while the bridge serves: at Python's 5 ms the loop waited up to 5 ms
for the reader after every system call; at 1 ms its p99 lag during a heavy tab's read fell from 123 to 70 ms."""

log = logging.getLogger("tabmcp.reader")


class OffLoop:
    """Work on one worker thread, each outcome handed to its ``then`` on the loop in submission order.

    Without a running loop (the core driven by tests) the work runs at once, on the caller's thread.
    """

    def __init__(self) -> None:
        self._order = InOrder()
        self._executor: ThreadPoolExecutor | None = None
        self._idle: asyncio.Event | None = None

    @property
    def pending(self) -> int:
        """Messages whose reading runs, or waits behind one that runs."""
        return self._order.pending

    def submit(self, work: Callable[[], Any] | None, then: Callable[[Any], None],
               failed: Callable[[], None] | None = None) -> None:
        """Run ``work`` off the loop and ``then(its outcome)`` on the loop, after every earlier
        submission's ``then``; ``work`` None: nothing to read, ``then(None)`` in its turn (at once
        when nothing is pending). ``work`` that raises (a bridge bug: logged) runs ``failed()``
        instead, in the same turn, so what was noted of the message on arrival can be taken back."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            then(work() if work is not None else None)
            return
        if work is None and not self._order.pending:
            then(None)
            return
        ticket = self._order.take(functools.partial(_then_or_failed, then, failed))
        if self._idle is not None:
            self._idle.clear()
        if work is None:
            self._run(self._order.finish(ticket))
            return
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tabmcp-read")
        future = loop.run_in_executor(self._executor, work)
        future.add_done_callback(lambda f: self._done(ticket, f))

    def _done(self, ticket: int, future: asyncio.Future[Any]) -> None:
        if future.cancelled():
            ready = self._order.finish(ticket, ok=False)
        elif (exc := future.exception()) is not None:  # a bridge bug: the message is lost, not the link
            log.error("reading a page's snapshot failed", exc_info=exc)
            ready = self._order.finish(ticket, _FAILED)
        else:
            ready = self._order.finish(ticket, future.result())
        self._run(ready)

    def _run(self, ready: list[Callable[[], None]]) -> None:
        for step in ready:
            try:
                step()
            except Exception:  # one message's failure must not hold the ones after it
                log.exception("putting a page's snapshot in failed")
        if not self._order.pending and self._idle is not None:
            self._idle.set()

    async def drain(self) -> None:
        """Wait until every message submitted so far is in (tests; shutting down)."""
        while self._order.pending:
            if self._idle is None:
                self._idle = asyncio.Event()
            self._idle.clear()
            await self._idle.wait()

    def close(self) -> None:
        """Stop the worker (readings still queued are dropped: the bridge is going)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


_FAILED = object()
"""The outcome of work that raised: its ``failed`` runs, not its ``then``."""


def _then_or_failed(then: Callable[[Any], None], failed: Callable[[], None] | None, outcome: Any) -> None:
    if outcome is not _FAILED:
        then(outcome)
    elif failed is not None:
        failed()
