"""Nothing the agent needs to choose is lost with the compact category entries: over the real
MCP surface, a listed category shows its site, size and purpose, and its member names are one
call away (calling it, ``search_tools(category=…)``, ``describe_tools``)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from mcp import Client
from tabmcp.core.disclosure import read_category_marker
from tabmcp.server.mcp import INSTRUCTIONS

from .conftest import eventually
from .helpers import tab, tool
from .test_bridge import mcp_url

BIG = [f"report_{i:02d}" for i in range(14)]  # more than search_tools' default limit of 10
HUGE = [f"metric_{i:02d}" for i in range(60)]  # more than search_tools' maximum of 50


def site() -> dict:
    tools = [tool("refund_order", "Refund an order to the customer's card."),
             tool("get_order", "Look up an order by its number.")]
    tools += [tool(n, f"Monthly report number {n[-2:]}.") for n in BIG]
    tools += [tool(n, f"Metric {n[-2:]} of the shop.") for n in HUGE]
    return tab(1, url="https://shop.test/admin", tools=tools, categories=[
        {"name": "orders", "description": "Customer orders: look up and refund.",
         "tools": ["refund_order", "get_order"]},
        {"name": "reports", "description": "Monthly reports of the shop.", "tools": BIG},
        {"name": "metrics", "description": "Shop metrics.", "tools": HUGE},
    ])


async def test_member_names_are_one_call_away(bridge, extension):
    await extension.sync(site())
    await eventually(lambda: bridge.core.tool("metric_59"))
    async with Client(mcp_url(bridge)) as client:
        listed = {t.name: t for t in (await client.list_tools(cache_mode="bypass")).tools}
        orders = listed["orders"]
        assert read_category_marker(orders.description) == ("https://shop.test", 2)
        assert "Customer orders: look up and refund." in orders.description  # the purpose, as given
        assert orders.annotations.read_only_hint is True
        assert "refund_order" not in listed and "report_13" not in listed

        # 1. Calling the category: names and schemas.
        opened = await client.call_tool("reports", {})
        assert [t["name"] for t in opened.structured_content["tools"]] == BIG

        # 2. search_tools with the category alone lists all of it, not the default ten.
        found = await client.call_tool("search_tools", {"category": "reports"})
        assert [t["name"] for t in found.structured_content["tools"]] == BIG
        assert "of 14" not in found.content[0].text
        # ...and says so when a category holds more than one answer carries.
        many = await client.call_tool("search_tools", {"category": "metrics"})
        assert len(many.structured_content["tools"]) == 50
        assert "(50 of 60: call metrics for all of them)" in many.content[0].text
        assert len((await client.call_tool("metrics", {})).structured_content["tools"]) == 60
        # A query still ranks within the category, with the usual limit.
        ranked = await client.call_tool("search_tools", {"category": "orders", "query": "refund"})
        assert ranked.structured_content["tools"][0]["name"] == "refund_order"

        # 3. describe_tools of the category: every member name and the _meta clients read before.
        described = await client.call_tool("describe_tools", {"tools": ["orders"]})
        (full,) = described.structured_content["tools"]
        assert full["description"].endswith("Tools: refund_order, get_order.")
        assert full["_meta"]["tabmcp/category"] == {"isCategory": True, "toolCount": 2,
                                                    "tools": ["refund_order", "get_order"]}
        assert full["_meta"]["tabmcp/source"]["url"] == "https://shop.test/admin"


async def test_the_how_to_is_said_once_where_every_client_sees_it(bridge, extension):
    await extension.sync(site())
    await eventually(lambda: bridge.core.tool("orders"))
    async with Client(mcp_url(bridge)) as client:
        assert client.instructions == INSTRUCTIONS
        listed = {t.name: t for t in (await client.list_tools(cache_mode="bypass")).tools}
    assert "category, N tools" in INSTRUCTIONS and "search_tools(category=" in INSTRUCTIONS
    assert "(no arguments)" in listed["call_tool"].description
    for name in ("orders", "reports", "metrics"):
        description = listed[name].description or ""
        assert "call_tool" not in description and "(no arguments)" not in description


async def test_lean_listed_schemas_still_check_arguments(bridge, extension):
    await extension.sync(site())
    await eventually(lambda: bridge.core.tool("orders"))
    async with Client(mcp_url(bridge)) as client:
        listed = {t.name: t for t in (await client.list_tools(cache_mode="bypass")).tools}
        assert listed["search_tools"].input_schema["properties"]["limit"] == {"type": "integer"}
        too_many = await client.call_tool("search_tools", {"query": "order", "limit": 500})
        assert too_many.is_error and too_many.structured_content["error"]["code"] == "VALIDATION_ERROR"
        unknown = await client.call_tool("describe_tools", {"tools": ["orders"], "verbose": True})
        assert unknown.is_error and unknown.structured_content["error"]["code"] == "VALIDATION_ERROR"


async def test_the_cli_tells_categories_from_the_bracket(bridge, extension):
    """``tabmcp tools`` reads a listed category's kind, size and site from its bracket (no _meta)."""
    await extension.sync(site())
    await eventually(lambda: bridge.core.tool("orders"))
    out = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "tabmcp.cli", "tools", "--port", str(bridge.port)],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [f"{len(out.stdout.splitlines())} tools"], out.stderr  # no SDK warning
    rows = {line.split()[0]: line.split()[1:] for line in out.stdout.splitlines() if line.strip()}
    assert rows["orders"] == ["category", "(2", "tools)", "https://shop.test"]
    assert rows["metrics"] == ["category", "(60", "tools)", "https://shop.test"]
    assert rows["call_tool"] == ["builtin"]
