"""One MCP path on every transport: stdio, ``/mcp-stream`` and HTTP all go through the SDK's server
(its middleware sees every request); the byte transports' listings (the core's bytes spliced in,
server/mcp_streams.py) against the SDK's own encoding in every profile; stdio as users run it.
(The same corpus of requests answered alike over every transport: test_replay_corpus.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import websockets
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from tabmcp.server.app import BridgeApp, running_bridge
from tabmcp.server.mcp import ListingCache
from tabmcp.server.stream import STREAM_PATH

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

MODERN = MODERN_PROTOCOL_VERSIONS[0]
CAPS = {"elicitation": {}}
RESULT = {
    "content": [{"type": "text", "text": "héllo ✓"}, {"type": "text", "text": "two"}],
    "structuredContent": {"n": 1, "nested": {"x": [1, 2]}},
    "_meta": {"page/own": "kept"},
}


class Session:
    """A raw JSON-RPC client on ``/mcp-stream`` (no SDK on the client side: the bytes are what
    the bridge wrote)."""

    def __init__(self, ws: Any, version: str) -> None:
        self.ws = ws
        self.version = version
        self.next_id = 1

    @classmethod
    async def open(cls, stack: Any, port: int, version: str) -> Session:
        ws = await stack.enter_async_context(websockets.connect(f"ws://127.0.0.1:{port}{STREAM_PATH}"))
        session = cls(ws, version)
        if version not in MODERN_PROTOCOL_VERSIONS:
            init = await session.request("initialize", {
                "protocolVersion": version, "capabilities": CAPS, "clientInfo": {"name": "raw", "version": "1"}})
            assert init["result"]["protocolVersion"] == version
            await ws.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        else:  # the first request settles the era, and the SDK sees it (as clients list first)
            assert "tools" in (await session.request("tools/list", {}))["result"]
        return session

    def params(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.version in MODERN_PROTOCOL_VERSIONS:
            params = {**params, "_meta": {"io.modelcontextprotocol/protocolVersion": self.version,
                                          "io.modelcontextprotocol/clientCapabilities": CAPS,
                                          "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                                          **params.get("_meta", {})}}
        return params

    async def send(self, method: str, params: dict[str, Any]) -> int:
        request_id = self.next_id
        self.next_id += 1
        await self.ws.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method,
                                       "params": self.params(params)}))
        return request_id

    async def answer(self, request_id: int) -> dict[str, Any]:
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if message.get("id") == request_id:
                return message

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self.answer(await self.send(method, params))

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self.request("tools/call", {"name": name, "arguments": arguments or {}})


async def page(bridge: BridgeApp, ext: ScriptedExtension, *tools_: dict[str, Any]) -> None:
    async def handler(msg: dict[str, Any]) -> dict[str, Any] | None:
        if msg["tool"] == "hang":
            return None  # never answers: only a cancel ends it
        return {"ok": True, "result": RESULT}

    ext.handler = handler
    await ext.sync(tab(1, url="https://app.test/", tools=list(tools_)))
    await eventually(lambda: bridge.core.tool(tools_[0]["name"]))


@pytest.mark.parametrize("version", [HANDSHAKE_PROTOCOL_VERSIONS[-1], MODERN])
async def test_a_call_that_needs_approval_asks_the_client_over_the_stream(version: str):
    async with running_bridge(make_config(policy={"allow_writes": True, "approval": {"mode": "elicitation"}})) as bridge:
        ext = ScriptedExtension(bridge.port)
        await ext.connect()
        try:
            await page(bridge, ext, tool("wipe", annotations={"destructiveHint": True}))
            async with contextlib.AsyncExitStack() as stack:
                session = await Session.open(stack, bridge.port, version)
                request_id = await session.send("tools/call", {"name": "wipe", "arguments": {}})
                if version in MODERN_PROTOCOL_VERSIONS:
                    answer = await session.answer(request_id)  # 2026-07-28: the request for input comes back
                    assert answer["result"]["resultType"] == "input_required"
                else:  # handshake era: the SDK elicits from the client on the same connection
                    while True:
                        message = json.loads(await asyncio.wait_for(session.ws.recv(), 10))
                        if message.get("method") == "elicitation/create":
                            break
                    await session.ws.send(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                                      "result": {"action": "decline"}}))
                    answer = await session.answer(request_id)
                    assert answer["result"]["isError"]
                    assert answer["result"]["structuredContent"]["error"]["code"] == "APPROVAL_DENIED"
                assert not [m for m in ext.received if m.get("type") == "call.start"]  # the page never ran it
        finally:
            await ext.close()


async def test_a_call_before_the_handshake_is_the_sdks_to_refuse(bridge, extension):
    await page(bridge, extension, tool("greet", annotations={"readOnlyHint": True}))
    async with websockets.connect(f"ws://127.0.0.1:{bridge.port}{STREAM_PATH}") as ws:
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}}))
        answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert "error" in answer


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_calls_over_stdio(tmp_path, mode: str):
    """The bridge launched over stdio by the SDK's own client, as users run it: page tools' calls
    (directly and through call_tool), a built-in and tools/list."""
    import os
    import socket
    import sys

    from mcp import Client, StdioServerParameters

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    config = tmp_path / "config.toml"
    config.write_text('[store]\npath = ":memory:"\n[trust]\nframe_text = false\n')
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tabmcp.cli", "serve", "--stdio", "--port", str(port)],
        env={**os.environ, "TABMCP_CONFIG": str(config)},
    )
    async with Client(params, mode=mode) as client:
        for _ in range(300):  # the bridge process may still be starting (a modern client sends nothing first)
            ext = ScriptedExtension(port)
            try:
                await ext.connect()
                break
            except OSError:
                await asyncio.sleep(0.05)
        try:
            ext.handler = lambda msg: asyncio.sleep(0, {"ok": True, "result": RESULT})
            await ext.sync(tab(1, url="https://app.test/", tools=[tool("greet", annotations={"readOnlyHint": True})]))

            async def listed() -> bool:
                return "greet" in [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]

            for _ in range(200):
                if await listed():
                    break
                await asyncio.sleep(0.05)
            first = await client.call_tool("greet", {})
            second = await client.call_tool("call_tool", {"name": "greet"})
            found = await client.call_tool("search_tools", {"query": "greet"})
            relisted = [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]
        finally:
            await ext.close()
    assert first.content[0].text == second.content[0].text == "héllo ✓"
    assert first.structured_content == {"n": 1, "nested": {"x": [1, 2]}}
    assert not found.is_error
    assert "greet" in relisted


def categorised_tab() -> dict[str, Any]:
    return tab(1, url="https://app.test/", tools=[
        tool("greet", annotations={"readOnlyHint": True}),
        tool("wave", description="Wave ✋ at someone", annotations={"readOnlyHint": True}),
        tool("loose", inputSchema={"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}),
    ], categories=[{"name": "social", "description": "Greetings", "tools": ["greet", "wave"]}])


@pytest.mark.parametrize("profile", ["passthrough", "categories", "meta", "hybrid"])
@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS])
async def test_a_spliced_listing_is_the_sdks_listing(version: str, profile: str):
    """Over /mcp-stream (stdio's writer) a tools/list result carries the core's bytes, spliced in
    by the transport (``ListingCache.from_bytes``); without, the SDK shapes and encodes every tool:
    the same answer."""
    async with categorised_bridge(profile) as (bridge, cache):
        answers: dict[str, Any] = {}
        async with contextlib.AsyncExitStack() as stack:
            for lane in ("sdk", "bytes"):
                cache.from_bytes = lane == "bytes"
                cache.clear()
                session = await Session.open(stack, bridge.port, version)
                answers[lane] = await session.request("tools/list", {})
                if profile == "categories" and version not in MODERN_PROTOCOL_VERSIONS:
                    # a handshake-era client opens a category: its own listing grows, in both lanes
                    await session.call("social")
                    answers[lane + ".opened"] = await session.request("tools/list", {})
        assert answers["bytes"] == answers["sdk"]
        assert cache.misses >= 2
        if profile == "categories" and version not in MODERN_PROTOCOL_VERSIONS:
            assert answers["bytes.opened"] == answers["sdk.opened"]
            assert answers["bytes.opened"] != answers["bytes"]


@contextlib.asynccontextmanager
async def categorised_bridge(profile: str) -> AsyncIterator[tuple[BridgeApp, ListingCache]]:
    """A bridge with ``profile`` and one categorised tab synced, and its listing cache."""
    async with running_bridge(make_config(disclosure={"profile": profile})) as bridge:
        ext = ScriptedExtension(bridge.port)
        await ext.connect()
        try:
            await ext.sync(categorised_tab())
            await eventually(lambda: bridge.core.tool("loose"))
            yield bridge, next(m for m in bridge.mcp.middleware if isinstance(m, ListingCache))
        finally:
            await ext.close()


async def test_calls_on_every_transport_are_the_sdks_and_its_middleware_sees_them(
    bridge: BridgeApp, extension: ScriptedExtension
):
    """One MCP path: a page tool's call on ``/mcp-stream`` (stdio's code) and on ``/mcp`` goes
    through the SDK's server, so middleware added to it sees the call."""
    import httpx

    await page(bridge, extension, tool("greet", annotations={"readOnlyHint": True}))
    seen: list[str] = []

    async def watch(ctx: Any, call_next: Any) -> Any:
        seen.append(ctx.method)
        return await call_next(ctx)

    bridge.mcp.middleware.append(watch)
    body, headers = modern_post("tools/call", {"name": "greet", "arguments": {}})
    headers["Mcp-Name"] = "greet"
    async with httpx.AsyncClient() as http:
        response = await http.post(f"http://127.0.0.1:{bridge.port}/mcp", json=body, headers=headers)
    assert response.status_code == 200
    assert response.json()["result"]["content"][0]["text"] == "héllo ✓"
    assert seen == ["tools/call"]
    async with contextlib.AsyncExitStack() as stack:
        session = await Session.open(stack, bridge.port, HANDSHAKE_PROTOCOL_VERSIONS[-1])
        answer = await session.call("greet")
    assert answer["result"]["content"][0]["text"] == "héllo ✓"
    assert seen[-1] == "tools/call" and seen.count("tools/call") == 2


