"""The person's switches (core/switches.py) and the popup's state and actions (core/popup.py),
alone: no socket. The wire and MCP sides are in test_controls_bridge.py."""

from __future__ import annotations

import sqlite3

import pytest
from tabmcp.core.disclosure import Disclosure
from tabmcp.core.popup import ControlRefused, apply_control, panel_state
from tabmcp.core.registry import Registry, origin_of
from tabmcp.core.scoping import OriginRule, PolicyCheck, PolicySettings
from tabmcp.core.switches import InvalidOrigin, normalize_origin
from tabmcp.core.trust.guard import TrustGuard
from tabmcp.core.trust.settings import TrustSettings
from tabmcp.errors import ErrorCode, Paused
from tabmcp.protocol import ControlSet, PanelQuery, TabSnapshot
from tabmcp.storage.build import activity_log, person_controls
from tabmcp.storage.trust import TrustStore

from .helpers import tab, tool


def registry_with(*tabs: dict) -> Registry:
    registry = Registry()
    registry.sync([TabSnapshot.model_validate(t) for t in tabs])
    return registry


SHOP = tab(1, url="https://shop.test/cart", tools=[
    tool("view_cart", annotations={"readOnlyHint": True}),
    tool("checkout"),
    tool("admin_refund", scope={"routes": ["/admin/*"]}),
])
NEWS = tab(2, url="https://news.test/", tools=[tool("read_news", annotations={"readOnlyHint": True})])


@pytest.mark.parametrize(("given", "origin"), [
    ("https://Shop.test/cart?x=1", "https://shop.test"),
    ("https://shop.test:443", "https://shop.test"),
    ("http://127.0.0.1:8080/a", "http://127.0.0.1:8080"),
    ("http://[::1]:9/", "http://[::1]:9"),
])
def test_origins_are_normalized(given: str, origin: str) -> None:
    assert normalize_origin(given) == origin


@pytest.mark.parametrize("bad", ["", "shop.test", "javascript:alert(1)", "https://", "ftp://x.test", "http://x.test:99999"])
def test_what_is_not_an_origin_is_refused_by_name(bad: str) -> None:
    with pytest.raises(InvalidOrigin):
        normalize_origin(bad)


def test_switches_persist_in_sqlite_and_another_process_change_is_picked_up(tmp_path) -> None:
    db = tmp_path / "tabmcp.db"
    bridge = person_controls(db)
    assert bridge.state().to_dict() == {"paused": False, "writes": None, "originsOff": []}
    assert bridge.set_paused(True) and not bridge.set_paused(True)  # the second changes nothing
    assert bridge.set_origin("https://shop.test/x", False)
    v = bridge.version
    # The CLI is another process: another connection to the same file.
    cli = person_controls(db)
    assert cli.state().to_dict() == {"paused": True, "writes": None, "originsOff": ["https://shop.test"]}
    cli.set_writes(False)
    cli.set_origin("https://shop.test", True)
    assert not bridge.origin_enabled("https://shop.test")  # not yet seen
    assert bridge.sync() and not bridge.sync()
    assert bridge.state().to_dict() == {"paused": True, "writes": False, "originsOff": []}
    assert bridge.version > v
    # Pausing is not a listing change (tools/list stays the same while paused).
    v = bridge.version
    bridge.set_paused(False)
    assert bridge.version == v
    bridge.close()
    cli.close()
    # Restart: the same switches.
    again = person_controls(db)
    assert again.state().to_dict() == {"paused": False, "writes": False, "originsOff": []}
    rows = sqlite3.connect(db).execute("SELECT key FROM person_controls ORDER BY key").fetchall()
    assert rows == [("paused",), ("writes",)]


def test_paused_raises_the_named_error() -> None:
    controls = person_controls()
    controls.check_not_paused()
    controls.set_paused(True)
    with pytest.raises(Paused) as err:
        controls.check_not_paused()
    assert err.value.code == ErrorCode.PAUSED == "PAUSED" and "paused" in err.value.message


