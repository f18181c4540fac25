"""The store: envelopes, page loads, scopes, console.error promotion, noise rules, tabs."""

from __future__ import annotations

import pytest
from tabmcp.core.telemetry import BufferKind, MalformedBatch, NoiseRule, TelemetrySettings
from tabmcp.core.telemetry.models import event_to_wire
from tabmcp.errors import BridgeError, ProtocolError

from .factory import ORIGIN, action, batch, console, error, make_store, nav, request, vitals, ws


def test_malformed_envelopes_raise_a_protocol_error() -> None:
    store = make_store()
    for bad in ([1, 2], {"type": "telemetry"}, {"type": "telemetry", "tabId": "one", "events": []}):
        with pytest.raises(MalformedBatch) as info:
            store.ingest(bad)  # type: ignore[arg-type]
        assert isinstance(info.value, ProtocolError) and isinstance(info.value, BridgeError)
        assert info.value.code == "MALFORMED_MESSAGE"


def test_unknown_fields_are_ignored() -> None:
    store = make_store()
    event = console(0, "hi")
    event["futureField"] = {"x": 1}
    report = store.ingest({**batch([event]), "alsoNew": True})
    assert report.accepted == 1


def test_current_page_load_starts_at_a_full_navigation_not_an_spa_route() -> None:
    store = make_store()
    store.ingest(batch([nav(0, "L1"), console(1, "first load"), nav(2, "L1", f"{ORIGIN}/#/cart", "spa")]))
    store.ingest(batch([console(3, "after route")], url=f"{ORIGIN}/#/cart"))
    assert store.tab(1).load_id == "L1"  # type: ignore[union-attr]
    assert store.tab(1).url == f"{ORIGIN}/#/cart"  # type: ignore[union-attr]
    store.ingest(batch([nav(4, "L2", nav_type="reload"), console(5, "second load")]))
    current = [e.event.text for e in store.select(BufferKind.LOGS)]
    whole_tab = [e.event.text for e in store.select(BufferKind.LOGS, scope="tab")]
    assert current == ["second load"]
    assert whole_tab == ["first load", "after route", "second load"]


def test_a_new_document_id_without_navigation_starts_a_load() -> None:
    store = make_store()
    store.ingest(batch([nav(0, "L1"), console(1, "old")], document_id="doc-A"))
    store.ingest(batch([console(2, "new document")], document_id="doc-B"))
    assert [e.event.text for e in store.select(BufferKind.LOGS)] == ["new document"]
    assert store.tab(1).load_id == "doc:doc-B"  # type: ignore[union-attr]


def test_scopes_and_current_tab() -> None:
    store = make_store()
    store.ingest(batch([nav(0, "A1"), console(1, "tab one")], tab=1))
    store.ingest(batch([nav(0, "B1"), console(1, "tab two")], tab=2))
    assert store.current_tab_id == 2  # the last tab to send telemetry
    assert [e.event.text for e in store.select(BufferKind.LOGS)] == ["tab two"]
    store.focus(1)
    assert [e.event.text for e in store.select(BufferKind.LOGS)] == ["tab one"]
    assert [e.event.text for e in store.select(BufferKind.LOGS, scope="all")] == ["tab one", "tab two"]
    assert store.select(BufferKind.LOGS, tab_id=99) == []


def test_vitals_belong_to_the_load_they_measured() -> None:
    store = make_store()
    store.ingest(batch([nav(0, "L1"), nav(10, "L2"), vitals(11, "L1", CLS=0.3)]))
    assert [e.load_id for e in store.select(BufferKind.VITALS, scope="tab")] == ["L1"]
    assert store.select(BufferKind.VITALS) == []


def test_console_error_is_kept_as_an_error_unless_the_page_reported_it_too() -> None:
    store = make_store()
    store.ingest(batch([console(0, "failed to load", "cart", level="error")]))
    store.ingest(batch([console(1, "dup", level="error"), error(1, "dup", error_type="console")]))
    errors = [(e.event.message, e.event.error_type) for e in store.select(BufferKind.ERRORS)]
    assert errors == [("failed to load cart", "console"), ("dup", "console")]
    assert store.counts().logs == 2


def test_noise_rules_ignore_at_ingest_and_count_it() -> None:
    settings = TelemetrySettings(
        noise=[
            NoiseRule(id="a", match="console", pattern="ResizeObserver loop"),
            NoiseRule(id="b", match="url", pattern=r"/(analytics|beacon)\b", regex=True),
        ]
    )
    store = make_store(settings)
    report = store.ingest(
        batch(
            [
                error(0, "ResizeObserver loop limit exceeded"),
                console(1, "resizeobserver LOOP completed"),
                console(2, "kept"),
                request(3, "/analytics/collect"),
                request(4, "/api/items"),
                ws(5, "c1", "open", url="wss://shop.test/beacon"),
                error(6, "third-party", source="https://cdn.test/analytics.js"),
            ]
        )
    )
    assert report.ignored == 5 and report.accepted == 2
    assert store.buffers.drops(1) == {"ignored": 5}
    assert store.connections.count == 0


