"""A reconnect to the same bridge run keeps the tabs the bridge holds (issue 35): ``welcome.held``
lists each tab's revision to the worker instance that sent it, and the sync keeps the unchanged
ones by reference (``tabs.sync.kept``); a reference the bridge does not hold refuses the sync whole
(``UNKNOWN_REVISION``), so no tab is ever kept stale or dropped.

The links' protocol alone first (no socket), then the bridge over a real socket with a scripted
extension: the registry keeps a referenced tab, closes one the sync left out, and forgets the
revisions when the reconnect grace runs out.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tabmcp.core.browsers import TAB_STRIDE
from tabmcp.core.budget import CUT_AFTER, CUT_FOR_S, BudgetScope, TabWork
from tabmcp.core.extension_links import ExtensionLinks, MessageReceived, Peer, Send
from tabmcp.errors import ErrorCode
from tabmcp.protocol import MAX_KEPT_TABS, PROTOCOL_VERSION, TabRef, TabsSync, Welcome, WireError
from tabmcp.server.app import running_bridge

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

SESSION = "run-1"


def hello(instance: str = "w1", *, session: str | None = SESSION, revisions: bool = True,
          profile: str = "p1") -> str:
    return json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "instanceId": instance, "profileId": profile,
                       **({"revisions": True} if revisions else {}),
                       **({"sessionId": session} if session else {})})


def welcome(session: ExtensionLinks) -> Welcome:
    [message] = [a.message for a in session.data_to_send() if isinstance(a, Send) and isinstance(a.message, Welcome)]
    return message


def errors(session: ExtensionLinks) -> list[WireError]:
    return [a.message for a in session.data_to_send() if isinstance(a, Send) and isinstance(a.message, WireError)]


def sync(*tabs: dict[str, Any], kept: list[tuple[int, str]] = (), more: bool = False) -> str:  # type: ignore[assignment]
    return json.dumps({"type": "tabs.sync", "tabs": list(tabs), "kept": [{"tabId": t, "revision": r} for t, r in kept],
                       **({"more": True} if more else {})})


def linked(instance: str = "w1", **fields: Any) -> tuple[ExtensionLinks, Peer]:
    session = ExtensionLinks(session_id=SESSION, bridge_version="9.9")
    peer = Peer("chromium")
    session.receive(peer, hello(instance, **fields))
    return session, peer


def reconnect(links: ExtensionLinks, instance: str = "w1", **fields: Any) -> tuple[Peer, Welcome]:
    links.data_to_send()
    peer = Peer("again")
    links.receive(peer, hello(instance, **fields))
    return peer, welcome(links)


def first_sync() -> tuple[ExtensionLinks, Peer]:
    session, peer = linked()
    session.receive(peer, sync(tab(1, revision="w1.1"), tab(2, revision="w1.2"), tab(3)))
    return session, peer


def test_welcome_lists_the_tabs_held_to_the_same_worker_instance_of_this_run():
    session, peer = first_sync()
    session.closed(peer)
    _, said = reconnect(session)
    assert said.revisions is True
    assert {(r.tab_id, r.revision) for r in said.held} == {(1, "w1.1"), (2, "w1.2")}  # tab 3 had none


def test_welcome_lists_nothing_to_another_instance_another_run_or_an_old_worker():
    for fields in ({"instance": "w2"}, {"session": "run-0"}, {"session": None}, {"revisions": False}):
        session, peer = first_sync()
        session.closed(peer)
        again, said = reconnect(session, **fields)
        assert said.held == [], fields
        assert said.revisions is (fields != {"revisions": False})
        # Nor later to the first instance: the other one's sync is what the bridge holds now.
        session.receive(again, sync(tab(1)))
        _, later = reconnect(session)
        assert later.held == [], fields


def test_a_sync_keeps_a_referenced_tab_and_notes_the_new_revisions():
    session, peer = first_sync()
    session.closed(peer)
    again, _ = reconnect(session)
    [event] = session.receive(again, sync(tab(2, revision="w1.5"), kept=[(1, "w1.1")]))
    assert isinstance(event, MessageReceived) and isinstance(event.message, TabsSync)
    assert [t.tab_id for t in event.message.tabs] == [2]
    assert event.message.kept == [TabRef(tab_id=1, revision="w1.1")]
    assert session.revisions.held(again.key) == {1: "w1.1", 2: "w1.5"}  # tab 3 left the sync: gone
    assert errors(session) == []


def test_a_reference_to_a_revision_not_held_refuses_the_sync_whole():
    session, peer = first_sync()
    session.receive(peer, json.dumps({"type": "tab.update", "tab": tab(1, revision="w1.9")}))
    session.closed(peer)
    again, said = reconnect(session)
    assert {(r.tab_id, r.revision) for r in said.held} == {(1, "w1.9"), (2, "w1.2")}
    for kept in ([(1, "w1.1")], [(7, "w1.7")], [(2, "w1.2"), (1, "w1.3")]):  # older, never sent, one of two
        assert session.receive(again, sync(tab(4, revision="w1.10"), kept=kept)) == []
        [error] = errors(session)
        assert (error.code, error.ref) == (ErrorCode.UNKNOWN_REVISION, "tabs.sync"), kept
        assert session.revisions.held(again.key) == {1: "w1.9", 2: "w1.2"}  # nothing noted


def test_a_closed_tab_cannot_be_kept_and_a_sync_in_parts_keeps_across_parts():
    session, peer = first_sync()
    session.receive(peer, json.dumps({"type": "tab.closed", "tabId": 2}))
    session.closed(peer)
    again, said = reconnect(session)
    assert [r.tab_id for r in said.held] == [1]
    assert session.receive(again, sync(kept=[(2, "w1.2")])) == []
    assert errors(session)[0].code == ErrorCode.UNKNOWN_REVISION
    assert session.receive(again, sync(tab(5, revision="w1.6"), kept=[(1, "w1.1")], more=True)) == []
    [event] = session.receive(again, sync(tab(6, revision="w1.7")))
    assert isinstance(event, MessageReceived) and isinstance(event.message, TabsSync)
    assert [t.tab_id for t in event.message.tabs] == [5, 6] and [r.tab_id for r in event.message.kept] == [1]


def test_forgotten_revisions_are_never_listed_nor_honoured():
    # The reconnect grace ran out (server/link_timers.py forgets them with the tabs).
    session, peer = first_sync()
    session.closed(peer)
    session.revisions.forget(peer.key)
    again, said = reconnect(session)
    assert said.held == []
    assert session.receive(again, sync(kept=[(1, "w1.1")])) == []
    assert errors(session)[0].code == ErrorCode.UNKNOWN_REVISION


def test_a_second_browser_keeps_by_its_own_tab_ids():
    session, _ = first_sync()
    other = Peer("firefox")
    session.receive(other, hello("f1", profile="p2"))
    session.receive(other, sync(tab(1, revision="f1.1")))
    session.closed(other)
    again, said = reconnect(session, "f1", profile="p2")
    assert [(r.tab_id, r.revision) for r in said.held] == [(1, "f1.1")]  # its own id, not the qualified one
    [event] = session.receive(again, sync(kept=[(1, "f1.1")]))
    assert isinstance(event, MessageReceived) and event.message.kept[0].tab_id == TAB_STRIDE + 1


def test_a_state_not_read_is_not_held_but_a_later_one_noted_meanwhile_stays():
    # The registry did not put a tab's snapshot in (cut off): that revision is not held. Its
    # reading comes after later messages were taken, so a later revision noted meanwhile stays.
    session, peer = first_sync()
    session.revisions.unread(peer.key, 1, "w1.1")
    session.receive(peer, json.dumps({"type": "tab.update", "tab": tab(2, revision="w1.8")}))
    session.revisions.unread(peer.key, 2, "w1.2")  # the older state's reading, late
    assert session.revisions.held(peer.key) == {2: "w1.8"}
    session.revisions.unread(peer.key, 2, None)  # a snapshot without a revision names none
    assert session.revisions.held(peer.key) == {2: "w1.8"}


def test_revisions_are_capped_per_browser():
    session, peer = linked()
    session.receive(peer, sync(*(tab(i, revision=f"w1.{i}") for i in range(MAX_KEPT_TABS + 10))))
    session.receive(peer, json.dumps({"type": "tab.update", "tab": tab(MAX_KEPT_TABS + 50, revision="w1.x")}))
    assert len(session.revisions.held(peer.key)) == MAX_KEPT_TABS


def test_a_sync_in_parts_keeping_too_many_tabs_together_is_refused_by_name():
    # Each part's kept list is within the cap, together they are not: bad input is answered with
    # its named error, never raised out of the links' protocol (the sync is dropped, nothing noted).
    session, peer = first_sync()
    refs = [(i, f"w1.{i}") for i in range(MAX_KEPT_TABS // 2 + 1)]
    assert session.receive(peer, sync(kept=refs, more=True)) == []
    session.data_to_send()
    assert session.receive(peer, sync(kept=refs)) == []
    [error] = errors(session)
    assert (error.code, error.ref) == (ErrorCode.MALFORMED_MESSAGE, "tabs.sync")
    assert session.revisions.held(peer.key) == {1: "w1.1", 2: "w1.2"}
    [event] = session.receive(peer, sync(tab(1, revision="w1.9")))  # the next sync is whole and taken
    assert isinstance(event, MessageReceived) and [t.tab_id for t in event.message.tabs] == [1]


def test_a_revision_is_the_worker_s_short_word():
    session, peer = linked()
    session.data_to_send()
    assert session.receive(peer, sync(tab(1, revision="x" * 65))) == []
    assert errors(session)[0].code == ErrorCode.MALFORMED_MESSAGE


# -- the bridge over a real socket ----------------------------------------------------------------


async def test_a_reconnect_keeps_referenced_tabs_in_the_registry_and_closes_the_rest():
    async with running_bridge(make_config(server={"reconnect_grace_s": 60})) as app:
        ext = ScriptedExtension(app.port)
        first = await ext.connect(fields={"revisions": True, "instanceId": "w1"})
        assert first is not None and first.get("held", []) == []
        await ext.sync(tab(1, tools=[tool("kept")], revision="w1.1"), tab(2, tools=[tool("closed_away")], revision="w1.2"),
                       tab(3, tools=[tool("old")], revision="w1.3"))
        await eventually(lambda: app.core.tool("kept") and app.core.tool("closed_away") and app.core.tool("old"))
        session_id = first["sessionId"]
        await ext.close()
        await eventually(lambda: not app.core.connected)
        again = ScriptedExtension(app.port, pairing=ext.pairing)
        said = await again.connect(fields={"revisions": True, "instanceId": "w1", "sessionId": session_id})
        assert said is not None and said["revisions"] is True
        assert sorted((r["tabId"], r["revision"]) for r in said["held"]) == [(1, "w1.1"), (2, "w1.2"), (3, "w1.3")]
        # Tab 1 unchanged (kept), tab 2 closed while away (left out), tab 3 changed (sent whole).
        await again.send({"type": "tabs.sync", "tabs": [tab(3, tools=[tool("new")], revision="w1.4")],
                          "kept": [{"tabId": 1, "revision": "w1.1"}]})
        await eventually(lambda: app.core.tool("new"))
        assert app.core.tool("kept") is not None
        assert app.core.tool("closed_away") is None and app.core.tool("old") is None
        # A stale reference: refused by name, the registry as it was, and a full sync after it is taken.
        await again.send({"type": "tabs.sync", "tabs": [], "kept": [{"tabId": 1, "revision": "w1.0"}]})
        refused = await again.wait_for(lambda m: m["type"] == "error")
        assert (refused["code"], refused["ref"]) == ("UNKNOWN_REVISION", "tabs.sync")
        assert app.core.tool("kept") is not None and app.core.tool("new") is not None
        await again.sync(tab(1, tools=[tool("kept")], revision="w1.5"))
        await eventually(lambda: app.core.tool("new") is None)
        assert app.core.tool("kept") is not None
        await again.close()


async def test_after_the_grace_the_bridge_holds_no_revision():
    async with running_bridge(make_config()) as app:  # a 0.2 s grace
        ext = ScriptedExtension(app.port)
        first = await ext.connect(fields={"revisions": True, "instanceId": "w1"})
        assert first is not None
        await ext.sync(tab(1, tools=[tool("a")], revision="w1.1"))
        await eventually(lambda: app.core.tool("a"))
        await ext.close()
        await eventually(lambda: app.core.tool("a") is None)  # the grace ran out: its tabs went
        again = ScriptedExtension(app.port, pairing=ext.pairing)
        said = await again.connect(fields={"revisions": True, "instanceId": "w1", "sessionId": first["sessionId"]})
        assert said is not None and said.get("held", []) == []
        await again.send({"type": "tabs.sync", "tabs": [], "kept": [{"tabId": 1, "revision": "w1.1"}]})
        refused = await again.wait_for(lambda m: m["type"] == "error")
        assert refused["code"] == "UNKNOWN_REVISION"
        assert app.core.tool("a") is None
        await again.close()


async def worker_w1(app: Any) -> tuple[ScriptedExtension, dict[str, Any]]:
    """Worker instance ``w1``, keeping revisions, linked: it and its welcome."""
    ext = ScriptedExtension(app.port)
    first = await ext.connect(fields={"revisions": True, "instanceId": "w1"})
    assert first is not None
    return ext, first


def cut_off_tab_1(app: Any) -> None:
    """Tab 1 cut off for work over budget (core/budget.py ``TabWork``): its snapshots are not read."""
    bombs = BudgetScope(limit=CUT_AFTER, steps=1)
    bombs.overruns = CUT_AFTER
    assert app.core.registry.work.note(1, "http://site1.test", bombs)


async def back_as_w1(app: Any, ext: ScriptedExtension,
                     first: dict[str, Any]) -> tuple[ScriptedExtension, dict[str, Any] | None]:
    """``ext`` goes away and the same worker comes back to the same run: the new link and its welcome."""
    await ext.close()
    await eventually(lambda: not app.core.connected)
    again = ScriptedExtension(app.port, pairing=ext.pairing)
    said = await again.connect(fields={"revisions": True, "instanceId": "w1", "sessionId": first["sessionId"]})
    return again, said


async def test_an_update_not_read_cut_off_is_not_held_in_its_revision():
    # A tab cut off for work over budget (core/budget.py TabWork) keeps its tools as last read: its
    # update's revision is not what the registry holds. Kept by it on a reconnect after the cut-off
    # ended, the tab would stay as last read for good, where the whole sync reads it again.
    now = [0.0]
    async with running_bridge(make_config(server={"reconnect_grace_s": 60})) as app:
        app.core.registry.work = TabWork(clock=lambda: now[0])
        ext, first = await worker_w1(app)
        await ext.sync(tab(1, tools=[tool("as_last_read")], revision="w1.1"))
        await eventually(lambda: app.core.tool("as_last_read"))
        cut_off_tab_1(app)
        await ext.send({"type": "tab.update", "tab": tab(1, tools=[tool("changed")], revision="w1.2")})
        told = await ext.wait_for(lambda m: m["type"] == "error" and m.get("ref") == "tab:1")
        assert "TAB_OVER_BUDGET" in told["message"] and app.core.tool("changed") is None  # not read
        now[0] += CUT_FOR_S  # the cut-off ends
        again, said = await back_as_w1(app, ext, first)
        assert said is not None and said["held"] == []  # not held in w1.2: the worker sends it whole
        await again.send({"type": "tabs.sync", "tabs": [], "kept": [{"tabId": 1, "revision": "w1.2"}]})
        refused = await again.wait_for(lambda m: m["type"] == "error")
        assert refused["code"] == "UNKNOWN_REVISION"
        await again.sync(tab(1, tools=[tool("changed")], revision="w1.3"))
        await eventually(lambda: app.core.tool("changed"))
        assert app.core.tool("as_last_read") is None
        await again.close()


async def test_tabs_kept_across_a_second_browser_s_arrival_name_their_browser():
    # Chromium's tabs were read while it was the only browser (their source names none); Firefox
    # links while Chromium is away. Chromium's reconnect keeps its tabs by reference, not read
    # again: they must name their browser now, as a whole resync read them.
    async with running_bridge(make_config(server={"reconnect_grace_s": 60})) as app:
        chromium = ScriptedExtension(app.port, profile="chromium-profile", browser="chromium")
        first = await chromium.connect(fields={"revisions": True, "instanceId": "c1"})
        assert first is not None
        await chromium.sync(tab(1, tools=[tool("in_chromium")], revision="c1.1"))
        await eventually(lambda: app.core.tool("in_chromium"))
        assert app.core.tool("in_chromium").tab.browser == ""  # one browser: its sources name none
        await chromium.close()
        await eventually(lambda: not app.core.connected)
        firefox = ScriptedExtension(app.port, profile="firefox-profile", browser="firefox",
                                    origin="moz-extension://0b5c2a1e-52f1-4c7f-9a55-4f4f7a9c1d2e")
        assert (await firefox.connect())["type"] == "welcome"
        await firefox.sync(tab(1, tools=[tool("in_firefox")]))
        await eventually(lambda: app.core.tool("in_firefox"))
        again = ScriptedExtension(app.port, pairing=chromium.pairing, profile="chromium-profile", browser="chromium")
        said = await again.connect(fields={"revisions": True, "instanceId": "c1", "sessionId": first["sessionId"]})
        assert said is not None and [r["tabId"] for r in said["held"]] == [1]
        await again.send({"type": "tabs.sync", "tabs": [tab(2, tools=[tool("read_again")], revision="c1.2")],
                          "kept": [{"tabId": 1, "revision": "c1.1"}]})
        await eventually(lambda: app.core.tool("read_again"))
        assert app.core.tool("read_again").tab.browser == "chromium"
        assert app.core.tool("in_chromium").tab.browser == "chromium"  # kept: named as the tab read again
        assert app.core.tool("in_firefox").tab.browser == "firefox"
        await again.close()
        await firefox.close()


async def test_a_sync_s_tab_not_read_cut_off_is_not_held_in_its_revision():
    now = [0.0]
    async with running_bridge(make_config(server={"reconnect_grace_s": 60})) as app:
        app.core.registry.work = TabWork(clock=lambda: now[0])
        ext, first = await worker_w1(app)
        await ext.sync(tab(1, tools=[tool("as_last_read")], revision="w1.1"), tab(2, tools=[tool("other")], revision="w1.2"))
        await eventually(lambda: app.core.tool("as_last_read") and app.core.tool("other"))
        cut_off_tab_1(app)
        await ext.sync(tab(1, tools=[tool("changed")], revision="w1.3"), tab(2, tools=[tool("other2")], revision="w1.4"))
        # told why its tools stay as last read, as an update's answer says (the person's popup shows it)
        told = await ext.wait_for(lambda m: m["type"] == "error" and m.get("ref") == "tab:1")
        assert "TAB_OVER_BUDGET" in told["message"]
        await eventually(lambda: app.core.tool("other2"))
        assert app.core.tool("changed") is None and app.core.tool("as_last_read")  # tab 1 not read
        now[0] += CUT_FOR_S
        again, said = await back_as_w1(app, ext, first)
        assert said is not None and [(r["tabId"], r["revision"]) for r in said["held"]] == [(2, "w1.4")]
        await again.close()


def break_the_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a snapshot with a tool named ``breaks_the_reader`` raises (a bridge bug, made by hand)."""
    import tabmcp.server.intake as intake_module

    read = intake_module._read

    def broken(snap: Any, browser: Any) -> Any:
        if "breaks_the_reader" in str(snap.tools):
            raise RuntimeError("a bug in the bridge")
        return read(snap, browser)

    monkeypatch.setattr(intake_module, "_read", broken)


