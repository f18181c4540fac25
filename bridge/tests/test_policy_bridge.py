"""Profiles, scope, policy and approvals through the real MCP surface."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from tabmcp.core.telemetry import TELEMETRY_TOOLS
from tabmcp.server.app import running_bridge
from tabmcp.testing import ListChanges, missing_from_setup

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool


def names(result: Any) -> list[str]:
    """Listed tool names, less the telemetry tools (tested on their own)."""
    return [t.name for t in result.tools if t.name not in TELEMETRY_TOOLS]


def ok_handler(calls: list[dict[str, Any]]):
    async def handler(msg: dict[str, Any]) -> dict[str, Any]:
        calls.append(msg)
        return {"ok": True, "result": {"content": [{"type": "text", "text": f"ran {msg['tool']}"}]}}

    return handler


SHOP = [
    tool("get_order", "Look up an order by its number.", annotations={"readOnlyHint": True},
         inputSchema={"type": "object", "properties": {"number": {"type": "integer", "description": "Order number"}},
                      "required": ["number"]}),
    tool("refund_order", "Refund an order to the customer's card.",
         inputSchema={"type": "object", "properties": {"number": {"type": "integer"}}, "required": ["number"]}),
    tool("delete_customer", "Delete a customer account and all their data.", annotations={"destructiveHint": True}),
    tool("approve_payout", "Send the weekly payout to sellers.", scope={"requiresApproval": True}),
    tool("admin_stats", "Numbers for administrators.", annotations={"readOnlyHint": True},
         scope={"states": ["admin-mode"]}),
    tool("edit_page", "Edit the current CMS page.", scope={"routes": ["/cms/*"]}),
    tool("track_parcel", "Where is a parcel now.", annotations={"readOnlyHint": True}, scope={"core": True}),
]
CATS = [{"name": "orders", "description": "Orders", "tools": ["get_order", "refund_order"]}]


async def start(config_sections: dict[str, Any] | None = None):
    cm = running_bridge(make_config(**(config_sections or {})))
    app = await cm.__aenter__()
    ext = ScriptedExtension(app.port)
    await ext.connect()
    calls: list[dict[str, Any]] = []
    ext.handler = ok_handler(calls)
    await ext.sync(tab(1, url="https://shop.test/orders", tools=SHOP, categories=CATS, states=["authenticated"]))
    await eventually(lambda: app.core.tool("get_order"))
    return cm, app, ext, calls


async def stop(cm, ext):
    await ext.close()
    await cm.__aexit__(None, None, None)


def url(app) -> str:
    return f"http://127.0.0.1:{app.port}/mcp"


async def test_writes_disabled_unless_enabled():
    cm, app, ext, calls = await start({"policy": {"allow_writes": False}})
    try:
        async with Client(url(app)) as client:
            assert "refund_order" not in names(await client.list_tools())  # inside the category
            result = await client.call_tool("call_tool", {"name": "refund_order", "arguments": {"number": 5}})
            err = result.structured_content["error"]
            assert err["code"] == "WRITES_DISABLED" and "policy.allow_writes" in err["setting"]
            ok = await client.call_tool("call_tool", {"name": "get_order", "arguments": {"number": 5}})
            assert not ok.is_error
        assert [c["tool"] for c in calls] == ["get_order"]
    finally:
        await stop(cm, ext)


async def test_out_of_scope_by_state_and_route_and_state_change_notifies():
    cm, app, ext, calls = await start()
    changes = ListChanges()

    try:
        async with Client(url(app), mode="legacy", message_handler=changes) as client:
            listed = names(await client.list_tools())
            assert "admin_stats" not in listed and "edit_page" not in listed
            result = await client.call_tool("admin_stats", {})
            assert result.structured_content["error"]["code"] == "OUT_OF_SCOPE"
            assert "admin-mode" in result.structured_content["error"]["message"]
            route = await client.call_tool("edit_page", {})
            assert route.structured_content["error"]["code"] == "OUT_OF_SCOPE"
            await ext.send({"type": "tab.update", "tab": tab(1, url="https://shop.test/cms/home", tools=SHOP,
                                                             categories=CATS, states=["authenticated", "admin-mode"])})
            await changes.until_listed(client, lambda r: {"admin_stats", "edit_page"} <= set(names(r)))
            assert not (await client.call_tool("admin_stats", {})).is_error
        assert {c["tool"] for c in calls} == {"admin_stats"}
    finally:
        await stop(cm, ext)


async def test_read_only_focus_hides_writes_everywhere():
    cm, app, ext, _calls = await start({"policy": {"focus": "read-only", "allow_writes": True}})
    try:
        async with Client(url(app)) as client:
            listed = names(await client.list_tools())
            assert "track_parcel" in listed and "delete_customer" not in listed
            category = await client.call_tool("orders", {})
            assert [t["name"] for t in category.structured_content["tools"]] == ["get_order"]
            found = await client.call_tool("search_tools", {"query": "refund an order"})
            assert "refund_order" not in [t["name"] for t in found.structured_content["tools"]]
            described = await client.call_tool("describe_tools", {"tools": ["refund_order"]})
            assert described.structured_content["notFound"] == ["refund_order"]
            result = await client.call_tool("call_tool", {"name": "refund_order", "arguments": {"number": 1}})
            assert result.structured_content["error"]["code"] == "OUT_OF_SCOPE"
    finally:
        await stop(cm, ext)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("answer", ["accept", "decline"])
async def test_approval_through_mcp_elicitation(mode, answer):
    cm, app, ext, calls = await start()
    asked: list[str] = []

    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=answer)

    try:
        async with Client(url(app), mode=mode, elicitation_callback=elicit) as client:
            result = await client.call_tool("delete_customer", {})
        assert len(asked) == 1 and "delete_customer" in asked[0] and "https://shop.test" in asked[0]
        if answer == "accept":
            assert not result.is_error and [c["tool"] for c in calls] == ["delete_customer"]
        else:
            assert result.structured_content["error"]["code"] == "APPROVAL_DENIED"
            assert calls == []
        kind = "elicitation" if mode == "legacy" else "input_required"
        assert app.core.status()  # still healthy
        handlers_asked = [k for k, v in _approvals(app).asked.items() if v]
        assert handlers_asked == [kind]
    finally:
        await stop(cm, ext)


def _approvals(app):
    handler = app.mcp.get_request_handler("tools/call").handler
    return handler.__self__.approvals


@pytest.mark.parametrize("approve", [True, False])
async def test_approval_in_the_browser_when_the_client_cannot_ask(approve):
    cm, app, ext, calls = await start()

    async def answer() -> None:
        request = await ext.wait_for(lambda m: m["type"] == "approval.request")
        assert request["tool"] == "approve_payout" and request["tabId"] == 1
        await ext.send({"type": "approval.result", "approvalId": request["approvalId"], "approved": approve,
                        "reason": "clicked"})

    try:
        task = asyncio.create_task(answer())
        async with Client(url(app)) as client:
            result = await client.call_tool("approve_payout", {})
        await task
        if approve:
            assert not result.is_error and [c["tool"] for c in calls] == ["approve_payout"]
        else:
            err = result.structured_content["error"]
            assert err["code"] == "APPROVAL_DENIED" and err["channel"] == "browser" and calls == []
    finally:
        await stop(cm, ext)


async def test_approval_times_out_as_denied():
    cm, app, ext, _calls = await start({"policy": {"allow_writes": True, "approval": {"timeout_s": 0.3}}})
    try:
        async with Client(url(app)) as client:
            result = await client.call_tool("approve_payout", {})
        assert result.structured_content["error"]["code"] == "APPROVAL_DENIED"
        assert "0.3s" in result.structured_content["error"]["message"]
    finally:
        await stop(cm, ext)


async def test_forged_request_state_is_not_an_approval():
    cm, app, ext, calls = await start()
    try:
        async with Client(url(app)):
            params = types.CallToolRequestParams(
                name="delete_customer", arguments={},
                input_responses={"tabmcp.approval": types.ElicitResult(action="accept")},
                request_state="e30.AAAA",
            )
            handler = app.mcp.get_request_handler("tools/call").handler

            class Ctx:  # the handler only reads these on this path
                protocol_version = "2026-07-28"
                session = type("S", (), {"client_capabilities": types.ClientCapabilities(
                    elicitation=types.ElicitationCapability())})()
                request_id = 1

            result = await handler(Ctx(), params)
        assert result["resultType"] == "input_required"  # asked again, not approved
        assert calls == []
    finally:
        await stop(cm, ext)


async def test_search_introspect_and_context():
    cm, app, ext, _calls = await start()
    try:
        async with Client(url(app)) as client:
            found = await client.call_tool("search_tools", {"query": "refund a customer order"})
            assert found.structured_content["tools"][0]["name"] == "refund_order"
            first = found.structured_content["tools"][0]
            assert first["category"] == "orders" and first["source"] == "https://shop.test"
            listed = await client.call_tool("search_tools", {"category": "orders"})
            assert {t["name"] for t in listed.structured_content["tools"]} == {"get_order", "refund_order"}
            typo = await client.call_tool("call_tool", {"name": "refnd_order", "arguments": {}})
            assert typo.structured_content["error"]["closest"][0] == "refund_order"
            info = await client.call_tool("introspect", {})
            source = info.structured_content["sources"][0]
            assert source["origin"] == "https://shop.test" and source["states"] == ["authenticated"]
            assert source["categories"] == [{"name": "orders", "description": "Orders", "toolCount": 2}]
            assert info.structured_content["counts"]["hidden"] == 2
            context = await client.call_tool("context", {})
            text = context.content[0].text
            assert "`get_order(number: integer)`" in text and "admin_stats" not in text
    finally:
        await stop(cm, ext)


async def test_meta_and_hybrid_profiles():
    cm, app, ext, _calls = await start({"disclosure": {"profile": "meta"}})
    try:
        async with Client(url(app)) as client:
            assert names(await client.list_tools()) == [
                "introspect", "search_tools", "describe_tools", "call_tool", "context"]
            assert not (await client.call_tool("call_tool", {"name": "get_order", "arguments": {"number": 1}})).is_error
    finally:
        await stop(cm, ext)
    cm, app, ext, _calls = await start({"disclosure": {"profile": "hybrid", "core_from_usage": 1}})
    try:
        async with Client(url(app)) as client:
            listed = names(await client.list_tools(cache_mode="bypass"))
            assert "track_parcel" in listed and "get_order" not in listed  # page-marked core only
            await client.call_tool("call_tool", {"name": "get_order", "arguments": {"number": 1}})
            app.core.usage.flush()
            listed = names(await client.list_tools(cache_mode="bypass"))
            assert "get_order" in listed  # now the most used
    finally:
        await stop(cm, ext)
    cm, app, ext, _calls = await start({"disclosure": {"profile": "hybrid", "core_tools": ["refund_*"]}})
    try:
        async with Client(url(app)) as client:
            listed = names(await client.list_tools())
            assert "refund_order" in listed and "track_parcel" not in listed
    finally:
        await stop(cm, ext)


async def test_tokens_command_reports_every_profile():
    cm, app, ext, _calls = await start()
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tabmcp.cli", "tokens", "--port", str(app.port), "--json",
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        out, err = await proc.communicate()
        assert proc.returncode == 0, err.decode()
        data = json.loads(out)
        assert data["encoding"].startswith("o200k_base")
        by = {p["profile"]: p for p in data["profiles"]}
        assert set(by) == {"passthrough", "categories", "meta", "hybrid"}
        assert by["passthrough"]["saving"] is None
        assert by["meta"]["tokens"] < by["passthrough"]["tokens"]
    finally:
        await stop(cm, ext)


async def test_semantic_search_finds_tools_by_meaning():
    from tabmcp.core.search import semantic_available

    if not semantic_available():
        missing_from_setup("the [semantic] extra is not installed", opted_out="TABMCP_NO_SEMANTIC")
    query = {"query": "reimburse a purchase"}  # no word in common with "Refund an order..."
    cm, app, ext, _calls = await start({"search": {"semantic": False}})
    try:
        async with Client(url(app)) as client:
            keyword_only = await client.call_tool("search_tools", query)
        assert keyword_only.structured_content["tools"] == []
    finally:
        await stop(cm, ext)
    cm, app, ext, _calls = await start()  # semantic ranking is on by default when the model is installed
    try:
        # The tab's tools are embedded in the index's worker thread: wait for that state.
        assert await asyncio.to_thread(app.core.search.wait_embedded, 120)
        async with Client(url(app)) as client:
            found = await client.call_tool("search_tools", query)
        assert found.structured_content["ranking"] == "fused"
        assert "refund_order" in [t["name"] for t in found.structured_content["tools"]][:3]
    finally:
        await stop(cm, ext)
