"""The SQLite tables of the trust defences: pinned tool definitions and result flags.

They live in the bridge's database file (``store.path``), beside tool usage, so the ``tabmcp
trust`` command can show and clear them while the bridge runs. Tables:

``tool_pins`` — one row per origin + tool name: the pinned definition (the first one seen, or
the last one the person accepted), the current definition when it differs, the URL of the
document that registered it and when it was first and last seen. Keyed by origin, not tab, so
a later "sites, not tabs" view (issue 18) can list an origin's known tools from it.

``trust_flags`` — results that looked like orders to the agent; while one is not cleared,
write tools need approval (the lockdown).
"""

from __future__ import annotations

import os
import threading

from ...store import CHANGES_SCHEMA, open_db

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
    PRIMARY KEY (origin, name)
);
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


class TrustStore:
    """One SQLite connection shared by the pins and the lockdown (thread-safe, autocommit)."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.db = open_db(path, SCHEMA + CHANGES_SCHEMA)  # person_changes: see store.mark_changed
        self.lock = threading.Lock()

    def close(self) -> None:
        self.db.close()
