"""The SQLite tables of the trust defences: pinned tool definitions and result flags.

They live in the bridge's database file (``store.path``), beside tool usage, so the ``tabmcp
trust`` command can show and clear them while the bridge runs. Tables:

``tool_pins`` — one row per origin + tool name: the pinned definition (the first one seen, or
the last one the person accepted), the current definition when it differs, the URL of the
document that registered it and when it was first and last seen. Keyed by origin, not tab, so
a later "sites, not tabs" view (issue 18) can list an origin's known tools from it. ``kept`` marks
a pin the person decided on (accepted its change, or approved a call of the tool): never evicted
and never expired (:mod:`.pins` holds the bounds, :mod:`.retention` the expiry).

``trust_flags`` — results that looked like orders to the agent; while one is not cleared,
write tools need approval (the lockdown).
"""

from __future__ import annotations

import os
import sqlite3
import threading

from ...database import CHANGES_SCHEMA, open_db

__all__ = ["TrustStore"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS tool_pins (
    origin TEXT NOT NULL,
    name TEXT NOT NULL,
    pinned_hash TEXT NOT NULL,
    pinned_def TEXT NOT NULL,
    current_hash TEXT NOT NULL,
    current_def TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pinned', 'changed')),
    document_url TEXT NOT NULL DEFAULT '',
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    changed_at REAL,
    kept INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (origin, name)
);
CREATE INDEX IF NOT EXISTS tool_pins_seen ON tool_pins (origin, last_seen);
CREATE INDEX IF NOT EXISTS tool_pins_age ON tool_pins (last_seen);
CREATE TABLE IF NOT EXISTS trust_flags (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    origin TEXT NOT NULL,
    tool TEXT NOT NULL,
    reasons TEXT NOT NULL,
    flagged_at REAL NOT NULL,
    cleared_at REAL
);
CREATE INDEX IF NOT EXISTS trust_flags_open ON trust_flags (cleared_at);
"""


def _migrate(db: sqlite3.Connection) -> None:
    """A file from before the person's pins were marked: add the ``kept`` column."""
    columns = {str(r[1]) for r in db.execute("PRAGMA table_info(tool_pins)")}
    if "kept" not in columns:
        db.execute("ALTER TABLE tool_pins ADD COLUMN kept INTEGER NOT NULL DEFAULT 0")


class TrustStore:
    """One SQLite connection shared by the pins and the lockdown (thread-safe, autocommit)."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.db = open_db(path, SCHEMA + CHANGES_SCHEMA)  # person_changes: see store.mark_changed
        _migrate(self.db)
        self.lock = threading.Lock()

    def reclaim(self) -> None:
        """Give the pages of deleted rows back to the file system (files made with incremental
        auto-vacuum; a no-op on older ones, whose free pages are reused instead)."""
        with self.lock:
            self.db.executescript("PRAGMA incremental_vacuum;")  # stepped to the end (execute frees one page)
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()  # the WAL too, unless read now

    def close(self) -> None:
        self.db.close()