async def test_a_tab_whose_reading_failed_is_not_held_in_its_revision(monkeypatch: pytest.MonkeyPatch):
    # Reading a snapshot that raises is a bridge bug: logged, the message lost, not the link. The
    # tab stays as last read, so the revision it came with is not what the bridge holds: a reconnect
    # sends it whole (kept by it, the tab would stay as last read for good).
    break_the_reader(monkeypatch)
    async with running_bridge(make_config(server={"reconnect_grace_s": 60})) as app:
        ext, first = await worker_w1(app)
        await ext.sync(tab(1, tools=[tool("as_last_read")], revision="w1.1"),
                       tab(2, tools=[tool("other")], revision="w1.2"))
        await eventually(lambda: app.core.tool("as_last_read") and app.core.tool("other"))
        await ext.send({"type": "tab.update", "tab": tab(1, tools=[tool("breaks_the_reader")], revision="w1.3")})
        await ext.send({"type": "tab.update", "tab": tab(2, tools=[tool("other2")], revision="w1.4")})
        await eventually(lambda: app.core.tool("other2"))  # read in order: the failed one is behind us
        assert app.core.tool("as_last_read") and app.core.tool("breaks_the_reader") is None
        again, said = await back_as_w1(app, ext, first)
        assert said is not None and [(r["tabId"], r["revision"]) for r in said["held"]] == [(2, "w1.4")]
        await again.close()


async def test_a_sync_whose_reading_failed_holds_none_of_its_tabs(monkeypatch: pytest.MonkeyPatch):
    # A sync is read as a whole: one tab's failure loses the message, so none of its tabs is put in,
    # and none may be kept by the revision it came with.
    break_the_reader(monkeypatch)
    async with running_bridge(make_config(server={"reconnect_grace_s": 60})) as app:
        ext, first = await worker_w1(app)
        await ext.sync(tab(1, tools=[tool("breaks_the_reader")], revision="w1.1"),
                       tab(2, tools=[tool("other")], revision="w1.2"))
        await ext.send({"type": "tab.update", "tab": tab(3, tools=[tool("third")], revision="w1.3")})
        await eventually(lambda: app.core.tool("third"))  # read in order: the failed sync is behind us
        assert app.core.tool("other") is None
        again, said = await back_as_w1(app, ext, first)
        assert said is not None and [(r["tabId"], r["revision"]) for r in said["held"]] == [(3, "w1.3")]
        await again.close()

