"""The demo site through the whole chain: profiles, scope, policy, approvals and every error code."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from tabmcp.core.telemetry import TELEMETRY_TOOLS
from tabmcp.server.app import BridgeApp
from tabmcp.testing import ListChanges, category_size

from .conftest import Env, eventually, other_bridge


def names(result: Any) -> list[str]:
    """Listed tool names, less the telemetry tools (tested on their own)."""
    return [t.name for t in result.tools if t.name not in TELEMETRY_TOOLS]


async def open_demo(env: Env, bridge: BridgeApp | None = None, route: str = "") -> Page:
    page = await env.browser.context.new_page()
    await page.goto(env.demo_url + route)
    await page.wait_for_selector("body[data-ready=true]")
    core = (bridge or env.bridge).core
    await eventually(lambda: any(t.url.startswith(env.demo_url) and len(t.tools) >= 90 for t in core.registry.tabs.values()))
    return page


async def test_demo_categories_expand_and_call_changes_the_page(env: Env, page_closer):
    page = await open_demo(env, route="#/users")
    page_closer.append(page)
    async with env.client() as client:
        listed = await client.list_tools(cache_mode="bypass")
        categories = [t for t in listed.tools if category_size(listed, t.name)]
        assert len(categories) >= 10
        assert {"get_page_info", "navigate_to", "search_everything", "show_notification"} <= set(names(listed))
        assert "create_user" not in names(listed)
        users = await client.call_tool("user_management", {})
        assert "create_user" in [t["name"] for t in users.structured_content["tools"]]
        created = await client.call_tool("call_tool", {"name": "create_user", "arguments": {
            "name": "Grace Hopper", "email": "grace@example.com", "role": "editor"}})
        assert not created.is_error, created.content
    await page.get_by_test_id("user-row").filter(has_text="Grace Hopper").wait_for()


async def test_every_profile_on_the_same_demo(env: Env, page_closer):
    counts: dict[str, int] = {}
    for profile in ("passthrough", "categories", "meta", "hybrid"):
        async with other_bridge(env, disclosure={"profile": profile}) as bridge:
            page = await open_demo(env, bridge)
            page_closer.append(page)
            async with bridge_client(bridge) as client:
                listed = names(await client.list_tools(cache_mode="bypass"))
                counts[profile] = len(listed)
                found = await client.call_tool("search_tools", {"query": "create a new user account"})
                assert "create_user" in [t["name"] for t in found.structured_content["tools"]][:3]
                result = await client.call_tool("call_tool", {"name": "list_users", "arguments": {"limit": 2}})
                assert not result.is_error
                if profile == "meta":
                    assert listed == ["introspect", "search_tools", "describe_tools", "call_tool", "context"]
                if profile == "hybrid":  # the demo marks navigate_to, list_users... as core
                    assert {"navigate_to", "list_users"} <= set(listed) and "delete_post" not in listed
            await page.close()
    assert counts["passthrough"] > counts["categories"] > counts["meta"]


def bridge_client(bridge: BridgeApp, **kwargs: Any) -> Any:
    from mcp import Client

    return Client(f"http://127.0.0.1:{bridge.port}/mcp", **kwargs)


async def test_scope_follows_page_state_and_route(env: Env, page_closer):
    page = await open_demo(env, route="#/dashboard")
    page_closer.append(page)
    changes = ListChanges()

    async with env.client(mode="legacy", message_handler=changes) as client:
        listing = await client.list_tools()
        users_count = category_size(listing, "user_management")
        media_count = category_size(listing, "media_library")
        assert users_count and media_count
        users = await client.call_tool("user_management", {})
        assert "delete_user" not in [t["name"] for t in users.structured_content["tools"]]  # needs admin-mode
        denied = await client.call_tool("call_tool", {"name": "delete_user", "arguments": {"id": 3}})
        assert denied.structured_content["error"]["code"] == "OUT_OF_SCOPE"
        await page.get_by_test_id("admin-toggle").click()
        # The category now counts delete_user, and the client is told of that listing.
        await changes.until_listed(client, lambda r: (category_size(r, "user_management") or 0) > users_count)
        users = await client.call_tool("user_management", {})
        assert "delete_user" in [t["name"] for t in users.structured_content["tools"]]
        media = await client.call_tool("media_library", {})
        assert "crop_image" not in [t["name"] for t in media.structured_content["tools"]]  # only on #/media
        await client.call_tool("navigate_to", {"page": "media"})
        await changes.until_listed(client, lambda r: (category_size(r, "media_library") or 0) > media_count)
        media = await client.call_tool("media_library", {})
        assert "crop_image" in [t["name"] for t in media.structured_content["tools"]]


async def test_read_only_focus_hides_writes(env: Env, page_closer):
    async with other_bridge(env, policy={"focus": "read-only", "allow_writes": True}) as bridge:
        page = await open_demo(env, bridge)
        page_closer.append(page)
        async with bridge_client(bridge) as client:
            listed = await client.list_tools(cache_mode="bypass")
            users = await client.call_tool("user_management", {})
            member_names = [t["name"] for t in users.structured_content["tools"]]
            assert "list_users" in member_names and "create_user" not in member_names
            assert "show_notification" not in names(listed)
            write = await client.call_tool("call_tool", {"name": "create_user", "arguments": {
                "name": "X Y", "email": "x@example.com", "role": "viewer"}})
            assert write.structured_content["error"]["code"] == "OUT_OF_SCOPE"
        await page.close()


@pytest.mark.parametrize("choice", ["approve", "deny"])
async def test_destructive_call_is_approved_or_declined_in_the_browser(env: Env, page_closer, choice):
    if env.flavour == "native" and choice == "deny":
        pytest.skip("the dialog is the extension's own; one flavour covers declining")
    page = await open_demo(env, route="#/content")
    page_closer.append(page)
    post = page.get_by_test_id("post-row").first
    post_id = int(await post.get_attribute("data-id"))
    async with env.client() as client:  # no elicitation support: the browser asks
        call = asyncio.create_task(client.call_tool("call_tool", {"name": "delete_post", "arguments": {"id": post_id}}))
        # asked in the extension's own window, never in the page (e2e/test_untrusted.py covers it)
        window = await eventually(lambda: next(
            (p for p in env.browser.context.pages if "approval/approval.html" in p.url and not p.is_closed()), None), 15)
        button = window.get_by_test_id("approval-allow" if choice == "approve" else "approval-deny")
        with contextlib.suppress(PlaywrightError):  # the window closes itself once answered
            await button.click(timeout=15_000, no_wait_after=True)
        result = await call
    rows = page.locator(f"[data-testid=post-row][data-id='{post_id}']")
    if choice == "approve":
        assert not result.is_error, result.content
        await rows.wait_for(state="detached")
    else:
        error = result.structured_content["error"]
        assert error["code"] == "APPROVAL_DENIED" and "denied by the user" in error["message"]
        assert await rows.count() == 1


async def test_every_error_code_for_real(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("error codes do not depend on the flavour; the page-error path is covered in both by test_chain")
    page = await open_demo(env, route="#/users")
    page_closer.append(page)
    codes: dict[str, Any] = {}
    async with env.client() as client:
        async def code(name: str, arguments: dict[str, Any]) -> str:
            result = await client.call_tool("call_tool", {"name": name, "arguments": arguments})
            assert result.is_error, result.content
            codes[result.structured_content["error"]["code"]] = result.structured_content["error"]
            return result.structured_content["error"]["code"]

        assert await code("creat_user", {}) == "TOOL_NOT_FOUND"
        assert codes["TOOL_NOT_FOUND"]["closest"][0] == "create_user"
        assert await code("create_user", {"name": "N", "email": 42}) == "VALIDATION_ERROR"
        assert await code("get_user", {"id": 999}) == "PAGE_ERROR"
        assert "999" in codes["PAGE_ERROR"]["message"]
        assert await code("delete_user", {"id": 2}) == "OUT_OF_SCOPE"

    async with other_bridge(env, policy={"allow_writes": False}) as bridge:
        page2 = await open_demo(env, bridge)
        page_closer.append(page2)
        async with bridge_client(bridge) as client:
            result = await client.call_tool("call_tool", {"name": "create_user", "arguments": {
                "name": "No Writes", "email": "n@example.com", "role": "viewer"}})
            assert result.structured_content["error"]["code"] == "WRITES_DISABLED"
            assert "allow_writes" in result.structured_content["error"]["setting"]
        await page2.close()

    async with other_bridge(env, policy={"allow_writes": True, "approval": {"mode": "elicitation"}}) as bridge:
        page3 = await open_demo(env, bridge, route="#/content")
        page_closer.append(page3)
        async with bridge_client(bridge) as client:  # no elicitation callback, and the browser may not ask
            result = await client.call_tool("call_tool", {"name": "delete_post", "arguments": {"id": 1}})
            assert result.structured_content["error"]["code"] == "APPROVAL_DENIED"
        await page3.close()

    async with other_bridge(env, calls={"timeout_s": 1}) as bridge:
        slow = await env.browser.context.new_page()
        page_closer.append(slow)
        await slow.goto(env.pages_url + "basic.html")
        await eventually(lambda: bridge.core.tool("wait"))
        async with bridge_client(bridge) as client:
            result = await client.call_tool("wait", {"ms": 5000})
            assert result.structured_content["error"]["code"] == "TIMEOUT"
            call = asyncio.create_task(client.call_tool("wait", {"ms": 5000}))
            await eventually(lambda: len(bridge.core.calls) == 1)
            await slow.close()
            result = await call
            assert result.structured_content["error"]["code"] == "TAB_CLOSED"
