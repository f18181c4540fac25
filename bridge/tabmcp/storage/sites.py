"""The reachable sites' tables: the person's permissions (origins made reachable from the popup),
the counter every writer of sites moves, and the stale marks (``core/reachable_sites.py`` holds the rules)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable

from .database import open_db

__all__ = ["SiteStore"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS reachable_sites (
    origin TEXT PRIMARY KEY,
    set_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS site_changes (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n INTEGER NOT NULL
);
INSERT OR IGNORE INTO site_changes (id, n) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS site_stale (
    origin TEXT NOT NULL,
    name TEXT NOT NULL,
    marked_at REAL NOT NULL,
    PRIMARY KEY (origin, name)
);
"""


class SiteStore:
    """The person's permissions (origins made reachable from the popup) and stale marks, in SQLite."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.db = open_db(path, SCHEMA)
        self.lock = threading.Lock()

    def allowed(self) -> set[str]:
        with self.lock:
            return {str(r[0]) for r in self.db.execute("SELECT origin FROM reachable_sites")}

    def set_allowed(self, origin: str, allowed: bool) -> bool:
        """Record the person's choice; True when it changed anything."""
        with self.lock:
            if allowed:
                cur = self.db.execute(
                    "INSERT OR IGNORE INTO reachable_sites (origin, set_at) VALUES (?, ?)", (origin, time.time())
                )
            else:
                cur = self.db.execute("DELETE FROM reachable_sites WHERE origin = ?", (origin,))
        return bool(cur.rowcount)

    def stale(self, origin: str | None = None) -> dict[tuple[str, str], float]:
        sql = "SELECT origin, name, marked_at FROM site_stale"
        args: tuple[str, ...] = ()
        if origin is not None:
            sql, args = sql + " WHERE origin = ?", (origin,)
        with self.lock:
            return {(str(o), str(n)): float(t) for o, n, t in self.db.execute(sql, args)}

    def mark_stale(self, origin: str, name: str) -> None:
        with self.lock:
            self.db.execute(
                "INSERT OR REPLACE INTO site_stale (origin, name, marked_at) VALUES (?, ?, ?)",
                (origin, name, time.time()),
            )

    def clear_stale(self, origin: str, names: Iterable[str]) -> int:
        with self.lock:
            cur = self.db.executemany(
                "DELETE FROM site_stale WHERE origin = ? AND name = ?", [(origin, n) for n in names]
            )
        return cur.rowcount

    def forget(self, origin: str) -> None:
        with self.lock:
            self.db.execute("DELETE FROM site_stale WHERE origin = ?", (origin,))
            self.db.execute("DELETE FROM reachable_sites WHERE origin = ?", (origin,))

    def changes(self) -> int:
        """A counter every writer of sites (this bridge, ``tabmcp sites``) moves on: a running
        bridge rebuilds when another process changed it."""
        with self.lock:
            return int(self.db.execute("SELECT n FROM site_changes WHERE id = 1").fetchone()[0])

    def touch(self) -> int:
        with self.lock:
            self.db.execute("UPDATE site_changes SET n = n + 1 WHERE id = 1")
            return int(self.db.execute("SELECT n FROM site_changes WHERE id = 1").fetchone()[0])

    def close(self) -> None:
        self.db.close()
