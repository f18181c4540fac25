"""configure: every action, and the SQLite session store behind the snapshot actions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tabmcp.core.telemetry import (
    InvalidTelemetryArguments,
    SessionStoreError,
    SnapshotFormatError,
    SnapshotNotFound,
    TelemetryState,
    configure,
    observe,
)
from tabmcp.errors import ToolCallError
from tabmcp.storage.snapshots import SqliteSnapshots

from .factory import batch, console, error, make_store, nav, request, ws


@pytest.fixture
def store() -> TelemetryState:
    s = make_store()
    s.ingest(
        batch(
            [
                nav(0, "L1"),
                console(1, "ResizeObserver loop completed with undelivered notifications"),
                console(2, "useful"),
                error(3, "boom"),
                request(4, "/api/items", response_body=[{"id": 1}]),
                request(5, "/collect?ev=1"),
                ws(6, "c1", "open"),
            ]
        )
    )
    return s


@pytest.fixture
def sessions() -> SqliteSnapshots:
    with SqliteSnapshots(":memory:") as db:
        yield db


def test_status_reports_settings_counts_and_drops(store: TelemetryState) -> None:
    store.ingest(batch([], dropped={"network": 4}))
    answer = configure(store, {"action": "status"})
    d = answer.data
    assert d["dynamicExposure"] is True and d["counts"]["logs"] == 2 and d["counts"]["network"] == 2
    assert d["dropped"] == {"page": 4} and d["bytesUsed"] > 0 and d["buffers"]["logs"] == 1000
    assert "Dropped: 4 page." in answer.text


def test_noise_rules_add_purge_list_remove(store: TelemetryState) -> None:
    added = configure(
        store, {"action": "noise", "op": "add", "rule": {"match": "console", "pattern": "resizeobserver"}}
    )
    assert added.data["purged"] == 1 and [r["id"] for r in added.data["rules"]] == ["noise-1"]
    configure(
        store,
        {"action": "noise", "op": "add", "rule": {"match": "url", "pattern": r"/collect\b", "regex": True}},
    )
    assert store.counts().logs == 1 and store.counts().network == 1
    store.ingest(batch([console(9, "ResizeObserver loop again"), request(10, "/collect?ev=2")]))
    assert store.counts().logs == 1 and store.counts().network == 1
    assert store.buffers.drops(1) == {"ignored": 4}
    listed = configure(store, {"action": "noise"})
    assert "noise-1: console ~ 'resizeobserver'" in listed.text and "noise-2: url" in listed.text
    configure(store, {"action": "noise", "op": "remove", "rule_id": "noise-1"})
    store.ingest(batch([console(11, "ResizeObserver back")]))
    assert store.counts().logs == 2
    with pytest.raises(InvalidTelemetryArguments):
        configure(store, {"action": "noise", "op": "remove", "rule_id": "noise-9"})
    with pytest.raises(InvalidTelemetryArguments):
        configure(
            store, {"action": "noise", "op": "add", "rule": {"match": "url", "pattern": "(", "regex": True}}
        )
    with pytest.raises(InvalidTelemetryArguments, match="needs rule"):
        configure(store, {"action": "noise", "op": "add"})
    configure(store, {"action": "noise", "op": "clear"})
    assert store.settings.noise == []


def test_clear_some_kinds_or_everything(store: TelemetryState) -> None:
    answer = configure(store, {"action": "clear", "kinds": ["logs", "errors"]})
    assert answer.data["removed"] == 3
    assert store.counts().logs == 0 and store.counts().network == 2 and store.counts().api_endpoints == 1
    configure(store, {"action": "clear", "kinds": ["api"]})
    assert store.counts().api_endpoints == 0 and store.counts().network == 2
    configure(store, {"action": "clear"})
    assert store.counts().total == 0 and store.counts().websocket_connections == 0
    with pytest.raises(InvalidTelemetryArguments):
        configure(store, {"action": "clear", "kinds": ["everything"]})


def test_buffer_sizes(store: TelemetryState) -> None:
    answer = configure(
        store, {"action": "buffers", "sizes": {"logs": 1, "network": 50}, "max_bytes": 2_000_000}
    )
    assert answer.data["evicted"] == 1 and answer.data["buffers"]["logs"] == 1
    assert store.settings.max_bytes == 2_000_000 and store.counts().logs == 1
    with pytest.raises(InvalidTelemetryArguments, match="unknown buffer kind"):
        configure(store, {"action": "buffers", "sizes": {"frames": 3}})
    with pytest.raises(InvalidTelemetryArguments, match=r"buffers\.logs"):
        configure(store, {"action": "buffers", "sizes": {"logs": 0}})
    with pytest.raises(InvalidTelemetryArguments, match="quarter"):
        configure(store, {"action": "buffers", "max_bytes": 500_000})  # below 4 x max_event_bytes
    assert store.settings.buffers.logs == 1  # a refused change changes nothing


def test_redaction_rules(store: TelemetryState) -> None:
    configure(
        store, {"action": "redaction", "op": "add", "keys": ["employeeId"], "patterns": [r"\bEMP-\d+\b"]}
    )
    store.ingest(
        batch([console(20, "user EMP-42 logged in"), request(21, "/api/me", response_body={"employeeId": 7})])
    )
    logs = observe(store, {"what": "logs", "contains": "logged in"}).data["items"]
    assert logs[0]["args"] == ["user [REDACTED] logged in"]
    body = observe(store, {"what": "network", "url": "/api/me", "include_bodies": True}).data["items"][0]
    assert body["responseBody"] == '{"employeeId":"[REDACTED]"}'
    configure(store, {"action": "redaction", "op": "remove", "keys": ["EMPLOYEE_ID"]})
    assert "employeeid" not in store.settings.redaction.keys
    configure(store, {"action": "redaction", "op": "list", "card_numbers": False})
    assert store.settings.redaction.card_numbers is False
    configure(store, {"action": "redaction", "op": "reset"})
    assert (
        store.settings.redaction.card_numbers is True
        and r"\bEMP-\d+\b" not in store.settings.redaction.patterns
    )
    with pytest.raises(InvalidTelemetryArguments):
        configure(store, {"action": "redaction", "op": "add", "patterns": ["(broken"]})


def test_exposure_toggle(store: TelemetryState) -> None:
    assert configure(store, {"action": "exposure"}).data["enabled"] is True
    assert configure(store, {"action": "exposure", "enabled": False}).data["enabled"] is False
    assert store.settings.dynamic_exposure is False


def test_snapshot_round_trip_through_sqlite(store: TelemetryState, sessions: SqliteSnapshots) -> None:
    saved = configure(store, {"action": "save_snapshot", "name": "before fix"}, sessions=sessions)
    assert saved.data["snapshot"]["entries"] == store.counts().total
    before = observe(store, {"what": "network", "include_bodies": True}).data["items"]
    configure(store, {"action": "clear"})
    loaded = configure(store, {"action": "load_snapshot", "name": "before fix"}, sessions=sessions)
    assert loaded.data["entries"] == saved.data["snapshot"]["entries"]
    assert observe(store, {"what": "network", "include_bodies": True}).data["items"] == before
    assert store.counts().api_endpoints == 1 and store.counts().websocket_connections == 1
    listed = configure(store, {"action": "list_snapshots"}, sessions=sessions)
    assert [s["name"] for s in listed.data["snapshots"]] == ["before fix"]
    assert configure(store, {"action": "delete_snapshot", "name": "before fix"}, sessions=sessions).data[
        "deleted"
    ]
    assert not configure(store, {"action": "delete_snapshot", "name": "before fix"}, sessions=sessions).data[
        "deleted"
    ]
    with pytest.raises(SnapshotNotFound) as info:
        configure(store, {"action": "load_snapshot", "name": "before fix"}, sessions=sessions)
    assert isinstance(info.value, ToolCallError) and info.value.code == "SNAPSHOT_NOT_FOUND"


def test_snapshot_actions_need_a_session_store(store: TelemetryState) -> None:
    with pytest.raises(SessionStoreError, match="no session store"):
        configure(store, {"action": "save_snapshot", "name": "x"})
    with pytest.raises(InvalidTelemetryArguments, match="needs name"):
        configure(store, {"action": "save_snapshot"}, sessions=SqliteSnapshots())


def test_session_store_persists_across_instances(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "sessions.db"
    source = make_store()
    source.ingest(batch([nav(0), error(1, "kept on disk")]))
    with SqliteSnapshots(path) as db:
        info = db.save("s1", source.export_snapshot())
        assert info.stored_bytes < info.raw_bytes
    with SqliteSnapshots(path) as db:
        target = make_store()
        target.restore_snapshot(db.load("s1"))
    assert [i["message"] for i in observe(target, {"what": "errors"}).data["items"]] == ["kept on disk"]


def test_session_store_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SqliteSnapshots(path) as db:
        db.save("ok", {"format": "something else"})
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO snapshots VALUES ('bad', 0, 0, 0, x'00ff')")
    conn.close()
    with SqliteSnapshots(path) as db:
        with pytest.raises(SnapshotFormatError):
            db.load("bad")
        with pytest.raises(SnapshotFormatError):
            make_store().restore_snapshot(db.load("ok"))
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(SessionStoreError, match="newer tabmcp"):
        SqliteSnapshots(path)
