"""The bridge's own byte transports against the MCP SDK's: one corpus of requests replayed over each.

Each case of :data:`CORPUS` is a list of raw messages sent on a fresh session of one transport:
``/mcp-stream`` (a WebSocket, one message per frame), the bridge's stdio transport (asyncio pipe
transports, server/stdio.py, over a pair of pipes) and, as the reference, the SDK's own
``stdio_server`` over another pair, all serving the same bridge's MCP server, at every protocol
version the SDK speaks (each handshake-era version and 2026-07-28). The responses must be the
same, in the same order, and the page must have seen the same calls and cancels. The corpus covers
page tools' calls (direct and through ``call_tool``), built-ins, categories, named errors, a page's
error, a bug on the call path, cancels, tools/list (which the bridge's transports write from the
core's bytes, server/mcp_streams.py), and malformed input.

This is the guard against drift between the bridge's transports (their parsing, their streams,
their writer) and the SDK's: a new SDK release that reads or writes a message differently fails here.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import io
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
import websockets
from mcp.server.stdio import stdio_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from tabmcp.server.app import BridgeApp
from tabmcp.server.stdio import stdio_transport
from tabmcp.server.stream import STREAM_PATH

from .conftest import eventually
from .helpers import ScriptedExtension, tab, tool

VERSIONS = [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS]
CAPS: dict[str, Any] = {"elicitation": {}}
RESULT = {
    "content": [{"type": "text", "text": "héllo ✓"}, {"type": "text", "text": "two"}],
    "structuredContent": {"n": 1, "nested": {"x": [1, 2]}},
    "_meta": {"page/own": "kept"},
}
SENTINEL = "sentinel"
"""The id of the ping that ends each case: its answer means the SDK has read every frame before it."""


@dataclass(frozen=True)
class Step:
    """One frame of a case: a request (answered or not), a notification, or raw text."""

    frame: dict[str, Any] | str
    answered: bool = True
    """Wait for this request's answer before the next frame (False: a cancelled call, a notification)."""
    envelope: bool = True
    """At 2026-07-28, give a request the per-request envelope (clients always do)."""
    reaches_page: bool = False
    """Wait until the page has the call before the next frame (a call to cancel while it runs)."""
    cancels_in_page: bool = False
    """Wait until the page is told to cancel a call, while the session is still open (when it
    closes, its calls are cancelled anyway)."""


def call(request_id: Any, name: str, arguments: Any = None, **params: Any) -> Step:
    body: dict[str, Any] = {"name": name, **params}
    if arguments is not None:
        body["arguments"] = arguments
    return Step({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": body})


def request(request_id: Any, method: str, params: dict[str, Any] | None = None, **kw: Any) -> Step:
    frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        frame["params"] = params
    return Step(frame, **kw)


def cancel(request_id: Any, *, running: bool = False) -> Step:
    return Step({"jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": {"requestId": request_id, "reason": "replay"}}, answered=False, cancels_in_page=running)


@dataclass(frozen=True)
class Case:
    steps: tuple[Step, ...]


CORPUS: dict[str, Case] = {
    "call": Case((call(1, "greet", {}),)),
    "call without arguments": Case((call(1, "greet"),)),
    "call_tool route": Case((call(1, "call_tool", {"name": "greet", "arguments": {}}),)),
    "string ids": Case((call("a", "greet", {}), call("b", "call_tool", {"name": "greet"}))),
    "arguments that do not fit": Case((call(1, "greet", {"unexpected": {"deep": True}}),)),
    "a page's error": Case((call(1, "fails", {}),)),
    "a bug on the call path": Case((call(1, "boom", {}),)),
    "a malformed page result": Case((call(1, "junk", {}),)),
    "nulls in a page result": Case((call(1, "nulls", {}),)),  # (each version's sieve: its own)
    "tools/list": Case((request(1, "tools/list", {}),)),
    "tools/list without params": Case((request(1, "tools/list"),)),
    "cancelled call": Case((Step(call(1, "hang", {}).frame, answered=False, reaches_page=True),
                            cancel(1, running=True), call(2, "greet", {}))),
    "cancel of an unknown id": Case((cancel(41), cancel([1]), call(1, "greet", {}))),
    "unknown tool": Case((call(1, "nope", {}),)),
    "built-in": Case((call(1, "search_tools", {"query": "greet"}),)),
    "category": Case((call(1, "social", {}),)),
    "call_tool of a built-in": Case((call(1, "call_tool", {"name": "search_tools"}),)),
    "call_tool with extra keys": Case((call(1, "call_tool", {"name": "greet", "x": 1}),)),
    "progress token": Case((call(1, "greet", {}, _meta={"progressToken": "p1"}),)),
    "arguments not an object": Case((call(1, "greet", [1, 2]),)),
    "name missing": Case((request(1, "tools/call", {"arguments": {}}),)),
    "name not a string": Case((call(1, 7, {}),)),
    "params not an object": Case((request(1, "tools/call", ["greet"], answered=False),)),
    "tools/list with a bad cursor": Case((request(1, "tools/list", {"cursor": "bogus"}),)),
    "boolean id": Case((Step({"jsonrpc": "2.0", "id": True, "method": "tools/call",
                              "params": {"name": "greet", "arguments": {}}}, answered=False),)),
    "not JSON": Case((Step("{", answered=False),)),
    "not JSON-RPC": Case((Step({"id": 1, "method": "tools/call", "params": {"name": "greet"}}, answered=False),)),
    "lone surrogate id": Case((Step('{"jsonrpc":"2.0","id":"\\ud800","method":"tools/call","params":{"name":"greet"}}',
                                    answered=False),)),
    "unknown method": Case((request(1, "tools/frobnicate", {}),)),
    "a response from the client": Case((Step({"jsonrpc": "2.0", "id": 99, "result": {}}, answered=False),)),
    "wrong envelope for the era": Case((Step({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "greet", "arguments": {}, "_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01",
                                                    "io.modelcontextprotocol/clientCapabilities": {}}}},
        envelope=False),)),
}


