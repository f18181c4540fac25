"""The person sees and steers what agents do (issue 13), through the real popup in real Chromium.

The popup is opened as a tab (``chrome-extension://<id>/popup/popup.html``) and driven like a
person would (clicks, and the keyboard alone in one test); every effect is checked through the
official MCP SDK client: an origin switched off loses its tools (with the list-change
notification) and its calls answer ``OUT_OF_SCOPE``, a pause makes every call answer ``PAUSED``,
an approval granted in the popup runs the tool, a changed definition accepted there needs no
approval any more, a lockdown cleared there is gone. Each state of the popup is saved as a
screenshot under ``test-results/popup/`` (gitignored), and axe-core audits the popup.

Each test runs on a bridge of its own (the switches must not leak into other tests).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import Page
from tabmcp.core.trust.guard import CHANGED_PREFIX
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.server.app import BridgeApp
from tabmcp.testing import ListChanges, listed, unlisted

from .conftest import Env, eventually, other_bridge

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
AXE = f"chrome-extension://{EXTENSION_ID}/vendor/axe.min.js"
SHOTS = Path(__file__).resolve().parent.parent / "test-results" / "popup"


@pytest.fixture(autouse=True)
def polyfill_only(env: Env) -> None:
    if env.flavour != "polyfill":
        pytest.skip("the popup does not depend on the WebMCP flavour")


async def open_popup(env: Env) -> Page:
    popup = await env.browser.context.new_page()
    await popup.set_viewport_size({"width": 424, "height": 760})
    await popup.goto(POPUP)
    await popup.locator("body[data-ready]").wait_for()
    return popup


async def shot(popup: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await popup.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


async def no_axe_violations(popup: Page) -> None:
    """axe-core (staged into the extension from npm) finds nothing in the popup as it is now."""
    if not await popup.evaluate("() => !!window.axe"):
        await popup.add_script_tag(url=AXE)
    violations = await popup.evaluate(
        "async () => (await axe.run(document, { resultTypes: ['violations'] })).violations"
        ".map(v => ({id: v.id, nodes: v.nodes.map(n => n.html)}))"
    )
    assert violations == [], violations


def tab_item(popup: Page, title: str) -> Any:
    return popup.get_by_test_id("tab").filter(has_text=title)


def client(bridge: BridgeApp, **kwargs: Any) -> Client:
    return Client(f"http://127.0.0.1:{bridge.port}/mcp", **kwargs)  # no elicitation: the extension asks


def error_code(result: Any) -> str:
    assert result.is_error, result.content
    return str(result.structured_content["error"]["code"])


async def test_origin_switch_pause_and_activity_steer_agents(env: Env, page_closer):
    async with other_bridge(env) as bridge:
        page = await env.open("basic.html")
        page_closer.append(page)
        await eventually(lambda: bridge.core.tool("page_title"))
        origin = env.pages_url.rstrip("/")
        popup = await open_popup(env)
        page_closer.append(popup)
        changes = ListChanges()
        async with client(bridge, mode="legacy", message_handler=changes) as agent:
            assert not (await agent.call_tool("page_title", {})).is_error
            item = tab_item(popup, "Basic tools")
            await item.get_by_test_id("tool-count").filter(has_text="6").wait_for()
            await shot(popup, "1-overview")

            # Insight: expand the tab; every tool and its category, nothing hidden yet.
            await item.locator("summary").click()
            await eventually(lambda: item.get_by_test_id("insight-tool").count(), timeout=5)
            names = await item.get_by_test_id("insight-tool").locator("code").all_inner_texts()
            assert {"add_note", "count_notes", "clear_notes", "page_title", "fail", "wait"} <= set(names)
            await no_axe_violations(popup)

            # The origin switched off: its tools vanish for the agent, calls are refused by name,
            # and the popup marks every tool hidden with the reason.
            await item.get_by_test_id("origin-switch").uncheck()
            await changes.until_listed(agent, unlisted("page_title"))
            refused = await agent.call_tool("page_title", {})
            assert error_code(refused) == "OUT_OF_SCOPE"
            assert "switched off by the person" in refused.structured_content["error"]["message"]
            assert bridge.core.controls.origins_off == {origin}
            reasons = item.get_by_test_id("hidden-reason")
            await reasons.first.wait_for()
            assert await reasons.count() == 6
            assert "switched off" in await reasons.first.inner_text()
            await shot(popup, "2-origin-off")
            await item.get_by_test_id("origin-switch").check()
            await changes.until_listed(agent, listed("page_title"))
            assert not (await agent.call_tool("page_title", {})).is_error

            # Pause: calls answer PAUSED, tools/list stays the same; resume and they run again.
            before = {t.name for t in (await agent.list_tools(cache_mode="bypass")).tools}
            await popup.get_by_test_id("pause").click()
            await eventually(lambda: bridge.core.controls.paused)
            assert error_code(await agent.call_tool("page_title", {})) == "PAUSED"
            assert error_code(await agent.call_tool("search_tools", {"query": "notes"})) == "PAUSED"
            assert {t.name for t in (await agent.list_tools(cache_mode="bypass")).tools} == before
            await popup.get_by_test_id("paused-note").wait_for()
            await popup.get_by_test_id("activity-outcome").filter(has_text="PAUSED").first.wait_for()
            await shot(popup, "3-paused")
            await no_axe_violations(popup)
            await popup.get_by_test_id("pause").click()
            await eventually(lambda: not bridge.core.controls.paused)
            assert not (await agent.call_tool("page_title", {})).is_error

        # Activity: live, newest first, filtered by tab.
        rows = popup.get_by_test_id("activity-row")
        outcomes = popup.get_by_test_id("activity-outcome")

        async def newest_is_ok() -> bool:
            return bool(await outcomes.count()) and await outcomes.first.inner_text() == "ok"

        await eventually(newest_is_ok, timeout=5)  # the resumed call, live
        texts = await outcomes.all_inner_texts()
        assert "PAUSED" in texts and "OUT_OF_SCOPE" in texts
        tab_id = next(t.tab_id for t in bridge.core.registry.tabs.values() if t.url == page.url)
        await popup.get_by_test_id("activity-filter").select_option(value=f"tab:{tab_id}")
        await popup.get_by_test_id("activity-filter").select_option(value=f"origin:{origin}")
        await eventually(lambda: rows.count(), timeout=5)
        wheres = await rows.locator(".where").all_inner_texts()
        assert wheres and all(f"tab {tab_id}" in w for w in wheres)


async def test_keyboard_only_pause_and_resume(env: Env, page_closer):
    async with other_bridge(env) as bridge:
        page = await env.open("basic.html")
        page_closer.append(page)
        await eventually(lambda: bridge.core.tool("page_title"))
        popup = await open_popup(env)
        page_closer.append(popup)

        async def tab_to(testid: str) -> None:
            for _ in range(30):
                await popup.keyboard.press("Tab")
                if await popup.evaluate("() => document.activeElement?.dataset.testid") == testid:
                    return
            raise AssertionError(f"Tab never reached {testid}")

        async with client(bridge) as agent:
            await tab_to("pause")
            await popup.keyboard.press("Space")
            await eventually(lambda: bridge.core.controls.paused)
            assert error_code(await agent.call_tool("page_title", {})) == "PAUSED"
            # Focus stays on the switch across the live refresh; Enter toggles it back.
            await popup.locator("[data-testid=pause][aria-pressed=true]").wait_for()
            assert await popup.evaluate("() => document.activeElement?.dataset.testid") == "pause"
            await popup.keyboard.press("Enter")
            await eventually(lambda: not bridge.core.controls.paused)
            assert not (await agent.call_tool("page_title", {})).is_error
            # Writes off from the keyboard: the switch is reachable and toggles with Space.
            await tab_to("writes")
            await popup.keyboard.press("Space")
            await eventually(lambda: bridge.core.controls.writes is False)
            assert error_code(await agent.call_tool("add_note", {"text": "x"})) == "WRITES_DISABLED"
            # A tab's insight opens from the keyboard (Enter on its summary).
            for _ in range(30):
                await popup.keyboard.press("Tab")
                if await popup.evaluate("() => document.activeElement?.tagName") == "SUMMARY":
                    break
            await popup.keyboard.press("Enter")
            await popup.get_by_test_id("insight-tool").first.wait_for()
            await no_axe_violations(popup)


async def test_an_approval_granted_in_the_popup_runs_the_tool(env: Env, page_closer):
    async with other_bridge(env, policy={"allow_writes": True, "approval": {"timeout_s": 60}}) as bridge:
        page = await env.open("basic.html")
        page_closer.append(page)
        await eventually(lambda: bridge.core.tool("clear_notes"))
        tab_id = next(t.tab_id for t in bridge.core.registry.tabs.values() if t.url == page.url)
        await page.evaluate("() => document.modelContext")  # the page is live
        popup = await open_popup(env)
        page_closer.append(popup)
        worker = await env.browser.worker()
        async with client(bridge) as agent:
            await agent.call_tool("add_note", {"text": "keep me?"})
            call = asyncio.create_task(agent.call_tool("clear_notes", {}))  # destructive: asked first
            card = popup.get_by_test_id("approval")
            await card.wait_for(timeout=20_000)
            assert "clear_notes" in await card.inner_text()
            # The icon says an approval waits in that tab.
            await eventually(lambda: _badge_is(worker, tab_id, "?"), timeout=5)
            await shot(popup, "4-approval")
            await no_axe_violations(popup)
            window = await eventually(
                lambda: next((p for p in env.browser.context.pages if "approval/approval.html" in p.url), None), 20)
            await window.get_by_test_id("approval-tool").wait_for()
            await no_axe_violations(window)  # the approval window too
            await card.get_by_test_id("approval-allow").click()
            result = await call
            assert not result.is_error, result.content
            assert await page.get_by_test_id("note").count() == 0  # the tool ran: the notes are gone
            # The approval window showed the same question; answered here, it closed.
            await eventually(lambda: not [p for p in env.browser.context.pages if "approval/approval.html" in p.url])
            await eventually(lambda: _badge_is(worker, tab_id, "6"), timeout=5)

            # Denied in the popup: the agent hears APPROVAL_DENIED.
            call = asyncio.create_task(agent.call_tool("clear_notes", {}))
            await card.wait_for(timeout=20_000)
            await card.get_by_test_id("approval-deny").click()
            assert error_code(await call) == "APPROVAL_DENIED"


async def test_the_options_page_has_no_axe_violations(env: Env, page_closer):
    page = await env.browser.context.new_page()
    page_closer.append(page)
    await page.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    await page.locator("#bridgeUrl").wait_for()
    await no_axe_violations(page)


async def test_a_running_call_shows_on_the_icon_and_in_the_popup(env: Env, page_closer):
    async with other_bridge(env) as bridge:
        page = await env.open("basic.html")
        page_closer.append(page)
        await eventually(lambda: bridge.core.tool("wait"))
        tab_id = next(t.tab_id for t in bridge.core.registry.tabs.values() if t.url == page.url)
        popup = await open_popup(env)
        page_closer.append(popup)
        worker = await env.browser.worker()
        async with client(bridge) as agent:
            call = asyncio.create_task(agent.call_tool("wait", {"ms": 60_000}))
            await eventually(lambda: _badge_is(worker, tab_id, "▶"), timeout=10)
            await tab_item(popup, "Basic tools").get_by_test_id("running").wait_for()
            await shot(popup, "5-running")
            call.cancel()
            await eventually(lambda: _badge_is(worker, tab_id, "6"), timeout=10)


async def _badge_is(worker: Any, tab_id: int, text: str) -> bool:
    return bool(await worker.evaluate("(id) => chrome.action.getBadgeText({tabId: id})", tab_id) == text)


async def test_trust_accept_a_changed_definition_and_clear_the_lockdown(env: Env, page_closer):
    async with other_bridge(env, trust={"frame_text": True, "pin_definitions": True},
                            policy={"allow_writes": True, "approval": {"timeout_s": 60}}) as bridge:
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + "untrusted.html")
        await page.evaluate("() => window.ready")
        await eventually(lambda: bridge.core.tool("save_contact"))
        popup = await open_popup(env)
        page_closer.append(popup)
        async with client(bridge) as agent:
            assert not (await agent.call_tool("save_contact", {"name": "Ada"})).is_error
            await page.evaluate("() => window.changeDefinition()")
            await eventually(lambda: "partners" in bridge.core.tool("save_contact").tool.description)
            listing = {t.name: t for t in (await agent.list_tools(cache_mode="bypass")).tools}
            assert listing["save_contact"].description.startswith(CHANGED_PREFIX)

            # A result that gives orders starts the lockdown.
            inbox = await agent.call_tool("read_inbox", {})
            assert inbox.meta["tabmcp/trust"]["lockdown"]

            changed = popup.get_by_test_id("changed-definition")
            await changed.wait_for(timeout=10_000)
            await changed.locator("summary").click()
            assert "partners" in await changed.get_by_test_id("diff").inner_text()
            await popup.get_by_test_id("lockdown").wait_for()
            assert "read_inbox" in await popup.get_by_test_id("lockdown").inner_text()
            await shot(popup, "6-trust")
            await no_axe_violations(popup)

            await changed.get_by_test_id("accept").click()
            await eventually(lambda: not bridge.core.trust.pins.records(changed_only=True))
            listing = {t.name: t for t in (await agent.list_tools(cache_mode="bypass")).tools}
            assert not listing["save_contact"].description.startswith(CHANGED_PREFIX)
            await popup.get_by_test_id("clear-lockdown").click()
            await eventually(lambda: not bridge.core.trust.lockdown.locked)
            await popup.get_by_test_id("trust").wait_for(state="hidden")
            # Neither a changed definition nor a lockdown stands: the write runs unasked.
            result = await agent.call_tool("save_contact", {"name": "Bob"})
            assert not result.is_error, result.content
            assert await page.evaluate("document.body.dataset.saved") == "Bob"


async def test_the_popup_speaks_plainly_and_keeps_the_show_menu_on_its_line(env: Env, page_closer):
    """Counts in words ("6 tools in 1 category", not "6 tools · 1 cat."), and the activity's "Show"
    menu stays beside its label when a tab's title is longer than the popup is wide."""
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    popup = await open_popup(env)
    page_closer.append(popup)
    item = tab_item(popup, "Basic tools")
    await item.locator(".counts").filter(has_text="6 tools in 1 category").wait_for()
    assert "cat." not in await item.locator(".counts").inner_text()

    long_title = "Basic tools " + "with a very long title that goes on " * 8
    await page.evaluate("(title) => { document.title = title; }", long_title)
    menu = popup.get_by_test_id("activity-filter")
    await menu.locator("option", has_text="with a very long title").first.wait_for(state="attached")
    label, select = (await (popup.locator("label.filter")).bounding_box(), await menu.bounding_box())
    body = await popup.locator("body").bounding_box()
    assert label and select and body
    assert label["height"] < 2 * select["height"], (label, select)  # one line: not wrapped under "Show"
    assert select["x"] + select["width"] <= body["x"] + body["width"], (select, body)
    await shot(popup, "7-long-title")


