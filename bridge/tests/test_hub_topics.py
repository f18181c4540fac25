"""The bridge's topic modules driven alone: a real session, no socket, no browser.

``server/person_link.py`` (the person's panel, switches, forms as tools), ``server/site_opening.py``
(reachable sites on the link) and ``server/telemetry.py`` (telemetry on the link) each take the
session and a few callbacks from the core (tabmcp/wiring.py); these tests hand them the same and read what the
session queued to send.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tabmcp.config import Config
from tabmcp.core.extension_links import ExtensionLinks, HandshakeDone, MessageReceived, Peer, Send
from tabmcp.core.page_forms import FormsPolicy as FormsSwitch
from tabmcp.core.registry import Registry
from tabmcp.core.scoping import PolicyCheck
from tabmcp.core.tools import RESERVED_NAMES
from tabmcp.core.trust.pins import Pins
from tabmcp.errors import ErrorCode, SiteNotReachable
from tabmcp.protocol import PROTOCOL_VERSION, FormsPolicyMessage, PanelState, SitesList, TabSnapshot, TelemetryConfig
from tabmcp.server.person_link import PersonLink
from tabmcp.server.site_opening import SiteLink
from tabmcp.server.telemetry import KEEP_CLOSED_TABS, TelemetryLink
from tabmcp.storage.build import activity_log, person_controls
from tabmcp.storage.database import FormsSwitchStore, UsageStore
from tabmcp.storage.trust import TrustStore

SHOP = "https://shop.test"


def ready_session() -> tuple[ExtensionLinks, Peer]:
    session = ExtensionLinks(session_id="s1", bridge_version="9.9")
    peer = Peer("test")
    assert session.receive(peer, json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION})) == [HandshakeDone(peer)]
    session.data_to_send()  # the welcome
    return session, peer


def sent(session: ExtensionLinks) -> list[Any]:
    return [a.message for a in session.data_to_send() if isinstance(a, Send)]


def received(session: ExtensionLinks, peer: Peer, **fields: Any) -> Any:
    [event] = session.receive(peer, json.dumps(fields))
    assert isinstance(event, MessageReceived)
    return event.message


class Calls:
    """Counts the core's callbacks a topic module made."""

    def __init__(self) -> None:
        self.changed = self.touched = self.flushed = 0

    def change(self) -> None:
        self.changed += 1

    def touch(self) -> None:
        self.touched += 1

    def flush(self) -> None:
        self.flushed += 1


def memory_config() -> Config:
    return Config().with_overrides({"store": {"path": ":memory:"}})


async def test_person_panel_answers_control_set_and_sends_forms_policy() -> None:
    session, peer = ready_session()
    calls = Calls()
    config = memory_config()
    controls, switches = person_controls(":memory:"), FormsSwitchStore(":memory:")
    forms = FormsSwitch(config.policy.origins, switches.all())
    # as the root (tabmcp/wiring.py) builds them
    policy_check = PolicyCheck(config.policy, config.trust, forms, controls=controls)
    panel = PersonLink(Registry(reserved_names=RESERVED_NAMES), session, activity_log(":memory:"),
                        controls=controls, forms=forms, forms_switches=switches, policy_check=policy_check,
                        changed=calls.change, touch=calls.touch, flush_soon=calls.flush, trust=lambda: None)
    panel.connected(peer)
    assert [type(m) for m in sent(session)] == [FormsPolicyMessage]

    panel.on_message(peer, received(session, peer, type="control.set", requestId="r1", action="pause"))
    [answer] = sent(session)
    assert isinstance(answer, PanelState) and answer.ok and answer.request_id == "r1"
    assert answer.state is not None and answer.state["controls"]["paused"] is True
    assert calls.changed == 0  # a pause changes no listing: calls answer PAUSED

    before = panel.revision
    panel.on_message(peer, received(session, peer, type="control.set", requestId="r2", action="writes", enabled=False))
    [answer] = sent(session)
    assert answer.ok and answer.state is not None and answer.state["controls"]["writes"] is False
    assert panel.revision > before and calls.changed == 1  # listings differ: the core notifies

    panel.on_message(peer, received(session, peer, type="control.set", requestId="r3", action="origin"))
    [refused] = sent(session)  # origin without enabled: refused by name, nothing changed
    assert isinstance(refused, PanelState) and not refused.ok and refused.error is not None
    assert refused.error.code == ErrorCode.MALFORMED_MESSAGE

    panel.forms_set(peer, received(session, peer, type="forms.set", origin=SHOP, enabled=True))
    [policy] = sent(session)
    assert isinstance(policy, FormsPolicyMessage)
    assert any(r.match == SHOP and r.enabled and r.source == "person" for r in policy.rules)
    assert calls.touched == 1 and calls.flushed == 1 and panel.forms_switches.all() == {SHOP: True}

    panel.forms_set(peer, received(session, peer, type="forms.set", origin="not an origin", enabled=True))
    [error] = sent(session)
    assert error.type == "error" and error.code == ErrorCode.MALFORMED_MESSAGE and calls.touched == 1
    panel.disconnected()


