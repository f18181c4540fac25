"""Round trip of a no-op page tool: tabmcp beside its peer, the architecture floor and ``page.evaluate``.

One run, every path measured side by side on loopback, the MCP clients in their own processes
(``bench/_client.py``, the official SDK ``mcp.Client``) as users run them:

- ``page.evaluate("1")`` through Playwright (CDP into the page): the unit every row is divided by,
  in a page without the tabmcp extension (the floor's browser); the same in tabmcp's page too.
- The architecture floor, no tabmcp code: a minimal MV3 extension (bench/floor: page script in
  the main world ⇄ window.postMessage ⇄ content script ⇄ long-lived Port ⇄ service worker ⇄
  WebSocket) and a Python echo server (bench/_floor.py). Two rows: the page starts the round
  trip and times it (page → … → echo → back, the floor the targets use), and the server starts
  it (a bridge → page call's direction, timed in Python like a client times a call).
- The peer, ``@mcp-b/webmcp-local-relay`` (npm dev dependency): an SDK client launches it over
  stdio; the page loads its embed script from node_modules.
- tabmcp: (a) a stdio client that launched ``tabmcp serve --stdio``; (b) a Streamable HTTP
  client against that bridge; (c) a second stdio client whose ``tabmcp serve --stdio`` relays
  to the running bridge. Browser flavour: the polyfill (``--native``: Chromium's WebMCP).
- The MCP SDK alone (bench/_sdk_server.py: the SDK's low-level Server with a no-op Python tool,
  no browser), over stdio and Streamable HTTP: what the SDK and its transport cost per call.
- The SDK client alone (bench/_raw_server.py: a hand-written JSON-RPC server over stdio, no SDK
  server, no browser): the client's own share of a call, which no server can go below.
- For both HTTP servers, the SDK client's last tools/call request replayed as is (response read,
  not parsed): the call without the SDK client's own share.

Then the breakdown: tabmcp's bridge runs in debug mode (``TABMCP_TRACE=1``, which costs the
timed rows nothing: only calls whose request asks for it are traced) and ``--trace-calls``
calls over stdio and over HTTP ask for hop timestamps; the median of each hop is printed.

Each path is measured in ``--rounds`` interleaved chunks (each after a few untimed calls), so
a load spike on this shared machine falls on every path alike; the ratios within the run are
the result. Then the issue's targets (issue 12) as PASS/FAIL lines.

    python -m bench.roundtrip [--calls 600] [--rounds 6] [--warmup 20] [--native]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Page, Playwright, async_playwright
from tabmcp.launch.firefox_launcher import launch_firefox
from tabmcp.launch.launcher import ExtensionBrowser, launch_browser
from tabmcp.packaging.firefox import FirefoxNotFound, find_firefox

from bench import _results as results
from bench._client import ClientProcess
from bench._floor import FLOOR_EXTENSION, PEER_DIST, FloorServer, floor_server
from bench._table import fmt_ms, percentile, print_table

TABMCP = str(Path(sys.executable).with_name("tabmcp"))


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Row:
    key: str
    label: str
    measure: Callable[[int, int], Awaitable[list[float]]]
    samples: list[float] = field(default_factory=list)

    def p(self, q: float) -> float:
        return percentile(self.samples, q)


async def _poll(what: str, check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if await check():
                return
        await asyncio.sleep(0.1)
    raise TimeoutError(f"{what}: not ready after {timeout:g} s")


async def time_evaluate(page: Page, calls: int, warmup: int) -> list[float]:
    out = []
    for i in range(warmup + calls):
        start = time.perf_counter()
        await page.evaluate("1")
        if i >= warmup:
            out.append(time.perf_counter() - start)
    return out


def client_rows(key: str, label: str, client: ClientProcess, op: str = "time", **extra: Any) -> Row:
    async def measure(calls: int, warmup: int) -> list[float]:
        out = await client.ask(op=op, tool="noop", calls=calls, warmup=warmup, **extra)
        return [float(s) for s in out["samples"]]

    return Row(key, label, measure)


@contextlib.asynccontextmanager
async def floor_browser(
    pw: Playwright, floor: FloorServer
) -> AsyncIterator[tuple[ExtensionBrowser, Page, int]]:
    """A Chromium with only the floor extension, its worker connected to the echo server, and the
    floor page open: (browser, page, the page's tab id)."""
    ext = os.fspath(FLOOR_EXTENSION)
    async with launch_browser(
        extension=False,
        headless=True,
        playwright=pw,
        extra_args=[f"--disable-extensions-except={ext}", f"--load-extension={ext}"],
    ) as browser:
        context = browser.context
        worker = next((w for w in context.service_workers if w.url.endswith("/worker.js")), None)
        if worker is None:
            worker = await context.wait_for_event("serviceworker", timeout=15_000)
        await worker.evaluate("(url) => connectTo(url)", floor.echo_url())
        await asyncio.wait_for(floor.connected.wait(), 15)
        page = await context.new_page()
        await page.goto(floor.url("floor.html"))
        tabs: list[int] = []

        async def connected() -> bool:
            tabs[:] = await worker.evaluate("() => floorTabs()")
            return bool(tabs) and bool(await page.evaluate("() => !!window.__floor && crossOriginIsolated"))

        await _poll("floor page", connected, 15)
        yield browser, page, tabs[0]


traces: dict[str, list[list[list[Any]]]] = {}
"""Per transport, the traced calls' stamps (``[[hop, epoch ms], ...]`` each)."""

HOPS: dict[tuple[str, str], str] = {
    ("client.send", "transport.in"): "client SDK → transport (pipe or HTTP) → the bridge reads the request",
    ("transport.in", "bridge.handler"): "bridge: request parsed, dispatched (the MCP SDK's server)",
    ("bridge.handler", "bridge.core"): "bridge core before the page (activity, registry, policy, trust, validation)",
    ("bridge.core", "bridge.sent"): "session: call.start built and queued",
    ("bridge.sent", "worker.in"): "encoded, written → WebSocket → service worker (parse, routing)",
    ("worker.in", "content.in"): "service worker → Port → content script",
    ("content.in", "content.out"): "content script → page → agent → polyfill → tool → back",
    ("content.out", "worker.out"): "content script → Port → service worker",
    ("worker.out", "bridge.frame"): "service worker → WebSocket → bridge (encode, socket, uvicorn)",
    ("bridge.frame", "bridge.ended"): "session: frame parsed, the call ended",
    ("bridge.ended", "bridge.resumed"): "event loop: the handler's task resumes",
    ("bridge.resumed", "bridge.result"): "bridge core after the page (result checked, trust defences)",
    ("bridge.result", "client.recv"): "bridge: result shaped, written → transport → client SDK (parsed)",
}


def breakdown(calls: list[list[list[Any]]]) -> list[list[str]]:
    """Median of each hop (consecutive stamps) over the traced calls, and of the whole."""
    per_hop: dict[tuple[str, str], list[float]] = {}
    totals = []
    for stamps in calls:
        for (a, ta), (b, tb) in zip(stamps, stamps[1:], strict=False):
            per_hop.setdefault((a, b), []).append(tb - ta)
        totals.append(stamps[-1][1] - stamps[0][1])
    total = percentile(totals, 50)
    rows = []
    for (a, b), values in per_hop.items():
        p50 = percentile(values, 50)
        rows.append([f"{a} → {b}", HOPS.get((a, b), ""), f"{p50:.3f}", f"{percentile(values, 90):.3f}",
                     f"{100 * p50 / total:.0f}%" if total else "-"])
    both = [
        (dict(stamps).get("worker.in", 0) - dict(stamps).get("bridge.sent", 0))
        + (dict(stamps).get("bridge.frame", 0) - dict(stamps).get("worker.out", 0))
        for stamps in calls
    ]
    if ("bridge.sent", "worker.in") in per_hop and ("worker.out", "bridge.frame") in per_hop:
        p50 = percentile(both, 50)
        rows.append(["WebSocket both ways", "the two rows crossing bridge ⇄ browser, summed: free of the "
                     "clocks' offset", f"{p50:.3f}", f"{percentile(both, 90):.3f}",
                     f"{100 * p50 / total:.0f}%" if total else "-"])
    port = [(dict(stamps)["content.in"] - dict(stamps)["worker.in"])
            + (dict(stamps)["worker.out"] - dict(stamps)["content.out"]) for stamps in calls
            if {"worker.in", "content.in", "content.out", "worker.out"} <= dict(stamps).keys()]
    if port:
        p50 = percentile(port, 50)
        rows.append(["Port both ways", "the two rows crossing worker ⇄ content script, summed: free of the two "
                     "processes' time origins", f"{p50:.3f}", f"{percentile(port, 90):.3f}",
                     f"{100 * p50 / total:.0f}%" if total else "-"])
    half = [dict(stamps)["bridge.frame"] - dict(stamps)["bridge.sent"] for stamps in calls
            if "bridge.sent" in dict(stamps) and "bridge.frame" in dict(stamps)]
    if half:
        p50 = percentile(half, 50)
        rows.append(["browser half", "bridge.sent → bridge.frame: WebSocket, worker, Port, content script, page, "
                     "and back (the floor's server-started row crosses the same)", f"{p50:.3f}",
                     f"{percentile(half, 90):.3f}", f"{100 * p50 / total:.0f}%" if total else "-"])
    rows.append(["whole call", "client.send → client.recv", f"{total:.3f}", f"{percentile(totals, 90):.3f}", "100%"])
    return rows


async def measure(args: argparse.Namespace) -> tuple[list[Row], list[str]]:
    notes: list[str] = []
    node = shutil.which("node")
    if node is None or not (PEER_DIST / "cli.js").exists():
        raise SystemExit(
            "bench.roundtrip needs node and the npm dev dependencies (./dev setup installs them)"
        )
    async with contextlib.AsyncExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="tabmcp-bench-"))
        config = Path(tmp, "config.toml")
        config.write_text(
            f'[store]\npath = "{Path(tmp, "tabmcp.db")}"\n'
        )
        os.environ["TABMCP_CONFIG"] = str(config)  # inherited by the client processes and their servers
        os.environ["TABMCP_TRACE"] = "1"  # debug mode: only calls that ask for it are traced
        clients: list[ClientProcess] = []

        async def start(label: str, *cli: str) -> ClientProcess:
            client = await ClientProcess.start(label, "--tool", "noop", "--wait", "60", *cli)
            clients.append(client)
            return client

        @stack.push_async_callback
        async def close_clients() -> None:
            for c in reversed(clients):  # the relay and HTTP clients before the bridge's own
                await c.close()

        floor = await stack.enter_async_context(floor_server())
        pw = await stack.enter_async_context(async_playwright())

        # The floor (and the browser the peer's page runs in: no tabmcp extension there).
        print("[roundtrip] floor browser", file=sys.stderr, flush=True)
        fbrowser, fpage, ftab = await stack.enter_async_context(floor_browser(pw, floor))

        # The peer: its relay launched over stdio by an SDK client, its page in the floor browser.
        print("[roundtrip] peer relay", file=sys.stderr, flush=True)
        peer_port = free_port()
        peer_task = asyncio.create_task(
            start("peer", "--stdio", node, str(PEER_DIST / "cli.js"), "--port", str(peer_port))
        )

        async def listening() -> bool:
            _, writer = await asyncio.open_connection("127.0.0.1", peer_port)
            writer.close()
            return True

        await _poll("peer relay", listening, 30)  # its widget's reconnect backoff would cost seconds
        ppage = await fbrowser.context.new_page()
        await ppage.goto(floor.url(f"peer.html?port={peer_port}"))
        peer = await peer_task

        # tabmcp: the stdio client launches the bridge; the browser's extension connects to it.
        print("[roundtrip] tabmcp bridge (stdio) and browser", file=sys.stderr, flush=True)
        port = free_port()
        stdio_task = asyncio.create_task(
            start("stdio", "--stdio", TABMCP, "serve", "--stdio", "--port", str(port))
        )

        async def healthy() -> bool:
            async with httpx.AsyncClient(timeout=1) as http:
                return (await http.get(f"http://127.0.0.1:{port}/health")).status_code == 200

        await _poll("tabmcp bridge", healthy, 60)
        tbrowser = await stack.enter_async_context(
            launch_browser(
                bridge_url=f"ws://127.0.0.1:{port}/extension",
                headless=True,
                webmcp=args.native,
                playwright=pw,
            )
        )
        tpage = await tbrowser.context.new_page()
        await tpage.goto(floor.url("roundtrip.html"))
        stdio = await stdio_task
        http = await start("http", "--http", f"http://127.0.0.1:{port}/mcp")
        relay = await start("relay", "--stdio", TABMCP, "serve", "--stdio", "--port", str(port))

        # Firefox (issue 26): the same page in Firefox ESR with the extension's Firefox build, on a
        # bridge of its own (a bridge holds one browser's link), driven over WebDriver BiDi.
        firefox_rows: list[Row] = []
        if args.firefox:
            print("[roundtrip] tabmcp bridge (stdio) and Firefox", file=sys.stderr, flush=True)
            ff_port = free_port()
            ff_task = asyncio.create_task(
                start("firefox", "--stdio", TABMCP, "serve", "--stdio", "--port", str(ff_port))
            )

            async def ff_healthy() -> bool:
                async with httpx.AsyncClient(timeout=1) as client:
                    return (await client.get(f"http://127.0.0.1:{ff_port}/health")).status_code == 200

            await _poll("tabmcp bridge for Firefox", ff_healthy, 60)
            ffox = await stack.enter_async_context(
                launch_firefox(bridge_url=f"ws://127.0.0.1:{ff_port}/extension", webmcp=args.native)
            )
            ff_page = await ffox.new_page(floor.url("roundtrip.html"))
            ff_stdio = await ff_task

            async def ff_evaluate(calls: int, warmup: int) -> list[float]:
                return await ff_page.time_evaluate("1", calls, warmup)

            async def ff_in_page(calls: int, warmup: int) -> list[float]:
                return await ff_page.time_evaluate(
                    "globalThis[Symbol.for('tabmcp.webmcp')].call('noop', {}).then((r) => r.ok)",
                    calls,
                    warmup,
                )

            firefox_rows = [
                Row("ff_unit", 'Firefox: page.evaluate("1") over WebDriver BiDi (puppeteer-core)', ff_evaluate),
                Row("ff_in_page", "Firefox: the same no-op tool run in the page over BiDi (no bridge)", ff_in_page),
                client_rows("ff_stdio", "tabmcp in Firefox ({}): stdio client that launched the bridge".format(
                    "native WebMCP" if args.native else "polyfill"), ff_stdio),
            ]

        # The MCP SDK alone: a low-level Server with a no-op Python tool, no browser.
        print("[roundtrip] MCP SDK alone", file=sys.stderr, flush=True)
        sdk_stdio = await start("sdk-stdio", "--stdio", sys.executable, "-m", "bench._sdk_server", "--stdio")
        raw_stdio = await start("raw-stdio", "--stdio", sys.executable, "-m", "bench._raw_server")
        sdk_port = free_port()
        sdk_server = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench._sdk_server",
            "--port",
            str(sdk_port),
            cwd=Path(__file__).parent.parent,
        )

        @stack.push_async_callback
        async def stop_sdk_server() -> None:
            sdk_server.terminate()
            await sdk_server.wait()

        async def sdk_listening() -> bool:
            _, writer = await asyncio.open_connection("127.0.0.1", sdk_port)
            writer.close()
            return True

        await _poll("SDK HTTP server", sdk_listening, 30)
        sdk_http = await start("sdk-http", "--http", f"http://127.0.0.1:{sdk_port}/mcp")

        async def evaluate(calls: int, warmup: int) -> list[float]:
            return await time_evaluate(tpage, calls, warmup)

        async def evaluate_floor(calls: int, warmup: int) -> list[float]:
            return await time_evaluate(fpage, calls, warmup)

        async def floor_page(calls: int, warmup: int) -> list[float]:
            return [
                ms / 1000
                for ms in await fpage.evaluate("([n, w]) => window.__floor.run(n, w)", [calls, warmup])
            ]

        async def floor_server_started(calls: int, warmup: int) -> list[float]:
            return await floor.time_calls(ftab, calls, warmup)

        flavour = "native WebMCP" if args.native else "polyfill"
        rows = [
            Row("unit", 'page.evaluate("1"), page without tabmcp (the unit)', evaluate_floor),
            Row("evaluate_tabmcp", 'page.evaluate("1"), page with the tabmcp extension', evaluate),
            Row(
                "floor",
                "floor: page → content → Port → worker → WS → echo → back (timed in page)",
                floor_page,
            ),
            Row(
                "floor_server",
                "floor: server → WS → worker → Port → content → page → back (timed in Python)",
                floor_server_started,
            ),
            client_rows("sdk_stdio", "MCP SDK alone, no browser: stdio (Python no-op tool)", sdk_stdio),
            client_rows(
                "client_share",
                "SDK client alone: stdio, hand-written server (no SDK server, no browser)",
                raw_stdio,
            ),
            client_rows("sdk_http", "MCP SDK alone, no browser: Streamable HTTP", sdk_http),
            client_rows(
                "sdk_http_raw",
                "MCP SDK alone, no browser: Streamable HTTP, raw POST (server share)",
                sdk_http,
                op="time_raw",
            ),
            client_rows(
                "http_get",
                "HTTP alone: GET /health on the bridge, same HTTP client (httpx2 → uvicorn, no MCP)",
                http,
                op="time_get",
                url=f"http://127.0.0.1:{port}/health",
            ),
            client_rows("peer", "peer: @mcp-b/webmcp-local-relay, stdio client", peer),
            client_rows("stdio", f"tabmcp ({flavour}): stdio client that launched the bridge", stdio),
            client_rows("http", f"tabmcp ({flavour}): Streamable HTTP client", http),
            client_rows(
                "http_raw",
                f"tabmcp ({flavour}): Streamable HTTP, raw POST (server share)",
                http,
                op="time_raw",
            ),
            client_rows("relay", f"tabmcp ({flavour}): 2nd stdio client, relayed", relay),
            *firefox_rows,
        ]
        per_round = max(1, args.calls // args.rounds)
        notes.append(f"load average at start: {loadavg()}")
        for r in range(args.rounds):
            print(f"[roundtrip] round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
            for row in rows:
                row.samples += await row.measure(per_round, args.warmup)
        notes.append(f"load average at end: {loadavg()}")
        print("[roundtrip] hop breakdown", file=sys.stderr, flush=True)
        for key, client in (("stdio", stdio), ("http", http)):
            out = await client.ask(op="trace", tool="noop", calls=args.trace_calls, warmup=args.warmup)
            if "error" in out:
                raise RuntimeError(f"trace over {key}: {out['error']}")
            traces[key] = out["traces"]
        return rows, notes


def report(args: argparse.Namespace, rows: list[Row], notes: list[str]) -> int:
    by = {row.key: row for row in rows}
    unit, floor, peer, stdio, http, relay = (
        by[k] for k in ("unit", "floor", "peer", "stdio", "http", "relay")
    )
    table = [
        [
            row.label,
            fmt_ms(row.p(50)),
            fmt_ms(row.p(95)),
            fmt_ms(row.p(99)),
            f"{row.p(50) / unit.p(50):.2f}x",
            f"{row.p(50) / floor.p(50):.2f}x",
        ]
        for row in rows
    ]
    print_table(
        f"No-op page tool round trip ({len(unit.samples)} sequential calls per path, "
        f"{args.rounds} interleaved rounds)",
        ["path", "p50 ms", "p95 ms", "p99 ms", "p50 x evaluate", "p50 x floor"],
        table,
        note="Every MCP client runs in its own process (official SDK Client), timed around call_tool; "
        "the floor and evaluate rows are timed in this process (the page-started floor in the page, "
        'performance.now() in a cross-origin-isolated page). "floor" is the page-started floor. Raw '
        "POST: the SDK client's last tools/call request sent again as is with its HTTP client and the "
        "response read whole, not parsed (the call without the SDK client's share). The machine is "
        "shared: absolute numbers move with its load; the ratios within one run are the result. "
        + "; ".join(notes)
        + ".",
    )
    for key, calls in traces.items():
        print_table(
            f"Where a tabmcp call's time goes, over {key} ({len(calls)} traced calls, ms)",
            ["hop (stamp → stamp)", "what runs there", "p50", "p90", "share of p50"],
            breakdown(calls),
            note="Stamps are epoch milliseconds on one machine clock (time.time_ns() in Python, "
            "performance.timeOrigin + performance.now() in the browser, which Chromium coarsens to "
            "0.1 ms outside cross-origin-isolated contexts): single hops under 0.1 ms are noise, "
            "medians over many calls are not. The browser's clock (its time origin plus a monotonic "
            "count) can sit a millisecond or two off Python's wall clock, so each of the two rows "
            "crossing between bridge and browser may read high or even negative; their sum (WebSocket "
            "both ways) cannot. The worker and the page are two processes whose time origins differ too: "
            "worker → content and content → worker trade time run to run, Port both ways does not. "
            "The p50 column need not add up to the whole call's p50.",
        )
    targets = [
        ("stdio p50 ≤ 1.0x peer p50", stdio.p(50), 1.0 * peer.p(50)),
        ("stdio p50 ≤ 1.5x floor p50", stdio.p(50), 1.5 * floor.p(50)),
        ("stdio p99 ≤ 2x stdio p50", stdio.p(99), 2 * stdio.p(50)),
        ("Streamable HTTP p50 ≤ 2x floor p50", http.p(50), 2 * floor.p(50)),
        ("relayed stdio p50 ≤ 1.3x direct stdio p50", relay.p(50), 1.3 * stdio.p(50)),
    ]
    share = by["client_share"]
    least = floor.p(50) + share.p(50)
    print(
        f"\nThe least an SDK client can see through this architecture: the floor plus the SDK client's own "
        f"share = {fmt_ms(least)} ms p50 ({least / floor.p(50):.2f}x the floor, {least / peer.p(50):.2f}x the peer). "
        "The peer's page opens the WebSocket itself: it crosses no content script, Port or service worker."
    )
    base = by["sdk_stdio"]
    figures = {
        "stdio_x_evaluate": stdio.p(50) / unit.p(50),
        "http_x_evaluate": http.p(50) / unit.p(50),
        "http_x_stdio": http.p(50) / stdio.p(50),
        "http_raw_x_evaluate": by["http_raw"].p(50) / unit.p(50),
        "relay_x_stdio": relay.p(50) / stdio.p(50),
        "peer_x_evaluate": peer.p(50) / unit.p(50),
        "floor_x_evaluate": floor.p(50) / unit.p(50),
        "stdio_x_sdk_alone": stdio.p(50) / base.p(50),
        "stdio_p99_x_p50": stdio.p(99) / stdio.p(50),
    }
    print_table(
        "Figures kept for the regression guard (bench/results.json; ./dev bench compare)",
        ["figure", "value"], [[k, f"{v:.3f}"] for k, v in figures.items()],
    )
    results.write("roundtrip", figures, load="; ".join(notes), where=args.results)
    print("\nTargets (issue 12):")
    for name, value, limit in targets:
        verdict = "PASS" if value <= limit else "FAIL"
        print(
            f"- {verdict} {name}: {fmt_ms(value)} ms vs limit {fmt_ms(limit)} ms ({value / limit:.2f} of it)"
        )
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.roundtrip")
    parser.add_argument("--calls", type=int, default=600, help="timed calls per path (default 600)")
    parser.add_argument("--rounds", type=int, default=6, help="interleaved rounds the calls are split into")
    parser.add_argument("--warmup", type=int, default=20, help="untimed calls before each round's chunk")
    parser.add_argument("--native", action="store_true", help="tabmcp rows with Chromium's native WebMCP")
    parser.add_argument("--no-firefox", dest="firefox", action="store_false",
                        help="no Firefox rows (they need firefox-esr, node and puppeteer-core)")
    parser.add_argument("--results", help="where the kept figures go (default bench/results.json; - for nowhere)")
    parser.add_argument("--trace-calls", type=int, default=300, help="traced calls per transport for the breakdown")
    args = parser.parse_args(argv)
    if args.firefox:
        try:
            find_firefox()
        except FirefoxNotFound as exc:
            print(f"[roundtrip] no Firefox rows: {exc}", file=sys.stderr)
            args.firefox = False
    rows, notes = asyncio.run(measure(args))
    return report(args, rows, notes)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
