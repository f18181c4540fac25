"""What a second browser costs a call: one bridge, the official MCP client over HTTP, page-tool
calls answered at once by stand-in extensions (``bench/_echo_extension.py``, real WebSockets).

Rows, measured in the same run: one browser linked (the baseline), then two linked
with the calls alternating between the first browser's tab and the second's (whose ids the bridge
qualifies and whose calls it routes to the other link).

``python -m bench browsers [--calls N] [--rounds R]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time

from mcp import Client
from tabmcp.config import Config
from tabmcp.core.browsers import TAB_STRIDE
from tabmcp.server.app import running_bridge

from ._echo_extension import echo_extension
from ._table import fmt_ms, percentile, print_table


async def _timed(client: Client, names: list[str], calls: int) -> list[float]:
    took: list[float] = []
    for i in range(calls):
        start = time.perf_counter()
        result = await client.call_tool(names[i % len(names)], {})
        took.append(time.perf_counter() - start)
        assert not result.is_error, result.content
    return took


async def _until(check, timeout: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise RuntimeError("the stand-in extensions' tools never registered")
        await asyncio.sleep(0.02)


async def measure(calls: int, rounds: int) -> dict[str, list[float]]:
    config = Config().with_overrides({"store": {"path": ":memory:"}, "server": {"port": 0}})
    second = f"t{TAB_STRIDE + 1}.noop"
    times: dict[str, list[float]] = {"one browser": [], "two browsers": []}
    async with running_bridge(config) as app, contextlib.AsyncExitStack() as stack:
        assert app.port is not None
        await stack.enter_async_context(echo_extension(app.port))
        await _until(lambda: app.core.tool("noop"))
        async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
            await _timed(client, ["noop"], 20)  # warm-up
            per_round = max(1, calls // rounds)
            for _ in range(rounds):
                times["one browser"] += await _timed(client, ["noop"], per_round)
            await stack.enter_async_context(echo_extension(app.port))
            await _until(lambda: app.core.tool(second))
            await _timed(client, ["noop", second], 20)
            for _ in range(rounds):
                times["two browsers"] += await _timed(client, ["noop", second], per_round)
    return times


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.browsers")
    parser.add_argument("--calls", type=int, default=400, help="timed calls per row (default 400)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds the calls are split into")
    args = parser.parse_args(argv)
    times = asyncio.run(measure(args.calls, args.rounds))
    rows = [[name, len(t), fmt_ms(percentile(t, 50)), fmt_ms(percentile(t, 95))] for name, t in times.items()]
    print_table("page-tool call, MCP client over HTTP → bridge → stand-in extension (ms)",
                ["browsers linked", "calls", "p50", "p95"], rows,
                note="two browsers: calls alternate between the first browser's tab and the second's.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(__import__("sys").argv[1:]))
