"""Several browsers through one bridge (issue 26): one link per browser, tab ids qualified per
browser, each request to (and answered only by) the browser that owns its tab, a browser's
closing taking only its own tools.

The session alone first (no socket), then the bridge over real sockets with two scripted
extensions (two browser profiles) and the official MCP client.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp import Client
from tabmcp.control_key import ControlClient
from tabmcp.core.browsers import OTHER_BROWSER, TAB_STRIDE, qualify, slot_of, wire_tab_id
from tabmcp.core.extension_links import (
    Disconnected,
    ExtensionLinks,
    HandshakeDone,
    LinkState,
    MessageReceived,
    Peer,
    RequestEnded,
    Send,
)
from tabmcp.core.popup import for_browser
from tabmcp.errors import ErrorCode
from tabmcp.protocol import PROTOCOL_VERSION, ApprovalRequest, CallStart, PageQuery
from tabmcp.server.app import running_bridge

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

# -- the session alone ------------------------------------------------------------------------


def hello(profile: str, browser: str) -> str:
    return json.dumps(
        {"type": "hello", "protocol": PROTOCOL_VERSION, "profileId": profile, "browserName": browser}
    )


def two_browsers() -> tuple[ExtensionLinks, Peer, Peer]:
    session = ExtensionLinks(session_id="s1", bridge_version="9.9")
    chromium, firefox = Peer("chromium"), Peer("firefox")
    assert session.receive(chromium, hello("profile-chromium", "chromium")) == [HandshakeDone(chromium)]
    assert session.receive(firefox, hello("profile-firefox", "firefox")) == [HandshakeDone(firefox)]
    session.data_to_send()  # the welcomes
    return session, chromium, firefox


def sent(session: ExtensionLinks) -> list[tuple[Peer, Any]]:
    return [(a.peer, a.message) for a in session.data_to_send() if isinstance(a, Send)]


def test_a_second_browser_is_linked_beside_the_first_with_its_own_slot():
    session, chromium, firefox = two_browsers()
    assert list(session.links.values()) == [chromium, firefox]
    assert chromium.state is firefox.state is LinkState.READY
    assert (chromium.slot, chromium.browser, firefox.slot, firefox.browser) == (0, "chromium", 1, "firefox")


def test_each_browsers_tab_ids_are_qualified_by_its_slot():
    session, chromium, firefox = two_browsers()
    sync = json.dumps({"type": "tabs.sync", "tabs": [{"tabId": 7, "url": "https://a.test/"}]})
    [mine] = session.receive(chromium, sync)
    [theirs] = session.receive(firefox, sync)
    assert isinstance(mine, MessageReceived) and isinstance(theirs, MessageReceived)
    assert mine.message.tabs[0].tab_id == 7 and theirs.message.tabs[0].tab_id == TAB_STRIDE + 7
    for frame in (
        {"type": "tab.closed", "tabId": 7},
        {"type": "telemetry", "tabId": 7, "events": []},
        {"type": "tab.update", "tab": {"tabId": 7, "url": "https://a.test/"}},
    ):
        [event] = session.receive(firefox, json.dumps(frame))
        message = event.message  # type: ignore[union-attr]
        assert getattr(message, "tab_id", None) == TAB_STRIDE + 7 or message.tab.tab_id == TAB_STRIDE + 7


def test_a_tab_id_past_what_browsers_send_is_refused():
    session, _, firefox = two_browsers()
    events = session.receive(firefox, json.dumps({"type": "tab.closed", "tabId": 2**31}))
    assert events == [] and [m.code for _, m in sent(session)] == [ErrorCode.MALFORMED_MESSAGE]


def test_the_first_browser_cannot_name_the_second_browsers_tabs():
    session, chromium, _ = two_browsers()
    theirs = TAB_STRIDE + 7
    for frame in (
        {"type": "tab.closed", "tabId": theirs},
        {"type": "telemetry", "tabId": theirs, "events": []},
        {"type": "tab.update", "tab": {"tabId": theirs, "url": "https://a.test/"}},
    ):
        assert session.receive(chromium, json.dumps(frame)) == [], frame["type"]
        assert [m.code for _, m in sent(session)] == [ErrorCode.MALFORMED_MESSAGE], frame["type"]


def test_calls_approvals_and_queries_go_to_the_browser_that_owns_the_tab_with_its_own_id():
    session, chromium, firefox = two_browsers()
    theirs = qualify(firefox.slot, 7)
    session.start_call(
        tab_id=theirs, document_id="d", page_tool="t", public_name="t", arguments={}, timeout_s=5
    )
    session.start_approval(
        tab_id=theirs,
        document_id="d",
        tool="t",
        title="T",
        description="",
        arguments={},
        reason="r",
        timeout_s=5,
    )
    session.start_query(tab_id=theirs, document_id="d", kind="page", args={}, timeout_s=5)
    session.start_call(tab_id=7, document_id="d", page_tool="t", public_name="t", arguments={}, timeout_s=5)
    out = sent(session)
    assert [(peer, type(m)) for peer, m in out] == [
        (firefox, CallStart),
        (firefox, ApprovalRequest),
        (firefox, PageQuery),
        (chromium, CallStart),
    ]
    assert [m.tab_id for _, m in out] == [7, 7, 7, 7]  # each browser hears of its own tab 7


def test_only_the_browser_asked_can_answer():
    session, chromium, firefox = two_browsers()
    call = session.start_call(
        tab_id=qualify(firefox.slot, 7),
        document_id="d",
        page_tool="t",
        public_name="t",
        arguments={},
        timeout_s=5,
    )
    approval = session.start_approval(
        tab_id=qualify(firefox.slot, 7),
        document_id="d",
        tool="t",
        title="T",
        description="",
        arguments={},
        reason="r",
        timeout_s=5,
    )
    sent(session)
    forged = [
        {"type": "call.result", "callId": call.request_id, "ok": True, "result": {"content": []}},
        {"type": "approval.result", "approvalId": approval.request_id, "approved": True},
    ]
    for frame in forged:  # the other browser (its page, its person) cannot end what this one was asked
        assert session.receive(chromium, json.dumps(frame)) == []
    assert len(session.requests) == 2
    ended = [e for frame in forged for e in session.receive(firefox, json.dumps(frame))]
    assert [type(e) for e in ended] == [RequestEnded, RequestEnded] and ended[1].result == (True, "")


def test_closing_one_browser_ends_only_its_requests():
    session, chromium, firefox = two_browsers()
    mine = session.start_call(
        tab_id=7, document_id="d", page_tool="t", public_name="t", arguments={}, timeout_s=5
    )
    theirs = session.start_call(
        tab_id=qualify(firefox.slot, 7),
        document_id="d",
        page_tool="t",
        public_name="t",
        arguments={},
        timeout_s=5,
    )
    events = session.closed(firefox)
    assert [type(e) for e in events] == [RequestEnded, Disconnected]
    assert events[0].request is theirs and events[0].error.code == ErrorCode.EXTENSION_DISCONNECTED
    assert (
        mine.request_id in session.requests and session.ready and list(session.links.values()) == [chromium]
    )
    with pytest.raises(Exception) as info:  # firefox's tabs have nobody to run them now
        session.start_call(
            tab_id=qualify(firefox.slot, 8),
            document_id="d",
            page_tool="t",
            public_name="t",
            arguments={},
            timeout_s=5,
        )
    assert getattr(info.value, "code", None) == ErrorCode.EXTENSION_DISCONNECTED


def test_a_browser_that_comes_back_replaces_only_its_own_link_and_keeps_its_slot():
    session, chromium, firefox = two_browsers()
    theirs = session.start_call(
        tab_id=qualify(firefox.slot, 7),
        document_id="d",
        page_tool="t",
        public_name="t",
        arguments={},
        timeout_s=5,
    )
    mine = session.start_call(
        tab_id=7, document_id="d", page_tool="t", public_name="t", arguments={}, timeout_s=5
    )
    again = Peer("firefox again")
    events = session.receive(again, hello("profile-firefox", "firefox"))
    assert events[-1] == HandshakeDone(again, replaced=firefox) and firefox.state is LinkState.CLOSED
    assert [e.request for e in events if isinstance(e, RequestEnded)] == [theirs]
    assert mine.request_id in session.requests and again.slot == 1 and chromium.state is LinkState.READY


def test_qualified_ids_round_trip():
    for slot in (0, 1, 5):
        for tab_id in (0, 1, 7, 2**31 - 1):
            q = qualify(slot, tab_id)
            assert (slot_of(q), wire_tab_id(q)) == (slot, tab_id)
    assert slot_of(-3) == -1 and wire_tab_id(-3) == -3  # a closed site's stand-in: no browser


def test_each_browser_is_named_for_the_person_by_its_browser_and_when_alike_its_profile():
    session, _, _ = two_browsers()
    assert session.slots.labels() == {0: "Chromium", 1: "Firefox"}
    other = Peer("chromium, second profile")
    session.receive(other, hello("b2c4e6a8-5f1d-4e3a-9c7b-0a1b2c3d4e5f", "chromium"))
    unnamed = Peer("said no browser")
    session.receive(unnamed, hello("profile-unnamed", ""))
    assert session.slots.labels() == {0: "Chromium profile-", 1: "Firefox", 2: "Chromium b2c4e6a8", 3: "browser 4"}


def test_a_popup_numbers_every_activity_row_by_its_own_browser_and_names_the_other():
    row = {"id": 1, "at": 0.0, "client": "agent", "tool": "t", "origin": "https://a.test", "outcome": "ok",
           "durationMs": 1.0, "arguments": "{}", "result": ""}
    state = {"controls": {}, "tabs": [], "trust": {}, "activity": [
        {**row, "tabId": 7}, {**row, "tabId": qualify(1, 7)}, {**row, "tabId": qualify(4, 3)},
        {**row, "tabId": -2}, {**row, "tabId": None},
    ]}
    labels = {0: "Chromium", 1: "Firefox"}
    first = [(r["tabId"], r.get("browser")) for r in for_browser(state, 0, labels)["activity"]]
    assert first == [(7, None), (7, "Firefox"), (3, OTHER_BROWSER), (-2, None), (None, None)]
    second = [(r["tabId"], r.get("browser")) for r in for_browser(state, 1, labels)["activity"]]
    assert second == [(7, "Chromium"), (7, None), (3, OTHER_BROWSER), (-2, None), (None, None)]


def test_a_row_from_an_earlier_bridge_run_shows_no_tab():
    """Slots are given per run, in the order browsers link: an earlier run's tab id may belong to
    another browser now, so such a row shows no tab rather than the wrong one."""
    row = {"at": 0.0, "client": "agent", "tool": "t", "origin": "https://a.test", "outcome": "ok",
           "durationMs": 1.0, "arguments": "{}", "result": ""}
    state = {"controls": {}, "tabs": [], "trust": {}, "activity": [
        {**row, "id": 4, "tabId": qualify(1, 7)}, {**row, "id": 5, "tabId": -2},
        {**row, "id": 9, "tabId": qualify(1, 7)},
    ]}
    shown = [(r["tabId"], r.get("browser"), r.get("earlier")) for r in for_browser(state, 1, {}, this_run=9)["activity"]]
    # A newly paired browser is told the earlier row may be any browser's (the popup says so).
    assert shown == [(None, None, True), (-2, None, None), (7, None, None)]


# -- the bridge, two browser profiles ---------------------------------------------------------


def answering(name: str, calls: list[tuple[str, int, str]]):
    async def handler(msg: dict[str, Any]) -> dict[str, Any]:
        calls.append((name, msg["tabId"], msg["tool"]))
        return {"ok": True, "result": {"content": [{"type": "text", "text": f"{name} tab {msg['tabId']}"}]}}

    return handler


async def two_scripted(app: Any) -> tuple[ScriptedExtension, ScriptedExtension, list[tuple[str, int, str]]]:
    calls: list[tuple[str, int, str]] = []
    chromium = ScriptedExtension(app.port, profile="chromium-profile", browser="chromium")
    firefox = ScriptedExtension(
        app.port,
        profile="firefox-profile",
        browser="firefox",
        origin="moz-extension://0b5c2a1e-52f1-4c7f-9a55-4f4f7a9c1d2e",
    )  # its own pairing admits it
    for ext, name in ((chromium, "chromium"), (firefox, "firefox")):
        assert (await ext.connect())["type"] == "welcome"
        ext.handler = answering(name, calls)
        # the same page open in both browsers, in each one's tab 1
        await ext.sync(tab(1, url="https://notes.test/", tools=[tool("add_note"), tool(f"only_in_{name}")]))
    await eventually(lambda: app.core.tool("only_in_chromium") and app.core.tool("only_in_firefox"))
    return chromium, firefox, calls


def sources(listing: Any) -> dict[str, dict[str, Any]]:
    return {t.name: (t.meta or {}).get("tabmcp/source", {}) for t in listing.tools if t.meta}


async def test_tools_of_both_browsers_reach_the_client_with_distinct_names_and_their_browser():
    async with running_bridge(make_config()) as app:
        chromium, firefox, calls = await two_scripted(app)
        try:
            async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
                listed = sources(await client.list_tools())
                theirs = f"t{TAB_STRIDE + 1}.add_note"
                assert listed["add_note"] == {**listed["add_note"], "tabId": 1, "browser": "chromium"}
                assert listed[theirs] == {**listed[theirs], "tabId": TAB_STRIDE + 1, "browser": "firefox"}
                assert (
                    listed["only_in_firefox"]["browser"] == "firefox" and listed["only_in_firefox"]["profile"]
                )
                assert listed["only_in_chromium"]["profile"] != listed["only_in_firefox"]["profile"]
                for name in ("add_note", theirs, "only_in_firefox", "only_in_chromium"):
                    result = await client.call_tool(name, {})
                    assert not result.is_error, result
            assert calls == [
                ("chromium", 1, "add_note"),
                ("firefox", 1, "add_note"),
                ("firefox", 1, "only_in_firefox"),
                ("chromium", 1, "only_in_chromium"),
            ]
            assert [b["browser"] for b in app.core.status()["browsers"]] == ["chromium", "firefox"]
        finally:
            await chromium.close()
            await firefox.close()


async def test_closing_one_browser_removes_only_its_tools():
    async with running_bridge(make_config()) as app:
        chromium, firefox, calls = await two_scripted(app)
        try:
            await firefox.close()
            await eventually(lambda: app.core.tool("only_in_firefox") is None)  # after the reconnect grace
            assert app.core.tool("only_in_chromium") and app.core.tool("add_note").tab.browser == "chromium"
            assert [t.tab_id for t in app.core.registry.tabs.values()] == [1]
            async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
                assert not (await client.call_tool("add_note", {})).is_error
            assert calls == [("chromium", 1, "add_note")]
        finally:
            await chromium.close()


async def test_a_browsers_sync_replaces_only_its_own_tabs():
    async with running_bridge(make_config()) as app:
        chromium, firefox, _ = await two_scripted(app)
        try:
            await firefox.sync()  # firefox closed every tab
            await eventually(lambda: app.core.tool("only_in_firefox") is None)
            assert app.core.tool("only_in_chromium") and app.core.tool("add_note")
        finally:
            await chromium.close()
            await firefox.close()


async def test_an_approval_opens_in_the_browser_whose_tab_asked():
    config = make_config(policy={"allow_writes": True, "approval": {"timeout_s": 5}})
    async with running_bridge(config) as app:
        chromium, firefox, calls = await two_scripted(app)
        await firefox.sync(
            tab(
                1,
                url="https://notes.test/",
                tools=[tool("add_note"), tool("wipe_notes", scope={"requiresApproval": True})],
            )
        )
        await eventually(lambda: app.core.tool("wipe_notes"))

        async def answer() -> None:
            asked = await firefox.wait_for(lambda m: m["type"] == "approval.request")
            assert asked["tabId"] == 1 and asked["tool"] == "wipe_notes"
            await firefox.send(
                {"type": "approval.result", "approvalId": asked["approvalId"], "approved": True}
            )

        try:
            task = asyncio.create_task(answer())
            async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
                result = await client.call_tool("wipe_notes", {})
            await task
            assert not result.is_error and calls == [("firefox", 1, "wipe_notes")]
            assert not [m for m in chromium.received if m["type"] == "approval.request"]
        finally:
            await chromium.close()
            await firefox.close()


async def test_each_browsers_popup_sees_its_own_tabs_under_its_own_ids():
    async with running_bridge(make_config()) as app:
        chromium, firefox, _ = await two_scripted(app)
        try:
            for ext, own in ((chromium, "only_in_chromium"), (firefox, "only_in_firefox")):
                # the popup expands the tab it knows as 1 (its own id), as it got it from the last state
                await ext.send({"type": "panel.query", "requestId": "p", "tabId": 1, "expanded": [1]})
                state = (await ext.wait_for(lambda m: m["type"] == "panel.state"))["state"]
                [doc] = state["tabs"]
                assert doc["tabId"] == 1 and {t["name"] for t in doc["tools"]} == {"add_note", own}
        finally:
            await chromium.close()
            await firefox.close()


async def test_each_browsers_popup_shows_activity_under_its_own_tab_numbers_and_names_the_other_browser():
    async with running_bridge(make_config()) as app:
        chromium, firefox, _ = await two_scripted(app)
        theirs = f"t{TAB_STRIDE + 1}.add_note"
        try:
            async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
                for name in ("add_note", theirs):  # tab 1 of each browser
                    assert not (await client.call_tool(name, {})).is_error
            seen: dict[str, Any] = {}
            for ext, name in ((chromium, "chromium"), (firefox, "firefox")):
                for query in ({}, {"tabId": 1}):  # all rows; the popup's filter on its own tab 1
                    ext.received.clear()
                    await ext.send({"type": "panel.query", "requestId": "p", **query})
                    state = (await ext.wait_for(lambda m: m["type"] == "panel.state"))["state"]
                    seen[name, bool(query)] = [(r["tool"], r["tabId"], r.get("browser")) for r in state["activity"]]
            assert seen["chromium", False] == [(theirs, 1, "Firefox"), ("add_note", 1, None)]
            assert seen["firefox", False] == [(theirs, 1, None), ("add_note", 1, "Chromium")]
            assert seen["chromium", True] == [("add_note", 1, None)]
            assert seen["firefox", True] == [(theirs, 1, None)]
        finally:
            await chromium.close()
            await firefox.close()


async def test_the_pairings_list_shows_every_browser_linked_now():
    async with running_bridge(make_config()) as app:
        chromium, firefox, _ = await two_scripted(app)
        try:
            listed = await ControlClient(app.port).pairings()  # what `tabmcp pair --list` reads
            assert set(listed["linked"]) == {chromium.pairing["id"], firefox.pairing["id"]}  # type: ignore[index]
        finally:
            await chromium.close()
            await firefox.close()


async def test_one_browser_alone_adds_nothing_to_the_sources_agents_pay_for():
    async with running_bridge(make_config()) as app:
        only = ScriptedExtension(app.port, profile="chromium-profile", browser="chromium")
        assert (await only.connect())["type"] == "welcome"
        await only.sync(tab(1, url="https://notes.test/", tools=[tool("add_note")]))
        await eventually(lambda: app.core.tool("add_note"))
        try:
            async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
                source = sources(await client.list_tools())["add_note"]
                assert "browser" not in source and "profile" not in source and source["tabId"] == 1
        finally:
            await only.close()
