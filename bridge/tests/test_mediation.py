"""The tool-middleware hook: renamed tools keep working, failures keep the page's tools."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tabmcp.core.telemetry import TELEMETRY_TOOLS
from tabmcp.errors import ConfigError
from tabmcp.mediation import load_mediator
from tabmcp.server.app import running_bridge
from tabmcp.testing import ListChanges, listed

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

CRYPTIC = Path(__file__).resolve().parents[2] / "mediator" / "tests" / "fixtures" / "cryptic_tools.json"


def names(result: Any) -> list[str]:
    """Listed tool names, less the telemetry tools (tested on their own)."""
    return [t.name for t in result.tools if t.name not in TELEMETRY_TOOLS]


async def renaming_middleware(tools: list[dict[str, Any]], context: dict[str, Any]) -> dict[str, Any]:
    out = []
    for t in tools:
        if t["name"] == "gt_usr":
            out.append({"name": "get_user", "description": "Get a user by id.", "originalName": "gt_usr",
                        "inputSchema": {"type": "object", "properties": {"userId": {"type": "integer"}},
                                        "required": ["userId"]},
                        "argumentMap": {"userId": "uid"}, "enhancedBy": "test", "confidence": 0.9})
        else:
            out.append({**t, "originalName": t["name"], "enhancedBy": "none", "confidence": 0})
    out.append({"name": "invented", "description": "Not on the page.", "originalName": "invented"})
    return {"tools": out, "categories": [{"name": "people", "description": "People", "tools": ["get_user"]}]}


async def setup(middleware, *, mode="eager", timeout_s=5.0):
    cm = running_bridge(make_config())
    app = await cm.__aenter__()
    app.core.set_tool_middleware(middleware, mode=mode, timeout_s=timeout_s)
    ext = ScriptedExtension(app.port)
    await ext.connect()
    calls: list[dict[str, Any]] = []

    async def handler(msg):
        calls.append(msg)
        return {"ok": True, "result": {"content": [{"type": "text", "text": json.dumps(msg["arguments"])}]}}

    ext.handler = handler
    return cm, app, ext, calls


async def teardown(cm, ext):
    await ext.close()
    await cm.__aexit__(None, None, None)


async def test_renamed_tools_reach_the_page_under_their_original_name():
    cm, app, ext, calls = await setup(renaming_middleware)
    try:
        user = {"type": "object", "properties": {"name": {"type": "string"}}}
        await ext.sync(tab(1, url="https://cryptic.test/", tools=[
            tool("gt_usr", "gets user", inputSchema={"type": "object"}, outputSchema=user), tool("ping", "ping")]))
        # The sync travels on the extension's socket, the listing on the client's: the bridge has
        # read (off the loop) and mediated the sync only once its tools are there.
        await eventually(lambda: app.core.tool("get_user") and app.core.tool("ping"))
        async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
            listed = await client.list_tools(cache_mode="bypass")
            assert "people" in names(listed) and "ping" in names(listed) and "invented" not in names(listed)
            described = await client.call_tool("describe_tools", {"tools": ["get_user"]})
            assert described.structured_content["tools"][0]["outputSchema"] == user  # the renamed tool keeps it
            meta = described.structured_content["tools"][0]["_meta"]
            assert meta["tabmcp/enhancement"] == {"originalName": "gt_usr", "enhancedBy": "test", "confidence": 0.9}
            assert meta["tabmcp/pageName"] == "get_user"
            result = await client.call_tool("call_tool", {"name": "get_user", "arguments": {"userId": 7}})
        assert not result.is_error
        assert calls[0]["tool"] == "gt_usr" and calls[0]["arguments"] == {"uid": 7}
    finally:
        await teardown(cm, ext)


async def test_tools_are_withheld_until_enhanced_then_clients_are_told():
    release = asyncio.Event()

    async def slow(tools, context):
        await release.wait()
        return await renaming_middleware(tools, context)

    cm, app, ext, _calls = await setup(slow)
    changes = ListChanges()

    try:
        async with Client(f"http://127.0.0.1:{app.port}/mcp", mode="legacy", message_handler=changes) as client:
            await ext.sync(tab(1, tools=[tool("gt_usr", "gets user")]))
            await eventually(lambda: app.core.registry.tab(1))
            assert app.core.registry.counts()["tools"] == 0  # never the cryptic name first
            release.set()
            await eventually(lambda: app.core.tool("get_user"))
            # Told of the enhanced listing itself, not only of the earlier withheld one.
            await changes.until_listed(client, listed("people"))
    finally:
        await teardown(cm, ext)


@pytest.mark.parametrize("failure", ["raise", "timeout", "none"])
async def test_a_failing_middleware_keeps_the_page_tools(failure):
    async def broken(tools, context):
        if failure == "raise":
            raise RuntimeError("boom")
        if failure == "timeout":
            await asyncio.sleep(10)
        return None

    cm, app, ext, _calls = await setup(broken, timeout_s=0.3)
    try:
        await ext.sync(tab(1, tools=[tool("gt_usr", "gets user")]))
        await eventually(lambda: app.core.tool("gt_usr"), timeout=5)
    finally:
        await teardown(cm, ext)


async def test_lazy_mode_waits_for_the_first_request():
    seen: list[str] = []

    async def counting(tools, context):
        seen.append(context["source"])
        return await renaming_middleware(tools, context)

    cm, app, ext, _calls = await setup(counting, mode="lazy")
    try:
        await ext.sync(tab(1, url="https://lazy.test/x", tools=[tool("gt_usr", "gets user")]))
        await eventually(lambda: app.core.registry.tab(1))
        assert not app.core.mediation_scheduled  # lazy: nothing armed until a request needs the tools
        assert seen == []
        async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
            assert "people" in names(await client.list_tools())
        assert seen == ["lazy.test"]
        # The same tools again: served from what the middleware said, no second call.
        await ext.send({"type": "tab.update", "tab": tab(1, url="https://lazy.test/x", tools=[tool("gt_usr", "gets user")],
                                                          title="changed title")})
        async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
            assert "people" in names(await client.list_tools(cache_mode="bypass"))
        assert seen == ["lazy.test"]
    finally:
        await teardown(cm, ext)


async def test_pages_cannot_claim_bridge_only_fields():
    cm, app, ext, calls = await setup(None)
    try:
        claims = {"pageName": "delete_everything", "argumentMap": {"a": "b"}}
        framed = {"frameId": 2, "origin": "https://w.test", "tools": [tool("framed", "x", **claims)]}
        await ext.sync(tab(1, tools=[tool("harmless", "x", **claims)], frames=[framed]))
        await eventually(lambda: app.core.tool("harmless") and app.core.tool("framed"))
        async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
            await client.call_tool("harmless", {})
            await client.call_tool("framed", {})
        assert [c["tool"] for c in calls] == ["harmless", "framed"]  # a frame may not claim them either
    finally:
        await teardown(cm, ext)


async def test_the_real_mediator_from_the_config_section():
    config = make_config(mediator={"enabled": True, "provider": None, "grouping_threshold": 10, "cache": False})
    async with running_bridge(config) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        cryptic = json.loads(CRYPTIC.read_text())
        await ext.sync(tab(1, url="https://cryptic.test/", tools=cryptic))
        await eventually(lambda: app.core.registry.tab(1))
        async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:  # lazy (the default): the first
            listed = await client.list_tools()                           # request starts enhancement
        assert "get_user" in " ".join(t.description or "" for t in listed.tools)
        assert app.core.registry.counts()["tools"] == len(cryptic)
        entries = list(app.core.registry.tool_entries())
        renamed = [e for e in entries if e.tool.page_name]
        assert renamed, "the rules should expand some cryptic names"
        assert all(e.tool.enhancement and e.tool.enhancement["enhancedBy"] for e in entries)
        assert app.core.registry.counts()["categories"] >= 2  # more than grouping_threshold tools
        await ext.close()


def test_enabling_the_mediator_with_a_bad_section_is_a_config_error():
    with pytest.raises(ConfigError, match="mediator"):
        load_mediator({"provider": "nonsense"})
