"""The person's switches as stored (``core/switches.py`` holds what they mean): one row per switch
(JSON values) and one per origin switched off, in the bridge's database file, so the CLI and a
running bridge share them (``PRAGMA data_version`` tells one of the other's writes)."""

from __future__ import annotations

import os
import time

from .database import open_db

__all__ = ["SwitchesStore"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS person_controls (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    set_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS origins_off (
    origin TEXT PRIMARY KEY,
    set_at REAL NOT NULL
);
"""


class SwitchesStore:
    """The :class:`~tabmcp.core.stores.SwitchesTable` on SQLite (``:memory:`` in tests); the
    caller serialises calls (``PersonSwitches`` holds its lock)."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.db = open_db(path, SCHEMA)

    def data_version(self) -> int:
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def values(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.db.execute("SELECT key, value FROM person_controls")}

    def put(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO person_controls (key, value, set_at) VALUES (?, ?, ?)",
                        (key, value, time.time()))

    def origins_off(self) -> frozenset[str]:
        return frozenset(str(o) for (o,) in self.db.execute("SELECT origin FROM origins_off"))

    def set_origin_off(self, origin: str, off: bool) -> None:
        if not off:
            self.db.execute("DELETE FROM origins_off WHERE origin = ?", (origin,))
        else:
            self.db.execute("INSERT OR REPLACE INTO origins_off (origin, set_at) VALUES (?, ?)",
                            (origin, time.time()))

    def close(self) -> None:
        self.db.close()
