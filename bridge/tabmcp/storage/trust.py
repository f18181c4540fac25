"""The SQLite tables of the trust defences: pinned tool definitions and result flags.

``tool_pins`` holds one row per origin + tool (keyed by origin, so reachable sites list from it;
``kept`` rows are never evicted); ``trust_flags`` the results that looked like orders (the
lockdown). The rules are in ``core/trust/``; ``tabmcp trust`` reads these while the bridge runs.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Sequence
from typing import Any

from .database import CHANGES_SCHEMA, mark_changed, open_db

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
    """One SQLite connection shared by the pins and the lockdown (thread-safe, autocommit): the
    :class:`~tabmcp.core.stores.PinTable` and :class:`~tabmcp.core.stores.FlagTable` of the core.
    The core holds :attr:`lock` around each call (a read and the write it decides are one step)."""

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

    # -- tool_pins (core/trust/pins.py, core/reachable_sites.py) -----------------------------------------

    def pin_row(self, origin: str, name: str) -> tuple[str, str, str, str] | None:
        row: tuple[str, str, str, str] | None = self.db.execute(
            "SELECT pinned_hash, pinned_def, current_hash, status FROM tool_pins WHERE origin = ? AND name = ?",
            (origin, name),
        ).fetchone()
        return row

    def touch_pin(self, origin: str, name: str, now: float, document_url: str) -> None:
        self.db.execute(
            "UPDATE tool_pins SET last_seen = ?, document_url = ? WHERE origin = ? AND name = ?",
            (now, document_url, origin, name),
        )

    def insert_pin(self, origin: str, name: str, digest: str, canon: str, document_url: str, now: float) -> None:
        self.db.execute(
            "INSERT INTO tool_pins (origin, name, pinned_hash, pinned_def, current_hash, current_def, status, "
            "document_url, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, 'pinned', ?, ?, ?)",
            (origin, name, digest, canon, digest, canon, document_url, now, now),
        )

    def repin(self, origin: str, name: str, now: float, document_url: str) -> None:
        self.db.execute(
            "UPDATE tool_pins SET current_hash = pinned_hash, current_def = pinned_def, status = 'pinned', "
            "last_seen = ?, document_url = ? WHERE origin = ? AND name = ?",
            (now, document_url, origin, name),
        )

    def mark_pin_changed(
        self, origin: str, name: str, digest: str, canon: str, now: float, document_url: str, *, since_now: bool
    ) -> None:
        changed_at = "?" if since_now else "changed_at"
        params: tuple[Any, ...] = (digest, canon, now, document_url)
        if changed_at == "?":
            params += (now,)
        self.db.execute(
            "UPDATE tool_pins SET current_hash = ?, current_def = ?, status = 'changed', last_seen = ?, "
            f"document_url = ?, changed_at = {changed_at} WHERE origin = ? AND name = ?",
            (*params, origin, name),
        )

    def has_kept(self, origin: str) -> bool:
        return self.db.execute(
            "SELECT 1 FROM tool_pins WHERE origin = ? AND kept = 1 LIMIT 1", (origin,)
        ).fetchone() is not None

    def pin_count(self, origin: str) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM tool_pins WHERE origin = ?", (origin,)).fetchone()
        return int(row[0])

    def evictable(self, origin: str, n: int) -> list[str]:
        return [str(r[0]) for r in self.db.execute(
            "SELECT name FROM tool_pins WHERE origin = ? AND kept = 0 AND status = 'pinned' "
            "ORDER BY last_seen, first_seen LIMIT ?",
            (origin, n),
        )]

    def evictable_all(self) -> list[tuple[str, str]]:
        return [(str(o), str(n)) for o, n in self.db.execute(
            "SELECT origin, name FROM tool_pins WHERE kept = 0 AND status = 'pinned' "
            "ORDER BY last_seen, first_seen"
        ).fetchall()]

    def delete_pins(self, keys: Sequence[tuple[str, str]]) -> None:
        self.db.executemany(
            "DELETE FROM tool_pins WHERE origin = ? AND name = ? AND kept = 0", keys
        )

    def keep(self, origin: str, name: str) -> bool:
        cur = self.db.execute(
            "UPDATE tool_pins SET kept = 1 WHERE origin = ? AND name = ? AND kept = 0", (origin, name)
        )
        return bool(cur.rowcount)

    def pin_origins(self) -> dict[str, tuple[int, float]]:
        rows = self.db.execute(
            "SELECT origin, COUNT(*), MAX(last_seen) FROM tool_pins GROUP BY origin"
        ).fetchall()
        return {str(o): (int(n), float(last)) for o, n, last in rows}

    def drop_unkept(self, origin: str) -> int:
        cur = self.db.execute("DELETE FROM tool_pins WHERE origin = ? AND kept = 0", (origin,))
        return int(cur.rowcount)

    def forget_origin(self, origin: str) -> None:
        self.db.execute("DELETE FROM tool_pins WHERE origin = ?", (origin,))

    def accept(self, origin: str, name: str) -> bool:
        cur = self.db.execute(
            "UPDATE tool_pins SET pinned_hash = current_hash, pinned_def = current_def, status = 'pinned', "
            "changed_at = NULL, kept = 1 WHERE origin = ? AND name = ? AND status = 'changed'",
            (origin, name),
        )
        if cur.rowcount:
            mark_changed(self.db, "trust")  # a running bridge follows (server/shared_state.py)
        return bool(cur.rowcount)

    def pin_rows(self, origin: str | None = None, name: str | None = None, *,
                 changed_only: bool = False) -> list[tuple[Any, ...]]:
        sql = f"SELECT {_COLUMNS} FROM tool_pins"
        where, args = [], []
        if changed_only:
            where.append("status = 'changed'")
        if origin is not None:
            where.append("origin = ?")
            args.append(origin)
        if name is not None:
            where.append("name = ?")
            args.append(name)
        if where:
            sql += " WHERE " + " AND ".join(where)
        return self.db.execute(sql + " ORDER BY origin, name", args).fetchall()

    def last_origin_of(self, name: str) -> str | None:
        row = self.db.execute(
            "SELECT origin FROM tool_pins WHERE name = ? ORDER BY last_seen DESC LIMIT 1", (name,)
        ).fetchone()
        return None if row is None else str(row[0])

    # -- trust_flags (core/trust/lockdown.py) --------------------------------------------------

    def add_flag(self, origin: str, tool: str, reasons: str, at: float) -> int:
        cur = self.db.execute(
            "INSERT INTO trust_flags (origin, tool, reasons, flagged_at) VALUES (?, ?, ?, ?)",
            (origin, tool, reasons, at),
        )
        return int(cur.lastrowid or 0)

    def open_flags(self) -> list[tuple[int, str, str, str, float]]:
        rows = self.db.execute(
            "SELECT id, origin, tool, reasons, flagged_at FROM trust_flags WHERE cleared_at IS NULL ORDER BY id"
        ).fetchall()
        return [(int(i), str(o), str(t), str(r), float(at)) for i, o, t, r, at in rows]

    def any_open_flag(self) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM trust_flags WHERE cleared_at IS NULL LIMIT 1"
        ).fetchone()
        return row is not None

    def clear_flags(self, at: float) -> int:
        cur = self.db.execute(
            "UPDATE trust_flags SET cleared_at = ? WHERE cleared_at IS NULL", (at,)
        )
        if cur.rowcount:
            mark_changed(self.db, "trust")  # a running bridge follows (server/shared_state.py)
        return int(cur.rowcount)


_COLUMNS = "origin, name, status, pinned_def, current_def, document_url, first_seen, last_seen, changed_at"
