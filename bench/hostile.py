"""Hostile pages beside an innocent tab: what they cost the innocent tab's calls and the bridge's loop.

One run, real parts as users run them: ``tabmcp serve --stdio`` launched by an MCP client in its
own process (``bench/_client.py``, the official SDK ``mcp.Client``), a real Chromium with the
extension, and an innocent tab (``bench/pages/roundtrip.html``: one no-op tool, on
``127.0.0.1``). The innocent client calls its tool ``--rate`` times a second, each call started
when due whether or not the earlier ones answered and timed from then (a stall delays every call
due during it, as it would a person's; a sequential loop would count one slow call per stall):
for ``--seconds`` with no hostile page open (the baseline), then while this process opens the
hostile corpus, each page in its own tab and each attack on an origin of its own (``localhost``,
a port each, so the stalls name the attack), and a second client
(over Streamable HTTP) calls the hostile tools as an agent would, and ``--seconds`` more:

- ``bench/pages/hostile-schemas.html``: the schema bombs of issue 35 (a ``$ref`` chain of
  ``--depth`` levels in an outputSchema and in an inputSchema, ``pattern: "^(a+)+$"`` on a
  result of twelve ``"a…a!"`` strings and on an argument, ``--evil`` letters each); each of its
  tools called ``--hostile-calls`` times;
- a tool flood (``bench/pages/many.html``, ``--flood-tools`` tools, one after another);
- a telemetry flood (``e2e/pages/flood.html``, the page posting straight to the relay for
  ``--flood-s`` seconds);
- a giant tabs sync: five tabs of ``e2e/pages/heavy.html`` (together past the 16 MiB frame
  limit), sent again whole on a reconnect of the extension (the bench moves the extension to a
  dead port and back: calls in that moment fail as ``EXTENSION_DISCONNECTED``, counted apart).

The bridge's loop stalls come from its own monitor (``core/stalls.py``): the full ``/health``,
read with the control key, after each phase. The control: beside the innocent calls, at the same
rate and in the same open loop, ``Runtime.evaluate("1")`` in the innocent tab over a DevTools socket
of its own (no tabmcp on its path), so the table shows how much of a phase's slowdown is the
machine's and the browser's (as ``soak`` has its MCP client's control). Reported: the innocent
calls' and the control's p50/p99 and failures per phase, the hostile calls' times and answers, the
stalls of the hostile phase by origin, and the issue's aims as PASS/FAIL lines: innocent p99 within
2x its baseline, worst stall ≤ 100 ms, and the innocent p99's ratio (with / without) over the
control's within 2x; apart, the innocent calls due outside the reconnect (from moving the
extension away until its sync was read).

Beside them, Chromium's CPU seconds per phase by process (its browser process, the extension's
service worker's, the pages' renderers, the GPU process, the rest: ``SystemInfo.getProcessInfo``
and ``/proc``), the figure a loaded machine stretches least; ``--profile-pages`` adds the CPU
profiles of the tool flood's and the heavy tabs' renderers (the content script, the page agent
and the polyfill run there), ``--profile-worker`` the service worker's. Playwright is told not to
inspect the service worker's network (``bench/throughput.py``'s ``UNWATCHED``): every WebSocket
frame of the extension's link was a DevTools event the browser process built, which no user's
browser does.

Then the browser alone (``--no-bare`` skips it): the same hostile pages in a Chromium without the
extension (native WebMCP, ``--enable-features=WebMCP``: the pages register their tools into the
browser's own API and do their own work; the telemetry flood just runs its loop, nothing relays it;
no reconnect, no tool calls), with the same control in the same innocent page, the same phases. Its
control's slowdown (p99 with / without hostile pages) beside the control's with the extension says
how much of the browser's own slowdown is the extension's work on the hostile pages and how much
the pages' alone.

``--pin-pages`` (Linux, two CPUs at least; ``bench/_pin.py``) is an extra measure beside the default
run, never instead of it: the bench pins itself before it starts anything, so the clients, the
bridge and all of Chromium (browser process, GPU, network service, the extension's process, the
innocent tab's renderer) share one CPU with the bench itself, and moves every other renderer (the
hostile tabs', found as they appear; all their threads; priority unchanged) and Playwright's driver
(which opens the pages) to another, in both browsers. The innocent tab's renderer is the one whose
CPU rises by a busy loop run in it (CDP names no process for a tab); after each hostile phase the
same probe finds each hostile tab's renderer and the run fails unless every one is pinned and every
other process is on the first CPU. The content scripts run in the hostile tabs' renderers, so their
share of tabmcp's work is on the pinned CPU: the figure is the bridge's, the worker's and the
browser process's part alone.

    python -m bench hostile [--rate 20] [--seconds 15] [--depth 16] [--evil 22] [--hostile-calls 2]
                            [--flood-tools 1000] [--flood-s 6] [--heavy-tabs 5] [--native] [--no-bare]
                            [--profile-worker] [--profile-pages] [--trace] [--pin-pages]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
from tabmcp.control_key import control_headers, read_control_key
from tabmcp.core.registry import origin_of
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import ExtensionBrowser, launch_browser

from bench._client import ClientProcess
from bench._pin import (
    Pinner,
    busiest_renderer,
    busy_between,
    cpu_jiffies,
    descendants,
    pin_cpus,
    pin_tasks,
    pinned_self,
    playwright_drivers,
    tasks_off,
)
from bench._table import fmt_ms, percentile, print_table
from bench.roundtrip import _poll, free_port, loadavg
from bench.throughput import UNWATCHED
from bench.worker_profile import Cdp, self_times

ROOT = Path(__file__).resolve().parent.parent
BENCH_PAGES = ROOT / "bench" / "pages"
E2E_PAGES = ROOT / "e2e" / "pages"
TABMCP = str(Path(sys.executable).with_name("tabmcp"))
STALL_AIM_MS = 100
BOMBS, TOOL_FLOOD, TELEMETRY_FLOOD, GIANT_SYNC = "schema bombs", "tool flood", "telemetry flood", "giant sync"
ATTACKS = {BOMBS: BENCH_PAGES, TOOL_FLOOD: BENCH_PAGES, TELEMETRY_FLOOD: E2E_PAGES, GIANT_SYNC: E2E_PAGES}
P99_AIM = 2.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


BROWSER_KINDS = ("browser", "extension", "pages", "gpu", "other")


def process_kind(cdp_type: str, cmdline: str) -> str:
    """Which part of Chromium a process is: its browser process, the extension's (its service worker's
    renderer: ``--extension-process``), the pages' renderers, the GPU process, or the rest (the network
    service and other utilities, the zygotes)."""
    if cdp_type == "browser":
        return "browser"
    if cdp_type == "renderer" or "--type=renderer" in cmdline:
        return "extension" if "--extension-process" in cmdline else "pages"
    if cdp_type.lower() == "gpu" or "--type=gpu-process" in cmdline:
        return "gpu"
    return "other"


async def browser_cpu(devtools: int, innocent: int | None = None) -> dict[int, tuple[str, float]]:
    """Each Chromium process (``SystemInfo.getProcessInfo`` over the browser's own DevTools socket):
    pid → (kind, CPU seconds so far, from ``/proc``); the renderer ``innocent`` is kind ``innocent``."""
    async with httpx.AsyncClient() as http:
        url = (await http.get(f"http://127.0.0.1:{devtools}/json/version")).json()["webSocketDebuggerUrl"]
    async with websockets.connect(url, max_size=None) as ws:
        infos = (await Cdp(ws).send("SystemInfo.getProcessInfo"))["processInfo"]
    out: dict[int, tuple[str, float]] = {}
    for info in infos:
        pid = int(info["id"])
        with contextlib.suppress(OSError):
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            out[pid] = ("innocent" if pid == innocent else process_kind(str(info["type"]), cmdline), cpu_seconds(pid))
    return out


def cpu_by_kind(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]) -> dict[str, float]:
    """CPU seconds per kind of process between two :func:`browser_cpu` readings (a process new since
    ``before`` counts from zero; one gone by ``after`` is not counted)."""
    out = dict.fromkeys(BROWSER_KINDS, 0.0)
    for pid, (kind, cpu) in after.items():
        out[kind] = out.get(kind, 0.0) + cpu - before.get(pid, (kind, 0.0))[1]
    return out


PROBE_S = 0.4


async def tab_renderer(page: Any, devtools: int, tries: int = 4) -> int:
    """The pid of the renderer hosting ``page``: the one whose CPU rises by a busy loop run in it
    (:func:`bench._pin.busiest_renderer`; CDP names no process for a tab), the loop twice as long at each
    try (other renderers' work, a page still loading, does not grow with it)."""
    for attempt in range(tries):
        probe_s = PROBE_S * 2**attempt
        before = await browser_cpu(devtools)
        await page.evaluate("ms => { const end = performance.now() + ms; while (performance.now() < end); }",
                            probe_s * 1000)
        after = await browser_cpu(devtools)
        try:
            return busiest_renderer(before, after, probe_s)
        except LookupError:
            if attempt == tries - 1:
                raise
    raise AssertionError("unreachable")


async def start_pinning(browser: Any, innocent_page: Any, devtools: int, page_cpu: int) -> tuple[Pinner, int]:
    """``--pin-pages``: the innocent tab's renderer found, every other renderer but the extension's moved
    to ``page_cpu`` as it appears (:class:`bench._pin.Pinner`)."""
    innocent = await tab_renderer(innocent_page, devtools)
    browser_pid = next(pid for pid, (kind, _) in (await browser_cpu(devtools)).items() if kind == "browser")
    pinner = Pinner(browser_pid, {innocent}, page_cpu)
    pinner.start()
    children = {pid: Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                for pid in descendants(os.getpid()) if Path(f"/proc/{pid}").exists()}
    for driver in playwright_drivers(children):  # Chromium, its child, keeps the CPU it was started on
        pin_tasks(driver, page_cpu)
    progress(f"--pin-pages: innocent tab's renderer {innocent}; other renderers and Playwright's driver to "
             f"CPU {page_cpu}")
    return pinner, innocent


async def check_pinning(pinner: Pinner, innocent: int, hostile_pages: list[Any], devtools: int,
                        main_cpu: int) -> str:
    """After a phase: each hostile tab's renderer (found as the innocent one was) among the pinned, on
    their CPU alone, and every other Chromium process on ``main_cpu`` alone; else the run fails."""
    pinner.sweep()
    tabs = {await tab_renderer(page, devtools) for page in hostile_pages}
    problems = [f"a hostile tab's renderer {pid} is not pinned" for pid in sorted(tabs - pinner.pinned)]
    if innocent in tabs:
        problems.append(f"a hostile tab shares the innocent tab's renderer {innocent}")
    processes = await browser_cpu(devtools)
    problems += [f"{pid} ({kind}) has {n} thread(s) off CPU {cpu}" for pid, (kind, _) in processes.items()
                 for cpu in [pinner.cpu if pid in pinner.pinned else main_cpu]
                 if (n := tasks_off(pid, cpu))]
    drivers = playwright_drivers({pid: Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
                                  for pid in descendants(os.getpid()) if Path(f"/proc/{pid}").exists()})
    problems += [f"Playwright's driver {pid} has {n} thread(s) off CPU {pinner.cpu}" for pid in drivers
                 if (n := tasks_off(pid, pinner.cpu))]
    if not drivers:
        problems.append("no Playwright driver found")
    if problems:
        raise RuntimeError("--pin-pages did not hold: " + "; ".join(problems))
    others = len(processes) - len(pinner.pinned & set(processes)) - 1
    return (f"pinned: the {len(hostile_pages)} hostile tabs' {len(tabs)} renderer(s) (each found by a busy loop "
            f"in its tab) among {len(pinner.pinned)} renderer(s) on CPU {pinner.cpu} alone ({pinner.moves} "
            f"thread moves) with Playwright's driver, the innocent tab's renderer and the {others} "
            f"other Chromium processes on CPU {main_cpu} alone, checked after the phase")


def child_of(pid: int) -> int:
    """The one child process of ``pid`` (the bridge the innocent client launched over stdio)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    if len(children) != 1:
        raise RuntimeError(f"expected the client's one child (the bridge), found {children}")
    return int(children[0])


@contextlib.contextmanager
def _environ(name: str, value: str) -> Iterator[None]:
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def progress(message: str) -> None:
    print(f"[hostile {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def elsewhere(url: str) -> str:
    """The same page on another origin (``localhost`` for ``127.0.0.1``): the hostile pages'."""
    return url.replace("127.0.0.1", "localhost", 1)


# -- what a phase saw (plain data: bench/tests/test_hostile.py checks these rules) --------------


@dataclass
class Phase:
    label: str
    samples: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    stalls: list[dict[str, Any]] = field(default_factory=list)
    """The stalls the bridge counted during the phase (``/health`` ``loop.recent``)."""
    stall_count: int = 0
    worst_ms: int = 0
    partial: bool = False
    """More stalls than ``/health`` keeps: the worst is still right, the list is the newest."""
    names: dict[str, str] = field(default_factory=dict)
    """Origin → which page it served (the attack's name)."""
    due: list[float] = field(default_factory=list)
    """When each sample's call was due (epoch seconds), in the order of ``samples``."""
    reconnect: tuple[float, float] | None = None
    """From moving the extension away until its sync was in (epoch seconds)."""
    traces: list[list[list[Any]]] = field(default_factory=list)
    """``--trace``: each call's hop timestamps (``[hop, epoch ms]``, from ``client.due`` to ``client.recv``)."""
    marks: dict[str, float] = field(default_factory=dict)
    """When the driver began each step (epoch seconds), for reading the traces."""
    bridge_cpu_s: float = float("nan")
    """The bridge process's CPU seconds (user + system, all its threads) during the phase: a
    measure a loaded machine stretches far less than latencies."""
    worker_profile: dict[str, Any] | None = None
    """``--profile-worker``: the extension's service worker's CPU profile from the heavy tabs on."""
    control: list[float] = field(default_factory=list)
    """The control's times (s): ``Runtime.evaluate("1")`` in the innocent tab over CDP, paced as the calls."""
    control_failed: int = 0
    page_profiles: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """``--profile-pages``: the CPU profiles of the tool flood's and the heavy tabs' renderers, by attack."""
    browser_cpu: dict[str, float] = field(default_factory=dict)
    """Chromium's CPU seconds in the phase by kind of process (:func:`cpu_by_kind`)."""
    seconds: float = float("nan")
    """How long the phase's calls (or control) ran."""
    cpu_busy: dict[int, float] = field(default_factory=dict)
    """Each CPU's busy share in the phase, the whole machine's (``/proc/stat``: other users' work too)."""

    def outside_reconnect(self) -> list[float]:
        """The samples of calls due outside :attr:`reconnect` (a link that is away answers no call)."""
        if self.reconnect is None:
            return self.samples
        a, b = self.reconnect
        return [s for s, d in zip(self.samples, self.due, strict=True) if not a <= d <= b]

    def p(self, q: float) -> float:
        return percentile(self.samples, q)

    def add(self, out: dict[str, Any]) -> None:
        self.samples += out.get("samples", [])
        self.due += out.get("due", [])
        self.traces += out.get("traces", [])
        for code, n in (out.get("errors") or {}).items():
            self.errors[code] = self.errors.get(code, 0) + int(n)


def stalls_between(before: dict[str, Any], after: dict[str, Any]) -> tuple[int, int, list[dict[str, Any]], bool]:
    """The stalls counted between two ``/health`` ``loop`` answers: how many, the worst (ms), the
    ones still listed, and whether some were no longer listed."""
    count = int(after.get("stalls", 0)) - int(before.get("stalls", 0))
    seen = int(before.get("stalls", 0))
    listed = [s for s in after.get("recent", []) if int(s.get("n", 0)) > seen]
    worst = max((int(s["ms"]) for s in listed), default=0)
    if int(after.get("worstMs", 0)) > int(before.get("worstMs", 0)):
        worst = max(worst, int(after["worstMs"]))  # a new worst for the bridge: this phase's
    return count, worst, listed, len(listed) < count


def by_origin(stalls: list[dict[str, Any]], names: dict[str, str] | None = None) -> list[list[str]]:
    rows: dict[str, list[int]] = {}
    for s in stalls:
        rows.setdefault(str(s.get("origin")), []).append(int(s["ms"]))
    return [[origin, (names or {}).get(origin, ""), str(len(ms)), str(max(ms)), str(sum(ms))]
            for origin, ms in sorted(rows.items(), key=lambda kv: -sum(kv[1]))]


def verdicts(base: Phase, hostile: Phase) -> list[tuple[bool, str]]:
    """The issue's aims (issue 35) as (passed, line)."""
    out = []
    limit = P99_AIM * base.p(99)
    p99 = hostile.p(99) if hostile.samples else float("inf")
    out.append((p99 <= limit, f"innocent p99 with hostile pages ≤ {P99_AIM:g}x its p99 without: {fmt_ms(p99)} ms vs "
                f"limit {fmt_ms(limit)} ms ({p99 / limit:.2f} of it)"))
    starved = [st for st in hostile.stalls if st.get("starved")]
    worked = max((int(st["ms"]) for st in hostile.stalls if not st.get("starved")), default=0)
    waited = (f"; {len(starved)} of those listed while the bridge waited for a CPU (half the stall or more, or "
              f"where that is not known it had one for less than half: the machine's), the worst it worked through "
              f"{worked} ms" if starved else "")
    out.append((hostile.worst_ms <= STALL_AIM_MS, f"worst loop stall with hostile pages ≤ {STALL_AIM_MS} ms: "
                f"{hostile.worst_ms} ms ({hostile.stall_count} stall(s) over {STALL_AIM_MS} ms{waited})"))
    failed = sum(n for code, n in hostile.errors.items() if code != "EXTENSION_DISCONNECTED")
    out.append((failed == 0, f"innocent calls that failed with hostile pages (not counting the reconnect's "
                f"EXTENSION_DISCONNECTED): {failed} of {len(hostile.samples) + sum(hostile.errors.values())}"))
    if base.control and hostile.control:
        ours, machine, share = control_ratios(base, hostile)
        out.append((share <= P99_AIM, f"the innocent p99's ratio (with / without hostile pages) over the control's "
                    f"≤ {P99_AIM:g}: {ours:.2f} / {machine:.2f} = {share:.2f} (what is left once the machine's and "
                    "the browser's slowdown is divided out)"))
    return out


def control_ratios(base: Phase, hostile: Phase) -> tuple[float, float, float]:
    """The innocent p99's ratio (hostile phase over baseline), the control's, and the first over the second."""
    ours = hostile.p(99) / base.p(99)
    machine = percentile(hostile.control, 99) / percentile(base.control, 99)
    return ours, machine, ours / machine


# -- the run -------------------------------------------------------------------------------------


@dataclass
class HostileCall:
    tool: str
    seconds: float
    failed: str | None


async def loop_status(port: int) -> dict[str, Any]:
    """The bridge's loop stalls, from the full ``/health`` (the control key's)."""
    async with httpx.AsyncClient(timeout=300) as http:
        data = (await http.get(f"http://127.0.0.1:{port}/health", headers=control_headers())).json()
    loop = data.get("loop")
    if not isinstance(loop, dict):
        raise RuntimeError("the bridge's /health has no loop stalls (a bridge before issue 35's monitor?)")
    return loop


class PacedEvaluate:
    """The control: ``Runtime.evaluate("1")`` in one page over its own DevTools socket, started
    when due as the innocent calls are (open loop) and timed from then; a failure is counted, not
    timed. Replies are matched by id by one reader, so calls overlap as they would."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for raw in self.ws:
            msg = json.loads(raw)
            future = self.waiting.pop(msg.get("id"), None)
            if future is not None and not future.done():
                future.set_result(msg)

    async def _one(self, due: float) -> float | None:
        mid = next(self.ids)
        future = self.waiting[mid] = asyncio.get_running_loop().create_future()
        await self.ws.send(json.dumps({"id": mid, "method": "Runtime.evaluate", "params": {"expression": "1"}}))
        msg = await asyncio.wait_for(future, 120)
        ok = "error" not in msg and msg.get("result", {}).get("result", {}).get("value") == 1
        return time.perf_counter() - due if ok else None

    async def run(self, phase: Phase, rate: float, stop: asyncio.Event) -> None:
        """Paced evaluations until ``stop``; their times go to ``phase.control``."""
        start, started = time.perf_counter(), []
        for n in itertools.count():
            due = start + n / rate
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, due - time.perf_counter()))
            if stop.is_set():
                break
            started.append(asyncio.create_task(self._one(due)))
        for outcome in await asyncio.gather(*started, return_exceptions=True):
            if isinstance(outcome, float):
                phase.control.append(outcome)
            else:
                phase.control_failed += 1


async def innocent_until(client: ClientProcess, phase: Phase, *, rate: float, seconds: float,
                         done: Callable[[], bool], trace: bool = False, control: PacedEvaluate | None = None) -> None:
    """Paced calls of the innocent tool (``_client``'s ``paced_start``: one open loop, each call
    started when due whatever the others do) for ``seconds`` and until ``done()``; failures are
    counted by code, never timed. (In chunks of 3 s, each asked once the last had answered, the
    calls due after a chunk's slowest one waited for it in this bench, not in the bridge.)"""
    start = time.time()
    await client.ask(op="paced_start", tool="noop", rate=rate, seconds=3600, start=start, timeout=900, trace=trace)
    stop = asyncio.Event()
    controlled = asyncio.create_task(control.run(phase, rate, stop)) if control is not None else None
    while time.time() - start < seconds or not done():
        await asyncio.sleep(0.05)
    stop.set()
    phase.seconds = time.time() - start
    phase.add(await client.ask(op="paced_stop"))
    if controlled is not None:
        await controlled


async def hostile_driver(args: argparse.Namespace, browser: ExtensionBrowser, sites: dict[str, str],
                         bridge_url: str, agent: ClientProcess, calls: list[HostileCall],
                         pages: list[Any], phase: Phase, worker: Cdp | None = None) -> None:
    """Open the corpus, call the bombs, flood, and make the extension send every tab again."""

    profiling: list[tuple[str, Any]] = []

    async def open_page(url: str, ready: str | None = "window.ready", attack: str | None = None) -> Any:
        page = await browser.context.new_page()
        pages.append(page)
        if attack is not None and args.profile_pages:  # from before its first script runs
            session = await browser.context.new_cdp_session(page)
            await session.send("Profiler.enable")
            await session.send("Profiler.setSamplingInterval", {"interval": 200})
            await session.send("Profiler.start")
            profiling.append((attack, session))
        await page.goto(url)
        if ready:
            await page.evaluate(f"() => Promise.resolve({ready}).then(() => true)")
        return page

    progress("schema bombs")
    phase.marks["schema bombs"] = time.time()
    bombs = await open_page(sites[BOMBS] + f"hostile-schemas.html?depth={args.depth}&evil={args.evil}")
    evil = await bombs.evaluate("() => window.evil")
    progress("tool flood, telemetry flood")
    phase.marks["tool flood"] = time.time()
    await open_page(sites[TOOL_FLOOD] + f"many.html?n={args.flood_tools}", "window.registered", TOOL_FLOOD)
    flooder = await open_page(sites[TELEMETRY_FLOOD] + "flood.html")
    flood = asyncio.create_task(flooder.evaluate(f"flood({int(args.flood_s * 1000)}, 1000)"))
    arguments = {"ref_output": {}, "ref_input": {"v": "x"}, "evil_result": {}, "evil_argument": {"text": evil}}
    for _ in range(args.hostile_calls):
        for tool, args_ in arguments.items():
            deadline = time.monotonic() + 60
            while True:  # the bombs' snapshot may still be being read: TOOL_NOT_FOUND until it is in
                out = await agent.ask(op="call", tool=tool, arguments=args_, timeout=900)
                if out["failed"] != "TOOL_NOT_FOUND" or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            calls.append(HostileCall(tool, out["seconds"], out["failed"]))
            progress(f"hostile call {tool}: {out['seconds']:.2f} s {out['failed'] or 'ok'}")
    with contextlib.suppress(Exception):  # the flood's page may be cut off: that is the defence
        await flood
    progress(f"giant sync: {args.heavy_tabs} heavy tabs, then a reconnect")
    phase.marks["heavy tabs"] = time.time()
    if worker is not None:
        await worker.send("Profiler.start")
    for i in range(args.heavy_tabs):
        await open_page(sites[GIANT_SYNC] + f"heavy.html?tab={i}", attack=GIANT_SYNC)
    phase.marks["heavy tabs open"] = time.time()
    await asyncio.sleep(2)  # their updates reach the bridge
    away = time.time()
    await browser.set_bridge_url(f"ws://127.0.0.1:{free_port()}/extension", pair=False)
    await asyncio.sleep(0.5)
    await browser.set_bridge_url(bridge_url, pair=False)
    await asyncio.sleep(3)  # the sync in parts, and its reading
    phase.reconnect = (away, time.time())
    if worker is not None:
        phase.worker_profile = (await worker.send("Profiler.stop"))["profile"]
    for attack, session in profiling:
        phase.page_profiles.setdefault(attack, []).append((await session.send("Profiler.stop"))["profile"])


async def measure(args: argparse.Namespace) -> tuple[Phase, Phase, list[HostileCall], list[str]]:
    notes = [f"load average at start: {loadavg()}"]
    if read_control_key() is None:
        raise SystemExit("bench.hostile reads the bridge's stalls with the control key: none found")
    async with contextlib.AsyncExitStack() as stack:
        if args.pin_pages:  # before anything starts: what this process starts inherits its CPU
            main_cpu, page_cpu = pin_cpus()
            stack.enter_context(pinned_self(main_cpu))
        if args.trace:  # the bridge the innocent client launches inherits it
            stack.enter_context(_environ("TABMCP_TRACE", "1"))
        for name, value in UNWATCHED.items():  # before Playwright starts its driver
            stack.enter_context(_environ(name, value))
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="tabmcp-bench-"))
        config = Path(tmp, "config.toml")
        config.write_text(f'[store]\npath = "{Path(tmp, "tabmcp.db")}"\n[calls]\ntimeout_s = 120\n')
        previous = os.environ.get("TABMCP_CONFIG")
        os.environ["TABMCP_CONFIG"] = str(config)  # inherited by the client processes and their bridge
        stack.callback(lambda: os.environ.pop("TABMCP_CONFIG") if previous is None
                       else os.environ.__setitem__("TABMCP_CONFIG", previous))
        bench_url = await stack.enter_async_context(serve_demo_site(site_dir=BENCH_PAGES))
        # Each attack on an origin of its own (localhost, another port each): the stalls name it.
        sites = {attack: elsewhere(await stack.enter_async_context(serve_demo_site(site_dir=folder)))
                 for attack, folder in ATTACKS.items()}
        port = free_port()
        clients: list[ClientProcess] = []

        @stack.push_async_callback
        async def close_clients() -> None:
            for c in reversed(clients):
                await c.close()

        progress("bridge (stdio, launched by the innocent client) and browser")

        async def innocent_client() -> ClientProcess:
            c = await ClientProcess.start("innocent", "--tool", "noop", "--wait", "90",
                                          "--stdio", TABMCP, "serve", "--stdio", "--port", str(port))
            clients.append(c)
            return c

        starting = asyncio.create_task(innocent_client())

        async def healthy() -> bool:
            async with httpx.AsyncClient(timeout=1) as http:
                return (await http.get(f"http://127.0.0.1:{port}/health")).status_code == 200

        await _poll("tabmcp bridge", healthy, 60)
        bridge_url = f"ws://127.0.0.1:{port}/extension"
        devtools = free_port()
        browser = await stack.enter_async_context(
            launch_browser(bridge_url=bridge_url, headless=True, webmcp=args.native,
                           extra_args=[f"--remote-debugging-port={devtools}"]))
        pages: list[Any] = []
        innocent_page = await browser.context.new_page()
        await innocent_page.goto(bench_url + "roundtrip.html")
        innocent = await starting
        async with httpx.AsyncClient() as http:
            targets = (await http.get(f"http://127.0.0.1:{devtools}/json/list")).json()
        page_url = next(t for t in targets if t["type"] == "page" and t["url"].endswith("/roundtrip.html"))
        control = PacedEvaluate(await stack.enter_async_context(
            websockets.connect(page_url["webSocketDebuggerUrl"], max_size=None)))
        stack.callback(control.reader.cancel)
        for _ in range(3):  # the page's first evaluations compile; untimed as the calls' warmup
            await control._one(time.perf_counter())
        innocent_pid: int | None = None
        if args.pin_pages:
            pinner, innocent_pid = await start_pinning(browser, innocent_page, devtools, page_cpu)
            stack.push_async_callback(pinner.stop)
        worker: Cdp | None = None
        if args.profile_worker:
            url = next(t for t in targets if t["type"] == "service_worker")["webSocketDebuggerUrl"]
            worker = Cdp(await stack.enter_async_context(websockets.connect(url, max_size=None)))
            await worker.send("Profiler.enable")
            await worker.send("Profiler.setSamplingInterval", interval=200)
        agent = await ClientProcess.start("agent", "--http", f"http://127.0.0.1:{port}/mcp")
        clients.append(agent)

        progress(f"baseline: {args.seconds:g} s of innocent calls, no hostile page")
        base = Phase("no hostile page")
        await innocent.ask(op="load", tools=["noop"], calls=args.warmup, concurrency=1)
        bridge_pid = child_of(innocent.proc.pid)
        before = await loop_status(port)
        cpu, chromium, jiffies = cpu_seconds(bridge_pid), await browser_cpu(devtools, innocent_pid), cpu_jiffies()
        await innocent_until(innocent, base, rate=args.rate, seconds=args.seconds, done=lambda: True,
                             trace=args.trace, control=control)
        middle = await loop_status(port)
        now, chromium_now, jiffies_now = cpu_seconds(bridge_pid), await browser_cpu(devtools, innocent_pid), cpu_jiffies()
        base.bridge_cpu_s, cpu = now - cpu, now
        base.browser_cpu, chromium = cpu_by_kind(chromium, chromium_now), chromium_now
        base.cpu_busy, jiffies = busy_between(jiffies, jiffies_now), jiffies_now
        base.stall_count, base.worst_ms, base.stalls, base.partial = stalls_between(before, middle)

        progress("hostile pages beside the innocent tab")
        hostile = Phase("hostile pages open")
        calls: list[HostileCall] = []
        driver: asyncio.Task[None] = asyncio.create_task(
            hostile_driver(args, browser, sites, bridge_url, agent, calls, pages, hostile, worker))
        await innocent_until(innocent, hostile, rate=args.rate, seconds=args.seconds, done=driver.done,
                             trace=args.trace, control=control)
        await driver  # its failure is the run's
        after = await loop_status(port)
        hostile.bridge_cpu_s = cpu_seconds(bridge_pid) - cpu
        hostile.browser_cpu = cpu_by_kind(chromium, await browser_cpu(devtools, innocent_pid))
        hostile.cpu_busy = busy_between(jiffies, cpu_jiffies())
        if args.pin_pages and innocent_pid is not None:
            notes.append(await check_pinning(pinner, innocent_pid, pages, devtools, main_cpu))
        hostile.stall_count, hostile.worst_ms, hostile.stalls, hostile.partial = stalls_between(middle, after)
        notes.append(f"load average at end: {loadavg()}")
        hostile.names = {origin_of(url): attack for attack, url in sites.items()}
        hostile.names[origin_of(bench_url)] = "the innocent tab"
        return base, hostile, calls, notes


async def control_until(control: PacedEvaluate, phase: Phase, *, rate: float, seconds: float,
                        done: Callable[[], bool]) -> None:
    """The control alone (no innocent calls: the browser without the extension has no tabmcp), paced
    as in :func:`innocent_until`, for ``seconds`` and until ``done()``."""
    start, stop = time.time(), asyncio.Event()
    controlled = asyncio.create_task(control.run(phase, rate, stop))
    while time.time() - start < seconds or not done():
        await asyncio.sleep(0.05)
    stop.set()
    phase.seconds = time.time() - start
    await controlled


async def bare_driver(args: argparse.Namespace, browser: ExtensionBrowser, sites: dict[str, str], phase: Phase,
                      pages: list[Any]) -> None:
    """The hostile corpus of :func:`hostile_driver` in a browser without the extension: the same pages,
    each in its own tab and on its own origin, the same flood; no tool calls, no reconnect."""

    async def open_page(url: str, ready: str = "window.ready") -> Any:
        page = await browser.context.new_page()
        pages.append(page)
        await page.goto(url)
        await page.evaluate(f"() => Promise.resolve({ready}).then(() => true)")
        return page

    progress("browser alone: schema bombs, tool flood, telemetry flood")
    phase.marks["schema bombs"] = time.time()
    await open_page(sites[BOMBS] + f"hostile-schemas.html?depth={args.depth}&evil={args.evil}")
    await open_page(sites[TOOL_FLOOD] + f"many.html?n={args.flood_tools}", "window.registered")
    flooder = await open_page(sites[TELEMETRY_FLOOD] + "flood.html")
    await flooder.evaluate(f"flood({int(args.flood_s * 1000)}, 1000)")
    progress(f"browser alone: {args.heavy_tabs} heavy tabs")
    phase.marks["heavy tabs"] = time.time()
    for i in range(args.heavy_tabs):
        await open_page(sites[GIANT_SYNC] + f"heavy.html?tab={i}")
    await asyncio.sleep(2)  # as long as the run with the extension waits for their updates


async def measure_bare(args: argparse.Namespace) -> tuple[Phase, Phase, list[str]]:
    """The control's two phases in a Chromium without the extension (native WebMCP), the hostile pages as in
    :func:`measure`: the browser's own slowdown from the pages alone."""
    notes = [f"load average at start: {loadavg()}"]
    async with contextlib.AsyncExitStack() as stack:
        if args.pin_pages:  # as the run with the extension
            main_cpu, page_cpu = pin_cpus()
            stack.enter_context(pinned_self(main_cpu))
        for name, value in UNWATCHED.items():  # as the run with the extension has it
            stack.enter_context(_environ(name, value))
        bench_url = await stack.enter_async_context(serve_demo_site(site_dir=BENCH_PAGES))
        sites = {attack: elsewhere(await stack.enter_async_context(serve_demo_site(site_dir=folder)))
                 for attack, folder in ATTACKS.items()}
        progress("browser alone: Chromium with native WebMCP, no extension")
        devtools = free_port()
        browser = await stack.enter_async_context(
            launch_browser(headless=True, webmcp=True, extension=False,
                           extra_args=[f"--remote-debugging-port={devtools}"]))
        innocent_page = await browser.context.new_page()
        await innocent_page.goto(bench_url + "roundtrip.html")
        async with httpx.AsyncClient() as http:
            targets = (await http.get(f"http://127.0.0.1:{devtools}/json/list")).json()
        if any(t["type"] == "service_worker" for t in targets):
            raise RuntimeError("the browser alone runs an extension's service worker")
        page_url = next(t for t in targets if t["type"] == "page" and t["url"].endswith("/roundtrip.html"))
        control = PacedEvaluate(await stack.enter_async_context(
            websockets.connect(page_url["webSocketDebuggerUrl"], max_size=None)))
        stack.callback(control.reader.cancel)
        for _ in range(3):
            await control._one(time.perf_counter())
        innocent_pid: int | None = None
        if args.pin_pages:
            pinner, innocent_pid = await start_pinning(browser, innocent_page, devtools, page_cpu)
            stack.push_async_callback(pinner.stop)
        progress(f"browser alone: baseline, {args.seconds:g} s of the control")
        base = Phase("browser alone (no extension): no hostile page")
        chromium, jiffies = await browser_cpu(devtools, innocent_pid), cpu_jiffies()
        await control_until(control, base, rate=args.rate, seconds=args.seconds, done=lambda: True)
        chromium_now, jiffies_now = await browser_cpu(devtools, innocent_pid), cpu_jiffies()
        base.browser_cpu, chromium = cpu_by_kind(chromium, chromium_now), chromium_now
        base.cpu_busy, jiffies = busy_between(jiffies, jiffies_now), jiffies_now
        progress("browser alone: hostile pages beside the innocent tab")
        hostile = Phase("browser alone (no extension): hostile pages open")
        pages: list[Any] = []
        driver = asyncio.create_task(bare_driver(args, browser, sites, hostile, pages))
        await control_until(control, hostile, rate=args.rate, seconds=args.seconds, done=driver.done)
        await driver
        hostile.browser_cpu = cpu_by_kind(chromium, await browser_cpu(devtools, innocent_pid))
        hostile.cpu_busy = busy_between(jiffies, cpu_jiffies())
        if args.pin_pages and innocent_pid is not None:
            notes.append(await check_pinning(pinner, innocent_pid, pages, devtools, main_cpu))
        notes.append(f"load average at end: {loadavg()}")
        return base, hostile, notes


def slowdown(base: Phase, hostile: Phase) -> float:
    """The control's p99 with hostile pages over its p99 without."""
    return percentile(hostile.control, 99) / percentile(base.control, 99)


def bare_line(base: Phase, hostile: Phase, bare_base: Phase, bare_hostile: Phase) -> str:
    """The browser's own slowdown (the control's p99 ratio) with the extension and without it."""
    ours, alone = slowdown(base, hostile), slowdown(bare_base, bare_hostile)
    return (f"the browser's own slowdown (the control's p99 with / without hostile pages): {ours:.2f}x with the "
            f"extension, {alone:.2f}x without it ({ours / alone:.2f} of it); the control's p99 with hostile pages "
            f"{fmt_ms(percentile(hostile.control, 99))} ms with the extension, "
            f"{fmt_ms(percentile(bare_hostile.control, 99))} ms without")


def report(args: argparse.Namespace, base: Phase, hostile: Phase, calls: list[HostileCall], notes: list[str],
           bare: tuple[Phase, Phase, list[str]] | None = None) -> int:
    rows: list[list[Any]] = []
    for phase in (base, hostile):
        failed = ", ".join(f"{code} {n}" for code, n in sorted(phase.errors.items())) or "none"
        rows.append([phase.label, len(phase.samples), fmt_ms(phase.p(50)), fmt_ms(phase.p(99)),
                     fmt_ms(max(phase.samples, default=float("nan"))), failed,
                     fmt_ms(percentile(phase.control, 50)), fmt_ms(percentile(phase.control, 99)),
                     phase.control_failed, phase.stall_count, phase.worst_ms, f"{phase.bridge_cpu_s:.1f}"])
    if bare is not None:
        for phase in bare[:2]:
            rows.append([phase.label, "", "", "", "", "", fmt_ms(percentile(phase.control, 50)),
                         fmt_ms(percentile(phase.control, 99)), phase.control_failed, "", "", ""])
        notes = [*notes, "browser alone (Chromium with native WebMCP, no extension, the same pages and control after "
                 "the run with it): " + ", ".join(bare[2])]
    pinned = " (--pin-pages: the hostile pages' renderers on a CPU of their own)" if args.pin_pages else ""
    print_table(
        "The innocent tab's calls, without and with hostile pages (one run)" + pinned,
        ["phase", "calls", "p50 ms", "p99 ms", "max ms", "failed", "control p50 ms", "control p99 ms",
         "control failed", "stalls > 100 ms", "worst stall ms", "bridge CPU s"],
        rows,
        note="The innocent client (official SDK, its own process, stdio to the bridge it launched) calls a no-op "
        f"tool {args.rate:g} times a second, each call timed from when it was due (open loop); the control is "
        "Runtime.evaluate(\"1\") in the same tab over CDP (no tabmcp on its path), paced the same; the stalls are "
        "the bridge's own count (core/stalls.py, read from the full /health with the control key); the bridge's "
        "CPU time (all threads, /proc) is the figure a loaded machine stretches least. "
        f"Hostile corpus: $ref chains of depth {args.depth}, ^(a+)+$ on "
        f"{args.evil} letters, {args.flood_tools} tools, a {args.flood_s:g} s telemetry flood, {args.heavy_tabs} "
        "heavy tabs and a reconnect (its sync). " + (PINNED_NOTE if args.pin_pages else "") + "; ".join(notes) + ".",
    )
    cpu_phases = [base, hostile, *(bare[:2] if bare is not None else [])]
    if any(phase.browser_cpu for phase in cpu_phases):
        kinds = [k for k in ("browser", "extension", "innocent", "pages", "gpu", "other")
                 if k != "innocent" or any("innocent" in phase.browser_cpu for phase in cpu_phases)]
        cpus = sorted({cpu for phase in cpu_phases for cpu in phase.cpu_busy})
        print_table(
            "Chromium's CPU seconds per phase, by process (/proc; the phases' lengths differ)" + pinned,
            ["phase", "s", *kinds, "all", *(f"CPU {cpu} busy" for cpu in cpus)],
            [[phase.label, f"{phase.seconds:.1f}", *(f"{phase.browser_cpu.get(k, 0.0):.2f}" for k in kinds),
              f"{sum(phase.browser_cpu.values()):.2f}", *(f"{phase.cpu_busy.get(c, float('nan')):.0%}" for c in cpus)]
             for phase in cpu_phases if phase.browser_cpu],
            note="browser: its browser process; extension: the extension's service worker's process; "
            + ("innocent: the innocent tab's renderer; pages: every other renderer (the hostile tabs', each with "
               "its content script and page agent, and idle blank, WebUI and spare ones), on a CPU of their own; "
               if "innocent" in kinds else "pages: every tab's renderer (the innocent tab's too; the content script "
               "and the page agent run there); ")
            + "other: the network service, other utilities and zygotes; CPU n busy: the whole machine's CPU n "
            "(/proc/stat), other users' work too.",
        )
    print_table(
        "The hostile tools' calls (a second client, over Streamable HTTP)",
        ["tool", "seconds", "answer"],
        [[c.tool, f"{c.seconds:.2f}", c.failed or "ok"] for c in calls],
    )
    if hostile.stalls:
        print_table(
            "Stalls in the hostile phase, by the origin the bridge named" + (" (the newest only)" if hostile.partial else ""),
            ["origin", "page", "stalls", "worst ms", "total ms"],
            by_origin(hostile.stalls, hostile.names),
        )
    if hostile.traces:
        print_hops(hostile)
    if hostile.worker_profile is not None:
        _, by_fn, span = self_times(hostile.worker_profile)
        print_table(f"The extension's service worker from the heavy tabs on ({span:.0f} ms profiled): top functions",
                    ["function", "self ms"], [[n, f"{ms:.0f}"] for n, ms in by_fn.most_common(25)])
    for attack, profiles in hostile.page_profiles.items():
        fns: Counter[str] = Counter()
        for profile in profiles:
            fns.update(self_times(profile)[1])
        print_table(f"The {attack}'s renderers ({len(profiles)} tab(s), from their opening to the run's end): top "
                    "functions", ["function", "self ms"],
                    [[n, f"{ms:.0f}"] for n, ms in fns.most_common(25)])
    print("\nAims (issue 35)" + (", the hostile pages' renderers on a CPU of their own (--pin-pages):" if args.pin_pages
                                  else ":"))
    for ok, line in verdicts(base, hostile):
        print(f"- {'PASS' if ok else 'FAIL'} {line}")
    if hostile.reconnect is not None:
        outside = hostile.outside_reconnect()
        print(f"- (apart) innocent calls due outside the reconnect's {hostile.reconnect[1] - hostile.reconnect[0]:.1f} s "
              f"(the extension moved away and back, its sync read): {len(outside)} calls, p50 "
              f"{fmt_ms(percentile(outside, 50))} / p99 {fmt_ms(percentile(outside, 99))} ms, max "
              f"{fmt_ms(max(outside, default=float('nan')))} ms")
    if bare is not None and base.control and hostile.control and bare[0].control and bare[1].control:
        print(f"- (apart) {bare_line(base, hostile, bare[0], bare[1])}")
    return 0


PINNED_NOTE = (
    "--pin-pages: the bench pinned itself before starting anything, so the MCP clients, the bridge "
    "and the whole Chromium (browser process, GPU, network service, the extension's process, the innocent tab's "
    "renderer) run on one CPU with the bench itself (its timing, the pages' HTTP servers), and moved every other "
    "renderer (the hostile tabs', all their threads) and Playwright's driver (which opens the pages) to the other "
    "CPU, their priority left as it was; in the browser alone the same. The content script "
    "and the page agent run in the hostile tabs' renderers: tabmcp's work for those pages (their snapshots' "
    "stringify, parse and checks, the port's serialization) is on the pinned CPU, not on the innocent path's, so "
    "this run measures the bridge, the worker and the browser process, not the content scripts. "
)


def hops(trace: list[list[Any]]) -> list[tuple[str, float]]:
    """A traced call's waits: each hop's name (``from→to``) and its ms."""
    return [(f"{a[0]}→{b[0]}", float(b[1]) - float(a[1])) for a, b in zip(trace, trace[1:], strict=False)]


def print_hops(phase: Phase, slowest: int = 12) -> None:
    """``--trace``: where the slowest calls of ``phase`` waited, and their due time from the driver's steps."""
    traced = sorted(phase.traces, key=lambda t: float(t[0][1]) - float(t[-1][1]))[:slowest]
    if not traced:
        return
    names = [n for n, _ in hops(traced[0])]
    marks = sorted(phase.marks.items(), key=lambda kv: kv[1])

    def since(at_ms: float) -> str:
        before = [(k, v) for k, v in marks if v * 1e3 <= at_ms]
        return f"{before[-1][0]} +{at_ms / 1e3 - before[-1][1]:.2f} s" if before else ""

    rows = [[since(float(t[0][1])), *(f"{ms:.0f}" for _, ms in hops(t))] for t in traced
            if [n for n, _ in hops(t)] == names]
    print_table(f"Where the slowest innocent calls waited (ms per hop; --trace, {len(phase.traces)} traced)",
                ["due", *names], rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench hostile")
    parser.add_argument("--rate", type=float, default=20.0, help="innocent calls started a second (default 20)")
    parser.add_argument("--seconds", type=float, default=15.0,
                        help="seconds of innocent calls per phase, at least (default 15; the hostile phase lasts "
                             "until the corpus is through)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed innocent calls first")
    parser.add_argument("--depth", type=int, default=16, help="levels of the $ref chains (default 16)")
    parser.add_argument("--evil", type=int, default=22, help="letters before the '!' of the evil strings (default 22)")
    parser.add_argument("--hostile-calls", type=int, default=2, help="calls of each schema bomb (default 2)")
    parser.add_argument("--flood-tools", type=int, default=1000, help="tools the flooding page registers")
    parser.add_argument("--flood-s", type=float, default=6.0, help="seconds of telemetry flood")
    parser.add_argument("--heavy-tabs", type=int, default=5,
                        help="tabs of e2e/pages/heavy.html before the reconnect (5: a sync past 16 MiB)")
    parser.add_argument("--native", action="store_true", help="Chromium's native WebMCP instead of the polyfill")
    parser.add_argument("--profile-worker", action="store_true",
                        help="the extension's service worker's CPU profile (over CDP) from the heavy tabs on")
    parser.add_argument("--profile-pages", action="store_true",
                        help="the CPU profiles (over CDP) of the tool flood's and the heavy tabs' renderers")
    parser.add_argument("--trace", action="store_true",
                        help="the bridge in debug mode (TABMCP_TRACE=1): where the slowest innocent calls waited, by hop")
    parser.add_argument("--pin-pages", action="store_true",
                        help="the hostile tabs' renderers on one CPU, everything else on another, in both browsers "
                             "(Linux, two CPUs at least): what tabmcp's path costs when the pages' own CPU does not "
                             "compete with it")
    parser.add_argument("--no-bare", action="store_true",
                        help="skip the browser alone (the same pages and control in a Chromium without the extension)")
    args = parser.parse_args(argv)
    base, hostile, calls, notes = asyncio.run(measure(args))
    bare = None if args.no_bare else asyncio.run(measure_bare(args))
    return report(args, base, hostile, calls, notes, bare)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