def with_envelope(frame: dict[str, Any], version: str) -> dict[str, Any]:
    """A 2026-07-28 request as clients send it: the envelope in the request's ``_meta``."""
    params = frame.get("params", {})
    if not isinstance(params, dict):
        return frame
    meta = {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": CAPS,
            "io.modelcontextprotocol/clientInfo": {"name": "replay", "version": "1"},
            **(params.get("_meta") or {})}
    return {**frame, "params": {**params, "_meta": meta}}


class Replay:
    """One raw session: messages out, every response kept in arrival order."""

    def __init__(self, send: Any, recv: Any, version: str) -> None:
        self._send = send
        self._recv = recv
        self.version = version
        self.responses: list[dict[str, Any]] = []

    @property
    def modern(self) -> bool:
        return self.version in MODERN_PROTOCOL_VERSIONS

    async def send(self, step: Step) -> None:
        frame = step.frame
        if isinstance(frame, dict) and "method" in frame and "id" in frame and self.modern and step.envelope:
            frame = with_envelope(frame, self.version)
        await self._send(frame if isinstance(frame, str) else json.dumps(frame))
        if step.answered and isinstance(frame, dict):
            await self.answer(frame["id"])

    async def answer(self, request_id: Any) -> dict[str, Any]:
        for seen in self.responses:
            if seen.get("id") == request_id:
                return seen
        while True:
            message = json.loads(await asyncio.wait_for(self._recv(), 30))
            if "id" in message and ("result" in message or "error" in message):
                self.responses.append(message)
                if message["id"] == request_id:
                    return message

    async def open(self) -> None:
        """The handshake (handshake era), or a first tools/list that settles the era (2026-07-28)."""
        if self.modern:
            await self.send(request("open", "tools/list", {}))
        else:
            await self.send(request("open", "initialize", {
                "protocolVersion": self.version, "capabilities": CAPS, "clientInfo": {"name": "replay", "version": "1"}},
                envelope=False))
            await self._send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))


TRANSPORTS = ("mcp-stream", "stdio", "sdk stdio")
"""The bridge's two byte transports, and the SDK's own stdio transport (the reference)."""


@contextlib.asynccontextmanager
async def session(bridge: BridgeApp, transport: str, version: str) -> AsyncIterator[Replay]:
    """A fresh session of ``transport`` on ``bridge``'s MCP server, closed at the end of the block."""
    if transport == "mcp-stream":
        async with websockets.connect(f"ws://127.0.0.1:{bridge.port}{STREAM_PATH}") as ws:
            yield Replay(ws.send, ws.recv, version)
        return
    to_server, from_client = os.pipe()
    to_client, from_server = os.pipe()
    loop = asyncio.get_running_loop()

    async def serve() -> None:
        if transport == "stdio":
            async with stdio_transport((to_server, from_server)) as (read, write):
                await bridge.mcp.run(read, write, bridge.mcp.create_initialization_options())
            return
        stdin = io.TextIOWrapper(os.fdopen(to_server, "rb", buffering=0, closefd=False), encoding="utf-8")
        stdout = io.TextIOWrapper(os.fdopen(from_server, "wb", buffering=0, closefd=False), encoding="utf-8")
        async with stdio_server(anyio.wrap_file(stdin), anyio.wrap_file(stdout)) as (read, write):
            await bridge.mcp.run(read, write, bridge.mcp.create_initialization_options())

    server = asyncio.create_task(serve())
    reader = asyncio.StreamReader(limit=1 << 24)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(to_client, "rb", buffering=0))
    write_transport, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(from_client, "wb", buffering=0))

    async def send(text: str) -> None:
        write_transport.write(text.encode("utf-8", "surrogatepass") + b"\n")

    async def recv() -> bytes:
        line = await reader.readline()
        if not line:
            raise ConnectionError("the server closed its stdout")
        return line

    try:
        yield Replay(send, recv, version)
    finally:
        write_transport.close()  # EOF on the server's stdin: its session ends
        try:
            await asyncio.wait_for(server, 10)
        finally:
            read_transport.close()
            for fd in (to_server, from_server):
                os.close(fd)


