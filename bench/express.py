"""The express lane against the MCP SDK's server pipeline, same bridge, same run.

One bridge in this process with a stand-in extension that answers every call at once
(bench/_echo_extension.py: the real WebSocket and wire protocol, no browser, so the bridge's own
share is not drowned by the browser hops), and one MCP client process (bench/_client.py, the
official SDK ``Client``). Each path is timed in ``--rounds`` interleaved chunks, the lane switched
on and off between chunks (``mcp.express``, read per request), so load on this shared machine
falls on both alike:

- tools/call sent raw over ``/mcp-stream`` (the bridge's own byte transport: the same lane and
  code as stdio) in a handshake-era session: what the lane saves;
- the SDK client over Streamable HTTP (2026-07-28), as a Python agent sees a call, and the same
  request replayed raw over HTTP (the server's share). HTTP is the SDK's alone (the lane serves
  only the byte transports), so these rows are the same path in both columns: their ratio is
  the run's noise, the yardstick for the stream row's.

    python -m bench.express [--calls 1600] [--rounds 8]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tabmcp.config import Config
from tabmcp.event_loop import run_loop
from tabmcp.server.app import running_bridge

from bench._client import ClientProcess
from bench._echo_extension import echo_extension
from bench._table import fmt_ms, percentile, print_table
from bench.roundtrip import loadavg

PATHS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "stream": ("/mcp-stream raw, handshake era (the stdio lane's code)", "time_stream", {}),
    "sdk": ("SDK client, Streamable HTTP (2026-07-28; the SDK's in both: noise)", "time", {}),
    "raw": ("HTTP request replayed raw (server share; the SDK's in both: noise)", "time_raw", {}),
}


CPU: dict[tuple[str, bool], list[float]] = {}
"""CPU seconds of this process (the bridge and the stand-in extension) per call, each chunk's
total over its calls (warm-up included): under load wall time swings with the neighbours, the
work the bridge does for a call does not."""


async def measure(calls: int, rounds: int, warmup: int) -> dict[tuple[str, bool], list[float]]:
    with tempfile.TemporaryDirectory(prefix="tabmcp-bench-") as tmp:
        config = Config().with_overrides({"server": {"port": 0}, "store": {"path": str(Path(tmp, "tabmcp.db"))}})
        async with running_bridge(config) as bridge:
            assert bridge.port is not None
            async with echo_extension(bridge.port):
                for _ in range(500):
                    if bridge.core.tool("noop"):
                        break
                    await asyncio.sleep(0.01)
                client = await ClientProcess.start(
                    "express", "--tool", "noop", "--wait", "30", "--http", f"http://127.0.0.1:{bridge.port}/mcp"
                )
                stream = f"ws://127.0.0.1:{bridge.port}/mcp-stream"
                samples: dict[tuple[str, bool], list[float]] = {(k, on): [] for k in PATHS for on in (True, False)}
                per = max(1, calls // rounds)
                try:
                    for r in range(rounds):
                        print(f"[express] round {r + 1}/{rounds}", file=sys.stderr, flush=True)
                        for on in (True, False) if r % 2 == 0 else (False, True):
                            bridge.express.enabled = on
                            for key, (_, op, extra) in PATHS.items():
                                if op == "time_stream":
                                    extra = {"url": stream}
                                cpu = time.process_time()
                                out = await client.ask(op=op, tool="noop", calls=per, warmup=warmup, **extra)
                                CPU.setdefault((key, on), []).append((time.process_time() - cpu) / (per + warmup))
                                if "error" in out:
                                    raise RuntimeError(f"{key}: {out['error']}")
                                samples[(key, on)] += out["samples"]
                    status = bridge.express.status()
                finally:
                    await client.close()
    if not status["served"]:
        raise RuntimeError("the express lane served nothing: the comparison would be void")
    return samples


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.express")
    parser.add_argument("--calls", type=int, default=1600, help="timed calls per path and lane")
    parser.add_argument("--rounds", type=int, default=8, help="interleaved chunks")
    parser.add_argument("--warmup", type=int, default=20, help="untimed calls before each chunk")
    args = parser.parse_args(argv)
    start = loadavg()
    samples = run_loop(measure(args.calls, args.rounds, args.warmup))  # the bridge's loop, as in use
    rows = []
    for key, (label, _, _) in PATHS.items():
        on, off = samples[(key, True)], samples[(key, False)]
        rows.append([
            label,
            fmt_ms(percentile(on, 50)), fmt_ms(percentile(on, 90)), fmt_ms(percentile(on, 99)),
            fmt_ms(percentile(off, 50)), fmt_ms(percentile(off, 90)), fmt_ms(percentile(off, 99)),
            f"{percentile(on, 50) / percentile(off, 50):.2f}x",
            fmt_ms(percentile(off, 50) - percentile(on, 50)),
            fmt_ms(percentile(CPU[(key, True)], 50)), fmt_ms(percentile(CPU[(key, False)], 50)),
        ])
    print_table(
        f"A page tool's call, express lane vs the MCP SDK's server pipeline ({len(samples[('sdk', True)])} calls "
        f"per path and lane, {args.rounds} interleaved rounds; a stand-in extension answers at once)",
        ["path", "express p50 ms", "p90", "p99", "SDK pipeline p50 ms", "p90", "p99", "p50 ratio", "p50 saved ms",
         "bridge CPU ms/call, express", "SDK pipeline"],
        rows,
        note="The bridge runs in this process (uvloop, as `tabmcp serve`), the SDK client in its own; "
        "bridge CPU: this process's CPU time per call (with the stand-in extension), the median over the chunks. "
        f"Load average at start: {start}; at end: {loadavg()}.",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
