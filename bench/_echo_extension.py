"""A stand-in for the browser: connects to the bridge as the extension does (real WebSocket, the
real wire protocol), offers one tab with a no-op tool and answers every ``call.start`` at once.

For benchmarks of the bridge alone (bench.call_profile): what a call costs in the bridge and its MCP
transports, with no browser hop to drown the difference.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import websockets
from tabmcp.control_key import ControlClient
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.protocol import PROTOCOL_VERSION

NOOP = {
    "name": "noop",
    "description": "Does nothing and answers at once.",
    "inputSchema": {"type": "object", "properties": {}},
    "annotations": {"readOnlyHint": True},
}
RESULT = {"content": [{"type": "text", "text": "ok"}]}


@contextlib.asynccontextmanager
async def echo_extension(port: int, churn_s: float | None = None) -> AsyncIterator[None]:
    """Connected, its tab sent, answering until the block ends. With ``churn_s``, a second tab comes
    and goes as tabs do: every ``churn_s`` the tab list names a new tab (new id, new document) in
    place of the last one, so the bridge closes one and registers another (tab 1 stays)."""
    ws = await websockets.connect(
        f"ws://127.0.0.1:{port}/extension", origin=f"chrome-extension://{EXTENSION_ID}", max_size=None  # type: ignore[arg-type]
    )
    pairing_id, secret = await ControlClient(port).create_pairing("bench stand-in")  # as a launcher pairs
    await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "extensionVersion": "bench",
                              "extensionId": EXTENSION_ID, "instanceId": "bench",
                              "pairing": {"id": pairing_id, "secret": secret},
                              "batch": True}))  # as the real extension's worker says (batched frames)
    welcome = json.loads(str(await ws.recv()).splitlines()[0])  # (what follows it in the frame: nothing to answer)
    if welcome.get("type") != "welcome":
        raise RuntimeError(f"the bridge did not welcome the stand-in extension: {welcome}")
    await ws.send(json.dumps({"type": "tabs.sync", "tabs": [{
        "tabId": 1, "url": "https://bench.test/", "title": "bench", "documentId": "doc-1",
        "tools": [NOOP], "categories": [], "states": []}]}))

    async def answer() -> None:
        async for frame in ws:
            for line in str(frame).splitlines():
                message: dict[str, Any] = json.loads(line)
                if message.get("type") == "call.start":
                    reply: dict[str, Any] = {"type": "call.result", "callId": message["callId"], "ok": True, "result": RESULT}
                    if "trace" in message:  # debug mode: the stamps go back, as the worker sends them (none of its own)
                        reply["trace"] = message["trace"]
                    await ws.send(json.dumps(reply))
                elif message.get("type") == "ping":
                    await ws.send(json.dumps({"type": "pong", "ts": message.get("ts")}))

    async def churn(interval: float) -> None:
        for n in itertools.count(2):
            await asyncio.sleep(interval)
            await ws.send(json.dumps({"type": "tabs.sync", "tabs": [
                {"tabId": 1, "url": "https://bench.test/", "title": "bench", "documentId": "doc-1",
                 "tools": [NOOP], "categories": [], "states": []},
                {"tabId": n, "url": f"https://churn{n % 50}.test/?open={n}", "title": f"churn {n}",
                 "documentId": f"doc-{n}", "tools": [{**NOOP, "name": f"other{n % 7}"}], "categories": [],
                 "states": []}]}))

    tasks = [asyncio.create_task(answer())]
    if churn_s:
        tasks.append(asyncio.create_task(churn(churn_s)))
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, websockets.ConnectionClosed):
                await task
        await ws.close()
