"""Soak: many page-tool calls through the MCP client while tabs open, close and navigate.

A bridge (in this process), a real Chromium with the extension and ``--tabs`` tabs of
``bench/pages/soak.html``. Every page registers the same tool, ``whoami`` (the bridge names the
copies ``t<tabId>.whoami``), which answers with the page's identity — its slot, the
benchmark's open counter (unique per page load) and a random per-load nonce — and echoes the
call's ``seq``. ``--calls`` calls at ``--concurrency`` go through the official MCP SDK client,
each to a tab picked at random under the public name the bridge's registry gives it at that
moment. Meanwhile a background task closes and reopens a random tab (every third step:
navigates it to a new load) every ``--churn-interval`` seconds on average.

Three processes, as in real use: this one runs the bridge (and the static page server), so its
memory and CPU are the bridge's; a child runs the MCP clients (one per worker, or one shared
with ``--shared-client``), as agents would; another child owns Playwright and Chromium and
opens, closes and navigates tabs on command. This process keeps exactly ``--concurrency``
calls in flight and picks each call's target just before sending it to the client process.

Reported: calls completed, errors by code, who answered (the intended page, the name's new
holder after a documented rename, or misrouted — must be 0), p50/p99 latency, CPU by process,
the bridge process's memory (tracemalloc and RSS) across the soak against an idle period of
the same length, and what is left at the end (tabs, pending calls). Baseline, same run: the
same calls with no churn (one shared client, and one client per worker).

Bounded: the soak stops sending calls early (and says so) when an idle period as long as the
soak would end the run past ``--time-limit`` (480 s). tracemalloc traces every allocation of
the bridge's process and costs it a lot of CPU under churn (several times its per-call CPU on
a 2-core machine), so a traced run may not get through 10,000 calls in that time;
Without ``--tracemalloc`` it measures latency and throughput undisturbed (memory then from RSS and GC
object counts only).

Flatness (issue 38): the calls completed in every 5 s window with each process's CPU per call,
the CPU the machine's other jobs took in the same window, and two lines. The rate line compares
the first 10 s with the last 10 s of the loaded part: it ends when the last call is sent, since
after it fewer than ``--concurrency`` calls are in flight and one straggler (a call ended by its
timeout) would stretch the tail with nothing left to complete. The work line compares the CPU per
call of the bridge and of Chromium over the first and the last two full windows with the MCP client
processes' as a control: a client sends the same ``call_tool`` every time and keeps no state of
tabs, so its CPU per call moves only with the machine (measured flat over 12,000 in-memory SDK
calls). On this shared 2-core machine the soak is CPU-bound and the rate follows whatever the
machine gives each unit of work: a run that slows while every process's CPU per call rises by
the same factor, the control's included, slowed with the machine, not with something it grew.
Churn costs per second, not per call (Chromium opening a tab), so its share of a call rises
when the rate falls for any reason; read the work line with the window table.

    python -m bench.soak [--calls 10000] [--concurrency 10] [--tabs 20] [--churn-interval 0.75]
                         [--time-limit 480] [--tracemalloc] [--shared-client]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import logging
import os
import random
import sys
import time
import tracemalloc
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mcp import Client
from tabmcp.config import Config
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import launch_browser
from tabmcp.server.app import BridgeApp, running_bridge
from tabmcp.server.telemetry import KEEP_CLOSED_TABS

from bench import _results as results_file
from bench._table import fmt_ms, percentile, print_table

PAGES = Path(__file__).parent / "pages"
ROOT = Path(__file__).resolve().parent.parent
TOOL = "whoami"
MIB = 1024 * 1024
TICK = os.sysconf("SC_CLK_TCK")


def progress(name: str, message: str) -> None:
    print(f"[{name} {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- memory and CPU (bench.telemetry_flood uses these too) --------------------------------------


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages (the machine is shared: context for every number)."""
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def rss_bytes(pid: int | str = "self") -> int:
    """VmRSS of a process from /proc (0 if unknown)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@dataclass
class Memory:
    """This process after ``gc.collect()``: tracemalloc's current size, RSS, live GC objects and
    allocated memory blocks (``sys.getallocatedblocks()``, free to read, tracemalloc or not)."""

    heap: int
    rss: int
    objects: int
    blocks: int
    at: float

    @classmethod
    def take(cls) -> Memory:
        gc.collect()
        heap = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
        return cls(heap, rss_bytes(), len(gc.get_objects()), sys.getallocatedblocks(), time.monotonic())


def mib(n: float) -> str:
    return f"{n / MIB:.2f}"


def dmib(n: float) -> str:
    return f"{n / MIB:+.2f}"


def memory_row(label: str, a: Memory, b: Memory) -> list[str]:
    tracing = tracemalloc.is_tracing()
    return [
        label,
        f"{b.at - a.at:.0f}",
        f"{mib(a.heap)} → {mib(b.heap)}" if tracing else "off",
        dmib(b.heap - a.heap) if tracing else "-",
        f"{mib(a.rss)} → {mib(b.rss)}",
        dmib(b.rss - a.rss),
        f"{b.objects - a.objects:+,}",
        f"{b.blocks - a.blocks:+,}",
    ]


MEMORY_HEADERS = [
    "period",
    "s",
    "tracemalloc MiB",
    "Δ MiB",
    "RSS MiB",
    "Δ MiB",
    "Δ GC objects",
    "Δ allocated blocks",
]


def growth_rows(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, n: int = 8) -> list[list[str]]:
    """The lines whose traced memory changed most between two snapshots (tracemalloc's own
    bookkeeping left out)."""
    own = [tracemalloc.Filter(False, tracemalloc.__file__)]
    rows = []
    for stat in after.filter_traces(own).compare_to(before.filter_traces(own), "lineno")[:n]:
        frame = stat.traceback[0]
        name = frame.filename
        for marker in ("/site-packages/", "/bridge/", "/lib/python"):
            if marker in name:
                name = name.split(marker, 1)[1]
                break
        rows.append([f"{name}:{frame.lineno}", f"{stat.size_diff / 1024:+.1f}", f"{stat.count_diff:+,}"])
    return rows


def _proc_table() -> dict[int, tuple[int, str, float]]:
    """pid → (ppid, comm, CPU seconds incl. reaped children) for every process we can read."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                raw = f.read()
        except OSError:
            continue
        comm = raw[raw.index("(") + 1 : raw.rindex(")")]
        fields = raw[raw.rindex(")") + 2 :].split()
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        table[int(entry)] = (int(fields[1]), comm, (utime + stime + cutime + cstime) / TICK)
    return table


