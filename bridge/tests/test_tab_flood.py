"""One tab cannot take the extension link down for every tab (issue 30, item 3), the bridge's side.

The extension limits each page itself (e2e/test_flood.py); these are the bridge's own rules for
whatever reaches it anyway: one tab's telemetry flood is shed for that tab alone (core/flood.py),
the link closes only for floods beyond any tab rule, and a sync too large for one frame comes in
parts (``tabs.sync`` ``more``) that are applied together.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from mcp import Client
from tabmcp.core.extension_links import ExtensionLinks, MessageReceived, Peer
from tabmcp.core.flood import QUIET_S, TAB_BURST, TAB_RATE, TabFlood
from tabmcp.protocol import MAX_SYNC_PARTS, PROTOCOL_VERSION, TabsSync
from tabmcp.server.extension import FLOOD_BURST, FLOOD_RATE

from .conftest import eventually
from .helpers import ScriptedExtension, tab, tool

# -- the per-tab rule, alone --------------------------------------------------------------------


def test_a_busy_tab_passes_and_a_flooding_tab_is_shed_alone_and_named_once():
    now = [0.0]
    rule = TabFlood(clock=lambda: now[0])
    for _ in range(600):  # a busy page: 20 batches a second for 30 s
        now[0] += 0.05
        assert rule.admit(1) is True
    # A flood in tab 2: its burst, then shed; named once (None), then just shed (False).
    verdicts = [rule.admit(2) for _ in range(5000)]
    assert verdicts.count(True) == pytest.approx(TAB_BURST, abs=1)
    assert verdicts.count(None) == 1
    assert rule.shed[2] == 5000 - verdicts.count(True) == rule.shed_total
    assert rule.flooding() == [2]
    assert rule.admit(1) is True  # the other tab never noticed
    # The tab's rate refills; after a quiet spell a new flood is a new episode, named again.
    now[0] += 1.0
    assert sum(rule.admit(2) is True for _ in range(1000)) == pytest.approx(TAB_RATE, abs=1)
    now[0] += QUIET_S + TAB_BURST / TAB_RATE
    assert rule.flooding() == []
    assert [rule.admit(2) for _ in range(int(TAB_BURST) + 1)][-1] is None


def test_the_rule_keeps_a_bounded_number_of_tabs():
    rule = TabFlood(max_tabs=8)
    for tab_id in range(100):
        rule.admit(tab_id)
    assert len(rule._buckets) == 8


def telemetry(tab_id: int, n: int = 1) -> str:
    return json.dumps({"type": "telemetry", "tabId": tab_id, "url": f"http://site{tab_id}.test/",
                       "events": [{"kind": "console", "ts": n, "level": "log", "args": ["flood"]}]})


def test_the_session_sheds_one_tabs_telemetry_and_names_it(caplog: pytest.LogCaptureFixture):
    now = [0.0]
    session = ExtensionLinks(session_id="s", bridge_version="t", clock=lambda: now[0])
    peer = Peer("p")
    session.receive(peer, json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION}))
    caplog.set_level(logging.WARNING, "tabmcp.session")
    passed = sum(len(session.receive(peer, telemetry(5))) for _ in range(2000))
    assert passed == pytest.approx(TAB_BURST, abs=1)
    assert session.tab_flood.shed[5] == 2000 - passed
    assert [r for r in caplog.records if "tab 5 " in r.getMessage() and "TAB_FLOODED" in r.getMessage()]
    # Another tab's telemetry still goes on, and so does everything else.
    assert isinstance(session.receive(peer, telemetry(7))[0], MessageReceived)
    # A closed tab's counts go with it.
    session.tab_closed(5)
    assert 5 not in session.tab_flood.shed


# -- a sync in parts ----------------------------------------------------------------------------


def sync(*tab_ids: int, more: bool = False) -> str:
    return json.dumps({"type": "tabs.sync", "tabs": [tab(i, tools=[tool(f"t{i}")]) for i in tab_ids],
                       **({"more": True} if more else {})})


def test_a_sync_in_parts_is_one_sync_once_its_last_part_arrives():
    session = ExtensionLinks(session_id="s", bridge_version="t")
    peer = Peer("p")
    session.receive(peer, json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION}))
    assert session.receive(peer, sync(1, 2, more=True)) == []
    assert session.receive(peer, sync(3, more=True)) == []
    (event,) = session.receive(peer, sync(4))
    assert isinstance(event, MessageReceived) and isinstance(event.message, TabsSync)
    assert [t.tab_id for t in event.message.tabs] == [1, 2, 3, 4]
    # The next sync starts afresh.
    (event,) = session.receive(peer, sync(9))
    assert [t.tab_id for t in event.message.tabs] == [9]


def test_a_sync_in_too_many_parts_is_refused_by_name():
    session = ExtensionLinks(session_id="s", bridge_version="t")
    peer = Peer("p")
    session.receive(peer, json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION}))
    session.data_to_send()
    for _ in range(MAX_SYNC_PARTS):
        assert session.receive(peer, sync(1, more=True)) == []
    errors = [a.message for a in session.data_to_send() if getattr(a, "message", None) is not None]
    assert [e.code for e in errors if e.type == "error"] == ["TOO_LARGE"]
    assert len(peer.sync_parts) < MAX_SYNC_PARTS


# -- over real sockets --------------------------------------------------------------------------


async def test_a_sync_sent_in_parts_registers_every_tab_together(bridge):
    ext = ScriptedExtension(bridge.port)
    await ext.connect(batch=True)
    try:
        await ext.send(sync(1, 2, more=True))
        await ext.send({"type": "ping", "ts": 1})
        await ext.wait_for(lambda m: m["type"] == "pong")
        assert bridge.core.registry.counts()["tabs"] == 0  # nothing applied before the last part
        await ext.send(sync(3))
        await eventually(lambda: bridge.core.registry.counts()["tabs"] == 3)
    finally:
        await ext.close()


@pytest.mark.timeout(60)
async def test_one_tab_flooding_telemetry_leaves_the_link_and_the_other_tabs_alone(
    bridge, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.WARNING)
    ext = ScriptedExtension(bridge.port)
    await ext.connect(batch=True)

    async def echo(msg: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "result": {"content": [{"type": "text", "text": f"{msg['tabId']}:{msg['tool']}"}]}}

    ext.handler = echo
    await ext.sync(tab(5, tools=[tool("noisy")]), tab(7, tools=[tool("quiet")]))
    await eventually(lambda: bridge.core.tool("quiet"))
    link = bridge.core.link
    # More than the link's whole allowance for the time it takes, all from tab 5.
    total = int(FLOOD_BURST + 3 * FLOOD_RATE) * 2
    frames = ["\n".join(telemetry(5, n) for n in range(i, i + 500)) for i in range(0, total, 500)]

    async def flood() -> None:
        for frame in frames:
            await ext.ws.send(frame)
            await asyncio.sleep(0)

    async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as client:
        flooding = asyncio.create_task(flood())
        calls = 0
        while not flooding.done() or calls < 3:
            result = await asyncio.wait_for(client.call_tool("quiet", {}), 10)
            assert not result.is_error, result.content
            assert result.content[0].text == "7:quiet"
            calls += 1
        await flooding
        await eventually(lambda: bridge.core.session.tab_flood.shed_total >= total - 2 * TAB_BURST, 20)
    assert bridge.core.link is link and bridge.core.connected
    assert ext.ws.close_code is None
    assert not [m for m in ext.received if m["type"] == "error" and m["code"] == "FLOODED"]
    assert bridge.core.session.tab_flood.flooding() == [5]
    assert [r for r in caplog.records if "tab 5 " in r.getMessage() and "TAB_FLOODED" in r.getMessage()]
    await ext.close()