def test_forget_tab_drops_everything_about_it() -> None:
    store = make_store()
    store.ingest(batch([console(0, "a"), ws(1, "c", "open")], tab=1))
    store.ingest(batch([console(0, "b")], tab=2))
    store.forget_tab(2)
    assert store.tab(2) is None and store.counts().logs == 1 and store.current_tab_id == 1


def test_set_tab_info_supplies_title_and_redacts_url() -> None:
    store = make_store()
    store.set_tab_info(5, url=f"{ORIGIN}/?token=x", title="Shop")
    assert store.tab(5).title == "Shop"  # type: ignore[union-attr]
    assert "token=[REDACTED]" in store.tab(5).url  # type: ignore[union-attr]


def test_snapshot_export_restore_round_trip() -> None:
    store = make_store()
    store.ingest(
        batch(
            [
                nav(0, "L1"),
                console(1, "hi"),
                error(2, "boom"),
                request(3, "/api/users/7", response_body={"id": 7}),
            ],
            dropped={"console": 3},
        )
    )
    store.set_checkpoint("before")
    store.ingest(batch([ws(4, "c1", "open"), ws(5, "c1", "message", direction="in", data="x")]))
    snap = store.export_snapshot()
    other = make_store()
    assert other.restore_snapshot(snap) == len(snap["entries"])
    assert other.counts() == store.counts()
    assert other.buffers.drops(1) == store.buffers.drops(1)
    assert other.tab(1) == store.tab(1)
    assert other.checkpoint("before") == store.checkpoint("before")
    assert [e.to_dict(schemas=True) for e in other.api.endpoints()] == [
        e.to_dict(schemas=True) for e in store.api.endpoints()
    ]
    assert other.connections.connections()[0].messages_in == 1
    other.ingest(batch([console(9, "after restore")]))
    assert other.seq > store.seq


# -- issue 30 item 2: telemetry the page wrote itself --------------------------------------------


def test_a_batch_the_page_posted_itself_is_marked_and_moves_nothing() -> None:
    store = make_store()
    store.ingest({**batch([nav(0), console(1, "ours")]), "origin": ORIGIN})
    forged = batch(
        [
            nav(2, load_id="forged", url="https://bank.example/accounts"),
            {**console(3, "transfer approved"), "pageReported": False},  # what it says of itself is ignored
        ],
        url="https://bank.example/accounts",
    )
    store.ingest({**forged, "origin": ORIGIN, "pageReported": True})
    tab = store.tab(1)
    assert tab is not None and tab.url == f"{ORIGIN}/" and tab.load_id == "L1"
    logs = {e.event.args[0]: e for e in store.select(BufferKind.LOGS, scope="tab")}  # type: ignore[union-attr]
    assert logs["transfer approved"].event.page_reported is True
    assert logs["transfer approved"].page_url == f"{ORIGIN}/"
    assert logs["ours"].event.page_reported is None
    assert "pageReported" not in event_to_wire(logs["ours"].event)


def test_a_navigation_or_action_of_another_origin_than_the_documents_is_the_pages() -> None:
    store = make_store()
    store.ingest({**batch([nav(0), console(1, "ours")]), "origin": ORIGIN})
    store.ingest(
        {
            **batch(
                [
                    nav(2, load_id="elsewhere", url="https://bank.example/", nav_type="load"),
                    action(3, "click", url="https://bank.example/", css="#pay"),
                    action(4, "click", url=f"{ORIGIN}/cart", css="#buy"),
                    {**console(5, "claims to be ours"), "pageReported": True},  # overwritten
                ],
                url="https://bank.example/",
            ),
            "origin": ORIGIN,
        }
    )
    tab = store.tab(1)
    assert tab is not None and tab.url == f"{ORIGIN}/" and tab.load_id == "L1"
    navs = [e.event for e in store.select(BufferKind.NAVIGATIONS, scope="tab")]
    assert [n.page_reported for n in navs] == [None, True]
    acts = {e.event.selectors.css: e.event for e in store.select(BufferKind.ACTIONS, scope="tab")}  # type: ignore[union-attr]
    assert acts["#pay"].page_reported is True and acts["#buy"].page_reported is None
    logs = [e.event for e in store.select(BufferKind.LOGS, scope="tab")]
    assert [e.page_reported for e in logs] == [None, None]


def test_observe_labels_page_reported_lines() -> None:
    from tabmcp.core.telemetry import observe

    store = make_store()
    store.ingest({**batch([nav(0), console(1, "ours")]), "origin": ORIGIN})
    store.ingest({**batch([console(2, "theirs")]), "origin": ORIGIN, "pageReported": True})
    answer = observe(store, {"what": "logs"})
    lines = answer.text.splitlines()
    assert "[page-reported]" in next(ln for ln in lines if "theirs" in ln)
    assert "[page-reported]" not in next(ln for ln in lines if "ours" in ln)
    assert [i.get("pageReported") for i in answer.data["items"]] == [None, True]
