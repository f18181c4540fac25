"""Throughput: a no-op page tool in ``--tabs`` tabs, ``--concurrency`` calls in flight, one bridge.

Every process as users run them: the bridge is ``tabmcp serve`` in its own process; the MCP
clients (official SDK ``Client``, Streamable HTTP) run in ``--client-processes`` processes of
their own (bench/_client.py), one connection per call in flight; this process owns Playwright and
Chromium with the extension, ``--tabs`` tabs of bench/pages/roundtrip.html (the copies of
``noop`` are named ``t<tabId>.noop``). Calls go round-robin over the copies.

Phases, same run: the baseline (one client, one call at a time), then the load (``--calls``
calls, exactly ``--concurrency`` in flight, spread over the client processes). Reported:
calls/s, p50/p99 as the clients see them, errors, and the CPU each process group used per call
(from /proc), so a limit on the client side shows as such: the bridge, the MCP client processes,
Playwright's driver (it only watches), and Chromium split by role (the browser process, the
extension's process where its service worker runs, the pages' renderers, the rest: GPU, network
and storage services, zygotes). The sum is the CPU a call costs the machine: on N cores, N
seconds of CPU per second bound calls/s by N / (sum per call), printed as the ceiling. Then
issue 12's target as a PASS/FAIL line: ≥ 2,000 calls/s with p99 ≤ 10 ms at 20 tabs x
concurrency 10. No churn (that is bench.soak).

``--py-spy BIN`` records the bridge with that py-spy executable during the load phase (not a
project dependency: install it in a scratch venv) and writes a flame graph (``--py-spy-out``,
default ``throughput-bridge.svg``; ``.txt``: collapsed stacks, ``.json``: speedscope), so where the
bridge's share goes can be read after a run.

    python -m bench.throughput [--tabs 20] [--concurrency 10] [--calls 4000] [--client-processes 2]
                               [--py-spy BIN] [--py-spy-out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import httpx
from tabmcp.launch.launcher import launch_browser

from bench._client import ClientProcess
from bench._floor import floor_server
from bench._table import fmt_ms, percentile, print_table
from bench.roundtrip import TABMCP, _poll, free_port, loadavg

TICK = os.sysconf("SC_CLK_TCK")

UNWATCHED = {"PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK": "1"}
"""Playwright inspects a service worker's network by default: every WebSocket frame of the
extension's link becomes a CDP event that the browser process builds and the driver parses
(about 0.5 ms of CPU per call between them). No user runs the extension under a debugger, so
the bench turns that off before Playwright starts (pages' network events stay on: the pages
make no requests while calls run)."""

GROUPS = (
    "bridge",
    "MCP clients",
    "Playwright driver",
    "Chromium browser",
    "Chromium extension",
    "Chromium pages",
    "Chromium other",
)
"""The process groups whose CPU is reported, in table order."""

PY_SPY_FORMATS = {".svg": "flamegraph", ".txt": "raw", ".json": "speedscope"}
"""py-spy's output format, by the output file's suffix."""


def browser_role(pid: int) -> str:
    """Which group a descendant of this process belongs to, from its command line: Playwright's
    node driver, Chromium's browser process (no ``--type``), the extension's renderer
    (``--extension-process``: the service worker), a page's renderer, or another helper."""
    try:
        # Chromium's zygote children rewrite their title: one string, arguments joined by spaces.
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
    except OSError:
        return "Chromium other"
    if not argv or (b"chromium" not in argv[0] and b"chrome" not in argv[0]):
        return "Playwright driver"
    kind = next((a.split(b"=", 1)[1] for a in argv if a.startswith(b"--type=")), None)
    if kind is None:
        return "Chromium browser"
    if kind == b"renderer":
        return "Chromium extension" if b"--extension-process" in argv else "Chromium pages"
    return "Chromium other"


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and its reaped children (0 if it is gone)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = raw[raw.rindex(")") + 2 :].split()
    return sum(int(x) for x in fields[11:15]) / TICK


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                raw = Path(f"/proc/{entry}/stat").read_text()
                children.setdefault(int(raw[raw.rindex(")") + 2 :].split()[1]), []).append(int(entry))
    out, stack = [], list(children.get(pid, []))
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(children.get(p, []))
    return out


