"""Tabs that come and go leave nothing behind in the extension's worker (issue 38, the soak).

The soak closes, reopens and navigates tabs for as long as it runs; whatever the worker keeps per
tab (ports, pages, frames, timers, telemetry rules and counts, limits, pending requests) must go
with the tab, or its per-call work and memory grow with every tab ever seen. The worker says which
tabs each of its per-tab maps holds (``tabmcpHeld()``, beside ``tabmcpStatus()``).
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page

from .conftest import Env, eventually

TABS = 6


async def test_closed_tabs_leave_no_state_in_the_worker(env: Env, page_closer: list[Page]) -> None:
    if env.flavour != "polyfill":
        pytest.skip("the worker's per-tab state is the same in both flavours; one covers it")
    worker = await env.browser.worker()
    pages = [await env.open(f"basic.html?churn={i}", wait_for_tool="wait") for i in range(TABS)]
    page_closer.extend(pages)
    names = [await env.wait_tool("wait", page) for page in pages]
    tab_ids = [next(t.tab_id for t in env.bridge.core.registry.tabs.values() if t.url == p.url) for p in pages]
    async with env.client() as client:
        for name in names:  # every tab has answered a call (its counts, its badge)
            assert not (await client.call_tool(name, {"ms": 0})).is_error
        held = await worker.evaluate("() => tabmcpHeld()")
        assert set(tab_ids) <= set(held["ports"]) & set(held["pages"]) & set(held["received"]), held
        # Two tabs close during a call, two between calls, one navigates; one stays as it was.
        running = [asyncio.create_task(client.call_tool(name, {"ms": 30_000})) for name in names[:2]]
        await eventually(lambda: len(env.bridge.core.calls) == 2)
        await eventually(lambda: worker.evaluate("() => tabmcpHeld().pending.length === 2"))
        for page in pages[:4]:
            await page.close()
        await pages[4].goto(env.pages_url + "basic.html?churn=again")
        for result in await asyncio.gather(*running):  # their codes are test_pending's subject
            assert result.is_error and result.structured_content["error"]["code"].startswith("TAB_"), result

    async def only_open_tabs() -> bool:
        open_ids = set(await worker.evaluate("async () => (await chrome.tabs.query({})).map((t) => t.id)"))
        held = await worker.evaluate("() => tabmcpHeld()")
        return all(set(ids) <= open_ids for ids in held.values()) and not set(tab_ids[:4]) & open_ids

    await eventually(only_open_tabs)
    held = await worker.evaluate("() => tabmcpHeld()")
    assert not set(tab_ids[:4]) & {tab for ids in held.values() for tab in ids}, held
    assert {tab_ids[4], tab_ids[5]} <= set(held["ports"]), held  # the open ones are still served