def _groups(
    table: dict[int, tuple[int, str, float]], labels: dict[int, str], prefixes: dict[int, str] | None
) -> list[tuple[int, str]]:
    """(pid, group) for this process ("bridge process") and every descendant: a pid in ``labels``
    takes its label, ``node`` is the Playwright driver, anything else is Chromium; ``prefixes``
    name whole subtrees (``{pid: "extension: "}``)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out = [(os.getpid(), "bridge process")]
    stack = [(pid, "") for pid in children.get(os.getpid(), [])]
    while stack:
        pid, prefix = stack.pop()
        prefix = (prefixes or {}).get(pid, prefix)
        comm = table[pid][1]
        out.append((pid, prefix + (labels.get(pid) or (PLAYWRIGHT if comm == "node" else "Chromium"))))
        stack.extend((child, prefix) for child in children.get(pid, []))
    return out


def cpu_by_group(labels: dict[int, str], prefixes: dict[int, str] | None = None) -> dict[str, float]:
    """CPU seconds so far by group (see :func:`_groups`). An exited process counts in its
    parent's reaped time, never twice."""
    table = _proc_table()
    out: dict[str, float] = {}
    for pid, group in _groups(table, labels, prefixes):
        out[group] = out.get(group, 0.0) + table.get(pid, (0, "", 0.0))[2]
    return out


MACHINE = "whole machine"
"""A window's pseudo-group: every process's CPU seconds (/proc/stat), ours and the other jobs'."""
REFERENCE = "reference loop"
"""A window's pseudo-group: CPU seconds of one fixed pure-Python loop (:func:`reference_loop`)."""


def machine_busy() -> float:
    """CPU seconds so far of every process on the machine (/proc/stat: all but idle and iowait)."""
    with open("/proc/stat", encoding="ascii") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / TICK


def reference_loop(n: int = 20_000) -> float:
    """Thread CPU seconds of a fixed loop (about 1 ms): the same work every time, so when it takes
    longer the machine got slower for everyone (caches, memory bandwidth, a neighbour on the host),
    not the calls."""
    t0 = time.thread_time()
    acc = 0
    for i in range(n):
        acc += i * i % 7
    return time.thread_time() - t0


def waiting_by_group(labels: dict[int, str], prefixes: dict[int, str] | None = None) -> dict[str, float]:
    """Seconds so far that the groups' threads were ready to run but waited for a CPU
    (/proc/<pid>/task/*/schedstat): on a shared machine, how much the others held us back.
    Processes that exited are not counted."""
    out: dict[str, float] = {}
    for pid, group in _groups(_proc_table(), labels, prefixes):
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as f:
                    out[group] = out.get(group, 0.0) + int(f.read().split()[1]) / 1e9
            except (OSError, IndexError, ValueError):
                continue
    return out


PLAYWRIGHT = "Playwright (Python + node)"


# -- child processes speaking JSON lines --------------------------------------------------------


async def _stdin_reader() -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=1 << 20)
    await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), sys.stdin
    )
    return reader


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.buffer.write(json.dumps(obj).encode() + b"\n")
    sys.stdout.buffer.flush()


class Child:
    """A ``python -m bench.soak --child ...`` process speaking JSON lines on stdin and stdout.

    Read its lines with :meth:`read` (the client process), or call :meth:`serve_replies` once and
    then :meth:`ask` (the browser process: commands carry an ``id``, answers may come out of order).
    """

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._replies: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, *args: str) -> Child:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.soak",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
            limit=1 << 22,
        )
        child = cls(proc)
        ready = await asyncio.wait_for(child.read(), 90)
        if not ready.get("ready"):
            raise RuntimeError(f"child {args[:2]} said {ready}")
        return child

    async def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError("a child process ended early")
        result: dict[str, Any] = json.loads(line)
        return result

    async def write(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj).encode() + b"\n")
        await self.proc.stdin.drain()

    def serve_replies(self) -> None:
        async def dispatch() -> None:
            try:
                while True:
                    reply = await self.read()
                    future = self._waiting.pop(reply.get("id", -1), None)
                    if future is not None and not future.done():
                        future.set_result(reply)
            except Exception as exc:  # the child died: every waiter learns it
                for future in self._waiting.values():
                    if not future.done():
                        future.set_exception(exc)

        self._replies = asyncio.create_task(dispatch())

    async def ask(self, timeout: float = 120, **command: Any) -> dict[str, Any]:
        """Send one command and wait for its answer."""
        command["id"] = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._waiting[command["id"]] = future
        await self.write(command)
        return await asyncio.wait_for(future, timeout)

    async def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        if self._replies is not None:
            self._replies.cancel()


async def client_child(url: str, clients: int) -> None:
    """``clients`` MCP SDK clients; a job ({seq, name, client}) a line in, a result a line out;
    ends at EOF once every call has answered."""
    reader = await _stdin_reader()
    # The SDK warns when a called name is missing from its last tools/list (it re-lists first);
    # under churn that is expected, and the bridge's errors are counted anyway.
    logging.getLogger("mcp").setLevel(logging.ERROR)

    async def run(client: Client, job: dict[str, Any]) -> None:
        start = time.perf_counter()
        res: dict[str, Any] = {"seq": job["seq"]}
        try:
            result = await asyncio.wait_for(client.call_tool(job["name"], {"seq": job["seq"]}), 60)
            body = (result.structured_content or {}).get("error") or {}
            res["error"] = str(body.get("code") or "UNKNOWN") if result.is_error else None
            res["token"] = None if result.is_error else result.structured_content
            res["source"] = (result.meta or {}).get("tabmcp/source")
        except Exception as exc:  # transport failure: reported under its type
            res["error"] = f"exception {type(exc).__name__}"
        res["elapsed"] = time.perf_counter() - start
        _emit(res)

    async with contextlib.AsyncExitStack() as stack:
        pool = [await stack.enter_async_context(Client(url)) for _ in range(clients)]
        _emit({"ready": True})
        tasks: set[asyncio.Task[None]] = set()
        while line := await reader.readline():
            job = json.loads(line)
            task = asyncio.create_task(run(pool[job["client"] % len(pool)], job))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.gather(*tasks)


