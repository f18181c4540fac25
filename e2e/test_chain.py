"""The whole chain: MCP client → bridge → extension → page → back, in real Chromium."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from typing import Any

import pytest
from playwright.async_api import expect
from tabmcp.core.disclosure import read_category_marker
from tabmcp.core.registry import ToolEntry, origin_of
from tabmcp.core.telemetry import TELEMETRY_TOOLS
from tabmcp.launch.launcher import launch_browser
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.protocol import Ping
from tabmcp.server.app import running_bridge
from tabmcp.testing import ListChanges, listed, missing_from_setup, unlisted

from .conftest import Env, e2e_config, eventually, inspector_bin


def names(result: Any) -> list[str]:
    """Listed tool names, less the telemetry tools (tested on their own)."""
    return [t.name for t in result.tools if t.name not in TELEMETRY_TOOLS]


async def test_categories_collapsed_then_expanded_and_called(env: Env, page_closer):
    # page_title is registered after the category resolved: a snapshot taken while a loaded machine
    # was still registering the category's members (native) lists add_note alone for a moment.
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    async with env.client() as client:
        listed = await client.list_tools(cache_mode="bypass")
        tools = {t.name: t for t in listed.tools}
        assert "notes" in tools and "add_note" not in tools and "page_title" in tools
        # The listed entry is compact (site, member count, purpose); describe_tools has the rest.
        assert read_category_marker(tools["notes"].description or "") == (origin_of(page.url), 3)
        described = await client.call_tool("describe_tools", {"tools": ["notes"]})
        notes = described.structured_content["tools"][0]
        assert notes["_meta"]["tabmcp/category"]["tools"] == ["add_note", "count_notes", "clear_notes"]
        assert notes["_meta"]["tabmcp/source"]["url"] == page.url

        expanded = await client.call_tool("notes", {})
        members = {t["name"]: t for t in expanded.structured_content["tools"]}
        assert set(members) == {"add_note", "count_notes", "clear_notes"}
        assert members["add_note"]["inputSchema"]["required"] == ["text"]

        result = await client.call_tool("call_tool", {"name": "add_note", "arguments": {"text": "from the agent"}})
        assert not result.is_error
        assert result.structured_content == {"added": "from the agent", "count": 1}
    assert await page.get_by_test_id("note").all_inner_texts() == ["from the agent"]


async def test_the_link_batches_both_ways(env: Env, page_closer):
    """The extension says ``batch`` in its hello: calls started together reach it in one frame
    (after the first, which a quiet link writes at once), which it splits, and what it sends in
    one task reaches the bridge in one frame."""
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    link = env.bridge.core.link
    assert link is not None and link.batched
    entries = {e.tool.name: e for e in env.bridge.core.registry.tool_entries() if e.tab.url == page.url}
    entry, wait = entries["page_title"], entries["wait"]
    assert isinstance(entry, ToolEntry) and isinstance(wait, ToolEntry)
    # Started in one turn of the bridge's loop: the first call.start alone, then one frame of four,
    # each run in the page.
    results = await asyncio.gather(*(env.bridge.core.call_tool(entry, {}) for _ in range(5)))
    assert [r["content"][0]["text"] for r in results] == [await page.title()] * 5
    # Two calls in flight, so the link is busy and a turn's messages leave together: three pings
    # in one frame; the worker answers each in the same task: one frame of three pongs.
    session = env.bridge.core.session
    waits = [asyncio.ensure_future(env.bridge.core.call_tool(wait, {"ms": 1500})) for _ in range(2)]
    await eventually(lambda: len(session.requests) >= 2)
    extra = session.messages_received - session.frames_received
    for ts in range(3):
        await link.send(Ping(type="ping", ts=ts))
    await eventually(lambda: session.messages_received - session.frames_received >= extra + 2)
    assert [r["content"][0]["text"] for r in await asyncio.gather(*waits)] == ["waited 1500"] * 2


async def test_a_call_crosses_the_page_as_events_not_window_messages(env: Env, page_closer):
    """Calls and results cross between the content script and the page agent as synchronous
    window events (messages.js CALL_EVENT), not window.postMessage: no task, no structured clone,
    no page 'message' listener woken per call."""
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    await page.evaluate("""() => {
        window.__seen = { messages: [], events: [] };
        addEventListener('message', (e) => {
            if (e.data && e.data.__tabmcp) window.__seen.messages.push(e.data.msg.type);
        });
        for (const name of ['tabmcp-call', 'tabmcp-call-result'])
            addEventListener(name, (e) => window.__seen.events.push([name, JSON.parse(e.detail).type]));
    }""")
    async with env.client() as client:
        result = await client.call_tool(await env.wait_tool("page_title", page), {})
    assert result.content[0].text == await page.title()
    seen = await page.evaluate("window.__seen")
    assert seen["events"] == [["tabmcp-call", "call"], ["tabmcp-call-result", "result"]]
    assert "call" not in seen["messages"] and "result" not in seen["messages"]


async def test_legacy_clients_can_call_expanded_members_by_name(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="add_note")
    page_closer.append(page)
    changes = ListChanges()

    async with env.client(mode="legacy", message_handler=changes) as client:
        assert "count_notes" not in names(await client.list_tools())
        await client.call_tool("notes", {})
        # The client is told that its own listing grew because it opened "notes".
        await eventually(lambda: "notes" in changes.expanded)
        assert "count_notes" in names(await client.list_tools())
        await client.call_tool("add_note", {"text": "one"})
        counted = await client.call_tool("count_notes", {})
    assert counted.structured_content == {"count": 1}


async def test_page_exceptions_arrive_with_their_message(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="fail")
    page_closer.append(page)
    async with env.client() as client:
        result = await client.call_tool("fail", {})
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "PAGE_ERROR"
    assert "the database is on fire" in error["message"]


async def test_tool_changes_reach_the_client(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    changes = ListChanges()

    async with env.client(mode="legacy", message_handler=changes) as client:
        await client.list_tools()
        await page.evaluate("""() => {
            window.extra = new AbortController();
            return document.modelContext.registerTool({name: 'late_tool', description: 'Registered after load.',
              inputSchema: {type: 'object', properties: {}}, execute: () => 'late'}, {signal: window.extra.signal});
        }""")
        # The listing shows the tool, and a notification reporting that listing (not an older
        # one, such as the page load's) reaches the client.
        await changes.until_listed(client, listed("late_tool"))
        assert (await client.call_tool("late_tool", {})).content[0].text == "late"
        await page.evaluate("() => window.extra.abort()")
        await changes.until_listed(client, unlisted("late_tool"))


async def test_closing_a_tab_removes_its_tools_and_notifies(env: Env):
    page = await env.open("basic.html", wait_for_tool="page_title")
    public = await env.wait_tool("page_title", page)
    changes = ListChanges()

    async with env.client(mode="legacy", message_handler=changes) as client:
        assert public in names(await client.list_tools())
        await page.close()
        await changes.until_listed(client, unlisted(public))
    async with env.client() as modern:
        assert public not in names(await modern.list_tools(cache_mode="bypass"))


async def test_cancelling_a_call_cancels_it_in_the_page(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="wait")
    page_closer.append(page)
    async with env.client(mode="legacy") as client:
        task = asyncio.create_task(client.call_tool("wait", {"ms": 20000}))
        await eventually(lambda: len(env.bridge.core.calls) == 1)
        # Once the tool runs in the page (a cancel that overtakes call.start ends it before it starts).
        assert await eventually(lambda: page.evaluate("document.body.dataset.waiting")) == "20000"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert await eventually(lambda: page.evaluate("document.body.dataset.cancelled")) == "wait"


async def test_a_cancelled_call_withdraws_its_approval_question(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="clear_notes")
    page_closer.append(page)

    def approval_window() -> Any:
        return next((p for p in env.browser.context.pages
                     if "approval/approval.html" in p.url and not p.is_closed()), None)

    async with env.client(mode="legacy") as client:  # no elicitation: the extension asks
        task = asyncio.create_task(client.call_tool("call_tool", {"name": "clear_notes"}))
        window = await eventually(approval_window, 15)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    # Long before the question's own 120 s timeout, the window says why it ended, then closes.
    await expect(window.get_by_test_id("approval-ended")).to_contain_text("cancelled", timeout=10_000)
    await eventually(window.is_closed, 20)
    assert not env.bridge.core.session.requests


async def test_spa_route_changes_update_the_tab_and_its_tools(env: Env, page_closer):
    page = await env.open("spa.html", wait_for_tool="list_items")
    page_closer.append(page)
    await page.evaluate("route('/spa/settings')")
    await eventually(lambda: any(
        e.tool.name == "save_settings" and e.tab.url.endswith("/spa/settings")
        for e in env.bridge.core.registry.tool_entries()
    ))
    assert not any(e.tool.name == "list_items" and e.tab.url == page.url for e in env.bridge.core.registry.tool_entries())


async def test_a_page_that_brings_its_own_polyfill(env: Env, page_closer):
    page = await env.open("own-polyfill.html", wait_for_tool="increment")
    page_closer.append(page)
    async with env.client() as client:
        result = await client.call_tool("increment", {"by": 5})
    assert result.content[0].text == "5"
    assert await page.get_by_test_id("counter").inner_text() == "5"


async def test_native_and_polyfill_flavours_are_reported(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    tab = next(t for t in env.bridge.core.registry.tabs.values() if t.url == page.url)
    assert tab.native is (env.flavour == "native")
    # Native Chromium's ModelContext is browser code; the polyfill's is a script class.
    native_class = await page.evaluate(
        "() => !!document.modelContext && /\\[native code\\]/.test(Function.prototype.toString.call(ModelContext))"
    )
    assert native_class is (env.flavour == "native")


async def test_popup_shows_connection_and_counts(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    popup = await env.browser.context.new_page()
    page_closer.append(popup)
    await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
    # "…" until the worker answers the popup (under load, after a few hundred ms)
    await expect(popup.get_by_test_id("status")).to_have_text("connected", timeout=10_000)
    row = popup.get_by_test_id("tab").filter(has_text="Basic tools")
    await expect(row.get_by_test_id("tool-count")).to_have_text("6")  # the popup renders live
    await expect(row.get_by_test_id("category-count")).to_have_text("1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_bridge_restart_gets_every_tool_back(pages_url: str):
    port = free_port()
    config = e2e_config(server={"port": port})
    bridge_cm = running_bridge(config)
    bridge = await bridge_cm.__aenter__()
    try:
        async with launch_browser(bridge_url=f"ws://127.0.0.1:{port}/extension", headless=True) as browser:
            page = await browser.context.new_page()
            await page.goto(pages_url + "basic.html")
            await eventually(lambda: bridge.core.registry.counts()["tools"] == 6)
            await bridge_cm.__aexit__(None, None, None)

            # Telemetry captured while no bridge listens cannot be kept, but it is never lost
            # silently: the worker counts it and reports the count with the next batch.
            await page.evaluate("() => { for (let i = 0; i < 20; i++) console.log('while the bridge is down', i); }")
            worker = await browser.worker()

            async def counted() -> bool:
                report = await worker.evaluate("() => tabmcpStatus()")
                return sum(report["telemetryDropped"].get(str(tab), {}).get("console", 0)
                           for tab in [t["tabId"] for t in report["tabs"]]) >= 20

            await eventually(counted, timeout=10)
            bridge_cm = running_bridge(config)
            bridge = await bridge_cm.__aenter__()
            await eventually(lambda: bridge.core.registry.counts()["tools"] == 6, timeout=30)
            async with bridge_client(port) as client:
                result = await client.call_tool("call_tool", {"name": "add_note", "arguments": {"text": "after restart"}})
            assert not result.is_error
            assert await page.get_by_test_id("note").all_inner_texts() == ["after restart"]
            await page.evaluate("() => console.log('the bridge is back')")
            store = bridge.core.telemetry

            def reported() -> dict[str, int] | None:
                tab = next(t.tab_id for t in bridge.core.registry.tabs.values() if t.url == page.url)
                drops = store.buffers.drops(tab, "logs")
                return drops if drops.get("page", 0) >= 20 else None

            assert (await eventually(reported, timeout=10))["page"] >= 20
    finally:
        await bridge_cm.__aexit__(None, None, None)


def bridge_client(port: int) -> Any:
    from mcp import Client

    return Client(f"http://127.0.0.1:{port}/mcp")


async def test_options_page_points_the_extension_at_another_bridge(env: Env, page_closer):
    async with running_bridge(e2e_config()) as other:
        options = await env.browser.context.new_page()
        page_closer.append(options)
        await options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
        await env.browser.add_pairing(f"ws://127.0.0.1:{other.port}/extension")  # paired with it before
        await options.fill("#bridgeUrl", f"127.0.0.1:{other.port}")
        await options.click("button[type=submit]")
        assert await other.core.wait_connected(10)
        stored = await (await env.browser.worker()).evaluate("() => chrome.storage.local.get('bridgeUrl')")
        assert stored["bridgeUrl"] == f"ws://127.0.0.1:{other.port}/extension"
        # Point it back so the rest of the session keeps its bridge.
        await options.fill("#bridgeUrl", f"ws://127.0.0.1:{env.bridge.port}/extension")
        await options.click("button[type=submit]")
        assert await env.bridge.core.wait_connected(10)


async def test_mcp_inspector_cli_lists_and_calls(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("one flavour is enough for an outside client")
    if inspector_bin() is None:
        missing_from_setup("the MCP Inspector (npm package @modelcontextprotocol/inspector) is not installed")
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    base = [inspector_bin(), "--cli", env.mcp_url, "--transport", "http"]

    def run(*extra: str) -> dict[str, Any]:
        out = subprocess.run([*base, *extra], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    listed = await asyncio.to_thread(run, "--method", "tools/list")
    tool_names = [t["name"] for t in listed["tools"]]
    assert {"call_tool", "notes", "page_title"} <= set(tool_names)
    called = await asyncio.to_thread(
        run, "--method", "tools/call", "--tool-name", "call_tool", "--tool-arg", "name=add_note",
        "--tool-arg", 'arguments={"text": "from the inspector"}',
    )
    assert not called.get("isError"), called
    assert await page.get_by_test_id("note").all_inner_texts() == ["from the inspector"]
