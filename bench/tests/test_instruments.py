"""The benchmarks' instruments work: the floor extension and its echo server, the client process,
the SDK-alone server, the peer's page. Each test fails if its instrument breaks (a bench would
otherwise hang or time the wrong thing). No timing is asserted: speed lives in the tables.

    .venv/bin/python -m pytest bench/tests
"""

from __future__ import annotations

import asyncio
import shutil
import sys

import pytest
from playwright.async_api import async_playwright
from tabmcp.testing import missing_from_setup

from bench._client import ClientProcess
from bench._floor import PEER_DIST, floor_server
from bench.roundtrip import _poll, floor_browser, free_port

pytestmark = pytest.mark.timeout(180)


async def test_floor_round_trips_both_ways() -> None:
    async with floor_server() as floor, async_playwright() as pw, floor_browser(pw, floor) as (_, page, tab):
        samples = await page.evaluate("([n, w]) => window.__floor.run(n, w)", [5, 1])
        assert len(samples) == 5 and all(s > 0 for s in samples)  # five page-started echoes came back
        answer = await floor.call(tab)
        assert answer["type"] == "result" and answer["ok"] is True and answer["result"] == "ok"
        assert answer["tab"] == tab and answer["callId"] == str(int(answer["callId"]))
        assert not floor.pending  # the answer was matched to its call


async def test_floor_echo_serves_the_same_through_uvicorn_and_starlette() -> None:
    """The ASGI variants of the floor's /echo (browser_half --echo) answer as the bare server does:
    an echo straight back, a started call matched to its result, the worker switched between them."""
    import json

    from websockets.asyncio.client import connect

    async with floor_server(("asgi", "starlette")) as floor:
        assert set(floor.echo_ports) == {"asgi", "starlette"} and floor.port not in floor.echo_ports.values()
        for echo in ("websockets", "asgi", "starlette"):
            floor.connected.clear()
            async with connect(floor.echo_url(echo)) as worker:  # stands in for the floor's worker
                await asyncio.wait_for(floor.connected.wait(), 10)
                await worker.send('{"type":"echo","n":1}')
                assert await worker.recv() == '{"type":"echo","n":1}'
                call = asyncio.create_task(floor.call(7))
                started = json.loads(await worker.recv())
                assert started["type"] == "call" and started["tab"] == 7
                await worker.send(json.dumps({"type": "result", "callId": started["callId"], "ok": True}))
                assert (await call)["callId"] == started["callId"]
                assert not floor.pending


def test_sdk_alone_runs_with_the_bridges_sdk_settings() -> None:
    """The SDK-alone baseline drops the SDK's span as the bridge does (``--sdk-defaults`` keeps it)."""
    from tabmcp.config import Config
    from tabmcp.server.mcp import build_mcp_server
    from tabmcp.wiring import BridgeCore

    from bench._sdk_server import build

    bridge = build_mcp_server(BridgeCore(Config().with_overrides({"store": {"path": ":memory:"}})))[0]
    sdk_middleware = {type(m).__name__ for m in build().middleware}
    bridge_middleware = {type(m).__name__ for m in bridge.middleware}
    assert "OpenTelemetryMiddleware" in {type(m).__name__ for m in build(sdk_defaults=True).middleware}
    assert "OpenTelemetryMiddleware" not in sdk_middleware | bridge_middleware


async def test_client_process_times_calls_over_stdio_and_reports_failures() -> None:
    client = await ClientProcess.start(
        "sdk", "--tool", "noop", "--stdio", sys.executable, "-m", "bench._sdk_server", "--stdio"
    )
    try:
        assert client.ready["tools"] == 1
        out = await client.ask(op="time", tool="noop", calls=5, warmup=1)
        assert len(out["samples"]) == 5 and all(s > 0 for s in out["samples"])
        with pytest.raises(RuntimeError):  # a failing call is reported, never timed
            await client.ask(op="time", tool="no_such_tool", calls=2, warmup=0)
    finally:
        await client.close()
    assert client.proc.returncode is not None  # EOF on stdin ends the client (and its server)


async def test_client_process_replays_http_requests_and_runs_load() -> None:
    port = free_port()
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench._sdk_server", "--port", str(port)
    )
    try:

        async def listening() -> bool:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return True

        await _poll("SDK HTTP server", listening, 30)
        client = await ClientProcess.start("http", "--tool", "noop", "--http", f"http://127.0.0.1:{port}/mcp")
        try:
            raw = await client.ask(op="time_raw", tool="noop", calls=3, warmup=1)
            assert len(raw["samples"]) == 3
            listed = await client.ask(op="list_raw", rounds=2)
            assert len(listed["samples"]) == 2 and listed["bytes"] > 0
            load = await client.ask(op="load", tools=["noop"], calls=12, concurrency=3, clients=3)
            assert len(load["samples"]) == 12 and load["errors"] == {}
            assert (await client.ask(op="names"))["names"] == ["noop"]
        finally:
            await client.close()
    finally:
        server.terminate()
        await server.wait()


