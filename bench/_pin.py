"""``--pin-pages``: the hostile pages' renderers on one CPU, everything else on the other (Linux).

The bench pins its own process (and so everything it starts after: the MCP clients and the bridge
they launch, Playwright's driver and the Chromium it launches) to one CPU, finds the innocent tab's
renderer (:func:`busiest_renderer`, after a busy loop in that tab), then moves every other renderer
that is not the extension's (:func:`hostile_renderers`: the hostile tabs', and the idle blank tab,
WebUI and spare renderers) to the other CPU, all their threads, as they appear (:class:`Pinner`), and
Playwright's driver with them (:func:`playwright_drivers`).
Threads made later inherit the CPU of the thread that makes them; the pinner checks them anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "Pinner",
    "busiest_renderer",
    "busy_between",
    "cpu_jiffies",
    "hostile_renderers",
    "pin_cpus",
    "pin_tasks",
    "pinned_self",
    "tasks_off",
]


def pin_cpus(allowed: set[int] | None = None) -> tuple[int, int]:
    """(the CPU for everything but the hostile pages, the CPU for the hostile pages' renderers), from the
    CPUs this process may use; fewer than two is refused."""
    cpus = sorted(os.sched_getaffinity(0) if allowed is None else allowed)
    if len(cpus) < 2:
        raise SystemExit(f"--pin-pages puts the hostile pages' renderers on a CPU of their own and needs two CPUs; "
                         f"this process may use {len(cpus)} ({', '.join(map(str, cpus)) or 'none'})")
    return cpus[0], cpus[-1]


def _tids(pid: int) -> list[int]:
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:  # gone
        return []


def pin_tasks(pid: int, cpu: int) -> int:
    """Every thread of ``pid`` on ``cpu`` (``sched_setaffinity`` sets one thread's): how many moved."""
    moved = 0
    for tid in _tids(pid):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            if os.sched_getaffinity(tid) != {cpu}:
                os.sched_setaffinity(tid, {cpu})
                moved += 1
    return moved


def tasks_off(pid: int, cpu: int) -> int:
    """How many threads of ``pid`` may run elsewhere than ``cpu`` alone."""
    off = 0
    for tid in _tids(pid):
        with contextlib.suppress(OSError):
            off += os.sched_getaffinity(tid) != {cpu}
    return off


@contextlib.contextmanager
def pinned_self(cpu: int) -> Iterator[None]:
    """This process's threads on ``cpu`` (those it starts inherit it, as do its children), as they were after."""
    pid = os.getpid()
    before = os.sched_getaffinity(0)
    pin_tasks(pid, cpu)
    try:
        yield
    finally:
        for tid in _tids(pid):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(tid, before)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (``/proc/<pid>/task/*/children``)."""
    out, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for tid in _tids(parent):
            with contextlib.suppress(OSError):
                for child in Path(f"/proc/{parent}/task/{tid}/children").read_text().split():
                    out.append(int(child))
                    todo.append(int(child))
    return out


def hostile_renderers(cmdlines: dict[int, str], keep: set[int]) -> set[int]:
    """The renderers to pin away: every ``--type=renderer`` process but the extension's
    (``--extension-process``) and those in ``keep`` (the innocent tab's)."""
    return {pid for pid, cmd in cmdlines.items()
            if "--type=renderer" in cmd and "--extension-process" not in cmd and pid not in keep}


def playwright_drivers(cmdlines: dict[int, str]) -> set[int]:
    """Playwright's driver processes (``cli.js run-driver``): the bench's hands on the hostile pages (it opens
    them and runs the probes), so they go with them."""
    return {pid for pid, cmd in cmdlines.items() if "run-driver" in cmd}


def busiest_renderer(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]], probe_s: float) -> int:
    """The renderer that hosts a tab, from two readings (pid → (kind, CPU seconds)) around a busy loop of
    ``probe_s`` in that tab: the one renderer whose CPU rose by at least a quarter of it, twice as much as
    any other's. Anything less is refused (:class:`LookupError`): the bench never pins on a guess."""
    rises = sorted(((cpu - before[pid][1], pid) for pid, (kind, cpu) in after.items()
                    if kind in ("pages", "extension") and pid in before), reverse=True)
    if not rises or rises[0][0] < probe_s / 4 or (len(rises) > 1 and rises[1][0] * 2 > rises[0][0]):
        raise LookupError(f"no one renderer ran a {probe_s:g} s busy loop: CPU rises "
                          f"{[(pid, round(s, 3)) for s, pid in rises[:3]]}")
    return rises[0][1]


def cpu_jiffies() -> dict[int, tuple[int, int]]:
    """Each CPU's (busy, all) clock ticks so far, the whole machine's (``/proc/stat``)."""
    out = {}
    for line in Path("/proc/stat").read_text().splitlines():
        name, *fields = line.split()
        if name.startswith("cpu") and name[3:].isdigit():
            ticks = [int(f) for f in fields]
            idle = ticks[3] + ticks[4]  # idle, iowait
            out[int(name[3:])] = (sum(ticks[:8]) - idle, sum(ticks[:8]))
    return out


def busy_between(before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]]) -> dict[int, float]:
    """Each CPU's busy share between two :func:`cpu_jiffies` readings."""
    return {cpu: (busy - before[cpu][0]) / max(1, total - before[cpu][1])
            for cpu, (busy, total) in after.items() if cpu in before}


class Pinner:
    """Moves every renderer of the browser ``browser_pid`` but the extension's and ``keep`` to ``cpu``,
    every ``every`` s, until stopped; it also puts back on ``cpu`` any thread of theirs that is not."""

    def __init__(self, browser_pid: int, keep: set[int], cpu: int, every: float = 0.1) -> None:
        self.browser_pid, self.keep, self.cpu, self.every = browser_pid, keep, cpu, every
        self.pinned: set[int] = set()
        self.moves = 0
        self.cmdlines: dict[int, str] = {}
        self.task: asyncio.Task[None] | None = None

    def sweep(self) -> None:
        for pid in descendants(self.browser_pid):
            if pid not in self.pinned:  # read again: a zygote's child shows the zygote's until it sets its own
                with contextlib.suppress(OSError):
                    self.cmdlines[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
                        errors="replace")
        for pid in hostile_renderers(self.cmdlines, self.keep):
            self.moves += pin_tasks(pid, self.cpu)
            self.pinned.add(pid)

    async def _run(self) -> None:
        while True:
            self.sweep()
            await asyncio.sleep(self.every)

    def start(self) -> None:
        self.sweep()
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
