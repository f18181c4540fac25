"""A person's existing database opens with today's stores and keeps everything they decided.

The file is written here as an older bridge left it (raw SQL, the trust pins before their
``kept`` column), then opened through storage/ as the bridge and the CLI open it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tabmcp.core.trust.lockdown import Lockdown
from tabmcp.core.trust.pins import Pins, definition_of
from tabmcp.storage.build import activity_log, person_controls
from tabmcp.storage.database import FormsSwitchStore, SqlitePairings, UsageStore
from tabmcp.storage.sites import SiteStore
from tabmcp.storage.trust import TrustStore

SHOP = "https://shop.test"
PINNED = definition_of("Notes", "Read notes", {"type": "object"}, {"readOnlyHint": True})
NOW = definition_of("Notes", "Read notes and share them", {"type": "object"}, {"readOnlyHint": True})

OLDER_BRIDGE = """
CREATE TABLE tool_pins (
    origin TEXT NOT NULL, name TEXT NOT NULL, pinned_hash TEXT NOT NULL, pinned_def TEXT NOT NULL,
    current_hash TEXT NOT NULL, current_def TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pinned', 'changed')), document_url TEXT NOT NULL DEFAULT '',
    first_seen REAL NOT NULL, last_seen REAL NOT NULL, changed_at REAL, PRIMARY KEY (origin, name)
);
CREATE TABLE trust_flags (
    id INTEGER PRIMARY KEY AUTOINCREMENT, origin TEXT NOT NULL, tool TEXT NOT NULL, reasons TEXT NOT NULL,
    flagged_at REAL NOT NULL, cleared_at REAL
);
CREATE TABLE person_controls (key TEXT PRIMARY KEY, value TEXT NOT NULL, set_at REAL NOT NULL);
CREATE TABLE origins_off (origin TEXT PRIMARY KEY, set_at REAL NOT NULL);
CREATE TABLE reachable_sites (origin TEXT PRIMARY KEY, set_at REAL NOT NULL);
CREATE TABLE activity (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, client TEXT NOT NULL, tool TEXT NOT NULL,
    tab_id INTEGER, origin TEXT NOT NULL, outcome TEXT NOT NULL, duration_ms REAL NOT NULL,
    arguments TEXT NOT NULL, result TEXT NOT NULL
);
CREATE TABLE pairings (
    id TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, label TEXT NOT NULL, created REAL NOT NULL, last_seen REAL
);
CREATE TABLE forms_switch (origin TEXT PRIMARY KEY, enabled INTEGER NOT NULL, changed REAL NOT NULL);
CREATE TABLE tool_usage (
    origin TEXT NOT NULL, name TEXT NOT NULL, calls INTEGER NOT NULL DEFAULT 0, last_used REAL NOT NULL,
    PRIMARY KEY (origin, name)
);
"""


def older_database(path: Path) -> None:
    db = sqlite3.connect(path)
    db.executescript(OLDER_BRIDGE)
    canon = json.dumps
    db.execute(
        "INSERT INTO tool_pins VALUES (?, 'notes', 'h1', ?, 'h2', ?, 'changed', ?, 1.0, 2.0, 2.0)",
        (SHOP, canon(PINNED, sort_keys=True), canon(NOW, sort_keys=True), f"{SHOP}/notes"),
    )
    db.execute("INSERT INTO trust_flags (origin, tool, reasons, flagged_at) VALUES (?, 'notes', ?, 3.0)",
               (SHOP, json.dumps(["orders the agent"])))
    db.execute("INSERT INTO person_controls VALUES ('paused', 'true', 1.0), ('writes', 'false', 1.0)")
    db.execute("INSERT INTO origins_off VALUES ('https://off.test', 1.0)")
    db.execute("INSERT INTO reachable_sites VALUES (?, 1.0)", (SHOP,))
    db.executemany(
        "INSERT INTO activity (at, client, tool, tab_id, origin, outcome, duration_ms, arguments, result) "
        "VALUES (?, 'claude', ?, 7, ?, 'ok', 5.0, '{}', 'done')",
        [(1.0, "notes", SHOP), (2.0, "notes_2", SHOP)],
    )
    db.execute("INSERT INTO pairings VALUES ('p1', 'abc', 'Chromium', 1.0, NULL)")
    db.execute("INSERT INTO forms_switch VALUES (?, 1, 1.0)", (SHOP,))
    db.execute("INSERT INTO tool_usage VALUES (?, 'notes', 4, 1.0)", (SHOP,))
    db.commit()
    db.close()


def test_an_older_database_opens_with_every_decision_kept(tmp_path):
    path = tmp_path / "tabmcp.db"
    older_database(path)

    store = TrustStore(path)  # adds the pins' kept column
    pins = Pins(store)
    record = pins.get(SHOP, "notes")
    assert record is not None and record.status == "changed"
    assert record.pinned == PINNED and record.current == NOW  # the change still awaits the person
    assert Lockdown(store).locked  # the flag they have not cleared
    assert not pins.is_trusted(SHOP)  # no pin was kept before the column existed
    assert pins.accept(SHOP, "notes") and pins.is_trusted(SHOP)  # the new column works on the old rows

    controls = person_controls(path)
    assert (controls.paused, controls.writes, controls.origins_off) == (True, False, frozenset({"https://off.test"}))
    assert SiteStore(path).allowed() == {SHOP}
    assert [p.id for p in SqlitePairings(path).all()] == ["p1"]
    assert FormsSwitchStore(path).all() == {SHOP: True}
    assert UsageStore(path).top(5) == [(SHOP, "notes", 4)]

    log = activity_log(path)
    assert [e.tool for e in log.latest(5)] == ["notes_2", "notes"]
    assert log.first_id == 3  # this run's rows come after the older ones
    log.record(at=4.0, client="claude", tool="notes_3", tab_id=7, origin=SHOP, outcome="ok", duration_ms=1.0,
               arguments={}, result="x")
    assert [e.id for e in log.latest(5)] == [3, 2, 1]


def test_opening_twice_migrates_once(tmp_path):
    """The CLI and the bridge both open the file: the second open finds the column and keeps the first's writes."""
    path = tmp_path / "tabmcp.db"
    older_database(path)
    first = Pins(TrustStore(path))
    assert first.keep(SHOP, "notes")
    again = Pins(TrustStore(path))
    assert again.is_trusted(SHOP)
