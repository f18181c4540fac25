"""The bridge's SQLite file: tool usage counts (for the hybrid profile's core tools), the person's
forms-as-tools choices, and the paired extensions.

Counts are written in batches so a call never waits for the disk, and bounded (docs/security.md §7).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path

from ..core.pairing import Pairing
from ..core.stores import StoreUnavailable
from .files import private_db, state_dir

__all__ = [
    "CHANGES_SCHEMA", "USAGE_PER_ORIGIN", "USAGE_TOTAL", "ChangeCounters", "FormsSwitchStore", "SqlitePairings", "UsageStore",
    "default_db_path", "mark_changed", "open_db", "read_changes",
]

USAGE_PER_ORIGIN = 200
"""Usage rows kept per origin (the most recently used)."""
USAGE_TOTAL = 10_000
"""Usage rows kept in all (the most recently used)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tool_usage (
    origin TEXT NOT NULL,
    name TEXT NOT NULL,
    calls INTEGER NOT NULL DEFAULT 0,
    last_used REAL NOT NULL,
    PRIMARY KEY (origin, name)
);
CREATE INDEX IF NOT EXISTS tool_usage_used ON tool_usage (last_used);
"""


log = logging.getLogger("tabmcp.database")


def default_db_path() -> Path:
    return state_dir() / "tabmcp.db"


def open_db(path: str | os.PathLike[str], schema: str) -> sqlite3.Connection:
    """An autocommit connection to the bridge's SQLite file (its folder made if needed), shared
    across threads by its owner's lock, in WAL mode so the CLI can read while the bridge writes,
    with ``schema`` applied. The file (and its folder, if made here) is the person's alone (files.py)."""
    target = str(path)
    private_db(target)
    db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # in a new file only: deleted rows can shrink it
    if target != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA journal_size_limit=4194304")  # the WAL is cut to 4 MiB after a checkpoint
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
"""One counter per topic of the person's decisions kept in this file (``trust``), moved in the
writer's own transaction, so a running bridge knows another process changed that topic and reloads it."""


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


class ChangeCounters:
    """A connection of its own on the file, for a watcher of other processes' writes
    (``server/shared_state.py``): :meth:`data_version` moves only when another connection committed."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._db = open_db(path, CHANGES_SCHEMA)

    def data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def read(self) -> dict[str, int]:
        """Every topic's change counter (:func:`read_changes`)."""
        return read_changes(self._db)

    def close(self) -> None:
        self._db.close()