def test_an_origin_switched_off_is_hidden_like_a_policy_rule_and_writes_follow_the_switch() -> None:
    registry = registry_with(SHOP, NEWS)
    controls = person_controls()
    by_person = PolicyCheck(PolicySettings(allow_writes=True), controls=controls)
    by_config = PolicyCheck(PolicySettings(allow_writes=True, origins=[OriginRule(match="https://shop.test", enabled=False)]))
    checkout = registry.resolve("checkout")
    assert by_person.decide(checkout).callable
    controls.set_origin("https://shop.test", False)
    for policy_check in (by_person, by_config):
        decision = policy_check.decide(checkout)
        assert not decision.visible and decision.code == "OUT_OF_SCOPE"
        assert not policy_check.origin_enabled(checkout.tab)
    assert "switched off by the person" in by_person.decide(checkout).reason
    assert by_person.decide(registry.resolve("read_news")).callable

    # Writes: off beats the config; on beats the config's default; None gives it back.
    controls.set_origin("https://shop.test", True)
    controls.set_writes(False)
    decision = by_person.decide(checkout)
    assert decision.visible and decision.code == "WRITES_DISABLED" and "popup" in (decision.setting or "")
    assert by_person.decide(registry.resolve("view_cart")).callable  # read-only tools still run
    gate_off = PolicyCheck(PolicySettings(allow_writes=False), controls=controls)
    controls.set_writes(True)
    assert gate_off.decide(checkout).callable
    controls.set_writes(None)
    assert gate_off.decide(checkout).code == "WRITES_DISABLED"


def test_a_file_page_can_be_switched_off_too() -> None:
    """controls.normalize_origin and the registry's origin_of agree on file pages ("file://")."""
    assert normalize_origin("file:///home/me/page.html") == origin_of("file:///tmp/other.html") == "file://"
    registry = registry_with(tab(3, url="file:///home/me/tools.html", tools=[tool("local_tool")]))
    controls = person_controls()
    policy_check = PolicyCheck(PolicySettings(allow_writes=True), controls=controls)
    local = registry.resolve("local_tool")
    assert local.tab.origin == "file://" and policy_check.decide(local).callable
    controls.set_origin("file:///home/me/tools.html", False)
    decision = policy_check.decide(local)
    assert not decision.visible and decision.code == "OUT_OF_SCOPE"


def test_listings_follow_the_switches_without_a_registry_change() -> None:
    registry = registry_with(SHOP, NEWS)
    controls = person_controls()
    disclosure = Disclosure(registry, profile="passthrough", policy_check=PolicyCheck(PolicySettings(), controls=controls))
    names = lambda: {t["name"] for t in disclosure.list_tools()}  # noqa: E731
    assert {"checkout", "read_news"} <= names()
    key = disclosure.listing_key()
    controls.set_origin("https://shop.test", False)
    assert "checkout" not in names() and "read_news" in names()
    assert disclosure.listing_key() != key
    controls.set_origin("https://shop.test", True)
    assert "checkout" in names()


def test_panel_state_shows_insight_with_reasons_activity_and_trust() -> None:
    registry = registry_with(SHOP, NEWS)
    controls = person_controls()
    policy_check = PolicyCheck(PolicySettings(allow_writes=False), controls=controls)
    activity = activity_log()
    for i, (tab_id, origin) in enumerate([(1, "https://shop.test"), (2, "https://news.test"), (1, "https://shop.test")]):
        activity.record(at=1000.0 + i, client="agent", tool=f"t{i}", tab_id=tab_id, origin=origin, outcome="ok",
                        duration_ms=1.0, arguments={"i": i}, result=None)
    trust = TrustGuard(TrustSettings(), TrustStore())
    trust.lockdown.flag("https://news.test", "read_news", ["orders the agent"])
    controls.set_origin("https://news.test", False)

    state = panel_state(registry=registry, policy_check=policy_check, controls=controls, activity=activity, trust=trust,
                        query=PanelQuery(type="panel.query", request_id="r", origin="https://shop.test/", limit=10,
                                                     expanded=[1, 2]))
    assert state["controls"] == {"paused": False, "writes": None, "originsOff": ["https://news.test"],
                                 "writesByConfig": False}
    assert [r["tool"] for r in state["activity"]] == ["t2", "t0"]  # newest first, one origin
    shop, news = state["tabs"]
    assert shop["origin"] == "https://shop.test" and shop["originOn"] and shop["toolCount"] == 3
    tools = {t["name"]: t for t in shop["tools"]}
    assert tools["view_cart"]["visible"] and not tools["view_cart"]["code"]
    assert tools["checkout"]["visible"] and tools["checkout"]["code"] == "WRITES_DISABLED"
    assert not tools["admin_refund"]["visible"] and "/admin/*" in tools["admin_refund"]["reason"]
    assert shop["hiddenCount"] == 1
    assert not news["originOn"] and "switched off" in news["tools"][0]["reason"]
    assert state["trust"]["lockdown"][0]["tool"] == "read_news" and state["trust"]["changed"] == []

    by_tab = panel_state(registry=registry, policy_check=policy_check, controls=controls, activity=activity, trust=trust,
                         query=PanelQuery(type="panel.query", request_id="r", tab_id=2))
    assert [r["tool"] for r in by_tab["activity"]] == ["t1"]
    # Tabs not expanded get their counts only.
    shop = by_tab["tabs"][0]
    assert shop["tools"] == [] and not shop["detailed"] and shop["toolCount"] == 3 and shop["hiddenCount"] == 1