async def test_the_popup_names_the_secrets_bound_to_a_site_and_unbinds_one(env: Env, page_closer, tmp_path: Path):
    """Secrets by name (issue 37): per site, the popup lists the secret names bound to it (never a
    value) and the person unbinds one there; the agent's next call naming it is refused."""
    from tabmcp.storage.secret_store import SecretStore

    value = "hunter2-Correct/Horse+9"
    db = tmp_path / "tabmcp.db"
    origin = env.pages_url.rstrip("/")
    async with other_bridge(env, store={"path": str(db), "secrets": "file"}) as bridge:
        store = SecretStore(db, kind="file")
        store.set("site_login", value, [origin])
        store.set("site_pin", "9876-5432", [origin, "https://elsewhere.example"])
        store.set("other_key", "abcd-efgh", ["https://elsewhere.example"])
        store.close()
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + "signin.html")
        await page.evaluate("() => window.ready")
        await eventually(lambda: bridge.core.tool("sign_in"))
        popup = await open_popup(env)
        page_closer.append(popup)
        item = tab_item(popup, "Sign in")
        names = item.get_by_test_id("secret").locator("code")
        await names.nth(1).wait_for()
        assert await names.all_inner_texts() == ["site_login", "site_pin"]  # not other_key: another site's
        assert value not in await popup.content()
        await shot(popup, "7-secrets")
        await no_axe_violations(popup)

        await item.get_by_test_id("secret").filter(has_text="site_login").get_by_test_id("unbind").click()
        await eventually(lambda: bridge.core.secrets.names_for(origin) == ["site_pin"])

        async def shown() -> list[str] | None:
            texts = await names.all_inner_texts()
            return texts if texts == ["site_pin"] else None

        assert await eventually(shown, timeout=5) == ["site_pin"]
        async with client(bridge) as agent:
            refused = await agent.call_tool("sign_in", {"user": "ann", "password": "{{secret:site_login}}"})
            assert error_code(refused) == "SECRET_NOT_BOUND"
        assert await page.evaluate("() => window.received") == []  # nothing reached the page
        assert bridge.core.secrets.names_for("https://elsewhere.example") == ["other_key", "site_pin"]
