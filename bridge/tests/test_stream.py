"""``/mcp-stream``: an MCP session per WebSocket for relays; local non-browser clients only."""

from __future__ import annotations

import json
from typing import Any

import pytest
import websockets
from tabmcp.server.app import running_bridge
from tabmcp.server.stream import STREAM_PATH

from .conftest import eventually, make_config
from .helpers import tab, tool

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


async def rpc(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(message))
    while True:
        answer = json.loads(await ws.recv())
        if answer.get("id") == message["id"]:
            return answer


async def test_a_session_over_the_stream_lists_and_calls_page_tools(bridge, extension):
    async def handler(msg: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "result": {"content": [{"type": "text", "text": f"hi {msg['arguments']['who']}"}]}}

    extension.handler = handler
    await extension.sync(tab(1, tools=[tool("greet", inputSchema={
        "type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]})]))
    await eventually(lambda: bridge.core.tool("greet"))
    async with websockets.connect(f"ws://127.0.0.1:{bridge.port}{STREAM_PATH}") as ws:
        init = await rpc(ws, INIT)
        assert init["result"]["serverInfo"]["name"] == "tabmcp"
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        listed = await rpc(ws, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert "greet" in [t["name"] for t in listed["result"]["tools"]]
        called = await rpc(ws, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                "params": {"name": "greet", "arguments": {"who": "Ada"}}})
        assert called["result"]["content"][0]["text"] == "hi Ada"
        # Validation still applies: a missing argument is a named error, not a call.
        bad = await rpc(ws, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                             "params": {"name": "greet", "arguments": {}}})
        assert bad["result"]["isError"] and bad["result"]["structuredContent"]["error"]["code"] == "VALIDATION_ERROR"
        # A line that is not JSON-RPC gets an error answer; the session goes on.
        await ws.send("not json")
        again = await rpc(ws, {"jsonrpc": "2.0", "id": 5, "method": "ping"})
        assert again["result"] == {}


@pytest.mark.parametrize("origin", ["https://evil.test", "chrome-extension://gfigonejdkomjpdmhgkpaofngngajldi"])
async def test_a_handshake_with_any_origin_is_refused(bridge, origin):
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(f"ws://127.0.0.1:{bridge.port}{STREAM_PATH}", origin=origin):
            pass
    assert refused.value.response.status_code == 403


async def test_a_non_loopback_host_is_refused(bridge):
    with pytest.raises(websockets.InvalidStatus):
        async with websockets.connect(f"ws://127.0.0.1:{bridge.port}{STREAM_PATH}",
                                      additional_headers={"Host": "evil.test"}):
            pass


async def test_the_mcp_token_guards_the_stream_too():
    async with running_bridge(make_config(server={"port": 0, "mcp_token": "s3cret"})) as app:
        url = f"ws://127.0.0.1:{app.port}{STREAM_PATH}"
        for headers in (None, {"Authorization": "Bearer wrong"}):
            with pytest.raises(websockets.InvalidStatus):
                async with websockets.connect(url, additional_headers=headers):
                    pass
        async with websockets.connect(url, additional_headers={"Authorization": "Bearer s3cret"}) as ws:
            assert "result" in await rpc(ws, INIT)
