"""The bridge's SQLite file: tool usage counts (for the hybrid profile's core tools), and the person's
forms-as-tools choices.

Counts are kept in memory and written in batches (:meth:`UsageStore.flush`), so a call never
waits for the disk.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path

__all__ = ["CHANGES_SCHEMA", "FormsSwitchStore", "UsageStore", "default_db_path", "mark_changed", "open_db",
           "read_changes"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tool_usage (
    origin TEXT NOT NULL,
    name TEXT NOT NULL,
    calls INTEGER NOT NULL DEFAULT 0,
    last_used REAL NOT NULL,
    PRIMARY KEY (origin, name)
);
"""


def default_db_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "tabmcp" / "tabmcp.db"


def open_db(path: str | os.PathLike[str], schema: str) -> sqlite3.Connection:
    """An autocommit connection to the bridge's SQLite file (its folder made if needed), shared
    across threads by its owner's lock, in WAL mode so the CLI can read while the bridge writes,
    with ``schema`` applied."""
    target = str(path)
    if target != ":memory:":
        Path(target).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
    if target != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=2000")
    db.executescript(schema)
    return db


CHANGES_SCHEMA = """
CREATE TABLE IF NOT EXISTS person_changes (
    topic TEXT PRIMARY KEY,
    n INTEGER NOT NULL
);
"""
"""One counter per topic of the person's decisions kept in this file (``trust``: accepted
definitions, a cleared lockdown). Every writer moves its topic's counter in the same connection
as its change, so a running bridge that sees a counter move knows another process (the
``tabmcp`` CLI) changed that topic and reloads it (``server/shared_state.py``). Reachable sites
keep their own counter (``site_changes``); the switches are followed by ``PRAGMA data_version``."""


def mark_changed(db: sqlite3.Connection, topic: str) -> None:
    """Move ``topic``'s change counter (call right after the change, on the same connection,
    opened with :data:`CHANGES_SCHEMA`)."""
    db.execute("INSERT INTO person_changes (topic, n) VALUES (?, 1) "
               "ON CONFLICT (topic) DO UPDATE SET n = n + 1", (topic,))


def read_changes(db: sqlite3.Connection) -> dict[str, int]:
    """Every topic's change counter (``{}`` before the first change)."""
    try:
        return {str(t): int(n) for t, n in db.execute("SELECT topic, n FROM person_changes")}
    except sqlite3.OperationalError:  # no table yet: nothing changed
        return {}


class UsageStore:
    """How often each page tool (by origin and page name) was called, across bridge runs."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._db = open_db(path if path is not None else default_db_path(), _SCHEMA)
        self._lock = threading.Lock()
        self._pending: Counter[tuple[str, str]] = Counter()
        self._top_cache: dict[int, set[tuple[str, str]]] = {}
        self._flushed_at = time.monotonic()

    FLUSH_EVERY_S = 10.0

    def record(self, origin: str, name: str) -> None:
        with self._lock:
            self._pending[(origin, name)] += 1
        if time.monotonic() - self._flushed_at > self.FLUSH_EVERY_S:
            self.flush()

    def flush(self) -> int:
        """Write pending counts; returns how many tools were updated."""
        self._flushed_at = time.monotonic()
        with self._lock:
            pending, self._pending = self._pending, Counter()
        if not pending:
            return 0
        now = time.time()
        self._db.execute("BEGIN")
        self._db.executemany(
            "INSERT INTO tool_usage (origin, name, calls, last_used) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (origin, name) DO UPDATE SET calls = calls + excluded.calls, "
            "last_used = excluded.last_used",
            [(o, n, c, now) for (o, n), c in pending.items()],
        )
        self._db.execute("COMMIT")
        self._top_cache.clear()
        return len(pending)

    def forget(self, origin: str) -> None:
        """Remove every count of ``origin``'s tools (the person forgot the site)."""
        with self._lock:
            for key in [k for k in self._pending if k[0] == origin]:
                del self._pending[key]
        self._db.execute("DELETE FROM tool_usage WHERE origin = ?", (origin,))
        self._top_cache.clear()

    def top(self, n: int) -> list[tuple[str, str, int]]:
        """The ``n`` most called tools: (origin, name, calls), most first."""
        self.flush()
        rows = self._db.execute(
            "SELECT origin, name, calls FROM tool_usage ORDER BY calls DESC, last_used DESC LIMIT ?", (n,)
        ).fetchall()
        return [(str(o), str(name), int(c)) for o, name, c in rows]

    def top_set(self, n: int) -> set[tuple[str, str]]:
        """The top ``n`` as a set, cached until the next flush."""
        if n not in self._top_cache:
            self._top_cache[n] = {(o, name) for o, name, _ in self.top(n)}
        return self._top_cache[n]

    def close(self) -> None:
        self.flush()
        self._db.close()


_FORMS_SCHEMA = """
CREATE TABLE IF NOT EXISTS forms_switch (
    origin TEXT PRIMARY KEY,
    enabled INTEGER NOT NULL,
    changed REAL NOT NULL
);
"""


class FormsSwitchStore:
    """The person's forms-as-tools choices (from the extension's popup), one row per exact origin,
    kept across bridge runs. The config's ``[[policy.origins]]`` rules are not stored here."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._db = open_db(path if path is not None else default_db_path(), _FORMS_SCHEMA)
        self._lock = threading.Lock()

    def all(self) -> dict[str, bool]:
        """Every origin the person chose for, and whether they turned it on."""
        with self._lock:
            rows = self._db.execute("SELECT origin, enabled FROM forms_switch ORDER BY origin").fetchall()
        return {str(o): bool(e) for o, e in rows}

    def set(self, origin: str, enabled: bool) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO forms_switch (origin, enabled, changed) VALUES (?, ?, ?) "
                "ON CONFLICT (origin) DO UPDATE SET enabled = excluded.enabled, changed = excluded.changed",
                (origin, int(bool(enabled)), time.time()),
            )

    def close(self) -> None:
        self._db.close()
