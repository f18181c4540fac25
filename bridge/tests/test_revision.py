"""The listing revision: every change of what tools/list shows raises it, and the notification
that reports a change carries a revision at least that of the listing showing it."""

from __future__ import annotations

import time
from typing import Any

from mcp import Client
from tabmcp.testing import ListChanges, listed, listing_revision

from .conftest import eventually
from .helpers import tab, tool
from .telemetry.factory import batch, request


def mcp_url(bridge: Any) -> str:
    return f"http://127.0.0.1:{bridge.port}/mcp"


def observe_modes(result: Any) -> list[str]:
    observe = next(t for t in result.tools if t.name == "observe")
    return list(observe.input_schema["properties"]["what"]["enum"])


async def test_telemetry_that_changes_the_listing_raises_the_revision_and_is_announced(bridge, extension):
    changes = ListChanges()
    await extension.sync(tab(1, url="https://shop.test/", tools=[tool("a")]))
    await eventually(lambda: bridge.core.tool("a"))
    async with Client(mcp_url(bridge), mode="legacy", message_handler=changes) as client:
        before = await client.list_tools()
        assert "network" not in observe_modes(before)
        await extension.send(batch([request(time.time() * 1000, "/api/orders")]))
        after = await changes.until_listed(client, lambda r: "network" in observe_modes(r))
        assert listing_revision(after) > listing_revision(before)


async def test_a_notification_older_than_the_listing_is_not_taken_for_it(bridge, extension):
    changes = ListChanges()
    async with Client(mcp_url(bridge), mode="legacy", message_handler=changes) as client:
        await extension.sync(tab(1, tools=[tool("a")]))
        await changes.until_listed(client, listed("a"))
        first = list(changes.revisions)
        await extension.send({"type": "tab.update", "tab": tab(1, tools=[tool("a"), tool("b")])})
        shown = await changes.until_listed(client, listed("b"))
        assert max(first) < listing_revision(shown) <= max(changes.revisions)
