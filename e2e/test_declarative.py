"""Declarative WebMCP tools end to end: a ``<form toolname tooldescription toolautosubmit>`` on a page
with no script of its own reaches an MCP client through the real extension and bridge, in both
flavours (the polyfill alone, and native WebMCP in Chromium)."""

from __future__ import annotations

import json

from .conftest import Env, eventually


async def test_a_form_is_a_tool_that_fills_submits_and_answers(env: Env, page_closer):
    page = await env.open("declarative.html", wait_for_tool="book_ferry")
    page_closer.append(page)
    async with env.client() as client:
        tools = {t.name: t for t in (await client.list_tools(cache_mode="bypass")).tools}
        tool = tools["book_ferry"]
        assert "Book seats on a ferry crossing" in (tool.description or ""), tool.description
        schema = tool.input_schema
        assert schema["required"] == ["who", "day"]
        props = schema["properties"]
        assert props["who"] == {"type": "string", "description": "Passenger name"}
        assert props["day"]["type"] == "string" and props["day"]["format"] == "date"
        assert props["seats"] == {
            "type": "number",
            "minimum": 1,
            "maximum": 9,
            "multipleOf": 1,
            "description": "Seats",
        }
        assert props["port"]["enum"] == ["ath", "her"]
        assert [c["title"] for c in props["port"]["anyOf"]] == ["Athens", "Heraklion"]
        assert props["cabin"]["type"] == "boolean"

        args = {"who": "Ada Lovelace", "day": "2026-12-01", "seats": 2, "port": "her", "cabin": True}
        result = await client.call_tool("book_ferry", args)
        assert not result.is_error, result
        text = result.content[0].text
        booking = {"booking": "FB-1", "passenger": "Ada Lovelace", "day": "2026-12-01", "port": "her"}
        assert json.loads(text) == booking

    # The page saw an agent's submission of the filled-in form.
    row = page.get_by_test_id("submission")
    await eventually(lambda: row.count(), timeout=5)
    assert await row.count() == 1
    assert await row.get_attribute("data-agent-invoked") == "true"
    assert await row.text_content() == "Ada Lovelace 2026-12-01 2 her cabin=true"
    assert await page.locator("#who").input_value() == "Ada Lovelace"