async def test_peer_relay_lists_and_calls_the_pages_tool() -> None:
    node = shutil.which("node")
    if node is None or not (PEER_DIST / "cli.js").exists():
        missing_from_setup(f"node or the peer relay's build ({PEER_DIST / 'cli.js'}) is missing")
    assert node is not None
    port = free_port()
    async with floor_server() as site, async_playwright() as pw, floor_browser(pw, site) as (browser, _, _):
        start = asyncio.create_task(
            ClientProcess.start(
                "peer", "--tool", "noop", "--stdio", node, str(PEER_DIST / "cli.js"), "--port", str(port)
            )
        )

        async def listening() -> bool:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return True

        await _poll("peer relay", listening, 30)
        page = await browser.context.new_page()
        await page.goto(site.url(f"peer.html?port={port}"))
        client = await start  # ready only once the page's noop is listed
        try:
            out = await client.ask(op="time", tool="noop", calls=2, warmup=0)
            assert len(out["samples"]) == 2
        finally:
            await client.close()


def test_breakdown_takes_medians_per_hop_and_sums_the_two_crossings() -> None:
    from bench.roundtrip import breakdown

    def call(skew: float, page: float, origins: float = 0.3) -> list[list[object]]:
        names = ["client.send", "bridge.handler", "bridge.core", "bridge.sent", "worker.in", "content.in",
                 "content.out", "worker.out", "bridge.frame", "bridge.ended", "bridge.resumed",
                 "bridge.result", "client.recv"]
        # The page's clock `origins` ms ahead of the worker's (two processes, two time origins).
        at = [0.0, 1.0, 1.2, 1.5, 2.0 + skew, 2.5 + skew + origins, 2.5 + skew + origins + page, 3.0 + skew + page,
              3.5 + page, 3.6 + page, 3.7 + page, 4.0 + page, 5.0 + page]
        return [[n, t] for n, t in zip(names, at, strict=True)]

    rows = {r[0]: r for r in breakdown([call(-1.0, 0.1), call(-1.0, 0.2), call(-1.0, 0.3)])}
    assert rows["content.in → content.out"][2] == "0.200"  # the median page hop
    assert rows["bridge.sent → worker.in"][2] == "-0.500"  # the browser clock 1 ms behind shows here…
    assert rows["WebSocket both ways"][2] == "1.000"  # …and cancels in the sum (0.5 + 0.5)
    assert rows["worker.in → content.in"][2] == "0.800"  # the page's origin 0.3 ms ahead shows here…
    assert rows["Port both ways"][2] == "1.000"  # …and cancels in the sum of the two Port rows
    assert rows["browser half"][2] == "2.200"  # bridge.sent → bridge.frame
    assert rows["whole call"][2] == "5.200"


def test_browser_half_takes_the_mean_of_the_middle_80_percent() -> None:
    """Coarse clocks (0.1 ms) make a median of spans jump by a tick; the trimmed mean does not, and
    a loaded machine's outliers (a tenth at each end) do not move it."""
    from bench.browser_half import trimmed_mean

    ticks = [0.5] * 7 + [0.6] * 3  # spans of 0.53 ms on a 0.1 ms clock
    assert abs(trimmed_mean(ticks) - 0.525) < 1e-9
    assert trimmed_mean([100.0, *ticks[1:-1], -100.0]) == trimmed_mean(ticks[1:-1])
    assert trimmed_mean([0.7]) == 0.7


def test_worker_profile_puts_self_time_to_scripts_and_functions() -> None:
    from bench.worker_profile import self_times

    ext = "chrome-extension://abc/background/link.js"
    profile = {
        "startTime": 0, "endTime": 10_000,
        "nodes": [
            {"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1}},
            {"id": 2, "callFrame": {"functionName": "send", "url": ext, "lineNumber": 39}},
            {"id": 3, "callFrame": {"functionName": "postMessage", "url": "", "lineNumber": -1}},
            {"id": 4, "callFrame": {"functionName": "(idle)", "url": "", "lineNumber": -1}},
        ],
        "samples": [2, 3, 3, 4],
        "timeDeltas": [1000, 2000, 3000, 4000],
    }
    by_script, by_fn, span = self_times(profile)
    assert by_script == {"ext:background/link.js": 1.0, "(native or builtin)": 5.0, "(idle)": 4.0}
    assert by_fn["send ext:background/link.js:40"] == 1.0 and by_fn["postMessage (native or builtin):0"] == 5.0
    assert span == 10.0


async def test_raw_server_answers_the_sdk_client() -> None:
    """bench/_raw_server.py (the SDK client's own share) speaks enough MCP for the SDK client."""
    client = await ClientProcess.start("raw", "--tool", "noop", "--stdio", sys.executable, "-m", "bench._raw_server")
    try:
        assert client.ready["tools"] == 1
        out = await client.ask(op="time", tool="noop", calls=5, warmup=1)
        assert len(out["samples"]) == 5
    finally:
        await client.close()


def test_page_text_bench_measures_every_operation_of_the_gates_reach() -> None:
    from bench.page_text import measure

    out = measure(1)
    assert len(out) == 8 and all(ms >= 0 for ms in out.values())
    assert any("introspect" in op for op in out) and any("tools/list" in op for op in out)
    assert any("core call path" in op for op in out) and any("the page's error" in op for op in out)
