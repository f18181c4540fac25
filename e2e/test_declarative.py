"""Declarative WebMCP tools end to end: a ``<form toolname tooldescription toolautosubmit>`` on a page
with no script of its own reaches an MCP client through the real extension and bridge, in both
flavours (the polyfill alone, and native WebMCP in Chromium)."""

from __future__ import annotations

import asyncio
import json

from mcp import Client
from playwright.async_api import expect
from tabmcp.core.extension_links import RequestKind

from .conftest import Env, eventually, other_bridge


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


async def test_the_same_form_the_same_rule_and_words_in_both_flavours(env: Env, page_closer):
    """Whether a form's call asks the person depends on the tool and the person's policy, never on
    which WebMCP implementation registered it; a select inside its label is described by the
    label's own words, as Chromium's native forms describe it."""
    async with other_bridge(env, trust={"frame_text": True, "pin_definitions": True}) as bridge:
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + "berth.html")
        await eventually(lambda: bridge.core.tool("reserve_berth")
                         and bridge.core.tool("request_upgrade"))
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
            tools = {t.name: t for t in (await client.list_tools(cache_mode="bypass")).tools}
            cabin = tools["reserve_berth"].input_schema["properties"]["cabin"]
            assert cabin["description"] == "Cabin"
            assert [c["title"] for c in cabin["anyOf"]] == ["Deck", "Reserved seat", "Berth"]

            # toolautosubmit, writes on, no annotation asking for approval: it runs at once
            result = await client.call_tool("reserve_berth", {"cabin": "berth", "who": "Ann"})
            assert not result.is_error, result.content
            assert "berth: cabin=berth&who=Ann" in result.content[0].text
            assert not bridge.core.session.requests.all(RequestKind.APPROVAL)

            # without toolautosubmit the person submits the filled form: no approval is asked first
            call = asyncio.ensure_future(client.call_tool("request_upgrade", {"who": "Bob"}))
            await expect(page.locator("#upgrade input[name=who]")).to_have_value("Bob", timeout=15_000)
            assert not bridge.core.session.requests.all(RequestKind.APPROVAL) and not call.done()
            await page.click("#upgrade button")
            result = await asyncio.wait_for(call, 20)
            assert not result.is_error, result.content
            assert "upgrade: who=Bob" in result.content[0].text
