"""The activity log is durable and current: a call is in the bridge's SQLite file within a second
of ending, with or without later calls, and a ``kill -9`` of the bridge loses at most the last
second. A real ``tabmcp serve`` process, real Chromium with the extension, the MCP SDK client."""

from __future__ import annotations

import asyncio
import time

from .bridge_process import BridgeProcess, bridge_process
from .conftest import eventually


async def _open_basic(bridge: BridgeProcess, pages_url: str) -> None:
    assert bridge.browser is not None
    page = await bridge.browser.context.new_page()
    await page.goto(pages_url + "basic.html")

    async def ready() -> bool:
        return (await bridge.health())["tools"] >= 6

    await eventually(ready, timeout=20, interval=0.1)


def _logged(bridge: BridgeProcess) -> list[tuple[str, str]]:
    return [(t, o) for t, o in bridge.rows("SELECT tool, outcome FROM activity ORDER BY id")]


async def test_the_last_calls_reach_the_file_and_the_cli_within_a_second(tmp_path, pages_url):
    async with bridge_process(tmp_path) as bridge:
        await _open_basic(bridge, pages_url)
        async with bridge.client() as client:
            assert not (await client.call_tool("add_note", {"text": "durable"})).is_error
            assert (await client.call_tool("fail", {})).is_error  # a failing call is logged too
            # No call follows and nothing reads through the bridge: the rows reach the file on
            # their own (the bound, a second, is the crash test's below).
            expected = [("add_note", "ok"), ("fail", "PAGE_ERROR")]
            await eventually(lambda: _logged(bridge) == expected, timeout=10)
            listed = await bridge.cli("activity", "--json")
            assert [(r["tool"], r["outcome"]) for r in listed] == expected[::-1]


async def test_a_killed_bridge_keeps_the_call_that_ended_a_second_before(tmp_path, pages_url):
    async with bridge_process(tmp_path) as bridge:
        await _open_basic(bridge, pages_url)
        async with bridge.client() as client:
            assert not (await client.call_tool("add_note", {"text": "before the crash"})).is_error
            ended = time.monotonic()
        await asyncio.sleep(1.2 - (time.monotonic() - ended))  # the scenario: a crash 1.2 s after the call
        bridge.kill()
        assert _logged(bridge) == [("add_note", "ok")]
        listed = await bridge.cli("activity", "--json")
        assert "before the crash" in listed[0]["arguments"]
