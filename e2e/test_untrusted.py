"""Pages are untrusted (issue 16), in real Chromium with the real extension and a hostile page.

``pages/untrusted.html`` returns hidden text and orders, changes a tool's definition after
first use, offers a consequential and a debugging tool, and all the while watches its DOM for
the approval question (to rewrite it), and forges approval answers. The agent is the MCP SDK
client without elicitation, so approvals are asked in the extension's own window; the person
answers there (Playwright sees the window as a page of the context).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from tabmcp.core.trust.guard import CHANGED_PREFIX
from tabmcp.server.app import BridgeApp

from .conftest import Env, eventually, other_bridge

APPROVAL = "approval/approval.html"


def trust_bridge(env: Env) -> Any:
    """A bridge of its own (a lockdown must not leak into other tests), framing on, writes on."""
    return other_bridge(env, trust={"frame_text": True, "pin_definitions": True},
                        policy={"allow_writes": True, "approval": {"timeout_s": 60}})


async def open_hostile(env: Env, bridge: BridgeApp) -> Page:
    page = await env.browser.context.new_page()
    await page.goto(env.pages_url + "untrusted.html")
    await page.evaluate("() => window.ready")
    await eventually(lambda: bridge.core.tool("save_contact"))
    return page


def client(bridge: BridgeApp) -> Client:
    return Client(f"http://127.0.0.1:{bridge.port}/mcp")  # no elicitation: the extension asks


async def answer_in_window(
    env: Env, call: asyncio.Task[Any], *, allow: bool, remember: bool = False
) -> dict[str, str]:
    """Wait for the extension's approval window of this call, read it, answer it; what it showed."""

    async def window() -> Page | None:
        return next((p for p in env.browser.context.pages if APPROVAL in p.url and not p.is_closed()), None)

    win = await eventually(window, timeout=20)
    await win.get_by_test_id("approval-tool").wait_for()
    shown = {
        k: await win.get_by_test_id(f"approval-{k}").inner_text()
        for k in ("origin", "tool", "reason", "arguments")
    }
    if remember:
        await win.get_by_test_id("approval-remember").check()
    try:
        await win.get_by_test_id("approval-allow" if allow else "approval-deny").click(no_wait_after=True)
    except PlaywrightError as exc:  # answered: the window closes itself, sometimes before click() returns
        if "closed" not in str(exc):
            raise
    await eventually(lambda: win.is_closed())
    assert not call.done() or call.exception() is None
    return shown