async def browser_child(bridge_url: str, extension: bool = True) -> None:
    """Chromium (with the extension connected to ``bridge_url``, or without the extension).

    Commands, one a line, run concurrently, each answered with {id, ok, elapsed, value?, error?}:
    ``open`` (slot, url), ``close`` (slot), ``navigate`` (slot, url), ``pages`` (how many are
    open), ``eval`` (slot, js, arg: ``page.evaluate(js, arg)``). Closes the browser at EOF.
    """
    reader = await _stdin_reader()
    pages: dict[int, Any] = {}

    async def run(browser: Any, cmd: dict[str, Any]) -> None:
        start = time.perf_counter()
        out: dict[str, Any] = {"id": cmd.get("id"), "ok": True}
        try:
            op, slot = cmd["op"], int(cmd.get("slot") or 0)
            if op == "open":
                page = await browser.context.new_page()
                pages[slot] = page
                await page.goto(cmd["url"])
            elif op == "close":
                page = pages.pop(slot, None)
                if page is not None:
                    await page.close()
            elif op == "navigate":
                await pages[slot].goto(cmd["url"])
            elif op == "pages":
                out["value"] = sum(1 for p in browser.context.pages if not p.is_closed())
            elif op == "eval":
                out["value"] = await pages[slot].evaluate(cmd["js"], cmd.get("arg"))
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as exc:  # reported to the parent, which counts it
            out = {"id": cmd.get("id"), "ok": False, "error": type(exc).__name__, "message": str(exc)[:300]}
        out["elapsed"] = time.perf_counter() - start
        _emit(out)

    async with launch_browser(
        bridge_url=bridge_url if extension else None, headless=True, extension=extension
    ) as browser:
        _emit({"ready": True})
        tasks: set[asyncio.Task[None]] = set()
        while line := await reader.readline():
            task = asyncio.create_task(run(browser, json.loads(line)))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.wait(tasks, timeout=10)


# -- identities ---------------------------------------------------------------------------------


def identity(url: str, title: str) -> tuple[int, int, str] | None:
    """(slot, open, nonce) of a soak page from its URL and title (as the bridge reports them)."""
    query = parse_qs(urlsplit(url).query)
    nonce = next((part[6:] for part in title.split() if part.startswith("nonce=")), "")
    try:
        return int(query["tab"][0]), int(query["open"][0]), nonce
    except (KeyError, ValueError, IndexError):
        return None


@dataclass
class Target:
    public_name: str
    tab_id: int
    page: tuple[int, int, str] | None


def pick_target(bridge: BridgeApp, rng: random.Random) -> Target | None:
    """A random ``whoami`` copy under its current public name (the registry is the bridge's)."""
    entries = [e for e in bridge.core.registry.tool_entries() if e.tool.name == TOOL]
    if not entries:
        return None
    entry = rng.choice(entries)
    return Target(entry.public_name, entry.tab.tab_id, identity(entry.tab.url, entry.tab.title))


async def wait_tools(bridge: BridgeApp, n: int, timeout: float = 30.0) -> int:
    """Wait until exactly ``n`` copies of the tool are registered; the count seen last."""
    deadline = time.monotonic() + timeout
    count = 0
    while time.monotonic() < deadline:
        count = sum(1 for e in bridge.core.registry.tool_entries() if e.tool.name == TOOL)
        if count == n:
            return count
        await asyncio.sleep(0.05)
    return count


# -- tabs and churn -----------------------------------------------------------------------------


@dataclass
class Tabs:
    browser: Child
    base: str
    opens: Any = field(default_factory=lambda: itertools.count(1))
    opened: int = 0
    closed: int = 0
    navigated: int = 0
    step_times: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)

    async def do(self, op: str, slot: int) -> bool:
        command: dict[str, Any] = {"op": op, "slot": slot}
        if op != "close":
            command["url"] = f"{self.base}soak.html?tab={slot}&open={next(self.opens)}"
        answer = await self.browser.ask(**command)
        if not answer["ok"]:
            self.failures[f"{op}: {answer['error']}"] += 1
            return False
        if op == "open":
            self.opened += 1
        elif op == "close":
            self.closed += 1
        else:
            self.navigated += 1
        return True


async def churn(tabs: Tabs, n_tabs: int, interval: float, stop: asyncio.Event, rng: random.Random) -> None:
    """A tab change every ~interval s (each gap 0.5x-1.5x of it, on a steady schedule): close and
    reopen a random tab, or every third time navigate it to a new load. Ends when ``stop`` is set."""
    loop = asyncio.get_running_loop()
    due = loop.time()
    for step in itertools.count(1):
        due = max(due + interval * rng.uniform(0.5, 1.5), loop.time())  # never bursts to catch up
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), due - loop.time())
        if stop.is_set():
            return
        slot = rng.randrange(n_tabs)
        start = time.perf_counter()
        if step % 3 == 0:
            await tabs.do("navigate", slot)
        else:
            await tabs.do("close", slot)
            await tabs.do("open", slot)
        tabs.step_times.append(time.perf_counter() - start)


# -- calls --------------------------------------------------------------------------------------

