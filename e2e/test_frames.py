"""Tools of child frames: a frame offers tools only under its own origin, and only when the top
page allows it (same origin by default; another origin with ``<iframe allow="tools">``)."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import expect
from tabmcp.core.registry import ToolEntry
from tabmcp.packaging.assets import EXTENSION_ID

from .conftest import Env, eventually


def frame_entries(env: Env, tab_url: str) -> dict[str, ToolEntry]:
    """Page name → entry, for tools of child frames of the tab showing ``tab_url``."""
    return {
        e.tool.name: e
        for e in env.bridge.core.registry.tool_entries()
        if e.tab.frame_id and any(t.url == tab_url and e.tab.tab_id == t.tab_id for t in env.bridge.core.registry.tabs.values())
    }


async def frames_seen(env: Env, tab_url: str) -> list[dict[str, Any]]:
    """The extension's own view of the tab's frames (allowed or not), once both have tools."""
    worker = await env.browser.worker()

    async def both() -> list[dict[str, Any]] | None:
        report = await worker.evaluate("() => tabmcpStatus()")
        tab = next((t for t in report["tabs"] if t["url"] == tab_url), None)
        frames = tab["frames"] if tab else []
        return frames if len([f for f in frames if f["tools"]]) == 2 else None

    return await eventually(both, timeout=10)


async def test_another_origins_frame_offers_no_tools_unless_the_page_allows_it(env: Env, page_closer):
    page = await env.open("frames.html", wait_for_tool="page_title")
    page_closer.append(page)
    same_origin = env.pages_url.rstrip("/")
    # The same-origin frame registers two tools, each its own snapshot when they come apart (the
    # page paces snapshots, not registrations): wait for both, or the marker below can overtake
    # the frame's second snapshot and the check read the tab between the two.
    await eventually(lambda: {"frame_echo_same", "page_title"} <= set(frame_entries(env, page.url)), timeout=10)
    other = page.frame_locator("#other").locator("body")
    await eventually(lambda: other.get_attribute("data-registered"), timeout=10)
    if env.flavour == "polyfill":
        # The frame registered its tools (no browser policy stops the polyfill): we refuse them.
        assert await other.get_attribute("data-registered") == "yes"
        seen = await frames_seen(env, page.url)
        assert sorted(f["allowed"] for f in seen) == [False, True]
    else:
        # Chromium's own "tools" permission policy refuses the registration itself.
        assert "tools" in (await other.get_attribute("data-registered") or "")
    # A marker registered in the top document after the frames registered theirs: once the bridge
    # has it, the tab's snapshot that carries it would also carry any frame tool let through.
    await page.evaluate("""() => document.modelContext.registerTool({name: 'frames_marker',
        description: 'Registered last.', inputSchema: {type: 'object', properties: {}}, execute: () => 'ok'})""")
    await env.wait_tool("frames_marker", page)
    entries = frame_entries(env, page.url)
    assert set(entries) == {"frame_echo_same", "page_title"}
    assert {e.tab.origin for e in entries.values()} == {same_origin}
    # Native getTools() in the top document also lists same-origin frames' tools: never as the page's own.
    top = {e.tool.name for e in env.bridge.core.registry.tool_entries() if e.tab.url == page.url and not e.tab.frame_id}
    assert top == {"page_title", "frames_marker"}

    async with env.client() as client:
        tools = {t.name: t for t in (await client.list_tools(cache_mode="bypass")).tools}
        assert not any(name.endswith("frame_echo_other") for name in tools)
        echo = entries["frame_echo_same"]
        assert tools[echo.public_name].meta["tabmcp/source"]["frameId"] == echo.tab.frame_id
        # The frame's page_title does not take the top page's name.
        top_title = await client.call_tool("page_title", {})
        assert top_title.content[0].text == "Frames"
        frame_title = await client.call_tool(entries["page_title"].public_name, {})
        assert frame_title.content[0].text == "frame same"
        assert entries["page_title"].public_name == f"t{echo.tab.tab_id}f{echo.tab.frame_id}.page_title"


async def test_a_granted_frame_offers_its_tools_under_its_own_origin(env: Env, page_closer):
    page = await env.open("frames.html?grant=1", wait_for_tool="page_title")
    page_closer.append(page)
    other_origin = env.pages_url.rstrip("/").replace("127.0.0.1", "localhost")
    await eventually(lambda: "frame_echo_other" in frame_entries(env, page.url), timeout=10)
    entry = frame_entries(env, page.url)["frame_echo_other"]
    assert entry.tab.origin == other_origin and entry.tab.url.startswith(other_origin)

    async with env.client() as client:
        tools = {t.name: t for t in (await client.list_tools(cache_mode="bypass")).tools}
        meta = tools[entry.public_name].meta["tabmcp/source"]
        assert meta["origin"] == other_origin and meta["frameId"] == entry.tab.frame_id
        assert other_origin in tools[entry.public_name].description  # marked with its own origin
        result = await client.call_tool("call_tool", {"name": entry.public_name, "arguments": {"text": "hello frame"}})
        assert not result.is_error, result.content
        assert result.structured_content["origin"] == other_origin
    lines = page.frame_locator("#other").get_by_test_id("line")
    assert await lines.all_inner_texts() == ["hello frame"]
    assert await page.frame_locator("#same").get_by_test_id("line").count() == 0  # the right frame ran it

    # The popup counts the frames' tools apart from the page's own.
    popup = await env.browser.context.new_page()
    page_closer.append(popup)
    await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
    count = popup.get_by_test_id("tab").filter(has_text="Frames").get_by_test_id("tool-count")
    # The popup renders live from the worker's answers: wait for the counts it settles on.
    await expect(count).to_have_text("1 + 4")
    await expect(count).to_have_attribute("title", re.compile(re.escape(f"2 in a frame of {other_origin}")))

    # The frame goes away: its tools go with it, the top page's stay.
    await page.evaluate("() => document.getElementById('other').remove()")
    await eventually(lambda: "frame_echo_other" not in frame_entries(env, page.url), timeout=10)
    assert await env.wait_tool("page_title", page)
