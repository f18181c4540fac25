"""The bridge's end of the extension link, step by step, with a real browser (issue 38).

One bridge in this process (uvloop, as ``tabmcp serve``), a Chromium with the extension on the
bench page (its ``noop`` tool), and sequential calls made straight through the core's page-call
path (``BridgeCore.requests.call_tool``: no MCP client, so what is timed is the link's part). The
start and end of each step on the bridge's side are marked with ``perf_counter_ns`` by wrapping
methods from outside (the tree is not changed; uvicorn's WebSocket protocol included): the call
built and queued (``start_call``), the hub's send through the link's lock and the outbox to
uvicorn's ``send`` and the socket's ``write``; then the answer's bytes in uvicorn's
``data_received`` (frame parsed, queued for the ASGI app), the endpoint's ``receive``, the hub's
frame (the parse, the session's ``call.result``, the future settled), the loop's turn until the
waiting call resumes. The browser's part is one step (written → answer's bytes read).

Each wrapper costs the step it marks about a µs; the p50 of a step is steadier than a sum. The
process's CPU per call (the bridge and an idle Playwright client) is printed per round.
``--parse checked`` reads every frame the checked way (``json.loads`` then validation, as before
the one-pass read of 2026-12-07), ``alternate`` switches between the two per round (ABBA), so a
change of the parse shows beside its baseline in one run.

    python -m bench link_marks [--calls 1500] [--rounds 4] [--parse fast|checked|alternate]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import inspect
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from time import perf_counter_ns as now
from typing import Any

from bench._table import print_table
from bench.roundtrip import loadavg

STEPS: list[tuple[str, str, str]] = [
    ("call.in", "start.in", "call path: trace check"),
    ("start.in", "start.out", "session.start_call: request made, call.start built and queued"),
    ("start.out", "wait.in", "→ hub.wait"),
    ("wait.in", "send_all.in", "hub: deadline armed, flush, queued messages taken"),
    ("send_all.in", "outbox.in", "link: lock, call.start encoded"),
    ("outbox.in", "uv.send.in", "outbox (quiet: written at once) → starlette → uvicorn send"),
    ("uv.send.in", "write.in", "uvicorn: frame built"),
    ("write.in", "write.out", "the socket's write (the worker may be woken and run here)"),
    ("write.out", "wait.sent", "back up to the waiting call's await"),
    ("wait.sent", "uv.data", "the browser: worker, Port, content script, page, tool, back"),
    ("uv.data", "uv.queued", "uvicorn data_received: frame parsed, decoded, queued, reading paused"),
    ("uv.queued", "uv.receive", "the endpoint's task woken, uvicorn receive (reading resumed)"),
    ("uv.receive", "hub.frame", "starlette receive, idle watchdog, frame counted"),
    ("hub.frame", "parse.in", "stall meter, session.receive"),
    ("parse.in", "parse.out", "parse_extension_message (call.result)"),
    ("parse.out", "settle", "session: call.result → request ended; hub.handle"),
    ("settle", "frame.out", "future set; after-events, deadline, flush"),
    ("frame.out", "wait.out", "the endpoint back to receive; the loop's turn; the call resumes"),
    ("wait.out", "call.out", "call path: usage noted, return"),
]

M: dict[str, int] = {}
ON = [False]


def _mark(name: str) -> None:
    if ON[0]:
        M.setdefault(name, now())


def _wrap(owner: Any, attr: str, before: str | None, after: str | None) -> None:
    """Mark ``before`` on entry and ``after`` on return of ``owner.attr`` (sync or async)."""
    orig = getattr(owner, attr)
    if inspect.iscoroutinefunction(orig):
        @functools.wraps(orig)
        async def wrapped_async(*a: Any, **k: Any) -> Any:
            if before:
                _mark(before)
            out = await orig(*a, **k)
            if after:
                _mark(after)
            return out
        setattr(owner, attr, wrapped_async)
        return

    @functools.wraps(orig)
    def wrapped(*a: Any, **k: Any) -> Any:
        if before:
            _mark(before)
        out = orig(*a, **k)
        if after:
            _mark(after)
        return out
    setattr(owner, attr, wrapped)


class _Transport:
    """uvicorn's transport with its ``write`` marked (uvloop's transport takes no attributes)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, data: bytes) -> None:
        _mark("write.in")
        self._inner.write(data)
        _mark("write.out")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def install(parse: list[Callable[[str | bytes], Any]]) -> None:
    """Wrap what the steps need; ``parse[0]`` is the parse the session calls (switchable per round)."""
    from tabmcp.core import extension_links
    from tabmcp.server import extension, hub
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol as Proto

    _wrap(extension_links.ExtensionLinks, "start_call", "start.in", "start.out")
    _wrap(hub.Hub, "wait", "wait.in", "wait.out")
    _wrap(hub.Link, "send_all", "send_all.in", "wait.sent")
    _wrap(extension.Outbox, "send_texts", "outbox.in", None)
    _wrap(hub.Hub, "handle_frame", "hub.frame", "frame.out")
    _wrap(hub.Hub, "_settle", "settle", None)

    send, received, receive = Proto.send, Proto.data_received, Proto.receive

    async def proto_send(self: Any, message: Any) -> None:
        if not isinstance(self.transport, _Transport):
            self.transport = _Transport(self.transport)
        if message.get("type") == "websocket.send":
            _mark("uv.send.in")
        await send(self, message)

    def proto_received(self: Any, data: bytes) -> None:
        sent = "write.out" in M
        if sent:
            _mark("uv.data")
        received(self, data)
        if sent:
            _mark("uv.queued")

    async def proto_receive(self: Any) -> Any:
        message = await receive(self)
        if "uv.data" in M:
            _mark("uv.receive")
        return message

    Proto.send, Proto.data_received, Proto.receive = proto_send, proto_received, proto_receive  # type: ignore[method-assign]

    def parse_marked(frame: str | bytes) -> Any:
        _mark("parse.in")
        out = parse[0](frame)
        _mark("parse.out")
        return out

    setattr(extension_links, "parse_extension_message", parse_marked)  # noqa: B010  # what the session calls