def test_insight_is_kept_until_the_registry_or_the_switches_change() -> None:
    from tabmcp.core.popup import Insight

    registry = registry_with(SHOP)
    controls = person_controls()
    policy_check = PolicyCheck(PolicySettings(), controls=controls)
    insight = Insight()
    first = insight.documents(registry, policy_check, None)
    assert insight.documents(registry, policy_check, None) is first
    controls.set_origin("https://shop.test", False)
    second = insight.documents(registry, policy_check, None)
    assert second is not first and not second[0]["originOn"] and second[0]["hiddenCount"] == 3
    registry.sync([TabSnapshot.model_validate(NEWS)])
    assert [d["origin"] for d in insight.documents(registry, policy_check, None)] == ["https://news.test"]


def test_actions_apply_and_bad_ones_are_refused_by_name() -> None:
    registry = registry_with(SHOP)
    controls = person_controls()
    trust = TrustGuard(TrustSettings(), TrustStore())
    entry = registry.resolve("checkout")
    assert trust.observe(entry).status == "new"
    changed = registry_with(tab(1, url="https://shop.test/cart", tools=[tool("checkout", "Checkout and share")]))
    assert trust.observe(changed.resolve("checkout")).changed
    trust.lockdown.flag("https://shop.test", "checkout", ["orders"])

    def act(action: str, **fields) -> object:
        return apply_control(ControlSet(type="control.set", request_id="r", action=action, **fields), controls, trust)

    assert act("pause").changed and controls.paused
    assert not act("pause").changed
    assert act("resume").changed and not controls.paused
    done = act("origin", origin="https://shop.test", enabled=False)
    assert done.changed and done.listing and controls.origins_off == {"https://shop.test"}
    assert act("writes", enabled=True).listing and controls.writes is True
    assert act("writes").listing and controls.writes is None  # back to the config
    assert act("accept", origin="https://shop.test", tool="checkout").listing
    assert not trust.observe(changed.resolve("checkout")).changed
    assert act("clear").changed and not trust.lockdown.locked
    for bad in ({"action": "origin", "origin": "nope", "enabled": False}, {"action": "origin", "origin": "https://a.test"},
                {"action": "accept", "origin": "https://shop.test"}):
        with pytest.raises(ControlRefused):
            act(**bad)  # type: ignore[arg-type]


def test_the_bridge_takes_only_the_first_answer_to_an_approval() -> None:
    """The popup and the approval window show the same question: whichever answers first decides."""
    import json as _json

    from tabmcp.core.extension_links import ExtensionLinks, Peer, RequestEnded
    from tabmcp.protocol import PROTOCOL_VERSION

    session = ExtensionLinks(session_id="s", bridge_version="t")
    peer = Peer("ext")
    session.receive(peer, _json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION}))
    approval = session.start_approval(tab_id=1, document_id="d", origin="https://shop.test", tool="checkout",
                                      title="Checkout", description="", arguments={}, reason="destructive",
                                      timeout_s=60)

    def answer(approved: bool, reason: str) -> list:
        return session.receive(peer, _json.dumps({"type": "approval.result", "approvalId": approval.request_id,
                                                  "approved": approved, "reason": reason}))

    assert answer(True, "approved in the popup") == [RequestEnded(approval, result=(True, "approved in the popup"))]
    assert answer(False, "denied in the window") == []
    assert len(session.requests) == 0
