"""Sites, not tabs, in real Chromium with the real extension (both flavours).

The person made a site reachable and closed its tab; an MCP client finds its tool with
search_tools (marked not open) and calls it: the extension opens the site in a background tab
of the agent group, the page registers its tool, the call runs, and the person's tab stays the
active one. The agent tab is closed once idle. A site the person did not allow opens nothing;
a page that leaves for another origin is closed with nothing called; forgetting a site (from the
popup) removes it from search. An agent tab stays on its site for its whole life: a page that
takes it to another origin after load (a script, a meta refresh, a tool's location.assign) gets
the tab closed, the call ended with SITE_REDIRECTED, and the other origin's tools never reach
the bridge from that tab.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import Page, expect
from tabmcp.core.registry import origin_of
from tabmcp.demo.server import serve_demo_site
from tabmcp.errors import ErrorCode
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.protocol import TabSnapshot

from .conftest import PAGES, Env, eventually, other_bridge

IDLE_S = 5


@contextlib.asynccontextmanager
async def ferry_site() -> AsyncIterator[str]:
    """The ferry page on an origin of its own (no other test's tab can keep it open)."""
    async with serve_demo_site(site_dir=PAGES) as url:
        yield url.rstrip("/")


def client_of(bridge: Any) -> Client:
    return Client(f"http://127.0.0.1:{bridge.port}/mcp")


def closed(bridge: Any, name: str) -> bool:
    entry = bridge.core.tool(name)
    return entry is not None and not entry.tab.is_open


async def active_tab_url(env: Env) -> str:
    worker = await env.browser.worker()
    return await worker.evaluate(
        "async () => (await chrome.tabs.query({active: true, lastFocusedWindow: true}))[0].url"
    )


async def tab_group_title(env: Env, tab: str | int) -> str | None:
    """The title of the group a tab (by URL or id) is in; None when it is in none (or gone)."""
    worker = await env.browser.worker()
    return await worker.evaluate(
        """async (ref) => {
          const tab = typeof ref === 'number' ? await chrome.tabs.get(ref).catch(() => null)
            : (await chrome.tabs.query({url: ref}))[0];
          if (!tab || tab.groupId === chrome.tabGroups.TAB_GROUP_ID_NONE) return null;
          return (await chrome.tabGroups.get(tab.groupId)).title;
        }""",
        tab,
    )


async def agent_page(env: Env, url: str, before: set[Page]) -> Page:
    """The tab the extension opened for ``url`` (not among ``before``): waited for, since Playwright
    may learn of a new tab a moment after the call that opened it was answered."""
    return await eventually(
        lambda: next((p for p in env.browser.context.pages if p not in before and p.url == url), None), timeout=15)


async def test_closed_site_found_called_in_background_and_tidied(env: Env, page_closer: list[Page]):
    async with ferry_site() as site, other_bridge(
        env,
        policy={"allow_writes": True, "origins": [{"match": site, "reachable": True}]},
        sites={"idle_close_s": IDLE_S, "settle_s": 1.0},
    ) as bridge:
        ferry_url = f"{site}/ferry.html"
        ferry = await env.browser.context.new_page()
        page_closer.append(ferry)
        await ferry.goto(ferry_url)
        await eventually(lambda: (e := bridge.core.tool("book_ferry")) and e.tab.is_open)
        person = await env.browser.context.new_page()
        page_closer.append(person)
        await person.goto(env.pages_url + "basic.html?person")
        await person.bring_to_front()
        await ferry.close()
        await eventually(lambda: closed(bridge, "book_ferry"))

        async with client_of(bridge) as client:
            found = await client.call_tool("search_tools", {"query": "book a ferry crossing"})
            top = found.structured_content["tools"][0]
            assert top["name"] == "book_ferry" and top["open"] is False and top["opens"] == ferry_url

            closes: dict[Page, asyncio.Future[Any]] = {}  # every new tab's close, watched from its creation
            watch = lambda p: closes.setdefault(p, asyncio.ensure_future(p.wait_for_event("close", timeout=120_000)))  # noqa: E731
            env.browser.context.on("page", watch)
            before = set(env.browser.context.pages)
            result = await client.call_tool("call_tool", {"name": "book_ferry", "arguments": {"date": "Friday"}})
            assert not result.is_error, result.content
            assert result.content[0].text == "booked the Friday crossing"
            tab_id = result.meta["tabmcp/source"]["tabId"]
            assert await tab_group_title(env, tab_id) == bridge.config.sites.group_title
            assert await active_tab_url(env) == person.url  # the person's tab stayed in front
            opened = await agent_page(env, ferry_url, before)
            assert opened is not None
            page_closer.append(opened)
            closing = watch(opened)

            # idle for IDLE_S: the extension closes the agent tab (waited on, not slept)
            await closing
            env.browser.context.remove_listener("page", watch)
            await eventually(lambda: closed(bridge, "book_ferry"))
            assert await active_tab_url(env) == person.url


async def test_not_reachable_site_opens_nothing(env: Env, page_closer: list[Page]):
    async with ferry_site() as site, other_bridge(env, policy={"allow_writes": True}) as bridge:
        before = len(env.browser.context.pages)
        async with client_of(bridge) as client:
            result = await client.call_tool("open_page", {"url": f"{site}/ferry.html"})
        assert result.is_error and result.structured_content["error"]["code"] == ErrorCode.SITE_NOT_REACHABLE
        assert "reachable = true" in result.content[0].text
        assert len(env.browser.context.pages) == before
        assert not any(origin_of(t.url) == site for t in bridge.core.registry.tabs.values())


async def test_off_origin_redirect_calls_nothing_and_forget_removes_the_site(env: Env, page_closer: list[Page]):
    async with ferry_site() as site, other_bridge(
        env, policy={"allow_writes": True, "origins": [{"match": site, "reachable": True}]},
    ) as bridge:
        ferry_url = f"{site}/ferry.html"
        ferry = await env.browser.context.new_page()
        page_closer.append(ferry)
        await ferry.goto(ferry_url)
        await eventually(lambda: (e := bridge.core.tool("book_ferry")) and e.tab.is_open)
        away = env.pages_url + "basic.html?redirected"
        await ferry.evaluate("(url) => localStorage.setItem('redirectTo', url)", away)  # the site now sends visitors away
        await ferry.close()
        await eventually(lambda: closed(bridge, "book_ferry"))
        calls = bridge.core.calls.completed + bridge.core.calls.failed
        async with client_of(bridge) as client:
            result = await client.call_tool("book_ferry", {"date": "Friday"})
            assert result.is_error and result.structured_content["error"]["code"] == ErrorCode.SITE_REDIRECTED
            assert bridge.core.calls.completed + bridge.core.calls.failed == calls  # nothing was called
            await eventually(lambda: not any(p.url in (away, ferry_url) for p in env.browser.context.pages))

            # the person forgets the site from the popup: its tools leave search
            popup = await env.browser.context.new_page()
            page_closer.append(popup)
            await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
            row = popup.locator(f'[data-testid="site"][data-origin="{site}"]')
            await row.wait_for()
            await row.locator('[data-testid="forget-site"]').click()
            await eventually(lambda: bridge.core.tool("book_ferry") is None)
            found = await client.call_tool("search_tools", {"query": "book a ferry crossing"})
            assert "book_ferry" not in [t["name"] for t in found.structured_content["tools"]]


async def test_agent_tabs_capped_lru_first_and_taken_over_by_the_person(env: Env, page_closer: list[Page]):
    async with ferry_site() as site, other_bridge(
        env, policy={"origins": [{"match": site, "reachable": True}]},
        sites={"max_agent_tabs": 1, "settle_s": 0.5},
    ) as bridge, client_of(bridge) as client:
        before = set(env.browser.context.pages)
        first = await client.call_tool("open_page", {"url": f"{site}/ferry.html?first"})
        assert not first.is_error, first.content
        assert sorted(t["name"] for t in first.structured_content["tools"]) == ["book_ferry", "list_crossings"]
        first_page = await agent_page(env, f"{site}/ferry.html?first", before)
        assert first_page is not None
        page_closer.append(first_page)
        closing = asyncio.ensure_future(first_page.wait_for_event("close", timeout=20_000))
        second = await client.call_tool("open_page", {"url": f"{site}/ferry.html?second"})
        assert not second.is_error, second.content
        await closing  # one agent tab at most: the older one went
        second_page = await agent_page(env, f"{site}/ferry.html?second", before)
        assert second_page is not None
        page_closer.append(second_page)
        status = await env.browser.status()
        assert status["agentTabs"] == [second.structured_content["tabId"]]

        # the person brings the agent tab to the front: it is theirs (out of the group, not the agent's)
        await second_page.bring_to_front()
        await eventually(_no_agent_tabs(env))
        assert await tab_group_title(env, second_page.url) is None


def _no_agent_tabs(env: Env):
    async def check() -> bool:
        return (await env.browser.status())["agentTabs"] == []

    return check


async def test_declarative_form_tool_runs_in_a_background_agent_tab(env: Env, page_closer: list[Page]):
    async with ferry_site() as site, other_bridge(
        env, policy={"allow_writes": True, "origins": [{"match": site, "reachable": True}]},
        sites={"settle_s": 0.5},
    ) as bridge:
        person = await env.browser.context.new_page()
        page_closer.append(person)
        await person.goto(env.pages_url + "basic.html?form-person")
        await person.bring_to_front()
        before = set(env.browser.context.pages)
        async with client_of(bridge) as client:
            opened = await client.call_tool("open_page", {"url": f"{site}/declarative.html"})
            assert not opened.is_error, opened.content
            page = await agent_page(env, f"{site}/declarative.html", before)
            assert page is not None
            page_closer.append(page)
            name = next(t["name"] for t in opened.structured_content["tools"] if t["name"].endswith("book_ferry"))
            args = {"who": "Ada Lovelace", "day": "2026-12-01", "seats": 2, "port": "her", "cabin": True}
            result = await client.call_tool("call_tool", {"name": name, "arguments": args})
            assert not result.is_error, result.content
            assert json.loads(result.content[0].text)["passenger"] == "Ada Lovelace"
        assert await page.locator("#who").input_value() == "Ada Lovelace"
        assert await active_tab_url(env) == person.url  # filled and submitted without focus


async def test_person_makes_the_site_reachable_from_the_popup(env: Env, page_closer: list[Page]):
    async with ferry_site() as site, other_bridge(env, policy={"allow_writes": True}) as bridge:
        ferry = await env.browser.context.new_page()
        page_closer.append(ferry)
        await ferry.goto(f"{site}/ferry.html")
        await ferry.bring_to_front()
        await eventually(lambda: (e := bridge.core.tool("book_ferry")) and e.tab.is_open)
        assert not bridge.core.sites.reachable(site)
        # the popup, in a window of its own that does not take the focus: the ferry tab stays the active one
        worker = await env.browser.worker()
        async with env.browser.context.expect_page() as popup_info:
            await worker.evaluate(
                "() => chrome.windows.create({url: chrome.runtime.getURL('popup/popup.html'), focused: false})")
        popup = await popup_info.value
        page_closer.append(popup)
        box = popup.locator('[data-testid="site-reachable"]')
        await box.wait_for()
        await box.check()
        await eventually(lambda: bridge.core.sites.reachable(site))
        assert bridge.core.sites.allowed_by(site) == "person"
        await popup.locator(f'[data-testid="site"][data-origin="{site}"]').wait_for()
        await ferry.close()
        await eventually(lambda: closed(bridge, "book_ferry"))


async def test_a_site_is_many_pages_each_tool_opens_and_goes_stale_on_its_own_page(
    env: Env, page_closer: list[Page]
):
    """Tides on one page, the beacon on another: opening one page leaves the other's tool offered
    and callable (its own page opens), and only the beacon's own page settling without it marks
    it stale."""
    async with ferry_site() as site, other_bridge(
        env, policy={"origins": [{"match": site, "reachable": True}]}, sites={"settle_s": 1.0},
    ) as bridge:
        tides_url, lighthouse_url = f"{site}/tides.html", f"{site}/lighthouse.html"
        person = []
        for url, name in ((tides_url, "tide_times"), (lighthouse_url, "light_beacon")):
            page = await env.browser.context.new_page()
            page_closer.append(page)
            await page.goto(url)
            await eventually(lambda n=name: (e := bridge.core.tool(n)) and e.tab.is_open)
            person.append(page)
        for page in person:
            await page.close()
        await eventually(lambda: closed(bridge, "tide_times") and closed(bridge, "light_beacon"))
        sites = bridge.core.site_link.sites
        assert sites.document_url(site, "light_beacon") == lighthouse_url

        async with client_of(bridge) as client:
            before = set(env.browser.context.pages)
            tides = await client.call_tool("call_tool", {"name": "tide_times", "arguments": {"day": "Monday"}})
            assert not tides.is_error, tides.content
            # Playwright may learn of the new tab a moment after the call's answer
            opened_tides = await agent_page(env, tides_url, before)
            page_closer.append(opened_tides)
            # the tides page is open: the beacon, registered by another page, is still offered
            entry = bridge.core.tool("light_beacon")
            assert entry is not None and not entry.tab.is_open
            found = await client.call_tool("search_tools", {"query": "lighthouse beacon"})
            top = found.structured_content["tools"][0]
            assert top["name"] == "light_beacon" and top["open"] is False and top["opens"] == lighthouse_url
            assert not sites.store.stale()

            before = set(env.browser.context.pages)
            beacon = await client.call_tool("call_tool", {"name": "light_beacon", "arguments": {}})
            assert not beacon.is_error, beacon.content
            assert beacon.content[0].text == "beacon on"
            # Playwright may learn of the new tab a moment after the call's answer
            opened_lighthouse = await agent_page(env, lighthouse_url, before)
            await opened_lighthouse.close()
            await eventually(lambda: closed(bridge, "light_beacon"))

            # the beacon's page now sends visitors to the tides page: the call fails, named, but the
            # tides page settling without the beacon does not make the beacon stale
            await opened_tides.evaluate("() => localStorage.setItem('lighthouseMoved', '1')")
            moved = await client.call_tool("call_tool", {"name": "light_beacon", "arguments": {}})
            assert moved.is_error and moved.structured_content["error"]["code"] == ErrorCode.SITE_TOOL_GONE
            assert (site, "light_beacon") not in sites.store.stale()
            assert closed(bridge, "light_beacon")

            # the beacon's own page settles without it: now it is stale, and no longer offered
            await opened_tides.evaluate(
                "() => { localStorage.removeItem('lighthouseMoved'); localStorage.setItem('noBeacon', '1'); }")
            gone = await client.call_tool("call_tool", {"name": "light_beacon", "arguments": {}})
            assert gone.is_error and gone.structured_content["error"]["code"] == ErrorCode.SITE_TOOL_GONE
            assert (site, "light_beacon") in sites.store.stale()
            await eventually(lambda: bridge.core.tool("light_beacon") is None)
            assert (site, "tide_times") not in sites.store.stale()

            # the person sees the site's tools by page, the stale one marked
            listed = {s.origin: s for s in sites.list(bridge.core.registry)}[site]
            assert {url: [t.name for t in tools] for url, tools in listed.pages().items()} == {
                lighthouse_url: ["light_beacon"], tides_url: ["tide_times"]}
            popup = await env.browser.context.new_page()
            page_closer.append(popup)
            await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
            row = popup.locator(f'[data-testid="site"][data-origin="{site}"]')
            await expect(row.locator(f'[data-testid="site-page"][data-url="{lighthouse_url}"]')).to_have_text(
                "/lighthouse.html: light_beacon (stale)")
            await expect(row.locator(f'[data-testid="site-page"][data-url="{tides_url}"]')).to_have_text(
                "/tides.html: tide_times")
            page_closer.extend(p for p in env.browser.context.pages if p.url.startswith(site))
def record_snapshots(bridge: Any) -> list[tuple[int, str, list[str]]]:
    """Every tab snapshot the bridge's registry takes from now on: (tab id, origin, tool names)."""
    seen: list[tuple[int, str, list[str]]] = []
    registry = bridge.core.registry
    apply, sync = registry.apply, registry.sync

    def note(snap: TabSnapshot) -> None:
        names = [str(t.get("name")) for t in snap.tools if isinstance(t, dict)]
        names += [str(t.get("name")) for f in snap.frames for t in f.tools if isinstance(t, dict)]
        seen.append((snap.tab_id, snap.origin, names))

    def recording_apply(snap: TabSnapshot, **kwargs: Any) -> Any:
        note(snap)
        return apply(snap, **kwargs)

    def recording_sync(snaps: Any, **kwargs: Any) -> Any:
        snaps = list(snaps)
        for snap in snaps:
            note(snap)
        return sync(snaps, **kwargs)

    registry.apply, registry.sync = recording_apply, recording_sync
    return seen


def offered_elsewhere(seen: list[tuple[int, str, list[str]]], tab_id: int, site: str) -> list[Any]:
    """What the tab offered the bridge while on another origin than ``site``."""
    return [(o, names) for t, o, names in seen if t == tab_id and o != site and names]


@pytest.mark.parametrize("how", ["script", "meta"])
async def test_agent_tab_sent_elsewhere_after_load_is_closed_and_offers_nothing(
    env: Env, page_closer: list[Page], how: str
):
    async with ferry_site() as site, other_bridge(
        env, policy={"allow_writes": True, "origins": [{"match": site, "reachable": True}]},
        sites={"settle_s": 0.5},
    ) as bridge:
        seen = record_snapshots(bridge)
        away = env.pages_url + f"basic.html?wandered-{how}"  # an origin the person never made reachable
        url = f"{site}/wanders.html?how={how}&to={away}"
        before = set(env.browser.context.pages)
        async with client_of(bridge) as client:
            opened = await client.call_tool("open_page", {"url": url})
            assert not opened.is_error, opened.content
            tab_id = opened.structured_content["tabId"]
            page = await agent_page(env, url, before)
            assert page is not None
            page_closer.append(page)
            # the page leaves 1.5 s after load (or by its meta refresh): the tab goes, or (the attack)
            # it settles on the other origin and offers that site's tools
            await eventually(lambda: page.is_closed() or offered_elsewhere(seen, tab_id, site), timeout=60)
            assert offered_elsewhere(seen, tab_id, site) == []
            await eventually(lambda: bridge.core.registry.tab(tab_id) is None, timeout=30)
            listed = await client.list_tools()
            assert not [t.name for t in listed.tools if "add_note" in t.name or "count_notes" in t.name]
        assert not any(p.url == away for p in env.browser.context.pages)


async def test_agent_tab_sent_elsewhere_by_a_call_ends_it_with_site_redirected(env: Env, page_closer: list[Page]):
    async with ferry_site() as site, other_bridge(
        env, policy={"allow_writes": True, "origins": [{"match": site, "reachable": True}]},
        sites={"settle_s": 0.5},
    ) as bridge:
        seen = record_snapshots(bridge)
        away = env.pages_url + "basic.html?wandered-call"
        url = f"{site}/wanders.html?how=call&to={away}"
        before = set(env.browser.context.pages)
        async with client_of(bridge) as client:
            opened = await client.call_tool("open_page", {"url": url})
            assert not opened.is_error, opened.content
            tab_id = opened.structured_content["tabId"]
            page = await agent_page(env, url, before)
            assert page is not None
            page_closer.append(page)
            name = next(t["name"] for t in opened.structured_content["tools"] if t["name"].endswith("wander_off"))
            result = await client.call_tool("call_tool", {"name": name, "arguments": {}})
            assert result.is_error, result.content
            assert result.structured_content["error"]["code"] == ErrorCode.SITE_REDIRECTED, result.content
            await eventually(lambda: page.is_closed(), timeout=30)
            assert offered_elsewhere(seen, tab_id, site) == []
            await eventually(lambda: bridge.core.registry.tab(tab_id) is None, timeout=30)