class UsageStore:
    """How often each page tool (by origin and page name) was called, across bridge runs."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        per_origin: int = USAGE_PER_ORIGIN,
        total: int = USAGE_TOTAL,
    ) -> None:
        self._db = open_db(path if path is not None else default_db_path(), _SCHEMA)
        self._lock = threading.Lock()
        self.per_origin = per_origin
        self.total = total
        self._pending: Counter[tuple[str, str]] = Counter()
        self._top_cache: dict[int, set[tuple[str, str]]] = {}
        self._flushed_at = time.monotonic()

    FLUSH_EVERY_S = 10.0

    def record(self, origin: str, name: str) -> None:
        with self._lock:
            self._pending[(origin, name)] += 1
        if time.monotonic() - self._flushed_at > self.FLUSH_EVERY_S:
            self._flush_or_keep()  # on a call's path: a file that refuses the write does not fail the call

    def _flush_or_keep(self) -> None:
        try:
            self.flush()
        except StoreUnavailable as exc:
            log.warning("%s; the counts are kept for the next write", exc)

    def flush(self) -> int:
        """Write pending counts; returns how many tools were updated.

        Raises:
            StoreUnavailable: the file refused the write (locked past its busy timeout, disk full):
                nothing of it was kept, the counts stay pending for the next one.
        """
        self._flushed_at = time.monotonic()
        with self._lock:
            pending, self._pending = self._pending, Counter()
        if not pending:
            return 0
        try:
            self._write(pending)
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            with self._lock:
                self._pending.update(pending)  # with what was recorded meanwhile
            raise StoreUnavailable(f"usage: {exc}") from exc
        self._top_cache.clear()
        return len(pending)

    def _write(self, pending: Counter[tuple[str, str]]) -> None:
        now = time.time()
        self._db.execute("BEGIN")
        self._db.executemany(
            "INSERT INTO tool_usage (origin, name, calls, last_used) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (origin, name) DO UPDATE SET calls = calls + excluded.calls, "
            "last_used = excluded.last_used",
            [(o, n, c, now) for (o, n), c in pending.items()],
        )
        for origin in {o for o, _ in pending}:  # the least recently used beyond the caps go
            self._db.execute(
                "DELETE FROM tool_usage WHERE origin = ? AND name IN (SELECT name FROM tool_usage "
                "WHERE origin = ? ORDER BY last_used DESC, calls DESC LIMIT -1 OFFSET ?)",
                (origin, origin, self.per_origin),
            )
        self._db.execute(
            "DELETE FROM tool_usage WHERE rowid IN (SELECT rowid FROM tool_usage "
            "ORDER BY last_used DESC, calls DESC LIMIT -1 OFFSET ?)",
            (self.total,),
        )
        self._db.execute("COMMIT")

    def forget(self, origin: str) -> None:
        """Remove every count of ``origin``'s tools (the person forgot the site)."""
        with self._lock:
            for key in [k for k in self._pending if k[0] == origin]:
                del self._pending[key]
        self._db.execute("DELETE FROM tool_usage WHERE origin = ?", (origin,))
        self._top_cache.clear()

    def origins(self) -> dict[str, float]:
        """Every origin with counts, and when one of its tools was last called."""
        self._flush_or_keep()
        rows = self._db.execute("SELECT origin, MAX(last_used) FROM tool_usage GROUP BY origin").fetchall()
        return {str(o): float(t) for o, t in rows}

    def rows(self) -> int:
        """How many tools have counts (tests and the churn bench read it)."""
        self._flush_or_keep()
        return int(self._db.execute("SELECT COUNT(*) FROM tool_usage").fetchone()[0])

    def top(self, n: int) -> list[tuple[str, str, int]]:
        """The ``n`` most called tools: (origin, name, calls), most first (what is written: a
        file that refuses the write keeps the rest pending)."""
        self._flush_or_keep()
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
        try:
            self.flush()
        finally:
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


_PAIRINGS_SCHEMA = """
CREATE TABLE IF NOT EXISTS pairings (
    id TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,
    label TEXT NOT NULL,
    created REAL NOT NULL,
    last_seen REAL
);
"""


class SqlitePairings:
    """Paired extension installs (core/pairing.py), one row each, kept across bridge runs: the
    SHA-256 of each secret, never the secret."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._db = open_db(path if path is not None else default_db_path(), _PAIRINGS_SCHEMA)
        self._lock = threading.Lock()

    @staticmethod
    def _row(row: tuple[object, ...]) -> Pairing:
        pid, secret_hash, label, created, last_seen = row
        return Pairing(id=str(pid), secret_hash=str(secret_hash), label=str(label), created=float(created),  # type: ignore[arg-type]
                       last_seen=None if last_seen is None else float(last_seen))  # type: ignore[arg-type]

    def get(self, pairing_id: str) -> Pairing | None:
        with self._lock:
            row = self._db.execute("SELECT id, secret_hash, label, created, last_seen FROM pairings WHERE id = ?",
                                   (pairing_id,)).fetchone()
        return self._row(row) if row else None

    def add(self, pairing: Pairing) -> None:
        with self._lock:
            self._db.execute("INSERT INTO pairings (id, secret_hash, label, created, last_seen) VALUES (?, ?, ?, ?, ?)",
                             (pairing.id, pairing.secret_hash, pairing.label, pairing.created, pairing.last_seen))

    def remove(self, pairing_id: str) -> bool:
        with self._lock:
            return self._db.execute("DELETE FROM pairings WHERE id = ?", (pairing_id,)).rowcount > 0

    def all(self) -> list[Pairing]:
        with self._lock:
            rows = self._db.execute("SELECT id, secret_hash, label, created, last_seen FROM pairings ORDER BY created").fetchall()
        return [self._row(r) for r in rows]

    def touch(self, pairing_id: str, when: float) -> None:
        with self._lock:
            self._db.execute("UPDATE pairings SET last_seen = ? WHERE id = ?", (when, pairing_id))

    def close(self) -> None:
        self._db.close()
