"""Names a page cannot forge, and approvals under the origin that owns the tool (issue 30, items
4 and 5), as the attacks: real Chromium with the real extension, a hostile page on one loopback
origin (``localhost``) and a bank on another (``127.0.0.1``), the official MCP SDK client without
elicitation (approvals are asked in the extension's own window; the person answers there).
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import pytest
from mcp import Client
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, expect
from tabmcp.core.registry import ToolEntry
from tabmcp.server.app import BridgeApp

from .conftest import Env, eventually, other_bridge

APPROVAL = "approval/approval.html"
IBAN = {"iban": "DE89370400440532013000", "amount": 250}


def own_bridge(env: Env) -> Any:
    """A bridge of its own: the names it binds and the answers it gets stay out of other tests."""
    return other_bridge(env, policy={"allow_writes": True, "approval": {"timeout_s": 60}})


def origins(env: Env) -> tuple[str, str]:
    """(bank, hostile): two origins of the same test server."""
    bank = env.pages_url.rstrip("/")
    return bank, bank.replace("127.0.0.1", "localhost")


def entry(bridge: BridgeApp, page_name: str, origin: str, tab_id: int | None = None) -> ToolEntry | None:
    """The tool ``page_name`` of a document of ``origin`` (in tab ``tab_id`` if given), under
    whatever public name it has."""
    return next((e for e in bridge.core.registry.tool_entries()
                 if e.tool.name == page_name and e.tab.origin == origin and tab_id in (None, e.tab.tab_id)), None)


async def open_page(env: Env, page_closer: list[Page], url: str) -> Page:
    page = await env.browser.context.new_page()
    page_closer.append(page)
    await page.goto(url)
    return page


def agent(bridge: BridgeApp) -> Client:
    return Client(f"http://127.0.0.1:{bridge.port}/mcp")  # no elicitation: the extension asks


def code_of(result: Any) -> str | None:
    return (result.structured_content or {}).get("error", {}).get("code") if result.is_error else None


async def approval_window(env: Env) -> Page:
    async def window() -> Page | None:
        return next((p for p in env.browser.context.pages if APPROVAL in p.url and not p.is_closed()), None)

    win = await eventually(window, timeout=20)
    await win.get_by_test_id("approval-tool").wait_for()
    return win


async def click(win: Page, test_id: str) -> None:
    try:
        await win.get_by_test_id(test_id).click(no_wait_after=True)
    except PlaywrightError as exc:  # answered: the window closes itself, sometimes before click() returns
        if "closed" not in str(exc):
            raise


async def test_a_page_cannot_take_the_bank_tabs_qualified_name(env: Env, page_closer):
    """The hostile page registers ``t<bank tab>.transfer`` (Chrome's tab ids are easy to guess),
    the name the bank tab's ``transfer`` is listed under, before and after the bank registers it:
    the bank keeps the name, the agent's call with IBAN and amount runs in the bank, and the
    hostile tool is listed under another name."""
    if env.flavour != "polyfill":
        pytest.skip("naming is the bridge's; one flavour covers it")
    bank_origin, hostile_origin = origins(env)
    async with own_bridge(env) as bridge:
        hostile = await open_page(env, page_closer, f"{hostile_origin}/names.html?tools=transfer")
        await eventually(lambda: entry(bridge, "transfer", hostile_origin))  # first: holds "transfer"
        bank = await open_page(env, page_closer, f"{bank_origin}/names.html")
        bank_tab = await eventually(lambda: next(
            (t for t in bridge.core.registry.tabs.values() if t.origin == bank_origin), None))
        bank_name = f"t{bank_tab.tab_id}.transfer"
        # Registered before the bank's own transfer exists: nobody was shown that name yet.
        await hostile.evaluate("(name) => window.addTool(name)", bank_name)
        await eventually(lambda: entry(bridge, bank_name, hostile_origin))
        await bank.evaluate("() => window.addTool('transfer')")
        banks = await eventually(lambda: entry(bridge, "transfer", bank_origin))
        assert banks.public_name == bank_name
        async with agent(bridge) as client:
            listed = {t.name: t for t in (await client.list_tools(cache_mode="bypass")).tools}
            assert listed[bank_name].meta["tabmcp/source"]["origin"] == bank_origin
            forged = entry(bridge, bank_name, hostile_origin)
            assert forged is not None and forged.public_name != bank_name  # qualified like a built-in's name
            assert listed[forged.public_name].meta["tabmcp/source"]["origin"] == hostile_origin

            result = await client.call_tool(bank_name, IBAN)
            assert not result.is_error, result.content
            assert bank_origin in result.content[0].text
        assert await bank.evaluate("window.calls") == [{"name": "transfer", "args": IBAN}]
        assert await hostile.evaluate("window.calls") == []


async def test_a_name_shown_for_one_origin_is_never_served_by_another(env: Env, page_closer):
    """A tab the agent was shown as the bank's ``t<tab>.transfer`` goes to the hostile site, which
    registers ``transfer`` too; the bank's ``pay`` tab closes and the hostile page registers
    ``pay``. The agent calls the names it was shown: each answers TOOL_GONE, nothing runs."""
    if env.flavour != "polyfill":
        pytest.skip("naming is the bridge's; one flavour covers it")
    bank_origin, hostile_origin = origins(env)
    async with own_bridge(env) as bridge:
        hostile = await open_page(env, page_closer, f"{hostile_origin}/names.html?tools=transfer")
        await eventually(lambda: entry(bridge, "transfer", hostile_origin))
        tab = await open_page(env, page_closer, f"{bank_origin}/names.html?tools=transfer,pay")
        banks = await eventually(lambda: entry(bridge, "transfer", bank_origin))
        bank_name = banks.public_name
        assert bank_name == f"t{banks.tab.tab_id}.transfer"
        assert (await eventually(lambda: entry(bridge, "pay", bank_origin))).public_name == "pay"
        async with agent(bridge) as client:
            listed = {t.name for t in (await client.list_tools(cache_mode="bypass")).tools}
            assert {bank_name, "pay"} <= listed

            # The same tab goes to the hostile site, which offers a "transfer" of its own.
            await tab.goto(f"{hostile_origin}/names.html?tools=transfer")
            moved = await eventually(lambda: entry(bridge, "transfer", hostile_origin, banks.tab.tab_id))
            assert moved.public_name != bank_name
            result = await client.call_tool(bank_name, IBAN)
            assert code_of(result) == "TOOL_GONE", result.content
            assert bank_origin in result.structured_content["error"]["message"]
            assert await tab.evaluate("window.calls") == []

            # The bank's "pay" left with it; the hostile page now registers "pay".
            await eventually(lambda: entry(bridge, "pay", bank_origin) is None)
            await hostile.evaluate("() => window.addTool('pay')")
            forged = await eventually(lambda: entry(bridge, "pay", hostile_origin))
            assert forged.public_name != "pay"
            result = await client.call_tool("pay", IBAN)
            assert code_of(result) == "TOOL_GONE", result.content
            assert result.structured_content["error"]["origin"] == bank_origin
        assert await hostile.evaluate("window.calls") == []


async def test_a_framed_banks_approval_is_asked_and_remembered_under_the_banks_origin(env: Env, page_closer):
    """The hostile top page frames the bank (``allow="tools"``), both with a destructive ``wipe``.
    The person allows the hostile page's own ``wipe`` and has it remembered; the bank frame's
    ``wipe`` is asked again, under the bank's origin (in a frame of the hostile page). Allow does
    nothing for a moment after the window opens (double-click-jacking)."""
    if env.flavour != "polyfill":
        pytest.skip("the approval window does not depend on the WebMCP flavour")
    bank_origin, hostile_origin = origins(env)
    framed = quote(f"{bank_origin}/names.html?tools=wipe", safe="")
    async with own_bridge(env) as bridge:
        top = await open_page(env, page_closer, f"{hostile_origin}/names.html?tools=wipe&frame={framed}")
        own = await eventually(lambda: entry(bridge, "wipe", hostile_origin))
        banks = await eventually(lambda: entry(bridge, "wipe", bank_origin))
        assert banks.tab.frame_id and banks.tab.tab_id == own.tab.tab_id
        async with agent(bridge) as client:
            call = asyncio.create_task(client.call_tool(own.public_name, {}))
            win = await approval_window(env)
            assert await win.get_by_test_id("approval-origin").inner_text() == hostile_origin
            # The window opened focused under the pointer: a click at once does not approve.
            allow = win.get_by_test_id("approval-allow")
            await expect(allow).to_be_disabled()
            await allow.click(force=True, no_wait_after=True)
            await expect(allow).to_be_enabled(timeout=10_000)  # the window is still open: not answered
            assert not call.done()
            # Losing the focus disarms it; getting it back starts the delay again.
            await win.evaluate("() => window.dispatchEvent(new Event('blur'))")
            await expect(allow).to_be_disabled()
            await win.evaluate("() => window.dispatchEvent(new Event('focus'))")
            await allow.click(force=True, no_wait_after=True)
            await expect(allow).to_be_enabled(timeout=10_000)
            assert not call.done()
            await win.get_by_test_id("approval-remember").check()
            await click(win, "approval-allow")
            assert not (await call).is_error
            assert await top.evaluate("window.calls") == [{"name": "wipe", "args": {}}]

            # The bank frame's wipe: the remembered allow was the hostile origin's, so it asks,
            # naming the bank's origin and the page it sits in.
            call = asyncio.create_task(client.call_tool(banks.public_name, {}))
            win = await approval_window(env)
            assert await win.get_by_test_id("approval-origin").inner_text() == bank_origin
            assert await win.get_by_test_id("approval-frame-of").inner_text() == hostile_origin
            await click(win, "approval-deny")
            result = await call
            assert code_of(result) == "APPROVAL_DENIED", result.content
        bank_frame = next(f for f in top.frames if f.url.startswith(bank_origin))
        assert await bank_frame.evaluate("window.calls") == []
        assert await top.evaluate("window.calls") == [{"name": "wipe", "args": {}}]