ROUTE_NEW_DOCUMENT = "the tab's new document (tab navigated after the pick)"
ROUTE_NEW_HOLDER = "the plain name's new holder (tab closed after the pick)"
ROUTES = ["intended page", ROUTE_NEW_DOCUMENT, ROUTE_NEW_HOLDER, "misrouted"]
WINDOW_S = 5.0
"""The soak reports the calls completed in every window this long (a decline shows, the average hides it)."""
FLAT_WITHIN = 0.10
"""The soak's calls/s in its last 10 s must be within this of its first 10 s (issue 38)."""


@dataclass
class Phase:
    label: str
    clients: int
    concurrency: int
    n: int
    calls: int = 0
    ok: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    routing: Counter[str] = field(default_factory=Counter)
    misrouted_examples: list[str] = field(default_factory=list)
    wall: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)
    waited: dict[str, float] = field(default_factory=dict)  # ready to run, no CPU free
    cut_short: bool = False
    loaded_until: float = 0.0
    """Seconds into the phase when its last call was sent (then the in-flight calls drain)."""
    windows: list[tuple[float, int, dict[str, float]]] = field(default_factory=list)
    """Every WINDOW_S of the phase: (seconds it lasted, calls completed, CPU seconds by process group,
    with MACHINE and REFERENCE beside them)."""

    def __post_init__(self) -> None:
        # Preallocated, so recording latencies does not grow the heap the soak measures.
        self._ok_lat = array("d", bytes(8 * self.n))
        self._all_lat = array("d", bytes(8 * self.n))
        self._done_at = array("d", bytes(8 * self.n))  # seconds into the phase each call completed

    def done_at(self, seconds: float) -> None:
        self._done_at[self.calls - 1] = seconds

    def rate_between(self, start: float, end: float) -> float:
        """Calls completed per second between ``start`` and ``end`` seconds into the phase."""
        done = self._done_at[: self.calls]
        return sum(1 for t in done if start <= t <= end) / max(1e-9, end - start)

    def flatness(self, span: float = 10.0) -> tuple[float, float] | None:
        """Calls/s in the first and in the last ``span`` seconds of the loaded part (``None``: too
        short to tell). The loaded part ends when the last call is sent: after it fewer than
        ``concurrency`` calls are in flight, and one slow straggler (a call ended by a timeout)
        would stretch the tail with nothing left to complete, which is the drain, not the rate."""
        end = self.loaded_until or self.wall
        if end < 2 * span:
            return None
        return self.rate_between(0, span), self.rate_between(end - span, end)

    def cpu_per_call(self, first: bool, span: float = 10.0) -> tuple[dict[str, float], float] | None:
        """CPU ms per call by process group over the first (or the last) full windows covering
        ``span`` seconds, and their length; the short window at the end is left out."""
        full = [w for w in self.windows if w[0] >= 0.9 * WINDOW_S]
        k = max(1, round(span / WINDOW_S))
        if len(full) < 2 * k:
            return None
        chosen = full[:k] if first else full[-k:]
        calls = sum(n for _, n, _ in chosen)
        cpu: dict[str, float] = {}
        for _, _, spent in chosen:
            for group, v in spent.items():
                cpu[group] = cpu.get(group, 0.0) + v
        return {g: v * 1000 / max(1, calls) for g, v in cpu.items()}, sum(w[0] for w in chosen)

    @property
    def latencies_ok(self) -> Sequence[float]:
        return self._ok_lat[: self.ok]

    @property
    def latencies_all(self) -> Sequence[float]:
        return self._all_lat[: self.calls]

    @property
    def misrouted(self) -> int:
        return self.routing["misrouted"]

    def classify(self, target: Target, res: dict[str, Any]) -> None:
        self._all_lat[self.calls] = res["elapsed"]
        self.calls += 1
        if res["error"]:
            self.errors[res["error"]] += 1
            return
        token = res.get("token") or {}
        if "nonce" not in token:
            self.errors["BAD_ANSWER"] += 1
            return
        self._ok_lat[self.ok] = res["elapsed"]
        self.ok += 1
        source = res.get("source") or {}
        answered = (token.get("slot"), token.get("open"), token.get("nonce"))
        claimed: tuple[int, int, Any] | None = identity(str(source.get("url", "")), str(source.get("title", "")))
        if claimed is not None and not claimed[2]:
            # ``_meta["tabmcp/source"]`` carries no tab title (page text goes through the gate, in
            # introspect): the URL's open counter, unique per load, names the page; the nonce is
            # checked against the registry's own record (``target.page``) below.
            claimed = claimed[:2] + (answered[2],)
        if token.get("seq") != res["seq"] or answered != claimed:
            # The page that answered is not the one the bridge says it called, or the answer
            # is another call's: a routing bug.
            self._misrouted(target, res, f"answer {token}, bridge says {source}")
        elif answered == target.page:
            self.routing["intended page"] += 1
        elif source.get("tabId") == target.tab_id:
            # The tab navigated between the pick and the call; its new page registered the same
            # tool, which keeps the tab's public name.
            self.routing[ROUTE_NEW_DOCUMENT] += 1
        elif target.public_name == TOOL:
            # The plain name moves to the next-oldest copy when its holder closes (documented).
            self.routing[ROUTE_NEW_HOLDER] += 1
        else:  # t<id>.whoami answered from another tab
            self._misrouted(target, res, f"answered by {source}")

    def _misrouted(self, target: Target, res: dict[str, Any], what: str) -> None:
        self.routing["misrouted"] += 1
        if len(self.misrouted_examples) < 5:
            self.misrouted_examples.append(
                f"seq {res['seq']} → {target.public_name} (tab {target.tab_id}, page {target.page}): {what}"
            )


