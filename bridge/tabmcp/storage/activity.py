"""The activity log's table (``core/activity.py`` decides what a row says and when batches are
written): SQLite gives each row its id as it is written (``AUTOINCREMENT``: never reused), so
every process sharing the file (a second bridge, the CLI) writes without colliding."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from typing import Any

from ..core.stores import StoreUnavailable
from .database import open_db

__all__ = ["ActivityStore"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS activity (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    client TEXT NOT NULL,
    tool TEXT NOT NULL,
    tab_id INTEGER,
    origin TEXT NOT NULL,
    outcome TEXT NOT NULL,
    duration_ms REAL NOT NULL,
    arguments TEXT NOT NULL,
    result TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_origin ON activity (origin, id);
CREATE INDEX IF NOT EXISTS activity_tab ON activity (tab_id, id);
"""


class ActivityStore:
    """The :class:`~tabmcp.core.stores.ActivityRows` on one autocommit SQLite connection
    (``:memory:`` in tests); the caller serialises calls (``ActivityLog`` holds its lock)."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.db = open_db(path, SCHEMA)

    def next_id(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(id), 0) FROM activity").fetchone()[0]) + 1

    def write(self, rows: Sequence[tuple[Any, ...]], keep: int) -> int:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:  # another writer holds the file (past its busy timeout)
            raise StoreUnavailable(f"activity: {exc}") from exc
        try:
            self.db.executemany(
                "INSERT INTO activity (at, client, tool, tab_id, origin, outcome, duration_ms, arguments, "
                "result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            last = int(self.db.execute("SELECT last_insert_rowid()").fetchone()[0])
            self.db.execute("DELETE FROM activity WHERE id <= ?", (last - keep,))
            self.db.execute("COMMIT")
        except BaseException as exc:  # nothing of the batch is kept
            self.db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreUnavailable(f"activity: {exc}") from exc
            raise
        return last

    def latest(self, limit: int, origin: str | None, tab_id: int | None) -> list[tuple[Any, ...]]:
        where: list[str] = []
        params: list[str | int] = []
        if origin is not None:
            where.append("origin = ?")
            params.append(origin)
        if tab_id is not None:
            where.append("tab_id = ?")
            params.append(tab_id)
        sql = "SELECT id, at, client, tool, tab_id, origin, outcome, duration_ms, arguments, result FROM activity"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC LIMIT ?"
        return self.db.execute(sql, (*params, limit)).fetchall()

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM activity").fetchone()[0])

    def close(self) -> None:
        self.db.close()
