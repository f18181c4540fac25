"""Definitions the bridge refuses are never dropped silently: the page's console says which and
why, and the person sees it in the popup, while the page's other tools keep working."""

from __future__ import annotations

from typing import Any

from tabmcp.packaging.assets import EXTENSION_ID

from .conftest import Env, eventually

TOO_LONG = "Looks up an order. " * 500  # 9,500 characters: over the bridge's 8,000 limit


async def test_a_refused_tool_is_reported_to_the_page_and_the_person(env: Env, page_closer):
    page = await env.open("basic.html", wait_for_tool="page_title")
    page_closer.append(page)
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    await page.evaluate(
        """(description) => document.modelContext.registerTool({name: 'verbose_lookup', description,
            inputSchema: {type: 'object', properties: {}}, execute: () => 'x'})""",
        TOO_LONG,
    )
    # The page learns it from its own console.
    await eventually(lambda: any("refused" in w and "verbose_lookup" in w for w in warnings), timeout=15)
    assert not any(e.tool.name == "verbose_lookup" for e in env.bridge.core.registry.tool_entries())
    # The person sees it in the popup, with the bridge's reason.
    popup = await env.browser.context.new_page()
    page_closer.append(popup)
    await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
    row = popup.get_by_test_id("tab").filter(has_text="Basic tools")
    marker = row.get_by_test_id("refused")
    await marker.wait_for()
    reason: Any = await marker.get_attribute("title")
    assert "verbose_lookup" in reason and "8000" in reason.replace(",", "")
    # The page's other tools still work.
    async with env.client() as client:
        result = await client.call_tool("page_title", {})
    assert result.content[0].text == "Basic tools"
