"""tools/list in pages where one answer could not carry it (issue 30): a handshake-era client on
HTTP gets server-sent events, and the official SDK client refuses one over 1 MiB. With 10,000
page tools its tools/list used to fail ("Server-sent event exceeded the 1048576 byte limit")."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from tabmcp.core.paging import PAGE_BYTES, BadCursor, page_of
from tabmcp.server.app import running_bridge

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool


def tools_of(n: int, size: int = 200) -> list[dict]:
    return [{"name": f"t{i}", "description": "d" * size} for i in range(n)]


def test_a_listing_that_fits_is_one_page():
    tools = tools_of(10)
    assert page_of(tools, None) == (tools, None)


def test_a_large_listing_comes_in_pages_that_add_up_to_it():
    tools = tools_of(10_000)
    pages, cursor = [], None
    while True:
        page, cursor = page_of(tools, cursor)
        assert len(json.dumps(page, separators=(",", ":"))) <= PAGE_BYTES
        pages.append(page)
        if cursor is None:
            break
    assert len(pages) > 1 and [t for p in pages for t in p] == tools
    # One tool larger than a page is a page of its own; nothing is lost.
    big = [{"name": "big", "description": "x" * (2 * PAGE_BYTES)}, *tools_of(3)]
    first, cursor = page_of(big, None)
    assert first == big[:1] and page_of(big, cursor) == (big[1:], None)


@pytest.mark.parametrize("cursor", ["", "tools:", "tools:-1", "x:1", "tools:1e3", "tools:9999999999"])
def test_a_cursor_the_bridge_did_not_hand_out_is_refused(cursor):
    with pytest.raises(BadCursor):
        page_of(tools_of(3), cursor)


@pytest.mark.timeout(120)
async def test_ten_thousand_tools_are_listed_to_a_handshake_era_client_over_http():
    async with running_bridge(make_config(disclosure={"profile": "passthrough"})) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        await ext.sync(tab(1, tools=[tool(f"tool_{i}", f"Tool number {i}, described in a few ordinary words.")
                                     for i in range(10_000)]))
        await eventually(lambda: app.core.registry.counts()["tools"] == 10_000, 60)
        async with Client(f"http://127.0.0.1:{app.port}/mcp", mode="legacy") as client:
            names: list[str] = []
            cursor = None
            pages = 0
            while True:
                page = await client.list_tools(cursor=cursor, cache_mode="bypass")
                names += [t.name for t in page.tools]
                pages += 1
                cursor = page.next_cursor
                if cursor is None:
                    break
            assert pages > 1
            assert len(names) == len(set(names)) and {f"tool_{i}" for i in range(10_000)} <= set(names)
            with pytest.raises(MCPError) as refused:
                await client.list_tools(cursor="not-ours", cache_mode="bypass")
            assert refused.value.code == -32602
        # A modern client gets it whole, as plain JSON (no event limit applies).
        async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
            listed = await client.list_tools(cache_mode="bypass")
            assert listed.next_cursor is None and len(listed.tools) >= 10_000
        await ext.close()