async def run_phase(
    clients: Child,
    phase: Phase,
    pick: Callable[[], Target | None],
    seq: Any,
    labels: dict[int, str],
    sample: Callable[[int], None] | None = None,
    out_of_time: Callable[[float], bool] | None = None,
) -> Phase:
    """``phase.n`` calls, exactly ``phase.concurrency`` in flight, each target picked just before
    its call goes to the client process; ``sample(calls)`` at every tenth of them. No new call
    once ``out_of_time(seconds so far)`` says so (``phase.cut_short``)."""
    in_flight: dict[int, tuple[Target, int]] = {}
    sent = 0
    marks = {phase.n * k // 10 for k in range(1, 11)}

    async def send(worker: int) -> None:
        nonlocal sent
        target = pick()
        while target is None:
            await asyncio.sleep(0.01)
            target = pick()
        s = next(seq)
        sent += 1
        phase.loaded_until = time.perf_counter() - t0
        in_flight[s] = (target, worker)
        await clients.write(
            {"seq": s, "name": target.public_name, "client": 0 if phase.clients == 1 else worker}
        )

    cpu0, wait0 = cpu_by_group(labels), waiting_by_group(labels)
    t0 = last = window_at = time.perf_counter()
    window_calls, window_cpu = 0, {**cpu0, MACHINE: machine_busy()}
    for worker in range(min(phase.concurrency, phase.n)):
        await send(worker)
    while in_flight:
        res = await asyncio.wait_for(clients.read(), 120)
        target, worker = in_flight.pop(res["seq"])
        phase.classify(target, res)
        now = time.perf_counter()
        phase.done_at(now - t0)
        if now - window_at >= WINDOW_S or not in_flight:
            cpu = {**cpu_by_group(labels), MACHINE: machine_busy()}
            spent = {k: v - window_cpu.get(k, 0.0) for k, v in cpu.items()}
            spent[REFERENCE] = reference_loop()
            phase.windows.append((now - window_at, phase.calls - window_calls, spent))
            window_at, window_calls, window_cpu = now, phase.calls, cpu
        if sent < phase.n and not phase.cut_short:
            if out_of_time is not None and out_of_time(time.perf_counter() - t0):
                phase.cut_short = True
                progress(
                    "soak", f"{phase.label}: out of time after {sent:,} calls, finishing those in flight"
                )
            else:
                await send(worker)
        if sample is not None and phase.calls in marks:
            sample(phase.calls)
        now = time.perf_counter()
        if now - last >= 5:
            last = now
            progress(
                "soak",
                f"{phase.label}: {phase.calls:,}/{phase.n:,} calls, {sum(phase.errors.values())} "
                f"errors, {phase.misrouted} misrouted, {phase.calls / (now - t0):.0f} calls/s",
            )
    phase.wall = time.perf_counter() - t0
    cpu1, wait1 = cpu_by_group(labels), waiting_by_group(labels)
    phase.cpu = {k: cpu1.get(k, 0.0) - cpu0.get(k, 0.0) for k in cpu1}
    phase.waited = {k: wait1.get(k, 0.0) - wait0.get(k, 0.0) for k in wait1}
    return phase


# -- the run ------------------------------------------------------------------------------------


@dataclass
class Results:
    phases: list[Phase] = field(default_factory=list)
    memory: list[list[str]] = field(default_factory=list)
    growth: list[list[str]] = field(default_factory=list)
    end_state: list[list[str]] = field(default_factory=list)
    churn: list[list[str]] = field(default_factory=list)
    trend: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


async def measure(args: argparse.Namespace, started: float) -> Results:
    results = Results()
    results.notes.append(f"Load average at the start: {loadavg()} ({os.cpu_count()} cores, shared).")
    rng = random.Random(args.seed)
    seq = itertools.count(1)
    config = Config().with_overrides(
        {
            "server": {"port": 0},
            "store": {"path": ":memory:"},
            "policy": {"allow_writes": True},
            "calls": {"timeout_s": args.call_timeout},
        }
    )
    async with running_bridge(config) as bridge, serve_demo_site(site_dir=PAGES) as site:
        progress("soak", "starting Chromium (child process)")
        browser = await Child.start("--child", "browser", f"ws://127.0.0.1:{bridge.port}/extension")
        browser.serve_replies()
        clients: Child | None = None
        try:
            if not await bridge.core.wait_connected(15):
                raise RuntimeError("the extension did not connect to the bridge")
            tabs = Tabs(browser, site)
            progress("soak", f"opening {args.tabs} tabs")
            for slot in range(args.tabs):
                await tabs.do("open", slot)
            found = await wait_tools(bridge, args.tabs)
            if found != args.tabs:
                raise RuntimeError(f"only {found} of {args.tabs} {TOOL} tools registered after 30 s")
            mcp_url = f"http://127.0.0.1:{bridge.port}/mcp"
            async with Client(mcp_url) as lister:  # tools/list: every copy must carry its source
                listed = await lister.list_tools()
            sources = {
                t.name: ((t.meta or {}).get("tabmcp/source") or {}).get("tabId")
                for t in listed.tools
                if t.name == TOOL or t.name.endswith(f".{TOOL}")
            }
            registry = {
                e.public_name: e.tab.tab_id for e in bridge.core.registry.tool_entries() if e.tool.name == TOOL
            }
            if sources != registry:
                results.notes.append(f"tools/list sources {sources} differ from the registry {registry}.")
            progress(
                "soak",
                f"{found} tools, e.g. {', '.join(sorted(registry)[:3])}; tools/list sources agree: "
                f"{sources == registry}",
            )

            progress("soak", f"starting {args.concurrency} MCP clients (child process)")
            clients = await Child.start("--child", "clients", mcp_url, "--concurrency", str(args.concurrency))
            labels = {clients.proc.pid: "MCP client process", browser.proc.pid: PLAYWRIGHT}
            pick = lambda: pick_target(bridge, rng)  # noqa: E731
            progress("soak", f"warm-up: {args.warmup} calls")
            await run_phase(
                clients, Phase("warm-up", args.concurrency, args.concurrency, args.warmup), pick, seq, labels
            )
            for n_clients in (1, args.concurrency):
                label = (
                    f"no churn, {'1 shared client' if n_clients == 1 else f'{n_clients} clients'} (baseline)"
                )
                phase = Phase(label, n_clients, args.concurrency, args.baseline_calls)
                progress("soak", f"{label}: {args.baseline_calls:,} calls")
                results.phases.append(await run_phase(clients, phase, pick, seq, labels))

            n_clients = 1 if args.shared_client else args.concurrency
            soak = Phase(
                f"soak: churn every ~{args.churn_interval:g} s, {n_clients} client(s)",
                n_clients,
                args.concurrency,
                args.calls,
            )
            snapshot = tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None
            before = Memory.take()
            core = bridge.core

            def sample(period: str, done: str) -> None:
                """One row of the trend (no gc.collect(): it would stall the calls in flight)."""
                heap = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
                results.trend.append(
                    [
                        period,
                        done,
                        f"{time.monotonic() - before.at:.0f}",
                        mib(heap) if heap else "off",
                        mib(rss_bytes()),
                        str(core.registry.counts()["tabs"]),
                        str(len(core.calls)),
                        str(len(core.telemetry.tabs())),
                    ]
                )

            sample("soak", "0")
            progress(
                "soak",
                f"soak: {args.calls:,} calls at concurrency {args.concurrency}, "
                f"churn every ~{args.churn_interval:g} s",
            )
            stop = asyncio.Event()
            churner = asyncio.create_task(
                churn(tabs, args.tabs, args.churn_interval, stop, random.Random(args.seed + 1))
            )
            try:
                # Bounded: stop sending when an idle period as long as the soak would end the run
                # past --time-limit (less a margin for setup and teardown).
                def out_of_time(soak_so_far: float) -> bool:
                    return bool(time.monotonic() - started + soak_so_far + 30 > args.time_limit)

                await run_phase(
                    clients, soak, pick, seq, labels, lambda n: sample("soak", f"{n:,} calls"), out_of_time
                )
            finally:
                stop.set()
                await churner
            results.phases.append(soak)
            if soak.calls % max(1, soak.n // 10):
                sample("soak", f"{soak.calls:,} calls (end)")
            await clients.close()
            clients = None

            # Settle: every slot open again, nothing pending.
            settled = await wait_tools(bridge, args.tabs, 15)
            deadline = time.monotonic() + 10
            while len(bridge.core.calls) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            after = Memory.take()
            if snapshot is not None:
                results.growth = growth_rows(snapshot, tracemalloc.take_snapshot())
                del snapshot
            soak_seconds = after.at - before.at
            idle_before = Memory.take()  # after the snapshots are gone
            idle_seconds = soak_seconds if args.idle_seconds is None else args.idle_seconds
            progress(
                "soak",
                f"idle baseline: {idle_seconds:.0f} s"
                + (" (the soak's length)" if args.idle_seconds is None else ""),
            )
            for k in range(1, 11):
                await asyncio.sleep(idle_seconds / 10)
                sample("idle", f"{k * 10}%")
            idle_after = Memory.take()

            results.memory = [
                memory_row("soak (calls + churn)", before, after),
                memory_row("idle (baseline: noise)", idle_before, idle_after),
            ]
            pages_open = (await browser.ask(op="pages")).get("value")
            results.end_state = [
                ["registry tabs", str(core.registry.counts()["tabs"]), f"{args.tabs} + 1 (about:blank)"],
                [f"{TOOL} tools registered", str(settled), str(args.tabs)],
                ["pending calls (core.calls)", str(len(core.calls)), "0"],
                ["request futures (core.hub._futures)", str(len(core.hub._futures)), "0"],
                ["pending requests of every kind (core.session.requests)", str(len(core.session.requests)), "0"],
                [
                    "telemetry tabs held (core.telemetry)",
                    str(len(core.telemetry.tabs())),
                    f"≤ {args.tabs} + 1 live + {KEEP_CLOSED_TABS} recently closed",
                ],
                [
                    "telemetry bytes held",
                    f"{core.telemetry.buffers.total_bytes:,}",
                    f"≤ {core.telemetry.settings.max_bytes:,}",
                ],
                ["browser pages open", str(pages_open), f"{args.tabs} + 1 (about:blank)"],
                [
                    "calls finished in the bridge (done / failed)",
                    f"{core.calls.completed:,} / {core.calls.failed:,}",
                    "-",
                ],
            ]
            # Diagnostic: the telemetry store keeps every closed tab (nothing calls forget_tab);
            # forget those here and measure again, to see what the rest of the bridge kept.
            closed = [t.tab_id for t in core.telemetry.tabs() if core.registry.tab(t.tab_id) is None]
            for tab_id in closed:
                core.telemetry.forget_tab(tab_id)
            results.memory.append(
                memory_row(
                    f"soak start → after telemetry.forget_tab() of {len(closed)} closed tabs (diagnostic)",
                    before,
                    Memory.take(),
                )
            )
            changes = tabs.closed + tabs.navigated
            results.churn = [
                [
                    str(tabs.closed),
                    str(tabs.opened - args.tabs),
                    str(tabs.navigated),
                    f"{soak.wall / max(1, changes):.2f}",
                    fmt_ms(percentile(tabs.step_times, 50)),
                    fmt_ms(max(tabs.step_times, default=0.0)),
                    ", ".join(f"{k} x{v}" for k, v in tabs.failures.items()) or "none",
                ]
            ]
            results.notes.append(f"Load average at the end: {loadavg()}.")
        finally:
            if clients is not None:
                await clients.close()
            await browser.close()
    return results


def _ours(cpu: dict[str, float]) -> float:
    """CPU seconds of this benchmark's own processes in a window (the pseudo-groups left out)."""
    return sum(v for k, v in cpu.items() if k not in (MACHINE, REFERENCE))


CONTROL = "MCP client process"
"""The soak's control process: its work per call does not depend on tabs or on earlier calls."""


def flatness_line(phase: Phase, span: float = 10.0) -> str:
    """PASS/FAIL: the phase's calls/s in its last ``span`` s within FLAT_WITHIN of its first."""
    rates = phase.flatness(span)
    if rates is None:
        return (f"\n- n/a soak rate flat: the soak lasted {phase.wall:.1f} s, under {2 * span:g} s "
                "(run more --calls to tell)")
    first, last = rates
    verdict = "PASS" if last >= first * (1 - FLAT_WITHIN) else "FAIL"
    line = (f"\n- {verdict} soak rate flat: last {span:g} s {last:.0f} calls/s vs first {span:g} s "
            f"{first:.0f} calls/s ({last / max(1e-9, first):.2f} of it; limit {1 - FLAT_WITHIN:.2f}; "
            f"the last call was sent {phase.loaded_until:.1f} s in, the drain after it is left out)")
    a, b = phase.cpu_per_call(True, span), phase.cpu_per_call(False, span)
    if a is None or b is None:
        return line
    (before, _), (after, _) = a, b
    control = after.get(CONTROL, 0.0) / max(1e-9, before.get(CONTROL, 0.0))
    parts = []
    verdicts = []
    for group in ("bridge process", "Chromium", CONTROL):
        ratio = after.get(group, 0.0) / max(1e-9, before.get(group, 0.0))
        parts.append(f"{group} {before.get(group, 0.0):.2f} → {after.get(group, 0.0):.2f} ms (×{ratio:.2f}"
                     + (f", ×{ratio / max(1e-9, control):.2f} of the control's" if group != CONTROL else "") + ")")
        if group != CONTROL:
            verdicts.append(ratio / max(1e-9, control) <= 1 + FLAT_WITHIN)
    verdict = "PASS" if all(verdicts) else "FAIL"
    return (line + f"\n- CPU per call, first {span:g} s → last {span:g} s (full windows): " + "; ".join(parts)
            + f"\n- {verdict} work per call flat: the bridge's and Chromium's CPU per call grew at most "
            f"{FLAT_WITHIN:.0%} more than the MCP clients' (the control: the same call_tool every time, no "
            "state of tabs; its CPU per call moves only with the machine)")


def _col(phase: Phase) -> str:
    if phase.label.startswith("soak"):
        return "soak"
    return "no churn, 1 client" if phase.clients == 1 else f"no churn, {phase.clients} clients"


def report(args: argparse.Namespace, results: Results, total: float) -> int:
    shared, per_worker, soak = results.phases
    soak_base = shared if args.shared_client else per_worker
    ratio_base = {shared.label: shared, per_worker.label: shared, soak.label: soak_base}
    rows = []
    for ph in results.phases:
        p50 = percentile(ph.latencies_ok, 50)
        rows.append(
            [
                ph.label,
                f"{ph.calls:,}",
                str(ph.concurrency),
                f"{ph.ok:,}",
                f"{sum(ph.errors.values()):,}",
                str(ph.misrouted),
                f"{ph.wall:.1f}",
                f"{ph.calls / ph.wall:.0f}",
                fmt_ms(p50),
                fmt_ms(percentile(ph.latencies_ok, 99)),
                fmt_ms(percentile(ph.latencies_all, 99)),
                f"{p50 / percentile(ratio_base[ph.label].latencies_ok, 50):.2f}x",
            ]
        )
    print_table(
        f"Soak: {args.calls:,} calls at concurrency {args.concurrency}, {args.tabs} tabs "
        f"(whole run {total:.0f} s)",
        [
            "phase",
            "calls",
            "conc.",
            "ok",
            "errors",
            "misrouted",
            "wall s",
            "calls/s",
            "p50 ms",
            "p99 ms",
            "p99 ms (all)",
            "p50 vs baseline",
        ],
        rows,
        note='Latency: MCP SDK call_tool as the client process sees it, successful calls ("all": failed ones '
        "too). Baselines: the same calls with no churn, same run; the second baseline compares to the first, "
        f'the soak to "{soak_base.label}".'
        + (
            f" The soak stopped sending after {soak.calls:,} of {soak.n:,} calls: an idle period as long "
            "as it "
            f"would not have fit in --time-limit {args.time_limit:g} s."
            if soak.cut_short
            else ""
        )
        + "".join(f" {n}" for n in results.notes),
    )
    codes = Counter[str]()
    for ph in results.phases:
        codes.update(ph.errors)
    print_table(
        "Errors by code",
        ["code", *(_col(ph) for ph in results.phases)],
        [[code, *(f"{ph.errors.get(code, 0):,}" for ph in results.phases)] for code, _ in codes.most_common()]
        or [["none", *("0" for _ in results.phases)]],
        note="TAB_CLOSED / TAB_NAVIGATED: the page went away during the call; TOOL_NOT_FOUND: the public "
        "name "
        "was gone (tab closed, or renamed) when the bridge resolved it. All expected under churn.",
    )
    print_table(
        "Who answered the successful calls",
        ["answered by", *(_col(ph) for ph in results.phases)],
        [[r, *(f"{ph.routing.get(r, 0):,}" for ph in results.phases)] for r in ROUTES],
        note="Every answer carries the page's slot, open counter and per-load nonce, and echoes the call's "
        "seq. Misrouted (must be 0): the answering page is not the one the bridge names in "
        '_meta["tabmcp/source"], the seq is another call\'s, or a t<id> name was answered from another tab. '
        "The two middle rows follow "
        "the documented naming rules: the page behind the picked name changed between the pick and the call.",
    )
    for example in soak.misrouted_examples:
        print(f"- misrouted: {example}")
    groups = ["bridge process", "MCP client process", "Chromium", PLAYWRIGHT]
    print_table(
        "CPU by process (ms of CPU per call)",
        ["phase", *groups, "cores busy", "bridge process waited for a CPU"],
        [
            [
                _col(ph),
                *(f"{ph.cpu.get(g, 0.0) * 1000 / max(1, ph.calls):.2f}" for g in groups),
                f"{sum(ph.cpu.values()) / ph.wall:.2f} of {os.cpu_count()}",
                f"{ph.waited.get('bridge process', 0.0) / ph.wall:.0%} of the time",
            ]
            for ph in results.phases
        ],
        note="From /proc (utime+stime, reaped children included; waiting: schedstat run-queue time of the "
        "bridge's threads, ready to run with no CPU free). The bridge process also serves the static "
        "pages" + (" and runs tracemalloc" if args.tracemalloc else "") + "; the machine is shared "
        'with other jobs, so "cores busy" is what this benchmark got, not what it could use.',
    )
    print_table(
        f"Calls completed per {WINDOW_S:g} s, and the CPU per call of each process in each window",
        ["phase", "window", "s", "calls", "calls/s", "bridge CPU ms/call", "MCP clients", "Chromium",
         "ours, cores", "other jobs, cores", "reference loop ms"],
        [
            [_col(ph), str(k + 1), f"{secs:.1f}", f"{n:,}", f"{n / max(1e-9, secs):.0f}",
             *(f"{cpu.get(g, 0.0) * 1000 / max(1, n):.2f}" for g in ("bridge process", "MCP client process", "Chromium")),
             f"{_ours(cpu) / max(1e-9, secs):.2f}",
             f"{max(0.0, cpu.get(MACHINE, 0.0) - _ours(cpu)) / max(1e-9, secs):.2f}",
             f"{cpu.get(REFERENCE, 0.0) * 1000:.2f}"]
            for ph in results.phases
            for k, (secs, n, cpu) in enumerate(ph.windows)
        ],
        note="Windows end at the first completed call past each 5 s mark (the last one is shorter). "
        "CPU from /proc as in the table above (the bridge process also serves the static pages and picks "
        "the targets): a part that grows with calls or churned tabs shows as a column that climbs. "
        "Ours: every process of this benchmark; other jobs: the rest of the machine's CPU (/proc/stat) in "
        "the same window; reference loop: the CPU time of one fixed loop at the window's end (it takes "
        "longer when the machine is slower for everyone). A CPU per call that climbs in every process "
        "at once while ours stays level is the machine, not a part of ours.",
    )
    print(flatness_line(soak))
    flat = soak.flatness()
    figures = {
        "soak_calls_per_s": soak.calls / soak.wall,
        "soak_rate_x_no_churn": (soak.calls / soak.wall) / (soak_base.calls / soak_base.wall),
        "soak_p50_x_no_churn": percentile(soak.latencies_ok, 50) / percentile(soak_base.latencies_ok, 50),
        "soak_p99_ms": percentile(soak.latencies_ok, 99) * 1000,
        "soak_misrouted": float(soak.misrouted),
        "bridge_cpu_ms_per_call_soak": soak.cpu.get("bridge process", 0.0) * 1000 / max(1, soak.calls),
        "bridge_cpu_ms_per_call_no_churn": soak_base.cpu.get("bridge process", 0.0) * 1000 / max(1, soak_base.calls),
        **({"soak_last_10s_x_first_10s": flat[1] / max(1e-9, flat[0])} if flat else {}),
    }
    results_file.write("soak", figures, load=" ".join(results.notes), where=args.results,
                       notes=f"--calls {args.calls} --concurrency {args.concurrency} --tabs {args.tabs}")
    print_table(
        "Tab churn during the soak",
        [
            "tabs closed",
            "tabs reopened",
            "navigations",
            "s between changes",
            "p50 step ms",
            "max step ms",
            "failures",
        ],
        results.churn,
        note="A step is close + reopen, or (every third) a navigation to a new load, through Playwright.",
    )
    print_table(
        "Bridge process memory (after gc.collect())",
        MEMORY_HEADERS,
        results.memory,
        note="This process holds the bridge and the static page server (the MCP clients and Playwright run "
        "in their own processes). Baseline: an idle period right after the soak (tabs open, extension "
        "connected), "
        + (
            "as long as the soak"
            if args.idle_seconds is None
            else f"{args.idle_seconds:g} s (--idle-seconds)"
        )
        + ", same measurement. tracemalloc counts every Python allocation of the process, RSS includes the "
        "allocator's free lists (it rarely shrinks).",
    )
    print_table(
        "Bridge process over time (sampled every tenth of the soak and of the idle period, no gc.collect())",
        [
            "period",
            "progress",
            "s",
            "tracemalloc MiB",
            "RSS MiB",
            "registry tabs",
            "pending calls",
            "telemetry tabs",
        ],
        results.trend,
    )
    if results.growth:
        print_table(
            "Largest tracemalloc differences across the soak (by line)",
            ["where", "KiB", "blocks"],
            results.growth,
        )
    print_table(
        "State at the end (churn stopped, tabs settled)", ["what", "value", "expected"], results.end_state
    )
    return 1 if soak.misrouted else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak")
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--tabs", type=int, default=20)
    parser.add_argument(
        "--churn-interval",
        type=float,
        default=0.75,
        help="mean seconds between two tab changes (each wait is 0.5x-1.5x of it)",
    )
    parser.add_argument("--baseline-calls", type=int, default=1_000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument(
        "--shared-client",
        action="store_true",
        help="soak through one shared MCP client instead of one per worker",
    )
    parser.add_argument("--call-timeout", type=float, default=10.0, help="the bridge's calls.timeout_s")
    parser.add_argument(
        "--tracemalloc", action="store_true", help="trace allocations too (costs much bridge CPU)"
    )
    parser.add_argument(
        "--idle-seconds",
        type=float,
        help="length of the idle memory baseline (default: the soak's own length)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=480,
        help="seconds for the whole run: the soak stops sending calls early if an equal idle "
        "period would not fit (default 480)",
    )
    parser.add_argument("--results", help="where the kept figures go (default bench/results.json; - for nowhere)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "URL"), help=argparse.SUPPRESS)
    parser.add_argument("--no-extension", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, url = args.child
        if kind == "clients":
            asyncio.run(client_child(url, args.concurrency))
        else:
            asyncio.run(browser_child(url, extension=not args.no_extension))
        return 0
    if args.tracemalloc:
        tracemalloc.start()
    started = time.monotonic()
    try:
        results = asyncio.run(measure(args, started))
    finally:
        tracemalloc.stop()
    return report(args, results, time.monotonic() - started)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