def site_link(session: ExtensionLinks, calls: Calls, registry: Registry) -> SiteLink:
    async def wait(request: Any) -> Any:
        raise AssertionError("nothing is opened in these tests")

    return SiteLink(memory_config(), registry, session, pins=Pins(TrustStore(":memory:")),
                    usage=UsageStore(":memory:"), db_path=":memory:", changed=calls.change,
                    flush_soon=calls.flush, wait=wait)


async def test_site_link_sends_the_list_once_per_change_and_refuses_unreachable_sites() -> None:
    session, peer = ready_session()
    calls = Calls()
    sites = site_link(session, calls, Registry(reserved_names=RESERVED_NAMES))
    sites.connected()
    assert sent(session) == []  # a new link gets the list only if there are sites

    with pytest.raises(SiteNotReachable):
        await sites.open(f"{SHOP}/cart", tool="add_to_cart")

    sites.on_message(received(session, peer, type="site.permission", origin=SHOP, reachable=True))
    [listed] = sent(session)
    assert isinstance(listed, SitesList) and [s["origin"] for s in listed.sites] == [SHOP]
    assert sites.sites.reachable(SHOP) and calls.flushed == 1
    sites.send()
    assert sent(session) == []  # unchanged: not sent again

    sites.on_message(received(session, peer, type="site.forget", origin=SHOP))
    assert sent(session) == [SitesList(sites=[])] and not sites.sites.reachable(SHOP)


def test_telemetry_link_sends_config_on_connect_and_only_when_it_changes() -> None:
    session, peer = ready_session()
    calls = Calls()
    registry = Registry(reserved_names=RESERVED_NAMES)
    telemetry = TelemetryLink(memory_config(), registry, session, changed=calls.change, flush_soon=calls.flush)
    telemetry.connected(peer)
    [config] = sent(session)
    assert isinstance(config, TelemetryConfig)
    telemetry.config_changed()
    assert sent(session) == [] and calls.flushed == 0  # nothing changed: nothing sent

    registry.apply(TabSnapshot.model_validate({"tabId": 3, "url": f"{SHOP}/a", "title": "A", "focused": True}))
    telemetry.registry_changed()
    assert telemetry.focused_tab() == 3


def test_telemetry_link_keeps_only_the_latest_closed_tabs() -> None:
    session, _peer = ready_session()
    calls = Calls()
    telemetry = TelemetryLink(memory_config(), Registry(reserved_names=RESERVED_NAMES), session,
                              changed=calls.change, flush_soon=calls.flush)
    for tab_id in range(KEEP_CLOSED_TABS + 2):
        telemetry.store.set_tab_info(tab_id, url=f"{SHOP}/{tab_id}", title=str(tab_id))
    for tab_id in range(KEEP_CLOSED_TABS + 2):
        telemetry.tab_closed(tab_id)
    telemetry.tab_closed(KEEP_CLOSED_TABS + 1)  # a tab closed twice counts once
    kept = {t.tab_id for t in telemetry.store.tabs()}
    assert kept == set(range(2, KEEP_CLOSED_TABS + 2))  # the two oldest closed tabs are forgotten
