"""A page's own `message` listeners see nothing of tabmcp ("Do no harm", README).

The page agent, the forms agent, the telemetry capture and the content script talk through
window events of their own and private ports, never window.postMessage: a page that logs, forwards
or answers every `message` (analytics, iframe bridges, postMessage RPC libraries) hears with the
extension exactly what it hears without it. e2e/pages/quiet.html records every `message` event
(data, origin, ports; capturing, bubbling and `onmessage`), and every event dispatched on the
window through its (wrapped) `dispatchEvent`, while its tools register and change,
a tool is called, telemetry flows, a live page query runs and a form is used as a tool; a plain
Chromium with the same switches and no extension loads the same page and does the same page-side
steps. Both WebMCP flavours (``env``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp import Client
from playwright.async_api import Page

from .conftest import Env, eventually, other_bridge
from .test_untrusted import answer_in_window

PAGE = "quiet.html"
WEBMCP_EVENTS = {"toolactivated", "toolcancel", "toolchange", "statechange"}
"""The draft's events, which the page's WebMCP fires at the window (our polyfill in polyfill mode)."""


async def heard(page: Page, count: int) -> list[dict[str, Any]]:
    """What the page's `message` listeners recorded, once its own `count` messages arrived (each
    heard three times: capturing, bubbling, onmessage)."""
    await page.wait_for_function(
        "(n) => window.heard.filter((h) => h.data.includes('\"own\"')).length >= 3 * n", arg=count, timeout=20_000)
    return await page.evaluate("() => window.heard")


async def observed(agent: Client, tab_id: int, text: str) -> bool:
    result = await agent.call_tool("observe", {"what": "logs", "tab_id": tab_id})
    return text in str(result.structured_content or result.content)


async def test_the_pages_message_listeners_hear_nothing_of_tabmcp(env: Env, page_closer, plain):
    # Without the extension: the page's own two messages, nothing else.
    context = await plain(env.flavour)
    bare = await context.new_page()
    try:
        await bare.goto(env.pages_url + PAGE)
        await bare.wait_for_function("() => window.ready")
        await bare.evaluate("() => window.change()")
        without = await heard(bare, 2)
        dispatched = await bare.evaluate("() => window.dispatched")
    finally:
        await bare.close()
    assert [h["phase"] for h in without] == ["capture", "bubble", "onmessage"] * 2

    async with other_bridge(env, disclosure={"profile": "passthrough"},
                            policy={"allow_writes": True, "approval": {"timeout_s": 60}}) as bridge:
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + PAGE)
        origin = env.pages_url.rstrip("/")

        def entry(name: str) -> Any:
            return next((e for e in bridge.core.registry.tool_entries()
                         if e.tool.name == name and e.tab.url == page.url), None)

        echo = await eventually(lambda: entry("quiet_echo"), timeout=20)
        tab_id = echo.tab.tab_id
        bridge.core.set_forms_as_tools(origin, True)  # the person's switch: the page's form is a tool
        try:
            form = await eventually(lambda: next((e for e in bridge.core.registry.tool_entries()
                                                  if e.tool.page_form and e.tab.url == page.url), None), timeout=20)
            async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as agent:
                # A call (the page's own console.log rides telemetry), a change of tools, a live query.
                result = await agent.call_tool(echo.public_name, {"text": "hi"})
                assert not result.is_error, result.content
                await page.evaluate("() => window.change()")
                await eventually(lambda: entry("quiet_more"), timeout=20)
                await eventually(lambda: observed(agent, tab_id, "the quiet page changed its tools"), timeout=20)
                dom = await agent.call_tool("query_dom", {"selector": "h1", "tab_id": tab_id})
                assert not dom.is_error, dom.content
                # The form, used as a tool (the person approves it in the extension's window).
                call = asyncio.create_task(agent.call_tool(form.public_name, {"text": "quiet"}))
                await answer_in_window(env, call, allow=True)
                assert not (await call).is_error
                await page.get_by_test_id("status").filter(has_text="Saved: quiet").wait_for()
        finally:
            bridge.core.set_forms_as_tools(origin, False)
        assert await heard(page, 2) == without
        ours = [t for t in await page.evaluate("() => window.dispatched") if t not in WEBMCP_EVENTS]
        assert ours == dispatched == []


async def test_a_page_that_changed_how_arrays_become_json_keeps_its_tools(env: Env, page_closer):
    """Our messages are JSON text now (a structured clone never read toJSON): a page whose library
    gave arrays a toJSON of its own (Prototype.js 1.6) still gets its tools to the agent, and its
    own JSON is as it made it."""
    page = await env.open("legacy-json.html", wait_for_tool="legacy_hello")
    page_closer.append(page)
    async with env.client() as client:
        result = await client.call_tool(await env.wait_tool("legacy_hello", page), {"who": "Ada"})
    assert result.content[0].text == "hello Ada"
    assert await page.evaluate("() => window.arrays()") == '{"list":"[2 items]"}'