async def replay(bridge: BridgeApp, ext: ScriptedExtension, case: Case, version: str, transport: str) -> dict[str, Any]:
    """The case over one transport: its responses, and the calls and cancels the page saw."""
    ext.received.clear()
    ext.cancelled.clear()
    async with session(bridge, transport, version) as replayed:
        await replayed.open()
        for step in case.steps:
            started = len([m for m in ext.received if m.get("type") == "call.start"])
            cancelled = len(ext.cancelled)
            await replayed.send(step)
            if step.reaches_page:
                await eventually(lambda n=started: len([m for m in ext.received if m.get("type") == "call.start"]) > n,
                                 timeout=15)
            if step.cancels_in_page:
                await eventually(lambda n=cancelled: len(ext.cancelled) > n, timeout=15)
        await replayed.send(request(SENTINEL, "ping", {}))
    calls = [m for m in ext.received if m.get("type") == "call.start"]
    return {
        "responses": replayed.responses,
        "page saw": [(m["tool"], m.get("arguments")) for m in calls],
        "cancelled": len(ext.cancelled),
    }


async def page(bridge: BridgeApp, ext: ScriptedExtension, monkeypatch: pytest.MonkeyPatch) -> None:
    async def handler(msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg["tool"] == "hang":
            return None  # never answers: only a cancel ends it
        if msg["tool"] == "fails":
            return {"ok": False, "error": {"code": "PAGE_ERROR", "message": "No user with id 999"}}
        if msg["tool"] == "junk":
            return {"ok": True, "result": {"content": "not a list", "isError": "maybe"}}
        if msg["tool"] == "nulls":
            return {"ok": True, "result": {**RESULT, "structuredContent": {"n": None},
                                           "_meta": {"page/none": None, "page/own": "kept"}}}
        return {"ok": True, "result": RESULT}

    real_call = bridge.core.call_tool

    async def call_tool(entry: Any, arguments: dict[str, Any]) -> Any:
        if entry.tool.name == "boom":
            raise RuntimeError("a bug on the call path")
        return await real_call(entry, arguments)

    monkeypatch.setattr(bridge.core, "call_tool", call_tool)
    ext.handler = handler
    read = {"readOnlyHint": True}
    await ext.sync(tab(1, url="https://app.test/", tools=[
        tool(name, annotations=read) for name in ("greet", "wave", "hang", "fails", "boom", "junk", "nulls")
    ], categories=[{"name": "social", "description": "Greetings", "tools": ["wave"]}]))
    await eventually(lambda: bridge.core.registry.resolve("nulls"))
    # every tool with its vector before the first replay: a search while the background worker is
    # still embedding ranks those by keywords only, and the two replays would see two rankings
    assert await asyncio.to_thread(bridge.core.search.wait_embedded, 60)


@pytest.mark.parametrize("version", VERSIONS)
async def test_the_bridges_transports_answer_the_corpus_as_the_sdks_does(
    bridge: BridgeApp, extension: ScriptedExtension, monkeypatch: pytest.MonkeyPatch, version: str
):
    await page(bridge, extension, monkeypatch)
    differences = {}
    for name, case in CORPUS.items():
        answers = {}
        for transport in TRANSPORTS:
            try:
                answers[transport] = await replay(bridge, extension, case, version, transport)
            except TimeoutError:
                pytest.fail(f"{name} over {transport}: an answer never came")
        reference = answers["sdk stdio"]
        assert reference["responses"] or not any(s.answered for s in case.steps), name  # (it compared something)
        for transport in TRANSPORTS[:-1]:
            if answers[transport] != reference:
                differences[f"{name} over {transport}"] = "\n".join(difflib.unified_diff(
                    json.dumps(reference, indent=1, sort_keys=True).splitlines(),
                    json.dumps(answers[transport], indent=1, sort_keys=True).splitlines(),
                    "sdk stdio", transport, lineterm="", n=2))
    assert not differences, "\n\n".join(f"{name}:\n{diff}" for name, diff in differences.items())[:8000]
