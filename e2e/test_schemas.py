"""Every tool the browser keeps reaches the agent (issue 29, bridge side), in both flavours.

The page (``pages/schemas.html``) registers tools as sites and MCP servers write them: ``format``,
``$ref``/``$defs``, a pattern only JavaScript reads, ``additionalProperties`` as a schema, an
``outputSchema`` (Chrome 159), and a category with one member the browser refuses and one the
bridge refuses. The agent is the official SDK ``Client`` (which checks structured results against
the listed ``outputSchema`` itself).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

from tabmcp.packaging.assets import EXTENSION_ID

from .conftest import Env, eventually

WEATHER_OUTPUT = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temp": {"type": "number"}, "unit": {"type": "string", "enum": ["C", "F"]}},
    "required": ["city", "temp", "unit"],
}


def page_tools(env: Env, url: str) -> dict[str, Any]:
    return {e.tool.name: e for e in env.bridge.core.registry.tool_entries() if e.tab.url == url}


async def open_schemas(env: Env, page_closer: list[Any]) -> tuple[Any, list[str]]:
    page = await env.browser.context.new_page()
    page_closer.append(page)
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    await page.goto(env.pages_url + "schemas.html")
    return page, warnings


async def test_every_tool_the_browser_keeps_reaches_the_agent(env: Env, page_closer):
    page, warnings = await open_schemas(env, page_closer)
    kept = await page.evaluate("window.registered")  # what the page's own getTools() lists
    # The browser keeps the schemas as servers write them; only the member without a description is refused.
    assert kept == ["createEvent", "findSlot", "list_cities", "verboseHelp", "weather", "weather_broken"]
    # The bridge keeps all but the one it refuses (its description is over the 8,000-character limit),
    # and the category keeps its valid members.
    await eventually(lambda: set(page_tools(env, page.url)) == set(kept) - {"verboseHelp"}, timeout=20)
    calendar = next(e for e in env.bridge.core.registry.category_entries() if e.tab.url == page.url)
    assert [m.tool.name for m in calendar.members] == ["createEvent", "findSlot"]
    async with env.client() as client:
        tools_ = page_tools(env, page.url)
        names = {n: env.bridge.core.registry.public_name(tools_[n].tab.key, n) for n in ("createEvent", "findSlot")}
        # a pattern only ECMA-262 reads, and formats as annotations
        made = await client.call_tool(names["createEvent"], {"title": "Tea", "day": "someday", "email": "ada.l@x-y.org"})
        assert not made.is_error, made
        bad = await client.call_tool(names["createEvent"], {"title": "Tea", "email": "not an address"})
        assert bad.structured_content["error"]["code"] == "VALIDATION_ERROR"
        assert bad.structured_content["error"]["rule"] == "pattern"
        # $ref/$defs resolved when the arguments are checked
        slot = await client.call_tool(names["findSlot"], {"range": {"from": "monday"}, "tags": {"who": "me"}})
        assert not slot.is_error and slot.structured_content == {"slot": "monday 10:00"}
        for wrong, rule in (({"range": {"to": "friday"}}, "required"), ({"range": {"from": 1}}, "type"),
                            ({"range": {"from": "monday"}, "tags": {"who": 5}}, "type")):
            refused = await client.call_tool(names["findSlot"], wrong)
            assert refused.structured_content["error"]["code"] == "VALIDATION_ERROR", wrong
            assert refused.structured_content["error"]["rule"] == rule, wrong
        # Every refusal is visible: introspect names the bridge's, with its reason ...
        overview = (await client.call_tool("introspect", {})).structured_content
    (source,) = [s for s in overview["sources"] if s["url"] == page.url]
    refused = {(r["kind"], r["name"]): r["reason"] for r in source["refused"]}
    assert "8000" in refused[("tool", "verboseHelp")].replace(",", "")
    assert "must describe an object" in refused[("outputSchema", "list_cities")]
    # ... the page's console has both the browser's refusal and the bridge's
    await eventually(lambda: any("noDescription" in w for w in warnings) and any("verboseHelp" in w for w in warnings),
                     timeout=15)
    # ... so does the popup (its row for the tab, the reason in the tooltip)
    popup = await env.browser.context.new_page()
    page_closer.append(popup)
    await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
    marker = popup.get_by_test_id("tab").filter(has_text="Schemas as servers write them").get_by_test_id("refused")
    await marker.wait_for()
    assert "verboseHelp" in (await marker.get_attribute("title") or "")
    # ... and `tabmcp tools`
    out = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "tabmcp.cli", "tools", "--url", env.mcp_url],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "refused tool 'verboseHelp'" in out.stdout and "refused outputSchema 'list_cities'" in out.stdout


async def test_output_schema_end_to_end(env: Env, page_closer):
    page, _ = await open_schemas(env, page_closer)
    await page.evaluate("window.registered")
    await eventually(lambda: {"weather", "weather_broken", "list_cities"} <= set(page_tools(env, page.url)), timeout=20)
    tools = page_tools(env, page.url)
    name = {n: env.bridge.core.registry.public_name(tools[n].tab.key, n) for n in tools}
    async with env.client() as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert listed[name["weather"]].output_schema == WEATHER_OUTPUT
        assert listed[name["list_cities"]].output_schema is None  # an array: MCP cannot say it; the tool stays
        described = await client.call_tool("describe_tools", {"tools": [name["weather"]]})
        assert described.structured_content["tools"][0]["outputSchema"] == WEATHER_OUTPUT
        # The SDK client checks the structured result against the listed outputSchema itself.
        result = await client.call_tool(name["weather"], {"city": "Oslo"})
        assert not result.is_error, result
        assert result.structured_content == {"city": "Oslo", "temp": 21.5, "unit": "C"}
        broken = await client.call_tool(name["weather_broken"], {})
        assert broken.is_error and broken.structured_content["error"]["code"] == "BAD_RESULT"
        assert broken.structured_content["error"]["field"] == "temp"
        cities = await client.call_tool(name["list_cities"], {})
        assert not cities.is_error and cities.content[0].text == '["Oslo","Lima"]'
    # the page's execute got an object, never JSON text
    assert await page.evaluate("window.inputs.filter((i) => i.name === 'weather').map((i) => i.type)") == ["object"]


async def test_execute_tool_takes_an_object(env: Env, page_closer):
    """Chrome 155: ``executeTool(tool, input)`` takes an object; JSON text (what sites passed before)
    is refused alike in both flavours, and the page's execute receives an object."""
    page, _ = await open_schemas(env, page_closer)
    out = await page.evaluate("""async () => {
        await window.registered;
        const mc = document.modelContext;
        const tool = (await mc.getTools()).find((t) => t.name === 'weather');
        const fromObject = await mc.executeTool(tool, { city: 'Lima' });
        let fromText;
        try { fromText = await mc.executeTool(tool, '{"city": "Lima"}'); } catch (e) { fromText = e.name; }
        return { fromObject, fromText, inputs: window.inputs.map((i) => [i.name, i.type, i.input.city]) };
    }""")
    assert out["fromObject"] == '{"city":"Lima","temp":21.5,"unit":"C"}'
    assert out["fromText"] == "TypeError"
    assert out["inputs"] == [["weather", "object", "Lima"]]
