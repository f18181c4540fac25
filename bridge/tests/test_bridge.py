"""The bridge over real sockets: a scripted extension on the WebSocket, official MCP clients on /mcp."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import struct
import termios
from typing import Any

import httpx
import pytest
import websockets
from mcp import Client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from tabmcp.control_key import control_headers
from tabmcp.core.listing_json import surface_of
from tabmcp.core.telemetry import TELEMETRY_TOOLS
from tabmcp.server.app import running_bridge
from tabmcp.server.stdio import stdio_transport
from tabmcp.testing import ListChanges, listed, unlisted

from .conftest import eventually, make_config
from .helpers import ORIGIN, ScriptedExtension, tab, tool

F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def mcp_url(bridge) -> str:
    return f"http://127.0.0.1:{bridge.port}/mcp"


def names(result) -> list[str]:
    """Listed tool names, less the telemetry tools (tested on their own)."""
    return [t.name for t in result.tools if t.name not in TELEMETRY_TOOLS]


def echo_handler(delay: float = 0.0):
    async def handler(msg: dict[str, Any]) -> dict[str, Any]:
        if delay:
            await asyncio.sleep(delay)
        return {"ok": True, "result": {"content": [{"type": "text", "text": f"{msg['tabId']}:{msg['tool']}:"
                                                    f"{json.dumps(msg['arguments'])}"}]}}
    return handler


# -- the extension endpoint ---------------------------------------------------------------


@pytest.mark.parametrize("origin", ["https://evil.test", "http://127.0.0.1:8000", "chrome-extension://" + "a" * 32, None])
async def test_only_our_extension_origin_may_connect(bridge, origin, caplog):
    with pytest.raises(websockets.InvalidStatus) as info:
        await websockets.connect(f"ws://127.0.0.1:{bridge.port}/extension", origin=origin)
    assert info.value.response.status_code == 403
    assert "refused extension WebSocket" in caplog.text


async def test_extra_extension_ids_are_admitted_by_config():
    other = "b" * 32
    async with running_bridge(make_config(server={"extension_ids": [other]})) as app:
        ext = ScriptedExtension(app.port, origin=f"chrome-extension://{other}")
        assert (await ext.connect())["type"] == "welcome"
        await ext.close()


async def test_bad_frames_get_named_errors_and_the_link_survives(bridge):
    ext = ScriptedExtension(bridge.port)
    await ext.connect(hello=False)
    await ext.send({"type": "tabs.sync", "tabs": []})
    assert (await ext.wait_for(lambda m: m["type"] == "error"))["code"] == "NOT_READY"
    assert (await ext.hello())["type"] == "welcome"
    for frame, code in [("{oops", "MALFORMED_MESSAGE"), ('{"type": "warp"}', "UNKNOWN_TYPE"),
                        ('{"type": "tab.closed", "tabId": "x"}', "MALFORMED_MESSAGE"), ("[]", "MALFORMED_MESSAGE")]:
        await ext.send(frame)
        err = await ext.wait_for(lambda m: m["type"] == "error")
        assert err["code"] == code
    await ext.sync(tab(1, tools=[tool("still_works")]))
    await eventually(lambda: bridge.core.tool("still_works"))
    assert bridge.core.protocol_errors == 5
    await ext.close()


async def test_protocol_mismatch_is_refused_and_closed(bridge):
    ext = ScriptedExtension(bridge.port)
    reply = await ext.connect(protocol=99)
    assert reply["code"] == "PROTOCOL_MISMATCH" and "99" in reply["message"]
    await asyncio.wait_for(ext.ws.wait_closed(), 5)
    assert ext.ws.close_code == 1002
    assert not bridge.core.connected


async def test_token_is_required_when_configured():
    async with running_bridge(make_config(server={"extension_token": "s3cret"})) as app:
        bad = ScriptedExtension(app.port, token="wrong")
        assert (await bad.connect())["code"] == "UNAUTHORIZED"
        await asyncio.wait_for(bad.ws.wait_closed(), 5)
        good = ScriptedExtension(app.port, token="s3cret")
        assert (await good.connect())["type"] == "welcome"
        await good.close()


async def test_invalid_tools_are_reported_back(bridge, extension):
    await extension.sync(tab(1, tools=[tool("ok"), {"name": "no good!", "description": "x"}]))
    err = await extension.wait_for(lambda m: m["type"] == "error")
    assert err["code"] == "INVALID_TOOL" and "no good!" in err["message"] and err["ref"] == "tab:1"
    assert bridge.core.tool("ok")


# -- listing and calling ------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_list_and_call_routes_to_the_right_tab(bridge, extension, mode):
    extension.handler = echo_handler()
    await extension.sync(tab(1, tools=[tool("echo", inputSchema=SCHEMA)]), tab(2, tools=[tool("echo", inputSchema=SCHEMA)]))
    await eventually(lambda: bridge.core.registry.counts()["tools"] == 2)
    async with Client(mcp_url(bridge), mode=mode) as client:
        listed = await client.list_tools(cache_mode="bypass")
        assert names(listed) == ["search_tools", "describe_tools", "call_tool", "echo", "t2.echo"]
        first = await client.call_tool("echo", {"text": "hi"})
        second = await client.call_tool("t2.echo", {"text": "yo"})
        via = await client.call_tool("call_tool", {"name": "t2.echo", "arguments": {"text": "x"}})
    assert first.content[0].text == '1:echo:{"text": "hi"}'
    assert second.content[0].text == '2:echo:{"text": "yo"}'
    assert via.content[0].text == '2:echo:{"text": "x"}'
    assert first.meta["tabmcp/source"]["tabId"] == 1


async def test_a_frames_tool_is_called_in_that_frame_and_listed_under_its_origin(bridge, extension):
    extension.handler = echo_handler()
    framed = {"frameId": 5, "origin": "https://maps.test", "url": "https://maps.test/embed", "documentId": "fd-5",
              "tools": [tool("echo", inputSchema=SCHEMA)]}
    await extension.sync(tab(1, url="https://shop.test/", tools=[tool("echo", inputSchema=SCHEMA)], frames=[framed]))
    await eventually(lambda: bridge.core.registry.counts()["tools"] == 2)
    async with Client(mcp_url(bridge)) as client:
        listed = {t.name: t for t in (await client.list_tools(cache_mode="bypass")).tools}
        assert listed["t1f5.echo"].meta["tabmcp/source"] == {
            "tabId": 1, "frameId": 5, "origin": "https://maps.test", "url": "https://maps.test/embed"}
        assert "https://maps.test" in listed["t1f5.echo"].description
        await client.call_tool("t1f5.echo", {"text": "in the frame"})
        await client.call_tool("echo", {"text": "on top"})
    starts = [m for m in extension.received if m["type"] == "call.start"]
    assert [(m["tabId"], m.get("frameId"), m["documentId"]) for m in starts] == [(1, 5, "fd-5"), (1, None, "doc-1")]


async def test_invalid_arguments_never_reach_the_page(bridge, extension):
    extension.handler = echo_handler()
    await extension.sync(tab(1, tools=[tool("echo", inputSchema=SCHEMA)]))
    await eventually(lambda: bridge.core.tool("echo"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("echo", {"text": 5})
    assert result.is_error
    assert result.structured_content["error"]["code"] == "VALIDATION_ERROR"
    assert result.structured_content["error"]["field"] == "text"
    assert not [m for m in extension.received if m["type"] == "call.start"]


async def test_unknown_tool_suggests_close_names(bridge, extension):
    await extension.sync(tab(1, tools=[tool("create_user")]))
    await eventually(lambda: bridge.core.tool("create_user"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("creat_user", {})
    err = result.structured_content["error"]
    assert err["code"] == "TOOL_NOT_FOUND" and err["closest"][0] == "create_user"


async def test_page_errors_keep_the_page_message(bridge, extension):
    async def fail(msg):
        return {"ok": False, "error": {"code": "PAGE_ERROR", "message": "No user with id 999"}}

    extension.handler = fail
    await extension.sync(tab(1, tools=[tool("get_user")]))
    await eventually(lambda: bridge.core.tool("get_user"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("get_user", {})
    assert result.is_error
    assert result.structured_content["error"] == {"code": "PAGE_ERROR", "message": "No user with id 999"}


async def test_timeout_cancels_in_the_page():
    async with running_bridge(make_config(calls={"timeout_s": 0.3})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()

        async def never(msg):
            return None

        ext.handler = never
        await ext.sync(tab(1, tools=[tool("hang")]))
        await eventually(lambda: app.core.tool("hang"))
        async with Client(mcp_url(app)) as client:
            result = await client.call_tool("hang", {})
        assert result.structured_content["error"]["code"] == "TIMEOUT"
        start = next(m for m in ext.received if m["type"] == "call.start")
        cancel = await ext.wait_for(lambda m: m["type"] == "call.cancel")
        assert cancel["callId"] == start["callId"] and cancel["reason"] == "timeout"
        assert len(app.core.calls) == 0
        await ext.close()


async def test_tab_closed_during_a_call(bridge, extension):
    async def close_tab(msg):
        await extension.send({"type": "tab.closed", "tabId": msg["tabId"]})
        return None

    extension.handler = close_tab
    await extension.sync(tab(4, tools=[tool("slow")]))
    await eventually(lambda: bridge.core.tool("slow"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("slow", {})
    assert result.structured_content["error"]["code"] == "TAB_CLOSED"
    assert bridge.core.tool("slow") is None


async def test_navigation_during_a_call(bridge, extension):
    async def navigate(msg):
        await extension.send({"type": "tab.update", "tab": tab(4, documentId="doc-new")})
        return None

    extension.handler = navigate
    await extension.sync(tab(4, tools=[tool("slow")]))
    await eventually(lambda: bridge.core.tool("slow"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("slow", {})
    assert result.structured_content["error"]["code"] == "TAB_NAVIGATED"


async def test_disconnect_mid_call_then_grace_then_resync(bridge, extension):
    async def drop(msg):
        await extension.ws.close()
        return None

    extension.handler = drop
    await extension.sync(tab(1, tools=[tool("a")]))
    await eventually(lambda: bridge.core.tool("a"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("a", {})
        assert result.structured_content["error"]["code"] == "EXTENSION_DISCONNECTED"
        # Tabs survive the grace period (0.2 s in tests), then go.
        await eventually(lambda: bridge.core.registry.counts()["tools"] == 0)
        again = ScriptedExtension(bridge.port)
        await again.connect()
        again.handler = echo_handler()
        await again.sync(tab(1, tools=[tool("a")]))
        await eventually(lambda: bridge.core.tool("a"))
        ok = await client.call_tool("a", {})
        assert not ok.is_error and ok.content[0].text == "1:a:{}"
        await again.close()


async def test_calls_fail_fast_without_an_extension():
    # The extension is gone but its tabs are kept for a reconnect (a long grace period): a call
    # of a kept tool answers at once that nobody can run it, never waits for its timeout.
    async with running_bridge(make_config(server={"reconnect_grace_s": 60}, calls={"timeout_s": 120})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        await ext.sync(tab(1, tools=[tool("a")]))
        await eventually(lambda: app.core.tool("a"))
        await ext.close()
        await eventually(lambda: not app.core.connected)
        assert app.core.tool("a") is not None  # kept through the grace period
        async with Client(mcp_url(app)) as client:
            result = await client.call_tool("a", {})
    assert result.structured_content["error"]["code"] == "EXTENSION_DISCONNECTED"


async def test_client_cancellation_reaches_the_page(bridge, extension):
    started = asyncio.Event()

    async def slow(msg):
        started.set()
        await asyncio.sleep(30)
        return None

    extension.handler = slow
    await extension.sync(tab(1, tools=[tool("slow")]))
    await eventually(lambda: bridge.core.tool("slow"))
    async with Client(mcp_url(bridge), mode="legacy") as client:
        task = asyncio.create_task(client.call_tool("slow", {}))
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        cancel = await extension.wait_for(lambda m: m["type"] == "call.cancel")
        assert "cancel" in cancel["reason"]
    await eventually(lambda: len(bridge.core.calls) == 0)


# -- categories and change delivery ----------------------------------------------------------


def category_tab(tab_id: int = 1) -> dict[str, Any]:
    return tab(tab_id, tools=[tool("list_users"), tool("create_user", inputSchema=SCHEMA), tool("ping")],
               categories=[{"name": "users", "description": "User management", "tools": ["list_users", "create_user"]}])


async def test_category_expansion_on_a_legacy_connection_grows_its_listing(bridge, extension):
    await extension.sync(category_tab())
    await eventually(lambda: bridge.core.tool("users"))
    changes = ListChanges()

    async with Client(mcp_url(bridge), mode="legacy", message_handler=changes) as client:
        assert names(await client.list_tools()) == ["search_tools", "describe_tools", "call_tool", "users", "ping"]
        result = await client.call_tool("users", {})
        assert [t["name"] for t in result.structured_content["tools"]] == ["list_users", "create_user"]
        await eventually(lambda: changes.expanded == ["users"])
        assert names(await client.list_tools()) == [
            "search_tools", "describe_tools", "call_tool", "users", "list_users", "create_user", "ping"]
        # Another legacy client has not expanded anything.
        async with Client(mcp_url(bridge), mode="legacy") as other:
            assert names(await other.list_tools()) == ["search_tools", "describe_tools", "call_tool", "users", "ping"]


async def test_category_expansion_on_2026_connections_leaves_the_listing_alone(bridge, extension):
    extension.handler = echo_handler()
    await extension.sync(category_tab())
    await eventually(lambda: bridge.core.tool("users"))
    async with Client(mcp_url(bridge)) as client:
        assert client.protocol_version == "2026-07-28"
        before = await client.list_tools(cache_mode="bypass")
        assert before.ttl_ms == bridge.config.mcp.tools_ttl_ms
        result = await client.call_tool("users", {})
        assert "call_tool" in result.content[0].text
        after = await client.list_tools(cache_mode="bypass")
        assert names(after) == names(before)
        member = await client.call_tool("call_tool", {"name": "create_user", "arguments": {"text": "Ada"}})
        assert member.content[0].text == '1:create_user:{"text": "Ada"}'


async def test_page_changes_notify_legacy_clients(bridge, extension):
    changes = ListChanges()

    async with Client(mcp_url(bridge), mode="legacy", message_handler=changes) as client:
        await client.list_tools()
        await extension.sync(tab(1, tools=[tool("a")]))
        await changes.until_listed(client, listed("a"))
        await extension.send({"type": "tab.closed", "tabId": 1})
        await changes.until_listed(client, unlisted("a"))


async def test_page_changes_reach_2026_listen_streams(bridge, extension):
    async with Client(mcp_url(bridge)) as client:
        first = await client.list_tools()
        async with client.listen(tools_list_changed=True) as sub:
            await extension.sync(tab(1, tools=[tool("fresh")]))
            event = await asyncio.wait_for(anext(aiter(sub)), 5)
            assert type(event).__name__ == "ToolsListChanged"
        # The notification evicted the cached listing: a plain list_tools sees the change.
        after = await client.list_tools()
        assert "fresh" in names(after) and "fresh" not in names(first)


async def test_a_page_change_renders_no_2026_listing_while_no_listen_stream_is_open(bridge, extension):
    # The 2026 listing's digest (for subscriptions/listen) rendered every page tool on the loop at
    # every change, for no one: with five 4 MB tabs, most of the loop's work (bench/hostile.py).
    modern = surface_of(max(MODERN_PROTOCOL_VERSIONS))

    def modern_arrays() -> int:
        return sum(1 for key in bridge.core.listing_renderer._arrays if key[2] == modern)

    changes = ListChanges()
    async with Client(mcp_url(bridge), mode="legacy", message_handler=changes) as client:
        await client.list_tools()
        assert modern_arrays() == 0
        await extension.sync(tab(1, tools=[tool("a")]))
        await changes.until_listed(client, listed("a"))
        assert modern_arrays() == 0
    async with Client(mcp_url(bridge)) as client, client.listen(tools_list_changed=True) as sub:
        await extension.send({"type": "tab.update", "tab": tab(1, tools=[tool("a"), tool("b")])})
        event = await asyncio.wait_for(anext(aiter(sub)), 5)  # a stream open: told, as ever
        assert type(event).__name__ == "ToolsListChanged"


async def test_a_burst_of_changes_ends_with_a_notification_of_its_last_state(bridge, extension):
    changes = ListChanges()
    async with Client(mcp_url(bridge), mode="legacy", message_handler=changes) as client:
        await client.list_tools()
        for i in range(30):
            await extension.send({"type": "tab.update", "tab": tab(1, tools=[tool(f"t{j}") for j in range(i + 1)])})
        await changes.until_listed(client, listed("t29"))
    # How many notifications a burst costs is a timing rule, tested alone in test_coalesce.py.


async def test_describe_tools(bridge, extension):
    await extension.sync(category_tab())
    await eventually(lambda: bridge.core.tool("users"))
    async with Client(mcp_url(bridge)) as client:
        result = await client.call_tool("describe_tools", {"tools": ["create_user", "nope"]})
    assert result.structured_content["tools"][0]["inputSchema"] == SCHEMA
    assert result.structured_content["notFound"] == ["nope"]


# -- HTTP hygiene ---------------------------------------------------------------------------


async def test_mcp_endpoint_refuses_browser_origins_and_foreign_hosts(bridge):
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient() as http:
        evil = await http.post(mcp_url(bridge), json=body, headers={**headers, "origin": "https://evil.test"})
        rebinding = await http.post(mcp_url(bridge), json=body, headers={**headers, "host": "evil.test"})
        health = await http.get(f"http://127.0.0.1:{bridge.port}/health", headers=control_headers())
        health_rebinding = await http.get(f"http://127.0.0.1:{bridge.port}/health", headers={"host": "evil.test"})
    assert evil.status_code == 403
    assert rebinding.status_code == 421
    assert health.status_code == 200 and health.json()["extension"]["connected"] is False
    assert health_rebinding.status_code == 421


async def test_a_request_with_two_host_headers_is_refused(bridge):
    """A loopback Host beside a foreign one must not pass a check that reads one value."""
    port = bridge.port
    for path in ("/mcp", "/health"):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.test\r\n"
                     "Connection: close\r\n\r\n".encode())
        status = (await asyncio.wait_for(reader.readline(), 10)).decode()
        writer.close()
        assert status.split()[1] == "400", (path, status)
    with pytest.raises(websockets.InvalidStatus):
        async with websockets.connect(f"ws://127.0.0.1:{port}/extension",
                                      additional_headers={"Host": "evil.test"}, origin=ORIGIN):
            pass


async def test_mcp_bearer_token_when_configured(tmp_path):
    import os
    import subprocess
    import sys

    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with running_bridge(make_config(server={"mcp_token": "t0ken"})) as app:
        url = mcp_url(app)
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient() as http:
            refused = await http.post(url, json=body, headers=headers)
            wrong = await http.post(url, json=body, headers={**headers, "authorization": "Bearer nope"})
            listings = await http.get(f"http://127.0.0.1:{app.port}/api/listings")
        assert refused.status_code == wrong.status_code == listings.status_code == 401
        transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"Authorization": "Bearer t0ken"}))
        async with Client(transport) as client:
            assert "call_tool" in names(await client.list_tools())
        config = tmp_path / "c.toml"
        config.write_text('[server]\nmcp_token = "t0ken"\n')
        out = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "tabmcp.cli", "tools", "--port", str(app.port)],
            capture_output=True, text=True, env={**os.environ, "TABMCP_CONFIG": str(config)}, timeout=60,
        )
        assert out.returncode == 0, out.stderr
        assert "call_tool" in out.stdout


async def test_closed_tabs_telemetry_is_forgotten_beyond_the_last_ten(bridge, extension):
    from tabmcp.server.telemetry import KEEP_CLOSED_TABS

    for tab_id in range(1, 16):
        await extension.send({"type": "tab.update", "tab": tab(tab_id)})
        await extension.send({"type": "telemetry", "tabId": tab_id, "url": f"http://site{tab_id}.test/",
                              "events": [{"kind": "console", "ts": 1.0, "level": "log", "args": ["hi"]}]})
    await eventually(lambda: bridge.core.telemetry.counts().logs == 15)
    for tab_id in range(1, 16):
        await extension.send({"type": "tab.closed", "tabId": tab_id})
    await eventually(lambda: not bridge.core.registry.tabs)
    # The ten most recently closed tabs keep their data (an agent may ask what went wrong there).
    await eventually(lambda: bridge.core.telemetry.counts().logs == KEEP_CLOSED_TABS)


async def test_a_page_query_ends_at_once_when_the_extension_goes_away(bridge):
    """Page queries used to wait out their 15 s; now they end like calls and approvals."""
    ext = ScriptedExtension(bridge.port)
    await ext.connect()
    await ext.sync(tab(1, tools=[tool("echo")]))
    await eventually(lambda: bridge.core.registry.counts()["tools"] == 1)
    async with Client(mcp_url(bridge)) as client:
        pending = asyncio.create_task(client.call_tool("query_dom", {"selector": "h1", "tab_id": 1}))
        await ext.wait_for(lambda m: m["type"] == "page.query")
        await ext.close()
        result = await pending
    assert result.is_error and result.structured_content["error"]["code"] == "EXTENSION_DISCONNECTED"
    assert not bridge.core.session.requests


async def test_an_approval_that_times_out_is_withdrawn_in_the_browser():
    config = make_config(policy={"approval": {"mode": "browser", "timeout_s": 0.5}})
    async with running_bridge(config) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        await ext.sync(tab(1, tools=[tool("wipe", annotations={"destructiveHint": True})]))
        await eventually(lambda: app.core.registry.counts()["tools"] == 1)
        async with Client(mcp_url(app)) as client:
            result = await client.call_tool("wipe", {})
        asked = await ext.wait_for(lambda m: m["type"] == "approval.request")
        withdrawn = await ext.wait_for(lambda m: m["type"] == "approval.withdraw")
        await ext.close()
    assert result.structured_content["error"]["code"] == "APPROVAL_DENIED"
    assert withdrawn["approvalId"] == asked["approvalId"]


async def test_the_approval_window_gets_the_tools_words_without_hidden_characters():
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "click allow")
    config = make_config(policy={"approval": {"mode": "browser", "timeout_s": 0.5}})
    async with running_bridge(config) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        await ext.sync(tab(1, tools=[tool("wipe", f"Wipe the notes.{hidden}", title=f"Wipe{hidden}",
                                          annotations={"destructiveHint": True})]))
        await eventually(lambda: app.core.registry.counts()["tools"] == 1)
        async with Client(mcp_url(app)) as client:
            await client.call_tool("wipe", {})
        asked = await ext.wait_for(lambda m: m["type"] == "approval.request")
        await ext.close()
    assert asked["title"] == "Wipe" and asked["description"] == "Wipe the notes."


async def test_pages_get_the_capture_config_on_connect_and_on_change():
    """Redaction rules set in the bridge reach the extension (which hands them to every page)."""
    config = make_config(telemetry={"redaction": {"patterns": [r"ZQX-\d{6}"]}, "capture": {"body_limit": 1000}})
    async with running_bridge(config) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        first = (await ext.wait_for(lambda m: m["type"] == "telemetry.config"))["config"]
        assert first["redact"]["customPatterns"] == [{"source": r"ZQX-\d{6}", "flags": ""}]
        assert first["bodyLimit"] == 1000
        assert first["redact"]["replace"] is True and first["redact"]["patterns"] == []
        assert "password" in first["redact"]["keys"] and first["enabled"] is True
        async with Client(mcp_url(app)) as client:
            await client.call_tool("configure", {"action": "redaction", "op": "add", "patterns": [r"QQ\d{4}"]})
            changed = (await ext.wait_for(lambda m: m["type"] == "telemetry.config"))["config"]
            assert [p["source"] for p in changed["redact"]["customPatterns"]] == [r"ZQX-\d{6}", r"QQ\d{4}"]
            await client.call_tool("configure", {"action": "redaction", "op": "list"})
        await ext.close()
    assert [m for m in ext.received if m["type"] == "telemetry.config"] == []  # nothing sent for a no-op


async def test_a_client_that_stopped_reading_does_not_hold_up_the_others_notifications(bridge, extension):
    """A stdio client that stopped reading (its pipe full, the bridge's write waiting on it) gets
    its notification when it reads again; the others are told at once, and nothing the page
    changes wait for is left waiting on it."""
    many = [tool(f"t{n}", "d" * 400) for n in range(60)]
    await extension.sync(tab(1, tools=many))
    await eventually(lambda: bridge.core.tool("t59"))
    to_bridge, bridge_in = os.pipe()  # the stuck client writes bridge_in, never reads bridge_out
    client_out, bridge_out = os.pipe()
    fcntl.fcntl(bridge_out, F_SETPIPE_SZ, 4096)

    async def serve_stdio() -> None:
        async with stdio_transport((to_bridge, bridge_out)) as (read, write):
            await bridge.mcp.run(read, write, bridge.mcp.create_initialization_options())

    stuck = asyncio.create_task(serve_stdio())
    lines = os.fdopen(client_out, "rb", buffering=0)

    def ask(n: int, method: str, params: dict[str, Any] | None = None) -> None:
        message = {"jsonrpc": "2.0", "method": method, **({"id": n} if n else {}), "params": params or {}}
        os.write(bridge_in, json.dumps(message).encode() + b"\n")

    ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "stuck", "version": "1"}})
    assert json.loads(await asyncio.to_thread(lines.readline))["id"] == 1
    ask(0, "notifications/initialized")
    for n in range(2, 42):  # answers it will not read: the pipe fills, the bridge's write waits
        ask(n, "tools/list")
    await eventually(lambda: _unread(client_out) >= 4096)
    changes = ListChanges()
    try:
        async with Client(mcp_url(bridge), mode="legacy", message_handler=changes) as client:
            await client.list_tools()
            for n in range(3):  # each change is news to both clients
                await extension.send({"type": "tab.update", "tab": tab(1, tools=[*many, tool(f"new{n}")])})
                await changes.until_listed(client, listed(f"new{n}"))
            await eventually(lambda: not bridge.notifier.pending)  # nothing left waiting on the stuck client
        newest = bridge.notifier.revision

        def told() -> list[int]:  # the stuck client reads again: its answers, then what it was told
            revisions: list[int] = []
            while not revisions or revisions[-1] < newest:
                message = json.loads(lines.readline())
                if message.get("method") == "notifications/tools/list_changed":
                    revisions.append(message["params"]["_meta"]["tabmcp/revision"])
            return revisions

        revisions = await asyncio.wait_for(asyncio.to_thread(told), 10)
        assert revisions[-1] == newest and len(revisions) <= 2  # the one it had not taken, then the newest
    finally:
        os.close(bridge_in)  # the stuck client goes away
        await asyncio.wait_for(asyncio.gather(stuck, return_exceptions=True), 10)
        for fd in (to_bridge, bridge_out):  # (a read still waiting on the pipe ends)
            os.close(fd)
        lines.close()


def _unread(fd: int) -> int:
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
