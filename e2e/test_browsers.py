"""Two browsers through one bridge (issue 26): two real Chromium profiles, each with the real
extension and its own pairing, the same page open in both.

Their tools reach the official MCP client under distinct names, each with its browser and
profile in ``_meta["tabmcp/source"]``; a call runs in the tab of the browser that owns the name;
an approval opens in the browser whose tab asked (and nowhere else); each popup's activity rows
number tabs as its own browser does and name the other browser's; closing one browser takes only
its tools away.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from typing import Any

from mcp import Client
from playwright.async_api import Locator, Page, expect
from tabmcp.core.browsers import TAB_STRIDE, slot_of
from tabmcp.launch.launcher import ExtensionBrowser, launch_browser
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.server.app import BridgeApp, running_bridge

from .conftest import e2e_config, eventually
from .test_outcomes import APPROVAL, answer

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"


@contextlib.asynccontextmanager
async def browser_for(bridge: BridgeApp, links: int) -> AsyncIterator[ExtensionBrowser]:
    """Another Chromium profile with the extension, paired with ``bridge``; ``links``: how many
    browsers are linked once it is."""
    async with launch_browser(bridge_url=f"ws://127.0.0.1:{bridge.port}/extension", headless=True) as browser:
        await eventually(lambda: len(bridge.core.links) == links, timeout=20)
        yield browser


async def open_basic(browser: ExtensionBrowser, url: str, title: str) -> Page:
    page = await browser.context.new_page()
    await page.goto(url)
    await page.evaluate("async (title) => { await window.ready; document.title = title; }", title)
    return page


def entry_in(bridge: BridgeApp, slot: int, tool: str, title: str = "In ") -> Any:
    """The tool of that name in the tab of the browser at ``slot`` whose title starts with ``title``."""
    return next(
        (
            e
            for e in bridge.core.registry.tool_entries()
            if e.tool.name == tool and slot_of(e.tab.tab_id) == slot and e.tab.title.startswith(title)
        ),
        None,
    )


def approval_windows(browser: ExtensionBrowser) -> list[Page]:
    return [p for p in browser.context.pages if APPROVAL in p.url and not p.is_closed()]


def row_of(popup: Page, tool: str) -> Locator:
    """The popup's newest activity row of the tool of that public name."""
    name = popup.locator("span.tool", has_text=re.compile(rf"^{re.escape(tool)}$"))
    return popup.get_by_test_id("activity-row").filter(has=name).first


def text(result: Any) -> str:
    assert not result.is_error, result.content
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_two_chromium_profiles_through_one_bridge(pages_url: str):
    async with running_bridge(e2e_config()) as bridge, browser_for(bridge, 1) as first:
        await open_basic(first, pages_url + "basic.html", "In the first")
        async with browser_for(bridge, 2) as second:
            await open_basic(second, pages_url + "basic.html", "In the second")
            mine = await eventually(lambda: entry_in(bridge, 0, "page_title", "In the first"), timeout=20)
            theirs = await eventually(lambda: entry_in(bridge, 1, "page_title", "In the second"), timeout=20)
            assert mine.public_name != theirs.public_name

            async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
                listed = {
                    t.name: (t.meta or {}).get("tabmcp/source", {}) for t in (await client.list_tools()).tools
                }
                one, two = listed[mine.public_name], listed[theirs.public_name]
                assert one["browser"] == two["browser"] == "chromium"
                assert one["profile"] and two["profile"] and one["profile"] != two["profile"]
                assert slot_of(one["tabId"]) == 0 and slot_of(two["tabId"]) == 1

                # each name runs in its own browser's tab
                assert "In the first" in text(await client.call_tool(mine.public_name, {}))
                assert "In the second" in text(await client.call_tool(theirs.public_name, {}))

                # the second browser's destructive tool asks there, and only there
                wipe = entry_in(bridge, 1, "clear_notes")
                call = asyncio.create_task(client.call_tool(wipe.public_name, {}))
                [win] = await eventually(lambda: approval_windows(second), timeout=30)
                assert approval_windows(first) == []
                await answer(win, allow=True)
                assert "removed" in text(await call)

            # each popup's activity rows: its own tabs by its own numbers, the other's by browser
            first_tab, second_tab = mine.tab.tab_id, theirs.tab.tab_id - TAB_STRIDE
            for browser, own, their, label in (
                (first, mine, wipe, f"Chromium {two['profile']} tab {second_tab}"),
                (second, wipe, mine, f"Chromium {one['profile']} tab {first_tab}"),
            ):
                popup = await browser.context.new_page()
                await popup.goto(POPUP)
                theirs_where = row_of(popup, their.public_name).get_by_test_id("activity-where")
                await expect(theirs_where).to_contain_text(label, timeout=20_000)  # the popup loaded
                own_where = row_of(popup, own.public_name).get_by_test_id("activity-where")
                await expect(own_where).to_contain_text(f" · tab {first_tab if own is mine else second_tab}")
                await expect(own_where).not_to_contain_text("Chromium")

        # the second browser closed: its tools go (after the reconnect grace), the first's stay
        await eventually(lambda: entry_in(bridge, 1, "page_title") is None, timeout=20)
        assert {slot_of(t) for t in bridge.core.registry.tabs} == {0}
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
            assert "In the first" in text(
                await client.call_tool(entry_in(bridge, 0, "page_title").public_name, {})
            )