def modern_post(method: str, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """A raw 2026-07-28 request over HTTP: its body and headers."""
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**params, "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}}}}
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method,
               "Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    return body, headers


@pytest.mark.parametrize("profile", ["passthrough", "categories", "meta", "hybrid"])
async def test_a_spliced_http_listing_is_the_sdks_listing(profile: str):
    """Over HTTP a 2026-07-28 tools/list is written with the core's bytes spliced in where the SDK
    wrote a placeholder (server/http_transport.py), its Content-Length following; without, the SDK
    encodes every tool: the same answer, on a miss and on a kept listing."""
    import httpx

    async with categorised_bridge(profile) as (bridge, cache):
        body, headers = modern_post("tools/list", {})
        answers: dict[str, list[bytes]] = {}
        async with httpx.AsyncClient() as http:
            for lane in ("sdk", "bytes"):
                cache.from_bytes = lane == "bytes"
                cache.clear()
                answers[lane] = []
                for _ in range(2):  # built, then kept
                    response = await http.post(f"http://127.0.0.1:{bridge.port}/mcp", json=body, headers=headers)
                    assert response.status_code == 200
                    assert int(response.headers["content-length"]) == len(response.content)
                    answers[lane].append(response.content)
        assert cache.hits >= 2
        # (the same JSON: the SDK escapes what is past ASCII, the core's bytes are UTF-8)
        assert [json.loads(a) for a in answers["bytes"]] == [json.loads(a) for a in answers["sdk"]]
        assert answers["bytes"][0] == answers["bytes"][1]
        assert b"tabmcp-splice-" not in answers["bytes"][1]
        assert json.loads(answers["bytes"][1])["result"]["tools"]
        if profile == "passthrough":  # the bytes are the core's (UTF-8), not the SDK's json.dumps (\\u escapes)
            assert all("Wave ✋".encode() in a for a in answers["bytes"])
            assert all(b"Wave \\u270b" in a for a in answers["sdk"])


async def test_a_spliced_answer_streamed_as_events_gets_its_bytes():
    """An SSE answer (the SDK commits to a stream before the result when the handler notifies)
    has no Content-Length: the bytes go into the event that carries the placeholder."""
    from tabmcp.core.listing_splice import PLACEHOLDER
    from tabmcp.server.http_transport import Splice

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    splice = Splice()
    out = splice.sender(send)
    await out({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
    await out({"type": "http.response.body", "body": b": ping\r\n\r\n", "more_body": True})
    splice.wire = b'[{"name":"a"}]'
    event = json.dumps({"result": {"tools": PLACEHOLDER}}, separators=(",", ":"))
    await out({"type": "http.response.body", "body": f"data: {event}\r\n\r\n".encode(), "more_body": False})
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body", "http.response.body"]
    assert sent[-1]["body"] == b'data: {"result":{"tools":[{"name":"a"}]}}\r\n\r\n'


async def test_the_sdks_span_per_request_is_dropped_unless_asked_for():
    """The SDK's server opens an OpenTelemetry span around every request (its default middleware),
    which records nothing without an OpenTelemetry SDK and exporter and still costs each request:
    dropped by default (the SDK's documented opt-out), kept with ``mcp.opentelemetry``."""
    from mcp.server.lowlevel import Server
    from tabmcp.server.mcp import OTEL_MIDDLEWARE

    assert [type(m).__name__ for m in Server("any").middleware] == [OTEL_MIDDLEWARE]  # what the opt-out drops
    for asked in (None, True):  # the default, then asked for
        config = make_config() if asked is None else make_config(mcp={"opentelemetry": asked})
        async with running_bridge(config) as bridge:
            names = [type(m).__name__ for m in bridge.mcp.middleware]
        assert (OTEL_MIDDLEWARE in names) is bool(asked)
        assert names[-1] == "ListingCache"
