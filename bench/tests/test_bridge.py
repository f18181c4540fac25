"""bench/_bridge.py: the one rule benchmarks wait on (the bridge took or refused a page's tools)."""

from __future__ import annotations

import pytest
from tabmcp.config import Config
from tabmcp.protocol import TabSnapshot
from tabmcp.wiring import BridgeCore

from bench._bridge import settled, until_settled

URL = "https://catalog.test/"


def core_with_page() -> BridgeCore:
    core = BridgeCore(Config().with_overrides({"store": {"path": ":memory:"}}))
    tools = [
        {"name": "taken", "description": "A tool the bridge takes.", "inputSchema": {"type": "object"}},
        {"name": "refused", "description": "A schema no one can read.",
         "inputSchema": {"type": "object", "properties": {"x": {"type": 3}}}},
    ]
    core.registry.apply(TabSnapshot.model_validate({"tabId": 1, "url": URL, "tools": tools}))
    return core


def test_a_page_is_settled_when_each_tool_is_taken_or_refused() -> None:
    core = core_with_page()
    tab = core.registry.tab(1)
    assert tab is not None
    assert [r.name for r in tab.rejected] == ["refused"]
    assert settled(core, URL, {"taken", "refused"})
    assert not settled(core, URL, {"taken", "still_coming"})
    assert not settled(core, "https://other.test/", {"taken"})


async def test_waiting_ends_when_settled_and_says_so_when_not() -> None:
    core = core_with_page()
    await until_settled(core, URL, ["taken"], timeout_s=5)
    with pytest.raises(RuntimeError, match="1 tools"):
        await until_settled(core, URL, ["never"], timeout_s=0.05, poll_s=0.01)
