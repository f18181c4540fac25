"""The express lane (server/express.py): page tools' calls answered without the SDK's server
pipeline must be the SDK's answers, byte for byte in meaning, at every protocol version; and
everything the lane cannot serve alone must still reach the SDK."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
import websockets
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from tabmcp.control import control_headers
from tabmcp.server.app import BridgeApp, running_bridge
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
    await eventually(lambda: bridge.hub.registry.resolve(tools_[0]["name"]))


@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS])
async def test_an_express_answer_is_the_sdks_answer(bridge: BridgeApp, extension: ScriptedExtension, version: str):
    await page(bridge, extension, tool("greet", annotations={"readOnlyHint": True}))
    answers = {}
    async with contextlib.AsyncExitStack() as stack:
        for lane in ("sdk", "express"):
            bridge.express.enabled = lane == "express"
            served = bridge.express.served
            session = await Session.open(stack, bridge.port, version)
            answers[lane] = await session.call("greet")
            # also a named error (arguments that do not fit), and the call_tool meta tool's route
            answers[lane + ".bad"] = await session.call("greet", {"unexpected": {"deep": True}})
            answers[lane + ".meta"] = await session.call("call_tool", {"name": "greet"})
            assert bridge.express.served - served == (3 if lane == "express" else 0)
    assert answers["express"] == answers["sdk"]
    assert answers["express.bad"] == answers["sdk.bad"]
    assert answers["express.meta"] == answers["sdk.meta"]
    assert answers["sdk.meta"]["result"] == answers["sdk"]["result"]
    result = answers["express"]["result"]
    assert result["content"][0]["text"] == "héllo ✓" and result["_meta"]["page/own"] == "kept"
    if version in MODERN_PROTOCOL_VERSIONS:
        assert result["resultType"] == "complete" and result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "tabmcp"


@pytest.mark.parametrize("version", [HANDSHAKE_PROTOCOL_VERSIONS[-1], MODERN])
async def test_a_call_that_needs_approval_is_handed_to_the_sdk(version: str):
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
                assert bridge.express.handed_back == 1 and bridge.express.served == 0
                assert not [m for m in ext.received if m.get("type") == "call.start"]  # the page never ran it
        finally:
            await ext.close()


async def test_a_cancelled_express_call_is_cancelled_in_the_page_and_gets_no_answer(bridge, extension):
    await page(bridge, extension, tool("hang", annotations={"readOnlyHint": True}))
    async with contextlib.AsyncExitStack() as stack:
        session = await Session.open(stack, bridge.port, HANDSHAKE_PROTOCOL_VERSIONS[-1])
        request_id = await session.send("tools/call", {"name": "hang", "arguments": {}})
        start = await extension.wait_for(lambda m: m["type"] == "call.start")
        await session.ws.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                          "params": {"requestId": request_id, "reason": "test"}}))
        await eventually(lambda: start["callId"] in extension.cancelled)
        ping = await session.request("ping", {})  # the session goes on, and the call got no answer
        assert ping["result"] == {}
        assert not [m for m in extension.received if m.get("id") == request_id]


async def test_requests_the_lane_does_not_serve_reach_the_sdk(bridge, extension):
    await page(bridge, extension, tool("greet", annotations={"readOnlyHint": True}))
    async with contextlib.AsyncExitStack() as stack:
        session = await Session.open(stack, bridge.port, HANDSHAKE_PROTOCOL_VERSIONS[-1])
        # a built-in, an unknown name, and a call with a progress token: all the SDK's
        found = await session.call("search_tools", {"query": "greet"})
        assert "greet" in json.dumps(found["result"])
        missing = await session.call("nope")
        assert missing["result"]["structuredContent"]["error"]["code"] == "TOOL_NOT_FOUND"
        progress = await session.request("tools/call", {"name": "greet", "arguments": {},
                                                        "_meta": {"progressToken": "p1"}})
        assert progress["result"]["content"][0]["text"] == "héllo ✓"
        assert bridge.express.served == 0
        # an enveloped request on a handshake-era connection is refused by the SDK, as before
        enveloped = await session.ws.send(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {
            "name": "greet", "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                                       "io.modelcontextprotocol/clientCapabilities": {}}}}))
        assert enveloped is None
        refused = await session.answer(99)
        assert "error" in refused and bridge.express.served == 0


async def test_a_call_before_the_handshake_is_the_sdks_to_refuse(bridge, extension):
    await page(bridge, extension, tool("greet", annotations={"readOnlyHint": True}))
    async with websockets.connect(f"ws://127.0.0.1:{bridge.port}{STREAM_PATH}") as ws:
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}}))
        answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert "error" in answer and bridge.express.served == 0


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_calls_over_stdio_take_the_express_lane(tmp_path, mode: str):
    """The bridge launched over stdio by the SDK's own client, as users run it: page tools'
    calls are served by the lane (its counters on /health), built-ins by the SDK."""
    import os
    import socket
    import sys

    import httpx
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
            async with httpx.AsyncClient(headers=control_headers()) as http:  # the counters want the control key
                health = (await http.get(f"http://127.0.0.1:{port}/health")).json()
        finally:
            await ext.close()
    assert first.content[0].text == second.content[0].text == "héllo ✓"
    assert first.structured_content == {"n": 1, "nested": {"x": [1, 2]}}
    assert not found.is_error
    assert health["express"]["served"] == 2 and health["express"]["handedBack"] == 0
    assert health["express"]["listed"] >= 1 and "greet" in relisted  # (a first tools/list that opens the era is the SDK's)


async def http_call(port: int, name: str, arguments: dict[str, Any], **extra_headers: str) -> Any:
    import httpx

    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": name, "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
                  "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}}}}
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name,
               "Accept": "application/json, text/event-stream", "Content-Type": "application/json", **extra_headers}
    async with httpx.AsyncClient() as http:
        return await http.post(f"http://127.0.0.1:{port}/mcp", json=body, headers=headers)


async def test_an_express_answer_over_http_is_the_sdks_answer(bridge: BridgeApp, extension: ScriptedExtension):
    await page(bridge, extension, tool("greet", annotations={"readOnlyHint": True}))
    answers = {}
    for lane in ("sdk", "express"):
        bridge.express.enabled = lane == "express"
        served = bridge.express.served
        for route, (name, args) in {"": ("greet", {}), ".meta": ("call_tool", {"name": "greet"}),
                                    ".bad": ("greet", {"x": 1})}.items():
            response = await http_call(bridge.port, name, args)
            assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
            answers[lane + route] = response.json()
        assert bridge.express.served - served == (3 if lane == "express" else 0)
    for route in ("", ".meta", ".bad"):
        assert answers["express" + route] == answers["sdk" + route]
    assert answers["express"]["result"]["content"][0]["text"] == "héllo ✓"


async def test_http_requests_the_sdk_refuses_are_still_refused(bridge: BridgeApp, extension: ScriptedExtension):
    await page(bridge, extension, tool("greet", annotations={"readOnlyHint": True}))
    for lane in ("sdk", "express"):
        bridge.express.enabled = lane == "express"
        wrong_origin = await http_call(bridge.port, "greet", {}, Origin="https://evil.test")
        wrong_host = await http_call(bridge.port, "greet", {}, Host="evil.test")
        mismatch = await http_call(bridge.port, "greet", {}, **{"Mcp-Name": "other"})
        assert wrong_origin.status_code == 403 and wrong_host.status_code == 421
        assert mismatch.status_code == 400 and "error" in mismatch.json()
    assert bridge.express.served == 0


def categorised_tab() -> dict[str, Any]:
    return tab(1, url="https://app.test/", tools=[
        tool("greet", annotations={"readOnlyHint": True}),
        tool("wave", description="Wave ✋ at someone", annotations={"readOnlyHint": True}),
        tool("loose", inputSchema={"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}),
    ], categories=[{"name": "social", "description": "Greetings", "tools": ["greet", "wave"]}])


@pytest.mark.parametrize("profile", ["passthrough", "categories", "meta", "hybrid"])
@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS])
async def test_an_express_listing_is_the_sdks_listing(version: str, profile: str):
    async with running_bridge(make_config(disclosure={"profile": profile})) as bridge:
        ext = ScriptedExtension(bridge.port)
        await ext.connect()
        try:
            await ext.sync(categorised_tab())
            await eventually(lambda: bridge.hub.registry.resolve("loose"))
            answers: dict[str, Any] = {}
            async with contextlib.AsyncExitStack() as stack:
                for lane in ("sdk", "express"):
                    bridge.express.enabled = lane == "express"
                    listed = bridge.express.listed
                    session = await Session.open(stack, bridge.port, version)
                    answers[lane] = await session.request("tools/list", {})
                    if profile == "categories" and version not in MODERN_PROTOCOL_VERSIONS:
                        # a handshake-era client opens a category: its own listing grows, in both lanes
                        await session.call("social")
                        answers[lane + ".opened"] = await session.request("tools/list", {})
                    assert bridge.express.listed - listed == (0 if lane == "sdk" else len(answers) // 2)
            assert answers["express"] == answers["sdk"]
            if profile == "categories" and version not in MODERN_PROTOCOL_VERSIONS:
                assert answers["express.opened"] == answers["sdk.opened"]
                assert answers["express.opened"] != answers["express"]
        finally:
            await ext.close()


async def test_an_express_listing_over_http_is_the_sdks(bridge: BridgeApp, extension: ScriptedExtension):
    import httpx

    await extension.sync(categorised_tab())
    await eventually(lambda: bridge.hub.registry.resolve("loose"))
    body = {"jsonrpc": "2.0", "id": "l1", "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}}}
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list",
               "Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    answers = {}
    async with httpx.AsyncClient() as http:
        for lane in ("sdk", "express"):
            bridge.express.enabled = lane == "express"
            response = await http.post(f"http://127.0.0.1:{bridge.port}/mcp", json=body, headers=headers)
            assert response.status_code == 200
            answers[lane] = response.json()
    assert answers["express"] == answers["sdk"] and bridge.express.listed == 1
    assert {t["name"] for t in answers["express"]["result"]["tools"]} >= {"loose"}


# -- what a review of the lane found: each case answered as the SDK answers it ----------------


def envelope(caps: Any = None, info: Any = None) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}} if caps is None else caps,
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"} if info is None else info}


async def raw_post(http: Any, port: int, name: str, arguments: dict[str, Any], *, meta: dict[str, Any] | None = None,
                   headers: tuple[tuple[str, str], ...] = (), accept: str = "application/json, text/event-stream") -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta or envelope()}}
    sent = [("MCP-Protocol-Version", MODERN), ("Mcp-Method", "tools/call"), ("Mcp-Name", name),
            ("Accept", accept), ("Content-Type", "application/json"), *headers]
    return await http.post(f"http://127.0.0.1:{port}/mcp", content=json.dumps(body), headers=sent)


async def test_http_requests_the_sdk_refuses_for_their_shape_are_refused_alike(caplog):
    import logging

    import httpx

    server_errors: list[logging.LogRecord] = []  # uvicorn's own logger does not reach caplog
    catcher = logging.Handler(logging.ERROR)
    catcher.emit = server_errors.append  # type: ignore[method-assign]
    logging.getLogger("uvicorn.error").addHandler(catcher)

    region = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}
    async with running_bridge(make_config(policy={"allow_writes": True, "approval": {"mode": "elicitation"}})) as bridge:
        ext = ScriptedExtension(bridge.port)
        await ext.connect()
        try:
            await page(bridge, ext, tool("greet", annotations={"readOnlyHint": True}, inputSchema=region),
                       tool("wipe", annotations={"destructiveHint": True}))
            await eventually(lambda: bridge.hub.registry.resolve("wipe"))
            answers: dict[str, list[Any]] = {}
            async with httpx.AsyncClient() as http:
                for lane in ("sdk", "express"):
                    bridge.express.enabled = lane == "express"
                    got = [
                        await raw_post(http, bridge.port, "greet", {"region": "eu"},
                                       headers=(("Mcp-Param-Region", "us"), ("Mcp-Param-Region", "eu"))),
                        await raw_post(http, bridge.port, "greet", {"region": "eu"},
                                       headers=(("Mcp-Param-Region", "eu"),), accept="application/json"),
                        await raw_post(http, bridge.port, "greet", {}, meta=envelope(caps="garbage")),
                        await raw_post(http, bridge.port, "greet", {}, meta=envelope(info="zz")),
                        await raw_post(http, bridge.port, "wipe", {}),  # needs approval: handed to the SDK
                    ]
                    answers[lane] = [(r.status_code, r.text) for r in got]
            assert answers["express"][:-1] == answers["sdk"][:-1]
            assert [status for status, _ in answers["sdk"]] == [status for status, _ in answers["express"]] \
                == [400, 406, 400, 400, 200]
            # (the approval's signed request state carries its expiry, so the two texts differ there)
            assert all('"resultType":"input_required"' in answers[lane][-1][1] for lane in answers)
            assert bridge.express.served == 0 and bridge.express.handed_back == 1
            assert not [r for r in caplog.records if r.levelname == "ERROR"]  # the hand-back ran to its end,
            assert not server_errors, [r.getMessage() for r in server_errors]  # and the ASGI app with it
        finally:
            logging.getLogger("uvicorn.error").removeHandler(catcher)
            await ext.close()


async def test_malformed_messages_on_the_stream_are_the_sdks_and_the_session_goes_on(bridge, extension):
    await page(bridge, extension, tool("greet", annotations={"readOnlyHint": True}))
    async with contextlib.AsyncExitStack() as stack:
        session = await Session.open(stack, bridge.port, HANDSHAKE_PROTOCOL_VERSIONS[-1])
        # a cancel whose requestId is not an id; a call whose id is a lone surrogate (the SDK's
        # parser refuses the line: the page never runs it)
        await session.ws.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                          "params": {"requestId": [1]}}))
        await session.ws.send('{"jsonrpc":"2.0","id":"\\ud800","method":"tools/call","params":{"name":"greet"}}')
        ping = await session.request("ping", {})
        assert ping["result"] == {}
        assert not [m for m in extension.received if m.get("type") == "call.start"]
        assert (await session.call("greet"))["result"]["content"][0]["text"] == "héllo ✓"
        assert bridge.express.served == 1


async def test_a_long_http_call_is_answered_as_an_event_stream(bridge, extension, monkeypatch):
    """As the SDK does past its ping interval: headers for an event stream, keepalive comments,
    then the result as one event (the interval shortened here; 15 s in use)."""
    import httpx
    from tabmcp.server import express as express_module

    monkeypatch.setattr(express_module, "SSE_AFTER_S", 0.05)
    release = asyncio.Event()

    async def slow(msg: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return {"ok": True, "result": RESULT}

    extension.handler = slow
    await extension.sync(tab(1, url="https://app.test/", tools=[tool("slow", annotations={"readOnlyHint": True})]))
    await eventually(lambda: bridge.hub.registry.resolve("slow"))
    body = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "slow", "arguments": {}, "_meta": envelope()}}
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "slow",
               "Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx.AsyncClient() as http:
        async with http.stream("POST", f"http://127.0.0.1:{bridge.port}/mcp", content=json.dumps(body),
                               headers=headers) as response:
            assert response.headers["content-type"] == "text/event-stream"
            chunks = response.aiter_bytes()
            first = await asyncio.wait_for(chunks.__anext__(), 10)
            assert first.startswith(b": ping")  # kept alive while the page works
            release.set()
            rest = first + b"".join([c async for c in chunks])
    event = rest.split(b"event: message\r\ndata: ", 1)[1].split(b"\r\n\r\n", 1)[0]
    answer = json.loads(event)
    assert answer["id"] == 5 and answer["result"]["content"][0]["text"] == "héllo ✓"
    assert bridge.express.served == 1
