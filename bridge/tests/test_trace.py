"""Debug mode's hop timestamps (``TABMCP_TRACE=1``): carried on the wire only when asked for.

A real bridge, the official SDK client over Streamable HTTP, and a scripted extension that adds
its own stamps as the real worker and content script do.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from mcp import Client
from tabmcp.server.app import running_bridge
from tabmcp.server.mcp import META_TRACE

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

ASK = {META_TRACE: True}


def stamping_handler(seen: list[dict[str, Any]]):
    async def handler(msg: dict[str, Any]) -> dict[str, Any]:
        seen.append(msg)
        reply: dict[str, Any] = {"ok": True, "result": {"content": [{"type": "text", "text": "done"}]}}
        if "trace" in msg:
            now = time.time_ns() / 1e6
            reply["trace"] = [*msg["trace"], ["worker.in", now], ["content.in", now], ["content.out", now],
                              ["worker.out", now]]
        return reply

    return handler


async def serve(monkeypatch: pytest.MonkeyPatch, trace: str | None):
    if trace is None:
        monkeypatch.delenv("TABMCP_TRACE", raising=False)
    else:
        monkeypatch.setenv("TABMCP_TRACE", trace)
    return running_bridge(make_config())


async def test_a_call_that_asks_in_debug_mode_gets_every_hop_in_order(monkeypatch):
    async with await serve(monkeypatch, "1") as bridge:
        ext = ScriptedExtension(bridge.port)
        await ext.connect()
        seen: list[dict[str, Any]] = []
        ext.handler = stamping_handler(seen)
        await ext.sync(tab(1, tools=[tool("echo")]))
        await eventually(lambda: bridge.core.tool("echo"))
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
            result = await client.call_tool("echo", {}, meta=ASK)
            assert result.content[0].text == "done"
            stamps = result.meta[META_TRACE]
            names = [name for name, _ in stamps]
            assert names == ["transport.in", "bridge.handler", "bridge.core", "bridge.sent", "worker.in", "content.in",
                             "content.out", "worker.out", "bridge.frame", "bridge.ended", "bridge.resumed",
                             "bridge.result"]
            times = [at for _, at in stamps]
            assert times == sorted(times)
            assert [name for name, _ in seen[-1]["trace"]] == ["transport.in", "bridge.handler", "bridge.core"]
            # A call that does not ask carries nothing, even in debug mode.
            plain = await client.call_tool("echo", {})
            assert "trace" not in seen[-1] and META_TRACE not in (plain.meta or {})
        await ext.close()


async def test_the_byte_transports_stamp_a_calls_arrival_too(monkeypatch):
    """Over /mcp-stream (stdio's streams): the frame's arrival, stamped by the transport's reader,
    reaches the SDK's handler (the streams carry the reader's context, server/mcp_streams.py)."""
    import contextlib

    from .test_mcp_transports import Session

    async with await serve(monkeypatch, "1") as bridge:
        ext = ScriptedExtension(bridge.port)
        await ext.connect()
        ext.handler = stamping_handler([])
        await ext.sync(tab(1, tools=[tool("echo")]))
        await eventually(lambda: bridge.core.tool("echo"))
        async with contextlib.AsyncExitStack() as stack:
            session = await Session.open(stack, bridge.port, "2025-11-25")
            answer = await session.request("tools/call", {"name": "echo", "arguments": {}, "_meta": ASK})
        stamps = answer["result"]["_meta"][META_TRACE]
        assert [name for name, _ in stamps][:2] == ["transport.in", "bridge.handler"]
        assert stamps[0][1] <= stamps[1][1]
        await ext.close()


async def test_off_by_default_a_request_for_a_trace_is_ignored(monkeypatch):
    async with await serve(monkeypatch, None) as bridge:
        assert bridge.core.trace is False
        ext = ScriptedExtension(bridge.port)
        await ext.connect()
        seen: list[dict[str, Any]] = []
        ext.handler = stamping_handler(seen)
        await ext.sync(tab(1, tools=[tool("echo")]))
        await eventually(lambda: bridge.core.tool("echo"))
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
            result = await client.call_tool("echo", {}, meta=ASK)
            assert result.content[0].text == "done"
            assert "trace" not in seen[-1] and META_TRACE not in (result.meta or {})
        await ext.close()


async def test_an_oversized_trace_from_the_extension_is_a_named_error_not_a_hang(monkeypatch):
    async with await serve(monkeypatch, "1") as bridge:
        ext = ScriptedExtension(bridge.port)
        await ext.connect()

        async def flooding(msg: dict[str, Any]) -> dict[str, Any]:
            return {"ok": True, "result": {"content": []}, "trace": [["x", 1.0]] * 100}

        ext.handler = flooding
        await ext.sync(tab(1, tools=[tool("echo")]))
        await eventually(lambda: bridge.core.tool("echo"))
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
            result = await client.call_tool("echo", {}, meta=ASK)
            assert result.is_error
            assert result.structured_content["error"]["code"] == "BAD_RESULT"
        await ext.close()