async def measure(args: argparse.Namespace) -> None:
    from playwright.async_api import async_playwright
    from tabmcp.config import load_config
    from tabmcp.launch.launcher import launch_browser
    from tabmcp.server.app import running_bridge
    from tabmcp.wire import from_extension

    from bench._floor import floor_server

    variants: dict[str, Callable[[str | bytes], Any]] = {
        "fast": from_extension.parse_extension_message, "checked": from_extension._parse_checked}
    parse = [variants["checked" if args.parse == "checked" else "fast"]]
    install(parse)
    load = loadavg()
    rows: list[list[str]] = []
    per_round: list[tuple[str, dict[tuple[str, str], float], float, float]] = []
    async with contextlib.AsyncExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="tabmcp-bench-"))
        config_file = Path(tmp, "config.toml")
        config_file.write_text(f'[store]\npath = "{Path(tmp, "tabmcp.db")}"\n')
        os.environ["TABMCP_CONFIG"] = str(config_file)  # the launcher pairs with this bridge's store
        floor = await stack.enter_async_context(floor_server())  # serves the bench page
        pw = await stack.enter_async_context(async_playwright())
        app = await stack.enter_async_context(running_bridge(load_config(config_file)))
        browser = await stack.enter_async_context(launch_browser(
            bridge_url=f"ws://127.0.0.1:{app.port}/extension", headless=True, playwright=pw))
        page = await browser.context.new_page()
        await page.goto(floor.url("roundtrip.html"))
        core = app.core
        entry = None
        for _ in range(600):
            entry = next((e for e in core.registry.tool_entries() if e.tool.name == "noop"), None)
            if entry is not None:
                break
            await asyncio.sleep(0.05)
        if entry is None:
            raise RuntimeError("the bench page's noop tool never reached the bridge")
        for _ in range(args.warmup):
            await core.requests.call_tool(entry, {})
        for r in range(args.rounds):
            variant = args.parse
            if args.parse == "alternate":
                variant = ("checked", "fast", "fast", "checked")[r % 4]
            parse[0] = variants[variant]
            spans: dict[tuple[str, str], list[float]] = {}
            walls = []
            cpu = time.process_time()
            for _ in range(args.calls):
                M.clear()
                ON[0] = True
                M["call.in"] = now()
                await core.requests.call_tool(entry, {})
                M["call.out"] = now()
                ON[0] = False
                for a, b, _what in STEPS:
                    if a in M and b in M:
                        spans.setdefault((a, b), []).append((M[b] - M[a]) / 1000)
                walls.append((M["call.out"] - M["call.in"]) / 1000)
            cpu = (time.process_time() - cpu) / args.calls * 1e6
            per_round.append((variant, {k: statistics.median(v) for k, v in spans.items()},
                              statistics.median(walls), cpu))
    for a, b, what in STEPS:
        rows.append([f"{a} → {b}", what, *(f"{p[(a, b)]:.1f}" if (a, b) in p else "–" for _v, p, _w, _c in per_round)])
    rows.append(["call.in → call.out", "the whole call (p50)", *(f"{w:.0f}" for _v, _p, w, _c in per_round)])
    rows.append(["CPU per call", "this process (the bridge; Playwright idle)", *(f"{c:.0f}" for *_x, c in per_round)])
    print_table(
        f"The bridge's end of the link, p50 µs per step ({args.calls} calls a round)",
        ["step", "what", *(f"round {i + 1} ({v} parse)" for i, (v, *_x) in enumerate(per_round))],
        rows,
        note=f"Marks by wrapped methods (about 1 µs each). Load average at start: {load}; at end: {loadavg()}.",
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.link_marks")
    parser.add_argument("--calls", type=int, default=1500, help="calls per round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--parse", choices=["fast", "checked", "alternate"], default="fast")
    args = parser.parse_args(argv)
    os.environ.pop("TABMCP_TRACE", None)  # the marks, not the debug stamps
    from tabmcp.event_loop import run_loop

    run_loop(measure(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
