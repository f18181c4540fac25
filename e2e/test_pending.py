"""The extension's one table of pending requests (extension/pending.js): calls, page queries and
approvals end by the same rules (tab closed, page gone, bridge link dropped, timeout, cancel).

Each test makes the extension, not the bridge, the one that ends the request: the message the
client sees is the extension's, or the effect is in the page (which only the extension reaches).
"""

from __future__ import annotations

import asyncio
from typing import Any

from tabmcp.core.extension_links import RequestKind

from .conftest import Env, eventually


def pending(env: Env, kind: RequestKind) -> int:
    return len(env.bridge.core.session.requests.all(kind))


async def test_a_call_and_a_page_query_in_a_closed_tab_both_end_tab_closed(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    tab_id = next(t.tab_id for t in env.bridge.core.registry.tabs.values() if t.url == page.url)
    async with env.client() as client:
        call = asyncio.create_task(client.call_tool("wait", {"ms": 30000}))
        await eventually(lambda: pending(env, RequestKind.CALL) == 1)
        # The page's thread spins from its next task on, queued before the query can reach it:
        # it cannot answer the query, so only the tab's end can end it.
        await page.evaluate("() => { setTimeout(() => { for (;;) {} }, 0); }")
        query = asyncio.create_task(client.call_tool("query_dom", {"selector": "body", "tab_id": tab_id}))
        await eventually(lambda: pending(env, RequestKind.QUERY) == 1)
        await page.close()
        results = await asyncio.gather(call, query)
    for result in results:
        assert result.is_error, result.content
        error: dict[str, Any] = result.structured_content["error"]
        assert error["code"] == "TAB_CLOSED", error
        # The extension's words (the bridge's own rule says "tab N closed ..."): its table ended both.
        assert error["message"] == f"tab {tab_id} was closed", error
    assert pending(env, RequestKind.CALL) == pending(env, RequestKind.QUERY) == 0


async def test_a_dropped_bridge_link_stops_the_call_in_the_page(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    await page.evaluate("() => { delete document.body.dataset.cancelled; }")
    link = env.bridge.core.link
    assert link is not None
    async with env.client() as client:
        call = asyncio.create_task(client.call_tool("wait", {"ms": 30000}))
        await eventually(lambda: pending(env, RequestKind.CALL) == 1)
        await link.close(1012, "dropped by the test")
        result = await call
    assert result.is_error  # the bridge ended its side when the link dropped
    # Nobody waits for the answer any more: the extension's rule tells the page to stop now,
    # instead of letting the tool run out its 30 s.
    assert await eventually(lambda: page.evaluate("document.body.dataset.cancelled"), timeout=10) == "wait"
    await eventually(lambda: env.bridge.core.link is not link and env.bridge.core.connected, timeout=20)
