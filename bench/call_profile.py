"""Where the bridge's CPU goes on one page-tool call, by part, from a sampling profiler.

One bridge in this process (uvloop, as ``tabmcp serve``), the stand-in extension
(bench/_echo_extension.py: the real WebSocket and wire protocol, a no-op tool answered at once)
in a child process, and one MCP client process (bench/_client.py, the official SDK ``Client``).
For each path, ``--calls`` sequential calls: their wall time, and this process's CPU time per
call (the bridge alone: the stand-in and the client are other processes). With ``--py-spy`` the
bridge is sampled by py-spy (``pip install py-spy``; ``--nonblocking``, so the sampling does not
stop the bridge) during each path's calls, and each sample is put to the part of the bridge its
innermost recognised frame belongs to (the trust gate, validation, the activity log, the MCP SDK,
the HTTP stack ...); a part's share of the samples times the CPU per call is its ms per call.

Paths: ``stream`` (tools/call sent raw over ``/mcp-stream``, a handshake-era session: the same
code as stdio), ``http`` (the SDK client over Streamable HTTP, 2026-07-28) and ``http_raw`` (that
client's last request replayed as is: the server's share).

    python -m bench.call_profile [--calls 3000] [--py-spy] [--out DIR] [--paths stream,http,http_raw]
    python -m bench.call_profile --hops 3000   # traced calls over /mcp-stream: the bridge's hops, no browser
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
import timeit
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tabmcp.config import Config
from tabmcp.event_loop import run_loop
from tabmcp.server.app import BridgeApp, running_bridge

from bench._client import ClientProcess
from bench._table import fmt_ms, percentile, print_table
from bench.roundtrip import loadavg

if TYPE_CHECKING:
    from tabmcp.core.trust.text import PageJson

ROOT = Path(__file__).resolve().parent.parent

PATHS = {
    "stream": ("/mcp-stream raw (stdio's code)", "time_stream"),
    "http": ("SDK client, Streamable HTTP", "time"),
    "http_raw": ("Streamable HTTP, request replayed raw", "time_raw"),
}

PARTS: list[tuple[str, tuple[str, ...]]] = [
    # Innermost recognised frame wins: a json.dumps inside the gate is the gate's.
    ("activity log", ("tabmcp/core/activity.py", "tabmcp/storage/activity.py", "tabmcp/server/write_behind.py",
                      "tabmcp/core/telemetry/redact")),
    ("trust gate (clean, cap, frame, scan, pins)", ("tabmcp/core/trust/", "tabmcp/storage/trust.py",
                                                    "tabmcp/core/injection.py")),
    ("validation (arguments, results, schemas)",
     ("tabmcp/core/validation.py", "tabmcp/core/output_schema.py", "tabmcp/core/unchecked.py", "jsonschema",
      "tabmcp/core/ecma_regex.py", "tabmcp/core/js_regex.py", "referencing/", "rpds")),
    ("shared-state watch (SQLite polls)", ("tabmcp/server/shared_state.py", "follow_shared_state",
                                           "tabmcp/core/switches.py", "tabmcp/storage/switches.py",
                                           "tabmcp/core/reachable_sites.py", "tabmcp/storage/sites.py", "sqlite3")),
    ("limits (flood, per tab)", ("tabmcp/core/flood.py",)),
    ("extension link (session, hub, wire models)",
     ("tabmcp/core/extension_links.py", "tabmcp/server/hub.py", "tabmcp/server/extension.py", "tabmcp/protocol.py",
      "tabmcp/wire/", "tabmcp/core/end_rules.py", "tabmcp/core/browsers.py", "tabmcp/core/link_handshake.py",
      "tabmcp/core/request_endings.py", "tabmcp/core/pending_requests.py", "tabmcp/core/link_peer.py",
      "tabmcp/core/link_events.py")),
    ("byte transports (stdio, /mcp-stream)",
     ("tabmcp/server/mcp_streams.py", "tabmcp/server/stream.py", "tabmcp/server/relay.py", "tabmcp/server/stdio.py")),
    ("bridge core (tools, registry, scoping, disclosure)", ("tabmcp/",)),
    ("MCP SDK (server, session, transport)", ("mcp/", "mcp_types/")),
    ("HTTP stack (uvicorn, starlette, anyio)", ("uvicorn/", "starlette/", "httptools", "h11/", "anyio/",
                                                 "sse_starlette/")),
    ("WebSocket (websockets)", ("websockets/",)),
    ("event loop (uvloop, asyncio)", ("uvloop", "asyncio/")),
]
OTHER = "other (pydantic, json, the rest)"


def part_of(stack: str) -> str:
    """The part a collapsed py-spy stack (root;...;leaf, ``func (file:line)`` each) belongs to."""
    frames = stack.split(";")
    for frame in reversed(frames):
        for part, marks in PARTS:
            if any(m in frame for m in marks):
                return part
    return OTHER


def parts_of(raw: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    if not raw.exists():
        return counts
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if stack and n.isdigit() and "run_loop" in stack:  # the event loop's thread: not the search model's loading
            counts[part_of(stack)] += int(n)
    return counts


def _min_us(fn: Callable[[], object], n: int = 100, repeat: int = 200) -> float:
    """The least time of ``repeat`` runs of ``n`` calls, per call in µs: robust to a loaded machine."""
    return min(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e6


def defences_alone(bridge: BridgeApp) -> dict[str, float]:
    """Each piece of a page tool's call path run alone on the bridge's own objects (the stand-in's
    ``noop`` tool), µs per call: what each defence costs without the transports around it."""
    from tabmcp.core import activity
    from tabmcp.core.registry import ToolEntry
    from tabmcp.core.tools.call import page_result
    from tabmcp.core.validation import validate_arguments

    core = bridge.core
    trust = bridge.calls.trust  # the call path's own TrustGuard
    entry = core.registry.resolve("noop")
    assert isinstance(entry, ToolEntry)
    answer = cast("PageJson", {"content": [{"type": "text", "text": "ok"}]})
    shaped = trust.result(entry, page_result(entry, answer))
    target = activity.target_of(core.registry, "noop", {}, core.focused_tab)
    assert target is not None
    log = core.activity

    def rows() -> None:
        for _ in range(64):
            log.end(log.begin(target, "bench"), shaped, defer=True)
        log.flush()

    import mcp_types as types

    out: dict[str, float] = {}
    out["switches: sync_controls (PRAGMA data_version)"] = _min_us(core.sync_controls)
    out["scope, policy and pins: PolicyCheck.decide + TrustGuard.gate"] = _min_us(
        lambda: trust.gate(entry, core.policy_check.decide(entry)))
    out["arguments: validate_arguments (schema compiled once)"] = _min_us(
        lambda: validate_arguments("noop", entry.tool.input_schema, {}))
    out["result checked: page_result"] = _min_us(lambda: page_result(entry, answer))
    out["trust gate: TrustGuard.result (clean, cap, frame, scan)"] = _min_us(
        lambda: trust.result(entry, page_result(entry, answer))) - out["result checked: page_result"]
    out["activity: target_of + begin/end (deferred) + its share of a 64-row write"] = (
        _min_us(lambda: activity.target_of(core.registry, "noop", {}, core.focused_tab))
        + _min_us(rows, n=2, repeat=50) / 64)
    out["SDK: CallToolResult validated and dumped again (its result sieve)"] = _min_us(
        lambda: types.CallToolResult.model_validate(shaped).model_dump(by_alias=True, mode="json", exclude_none=True))
    out["SDK: server_info_stamp (a deep copy, per stamped result)"] = _min_us(lambda: bridge.mcp.server_info_stamp)
    return out


async def _echo_child(port: int, churn_s: float | None) -> None:
    from bench._echo_extension import echo_extension

    async with echo_extension(port, churn_s=churn_s):
        await asyncio.get_running_loop().create_future()  # until killed


@contextlib.asynccontextmanager
async def _py_spy(out: Path, enabled: bool, native: bool):  # type: ignore[no-untyped-def]
    if not enabled:
        yield
        return
    exe = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    how = ["--native"] if native else ["--nonblocking"]  # native stacks need the process paused
    proc = await asyncio.create_subprocess_exec(
        exe, "record", "--pid", str(os.getpid()), "--rate", "1000", *how, "--threads", "--format", "raw",
        "--output", str(out), stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )
    await asyncio.sleep(1.0)  # py-spy attaches
    try:
        yield
    finally:
        proc.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        await proc.wait()


async def measure(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="tabmcp-bench-") as tmp:
        config = Config().with_overrides({"server": {"port": 0}, "store": {"path": str(Path(tmp, "tabmcp.db"))}})
        async with running_bridge(config) as bridge:
            echo = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.call_profile", "--echo-child", str(bridge.port),
                *(["--churn", str(args.churn)] if args.churn else []), cwd=ROOT)
            try:
                for _ in range(1000):
                    if bridge.core.tool("noop"):
                        break
                    await asyncio.sleep(0.01)
                parts_alone = defences_alone(bridge)
                results["_alone"] = {"parts": parts_alone}
                client = await ClientProcess.start(
                    "profile", "--tool", "noop", "--wait", "30", "--http", f"http://127.0.0.1:{bridge.port}/mcp")
                stream = f"ws://127.0.0.1:{bridge.port}/mcp-stream"
                try:
                    if args.long:
                        results["_long"] = {"chunks": await _long(client, stream, args, bridge)}
                        return results
                    if args.hops:
                        await client.ask(op="trace_stream", url=stream, tool="noop", calls=args.warmup, warmup=0)
                        got = await client.ask(op="trace_stream", url=stream, tool="noop", calls=args.hops, warmup=0)
                        if "error" in got:
                            raise RuntimeError(got["error"])
                        results["_hops"] = {"traces": got["traces"]}
                        return results
                    for key in args.paths.split(","):
                        label, op = PATHS[key]
                        extra: dict[str, Any] = {"url": stream} if op == "time_stream" else {}
                        print(f"[call_profile] {label}", file=sys.stderr, flush=True)
                        await client.ask(op=op, tool="noop", calls=args.warmup, warmup=0, **extra)
                        raw = out_dir / f"{key}.txt"
                        async with _py_spy(raw, args.py_spy, args.native):
                            cpu = time.process_time()
                            got = await client.ask(op=op, tool="noop", calls=args.calls, warmup=0, **extra)
                            cpu = time.process_time() - cpu
                        if "error" in got:
                            raise RuntimeError(f"{key}: {got['error']}")
                        results[key] = {"cpu": cpu / args.calls, "p50": percentile(got["samples"], 50),
                                        "parts": parts_of(raw)}
                finally:
                    await client.close()
            finally:
                echo.kill()
                await echo.wait()
    return results


async def _long(client: ClientProcess, stream: str, args: argparse.Namespace, bridge: BridgeApp) -> list[list[str]]:
    """``--long`` calls over /mcp-stream in chunks of ``--chunk``: the bridge's CPU per call in each
    chunk, and what it holds (registry tabs, retired names, pending rows), to see what grows."""
    rows = []
    done = 0
    while done < args.long:
        n = min(args.chunk, args.long - done)
        cpu = time.process_time()
        got = await client.ask(op="time_stream", url=stream, tool="noop", calls=n, warmup=0)
        cpu = time.process_time() - cpu
        if "error" in got:
            raise RuntimeError(got["error"])
        done += n
        core = bridge.core
        rows.append([f"{done:,}", f"{cpu * 1000 / n:.3f}", fmt_ms(percentile(got["samples"], 50)),
                     str(core.registry.counts()["tabs"]), str(core.registry.version), loadavg().split()[0]])
        print(f"[call_profile] {done:,} calls: {rows[-1][1]} ms CPU/call", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.call_profile")
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--paths", default=",".join(PATHS))
    parser.add_argument("--py-spy", action="store_true", help="sample the bridge with py-spy (on PATH or beside python)")
    parser.add_argument("--native", action="store_true", help="with --py-spy: C frames too (pauses the bridge per sample)")
    parser.add_argument("--out", default="bench/results/call_profile", help="where py-spy's raw stacks go")
    parser.add_argument("--long", type=int, help="instead: this many calls over /mcp-stream, CPU per call per chunk")
    parser.add_argument("--chunk", type=int, default=10_000)
    parser.add_argument("--churn", type=float, help="the stand-in's second tab is replaced every this many seconds")
    parser.add_argument("--hops", type=int, help="instead: this many traced calls over /mcp-stream (debug mode), "
                        "the bridge's own hops without a browser")
    parser.add_argument("--echo-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.echo_child:
        run_loop(_echo_child(args.echo_child, args.churn))
        return 0
    start = loadavg()
    if args.hops:
        os.environ["TABMCP_TRACE"] = "1"  # debug mode in this process's bridge: calls that ask are stamped
    results = run_loop(measure(args))
    end = loadavg()
    if "_hops" in results:
        from bench.roundtrip import breakdown

        traces = results["_hops"]["traces"]
        assert isinstance(traces, list)
        rows = [r for r in breakdown(traces) if r[0] != "browser half"]  # no browser: the stand-in's row below
        for row in rows:
            if row[0] == "bridge.sent → bridge.frame":
                row[1] = "call.start encoded, written → WebSocket → the stand-in → WebSocket → uvicorn"
        print_table(
            f"Where a no-op call's time goes in the bridge, over /mcp-stream ({args.hops:,} traced calls, ms)",
            ["hop (stamp → stamp)", "what runs there", "p50", "p90", "share of p50"], rows,
            note="The stand-in extension answers at once and sends the stamps back (none of its own), so "
            "bridge.sent → bridge.frame is both WebSocket hops and the stand-in; client.send and client.recv are "
            "the raw client's, around its send and its read of the answer. Tracing adds its own cost to each "
            f"stamped hop. Load average at start: {start}; at end: {end}.",
        )
        return 0
    if "_long" in results:
        chunks = results["_long"]["chunks"]
        assert isinstance(chunks, list)
        print_table(
            f"{args.long:,} calls over /mcp-stream in chunks of {args.chunk:,}"
            + (f", the stand-in's second tab replaced every {args.churn:g} s" if args.churn else ""),
            ["calls so far", "bridge CPU ms/call", "p50 ms", "registry tabs", "registry version", "load (1 min)"],
            chunks,
            note=f"Load average at start: {start}; at end: {end}.",
        )
        return 0
    alone = results.pop("_alone")["parts"]
    assert isinstance(alone, dict)
    print_table(
        "Each piece of a page tool's call path alone, on the bridge's own objects (µs per call)",
        ["piece", "µs"], [[k, f"{v:.1f}"] for k, v in alone.items()],
        note="The least of 200 runs of 100 (robust to the machine's load); no transport, no event loop.",
    )
    print_table(
        f"A no-op page tool's call: wall time and the bridge's CPU ({args.calls} sequential calls per path)",
        ["path", "p50 ms", "bridge CPU ms/call"],
        [[PATHS[k][0], fmt_ms(float(r["p50"])), f"{float(r['cpu']) * 1000:.3f}"] for k, r in results.items()],
        note=f"Bridge CPU: this process's CPU time over the calls / calls (the stand-in extension and the client "
        f"are other processes). Load average at start: {start}; at end: {end}.",
    )
    if args.py_spy:
        keys = list(results)
        names = [p for p, _ in PARTS] + [OTHER]
        rows = []
        for name in names:
            cells = []
            for k in keys:
                parts = results[k]["parts"]
                assert isinstance(parts, Counter)
                total = sum(parts.values()) or 1
                share = parts.get(name, 0) / total
                cells.append(f"{share:.0%} · {share * float(results[k]['cpu']) * 1000:.3f}")
            rows.append([name, *cells])
        print_table(
            "Where the bridge's CPU per call goes (py-spy samples: share · ms of CPU per call)",
            ["part", *(PATHS[k][0] for k in keys)],
            rows,
            note="Each sample goes to the part of its innermost recognised frame (bench/call_profile.py PARTS); "
            f"samples per path: {', '.join(str(sum(results[k]['parts'].values())) for k in keys)} "
            f"(py-spy --rate 1000 --nonblocking). Raw stacks in {args.out}/.",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