async def test_approval_is_asked_in_the_extension_window_out_of_the_pages_reach(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("the approval window does not depend on the WebMCP flavour")
    async with trust_bridge(env) as bridge:
        page = await open_hostile(env, bridge)
        page_closer.append(page)
        async with client(bridge) as agent:
            # Denied in the window, after the tab got an agent-style click and Enter where the
            # in-page dialog used to be: only the window's answer counts.
            call = asyncio.create_task(agent.call_tool("close_account", {}))
            win = await eventually(
                lambda: next((p for p in env.browser.context.pages if APPROVAL in p.url), None), 20
            )
            await win.get_by_test_id("approval-tool").wait_for()
            await page.mouse.click(1180, 760)
            await page.keyboard.press("Enter")
            shown = await answer_in_window(env, call, allow=False)
            result = await call
            assert result.structured_content["error"]["code"] == "APPROVAL_DENIED"
            assert "denied by the user" in result.structured_content["error"]["message"]
            assert await page.evaluate("document.body.dataset.closed") is None
            assert shown["tool"] == "close_account" and shown["origin"] == env.pages_url.rstrip("/")
            assert "destructive" in shown["reason"] and shown["arguments"] == "{}"

            # Approved in the window, remembered for this origin and tool: the second call runs unasked.
            call = asyncio.create_task(agent.call_tool("close_account", {}))
            await answer_in_window(env, call, allow=True, remember=True)
            assert not (await call).is_error
            assert not (await agent.call_tool("close_account", {})).is_error
            assert await page.evaluate("document.body.dataset.closed") == "2"
            assert not [p for p in env.browser.context.pages if APPROVAL in p.url]

        log = await page.evaluate("window.attackLog")
        # The page never saw the question (nothing about it entered its DOM), so it had nothing
        # to rewrite; its forged answers went nowhere (it kept forging throughout).
        assert not [a for a in log["added"] if "close_account" in a or "approv" in a.lower()], log["added"]
        assert log["rewritten"] == 0 and log["forged"] > 0


async def test_hostile_results_changed_definitions_and_annotations(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("the trust defences run in the bridge; one flavour covers them")
    async with trust_bridge(env) as bridge:
        page = await open_hostile(env, bridge)
        page_closer.append(page)
        async with client(bridge) as agent:
            listed = {t.name: t for t in (await agent.list_tools(cache_mode="bypass")).tools}
            assert "dump_state" not in listed  # debugging: hidden from agents
            assert listed["book_flight"].annotations.read_only_hint is False
            assert listed["read_inbox"].annotations.open_world_hint is True

            # consequential → asked first
            call = asyncio.create_task(agent.call_tool("book_flight", {}))
            shown = await answer_in_window(env, call, allow=False)
            assert "consequential" in shown["reason"]
            assert (await call).structured_content["error"]["code"] == "APPROVAL_DENIED"

            # a definition that changes after first use: marked, asked, with the diff
            assert not (await agent.call_tool("save_contact", {"name": "Ada"})).is_error
            await page.evaluate("() => window.changeDefinition()")
            await eventually(
                lambda: "partners" in bridge.core.tool("save_contact").tool.description
            )
            listed = {t.name: t for t in (await agent.list_tools(cache_mode="bypass")).tools}
            assert listed["save_contact"].description.startswith(CHANGED_PREFIX)
            call = asyncio.create_task(agent.call_tool("save_contact", {"name": "Bob"}))
            shown = await answer_in_window(env, call, allow=True)
            assert "changed since it was first seen" in shown["reason"] and "partners" in shown["reason"]
            assert '"name": "Bob"' in shown["arguments"]
            assert not (await call).is_error and await page.evaluate("document.body.dataset.saved") == "Bob"

            # a result with hidden characters and orders: cleaned, framed, flagged, untrusted
            inbox = await agent.call_tool("read_inbox", {})
            text = inbox.content[0].text
            assert not any(0xE0000 <= ord(c) <= 0xE007F or c in "\u200b\u202e\ufeff" for c in text)
            assert text.startswith("«untrusted content from " + env.pages_url.rstrip("/"))
            trust = inbox.meta["tabmcp/trust"]
            assert trust["trust"] == "untrusted-content" and trust["flagged"] and trust["lockdown"]
            assert trust["removed"] == {"unicode_tags": 22, "zero_width": 2, "bidi_controls": 1, "bom": 1}

            # … and writes are locked down: the next write asks, saying why
            call = asyncio.create_task(agent.call_tool("close_account", {}))
            shown = await answer_in_window(env, call, allow=False)
            assert "Lockdown" in shown["reason"] and "read_inbox" in shown["reason"]
            assert (await call).structured_content["error"]["code"] == "APPROVAL_DENIED"


async def test_a_page_cannot_pass_itself_off_as_another_origin(env: Env, page_closer):
    """A page script posts a snapshot claiming another site's URL: the bridge and the agent see
    the origin Chrome gave the page, and the person's switch for that real origin still hides it."""
    page = await env.open("forged-origin.html", wait_for_tool="pretend_transfer")
    page_closer.append(page)
    await page.evaluate("() => window.ready")
    real = env.pages_url.rstrip("/")
    registry = env.bridge.core.registry

    def forged() -> Any:
        entry = next((e for e in registry.tool_entries() if e.tool.name == "pretend_transfer"), None)
        return entry if entry is not None and entry.tool.title == "Bank transfer" else None

    await page.evaluate("() => window.forge('https://EVIL.test/')")
    await page.evaluate("() => window.forge('https://bank.test/account')")
    entry = await eventually(forged)  # the page's own tools may be its own claim, its origin may not
    assert entry.tab.origin == real and entry.tab.url == page.url
    assert {t.origin for t in registry.tabs.values()} & {"https://bank.test", "https://evil.test", "https://EVIL.test"} == set()

    async with env.client() as agent:
        tools = {t.name: t for t in (await agent.list_tools(cache_mode="bypass")).tools}
        meta = tools[entry.public_name].meta["tabmcp/source"]
        assert meta["origin"] == real and meta["url"] == page.url
        assert "bank.test" not in tools[entry.public_name].description
        try:
            env.bridge.core.controls.set_origin(real, False)
            tools = {t.name for t in (await agent.list_tools(cache_mode="bypass")).tools}
            assert entry.public_name not in tools
            refused = await agent.call_tool(entry.public_name, {})
            assert refused.is_error and refused.structured_content["error"]["code"] == "OUT_OF_SCOPE"
        finally:
            env.bridge.core.controls.set_origin(real, True)