async def measure(args: argparse.Namespace) -> tuple[list[list[str]], list[list[str]], list[str]]:
    notes = [f"load average at start: {loadavg()}"]
    if args.watch_worker:
        notes.append("Playwright inspects the service worker's network (--watch-worker)")
    else:
        os.environ.update(UNWATCHED)
    async with contextlib.AsyncExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="tabmcp-bench-"))
        config = Path(tmp, "config.toml")
        config.write_text(f'[store]\npath = "{Path(tmp, "tabmcp.db")}"\n')
        env = dict(os.environ, TABMCP_CONFIG=str(config))
        port = free_port()
        bridge = await asyncio.create_subprocess_exec(
            TABMCP, "serve", "--port", str(port), env=env, stderr=asyncio.subprocess.DEVNULL
        )

        @stack.push_async_callback
        async def stop_bridge() -> None:
            if bridge.returncode is None:
                bridge.terminate()
                try:
                    await asyncio.wait_for(bridge.wait(), 10)
                except TimeoutError:
                    bridge.kill()
                    await bridge.wait()

        async def healthy() -> bool:
            async with httpx.AsyncClient(timeout=1) as http:
                return (await http.get(f"http://127.0.0.1:{port}/health")).status_code == 200

        await _poll("tabmcp bridge", healthy, 60)
        site = await stack.enter_async_context(floor_server())
        browser = await stack.enter_async_context(
            launch_browser(bridge_url=f"ws://127.0.0.1:{port}/extension", headless=True)
        )
        print(f"[throughput] opening {args.tabs} tabs", file=sys.stderr, flush=True)
        for _ in range(args.tabs):
            page = await browser.context.new_page()
            await page.goto(site.url("roundtrip.html"))
        url = f"http://127.0.0.1:{port}/mcp"
        clients: list[ClientProcess] = []

        @stack.push_async_callback
        async def close_clients() -> None:
            for c in clients:
                await c.close()

        clients.append(await ClientProcess.start("clients-0", "--http", url))
        names: list[str] = []

        async def all_listed() -> bool:
            names[:] = [
                n for n in (await clients[0].ask(op="names"))["names"] if n.endswith(".noop") or n == "noop"
            ]
            return bool(len(names) == args.tabs)

        await _poll(f"{args.tabs} copies of noop listed", all_listed, 60)
        for i in range(1, args.client_processes):
            clients.append(await ClientProcess.start(f"clients-{i}", "--http", url))
        groups = {"bridge": [bridge.pid], "MCP clients": [c.proc.pid for c in clients]}
        others = {pid for pids in groups.values() for pid in pids}
        for pid in descendants(os.getpid()):
            if pid not in others:
                groups.setdefault(browser_role(pid), []).append(pid)
        groups = {g: groups.get(g, []) for g in GROUPS}
        profiler = None
        rows: list[list[str]] = []
        cpu_rows: list[list[str]] = [[g] for g in GROUPS]
        for label, procs, concurrency, calls in (
            ("baseline: 1 client, 1 call at a time", clients[:1], 1, max(200, args.calls // 10)),
            (
                f"load: {args.concurrency} in flight over {len(clients)} client processes",
                clients,
                args.concurrency,
                args.calls,
            ),
        ):
            print(f"[throughput] {label}", file=sys.stderr, flush=True)
            share = [
                concurrency // len(procs) + (1 if i < concurrency % len(procs) else 0)
                for i in range(len(procs))
            ]
            live = [(p, s) for p, s in zip(procs, share, strict=True) if s]
            # Warm every connection first (untimed), then the timed run, all processes at once.
            await asyncio.gather(
                *(p.ask(op="load", tools=names, calls=4 * s, concurrency=s, clients=s) for p, s in live)
            )
            loaded = concurrency > 1
            if loaded and args.py_spy:
                profiler = await asyncio.create_subprocess_exec(
                    args.py_spy, "record", "--pid", str(bridge.pid), "--output", args.py_spy_out,
                    "--format", PY_SPY_FORMATS.get(Path(args.py_spy_out).suffix, "flamegraph"),
                    "--rate", "250", "--nonblocking",
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
                )
            before = {g: sum(cpu_seconds(p) for p in pids) for g, pids in groups.items()}
            start = time.perf_counter()
            outs = await asyncio.gather(
                *(
                    p.ask(op="load", tools=names, calls=calls * s // concurrency, concurrency=s, clients=s)
                    for p, s in live
                )
            )
            wall = time.perf_counter() - start
            cpu = {g: sum(cpu_seconds(p) for p in pids) - before[g] for g, pids in groups.items()}
            if profiler is not None:
                profiler.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
                await asyncio.wait_for(profiler.wait(), 60)
                notes.append(f"py-spy flame graph of the bridge under load: {args.py_spy_out}")
                profiler = None
            samples = [x for o in outs for x in o["samples"]]
            errors = sum(sum(o["errors"].values()) for o in outs)
            done = len(samples) + errors
            per_call = {g: cpu[g] * 1000 / max(1, done) for g in groups}
            total = sum(per_call.values())
            for row, g in zip(cpu_rows, GROUPS, strict=True):
                row.append(f"{per_call[g]:.2f}")
            rows.append(
                [
                    label,
                    f"{done:,}",
                    str(errors),
                    f"{wall:.2f}",
                    f"{len(samples) / wall:,.0f}",
                    fmt_ms(percentile(samples, 50)),
                    fmt_ms(percentile(samples, 99)),
                    f"{total:.2f}",
                    f"{(os.cpu_count() or 1) * 1000 / total:,.0f}",
                ]
            )
        cpu_rows.append(["all", *(r[7] for r in rows)])
        notes.append(f"load average at end: {loadavg()}")
        return rows, cpu_rows, notes


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.throughput")
    parser.add_argument("--tabs", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument(
        "--watch-worker", action="store_true", help="leave Playwright's service worker network inspection on"
    )
    parser.add_argument("--py-spy", metavar="BIN", help="record the bridge under load with this py-spy")
    parser.add_argument("--py-spy-out", default="throughput-bridge.svg", metavar="FILE")
    args = parser.parse_args(argv)
    rows, cpu_rows, notes = asyncio.run(measure(args))
    cores = os.cpu_count() or 1
    print_table(
        f"Throughput: no-op tool in {args.tabs} tabs, one bridge (tabmcp serve), MCP clients over HTTP "
        "in their own processes",
        [
            "phase",
            "calls",
            "errors",
            "wall s",
            "calls/s",
            "p50 ms",
            "p99 ms",
            "CPU ms/call, all processes",
            f"ceiling calls/s ({cores} cores)",
        ],
        rows,
        note="Latency: call_tool as each client process sees it (successful calls). CPU from /proc "
        "(utime+stime) over every process below; the ceiling is the cores divided by it (what this "
        "machine could do if nothing else ran). The machine is shared with other jobs: calls/s is "
        "what this run got. " + "; ".join(notes) + ".",
    )
    print_table(
        "CPU per call by process group, ms",
        ["process group", *(r[0].split(":")[0] for r in rows)],
        cpu_rows,
        note="Chromium extension: the renderer of the extension's service worker (the relay). "
        "Chromium pages: the tabs' renderers (page agent, content script). Chromium other: GPU, "
        "network and storage services, zygotes. Playwright driver: it only watches the browser.",
    )
    load = rows[-1]
    rate, p99 = float(load[4].replace(",", "")), float(load[6])
    verdict = "PASS" if rate >= 2000 and p99 <= 10 else "FAIL"
    print(
        f"\nTarget (issue 12): {verdict} ≥ 2,000 calls/s with p99 ≤ 10 ms: "
        f"{rate:,.0f} calls/s, p99 {p99:g} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
