"""A destructive page tool approved in the browser after a long wait (90 s by default), per MCP
client: does the client still take the answer? (issue 39.)

The bridge sends ``notifications/progress`` every ``mcp.progress_interval_s`` while an approval
is pending, when the call carries a ``progressToken``. Clients: the official Python SDK
``Client`` over Streamable HTTP (with and without a progress callback), and the official
TypeScript SDK's ``Client`` (bench/approval_wait.mjs; its default 60 s request timeout) over
HTTP and stdio, with ``onprogress`` + ``resetTimeoutOnProgress: true`` and without. The browser
is a stand-in on the real WebSocket and wire protocol that answers each ``approval.request``
``--delay`` seconds after it came (the window's answer); every call runs at once, so one run
takes about ``--delay`` seconds.

    python -m bench approval_wait [--delay 90]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import websockets
from mcp import Client
from tabmcp.config import Config
from tabmcp.control_key import ControlClient
from tabmcp.errors import ControlError
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.protocol import PROTOCOL_VERSION
from tabmcp.server.app import running_bridge

from bench._table import print_table

ROOT = Path(__file__).resolve().parent.parent
TOOL = {"name": "wipe", "description": "Wipe the list.", "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"destructiveHint": True}}


@contextlib.asynccontextmanager
async def approving_browser(port: int, delay: float) -> AsyncIterator[None]:
    """A stand-in extension: one tab offering ``wipe``; approves each question ``delay`` s later."""
    for _ in range(600):  # a bridge its stdio client starts may still be starting
        try:
            pairing_id, secret = await ControlClient(port).create_pairing("bench stand-in")
            break
        except ControlError:
            await asyncio.sleep(0.1)
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/extension", origin=f"chrome-extension://{EXTENSION_ID}")  # type: ignore[arg-type]
    await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "extensionVersion": "bench",
                              "extensionId": EXTENSION_ID, "instanceId": "bench",
                              "pairing": {"id": pairing_id, "secret": secret}}))
    welcome = json.loads(await ws.recv())
    heartbeat_s = float(welcome.get("heartbeatMs") or 20_000) / 1000
    await ws.send(json.dumps({"type": "tabs.sync", "tabs": [{
        "tabId": 1, "url": "https://bench.test/", "title": "bench", "documentId": "doc-1",
        "tools": [TOOL], "categories": [], "states": []}]}))
    tasks: set[asyncio.Task[None]] = set()

    async def approve(approval_id: str) -> None:
        await asyncio.sleep(delay)
        await ws.send(json.dumps({"type": "approval.result", "approvalId": approval_id, "approved": True,
                                  "reason": "approved by the bench"}))

    async def answer() -> None:
        async for frame in ws:
            for line in str(frame).splitlines():
                message: dict[str, Any] = json.loads(line)
                if message["type"] == "approval.request":
                    task = asyncio.create_task(approve(message["approvalId"]))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                elif message["type"] == "call.start":
                    await ws.send(json.dumps({"type": "call.result", "callId": message["callId"], "ok": True,
                                              "result": {"content": [{"type": "text", "text": "wiped"}]}}))
                elif message["type"] == "ping":
                    await ws.send(json.dumps({"type": "pong", "ts": message.get("ts")}))

    async def heartbeat() -> None:  # as the extension pings (the bridge closes a link quiet for 75 s)
        while True:
            await asyncio.sleep(heartbeat_s)
            await ws.send(json.dumps({"type": "ping", "ts": int(time.time() * 1000)}))

    reader, beat = asyncio.create_task(answer()), asyncio.create_task(heartbeat())
    try:
        yield
    finally:
        reader.cancel()
        beat.cancel()
        await ws.close()


async def python_client(url: str, progress: bool) -> dict[str, Any]:
    count = 0

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        nonlocal count
        count += 1

    started = time.monotonic()
    try:
        async with Client(url, mode="legacy") as client:
            result = await client.call_tool("wipe", {}, progress_callback=on_progress if progress else None)
        ok, error = not result.is_error, None if not result.is_error else str(result.content[0])[:160]
    except Exception as exc:  # the client's own timeout or transport error
        ok, error = False, f"{type(exc).__name__}: {exc}"[:160]
    return {"ok": ok, "seconds": time.monotonic() - started, "progress": count, "error": error}


async def node_client(*args: str) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        "node", str(ROOT / "bench" / "approval_wait.mjs"), *args, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    try:
        return dict(json.loads(out.decode().strip().splitlines()[-1]))
    except (IndexError, ValueError):
        return {"ok": False, "seconds": 0, "progress": 0, "error": (err.decode() or out.decode())[-160:]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def run(delay: float) -> list[tuple[str, dict[str, Any]]]:
    config = Config().with_overrides({"server": {"port": 0}, "store": {"path": ":memory:"},
                                    "policy": {"allow_writes": True}})
    stdio_port = _free_port()
    env_config = ROOT / "build" / "approval_wait.toml"
    env_config.parent.mkdir(exist_ok=True)
    env_config.write_text('[store]\npath = ":memory:"\n[policy]\nallow_writes = true\n')
    os.environ["TABMCP_CONFIG"] = str(env_config)  # the stdio bridge node starts reads it
    async with running_bridge(config) as app, approving_browser(app.port or 0, delay):
        url = f"http://127.0.0.1:{app.port}/mcp"
        await asyncio.sleep(0.5)
        cases: dict[str, Any] = {
            "Python SDK, HTTP, progress callback": python_client(url, True),
            "Python SDK, HTTP, no progress callback": python_client(url, False),
        }
        if shutil.which("node"):
            stdio = ["stdio", "wipe"], ["-m", "tabmcp.cli", "serve", "--stdio", "--port", str(stdio_port)]
            cases |= {
                "TypeScript SDK, HTTP, onprogress + resetTimeoutOnProgress": node_client("http", url, "wipe", "progress"),
                "TypeScript SDK, HTTP, default options": node_client("http", url, "wipe", "plain"),
                "TypeScript SDK, stdio, onprogress + resetTimeoutOnProgress": node_client(
                    *stdio[0], "progress", sys.executable, *stdio[1]),
            }
        tasks = [asyncio.create_task(case) for case in cases.values()]
        if shutil.which("node"):
            async with approving_browser(stdio_port, delay):
                results = await asyncio.gather(*tasks)
        else:
            results = await asyncio.gather(*tasks)
    return list(zip(cases, results, strict=True))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench approval_wait")
    parser.add_argument("--delay", type=float, default=90.0, help="seconds before the approval (default 90)")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    rows = [[name, "yes" if r["ok"] else "no", f"{r['seconds']:.1f}", r["progress"], " ".join((r["error"] or "").split())[:100]]
            for name, r in asyncio.run(run(args.delay))]
    print_table(f"A call approved after {args.delay:g} s, per client", ["client", "answered", "s", "progress", "error"],
                rows, note=f"Load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; progress every "
                           f"{Config().mcp.progress_interval_s:g} s (mcp.progress_interval_s).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
