"""The session store: named telemetry snapshots in SQLite, so a session outlives the bridge.

Snapshots are zlib-compressed JSON (telemetry compresses about tenfold); ``sqlite3`` errors become
:class:`SessionStoreError` here, so none leaks out.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import zlib
from typing import Any

from ..core.stores import SnapshotInfo
from ..core.telemetry.errors import SessionStoreError, SnapshotFormatError, SnapshotNotFound
from .files import private_db

__all__ = ["SqliteSnapshots"]

_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    name        TEXT PRIMARY KEY,
    created_at  REAL NOT NULL,
    entries     INTEGER NOT NULL,
    raw_bytes   INTEGER NOT NULL,
    data        BLOB NOT NULL
)
"""
_MAX_NAME = 100


class SqliteSnapshots:
    """Named snapshots in one SQLite file (the core's :class:`~tabmcp.core.stores.SnapshotStore`).

    Safe to call from several threads (one connection behind a lock), so the bridge may
    move a large save off its event loop with ``asyncio.to_thread``.

    Raises:
        SessionStoreError: the database cannot be opened or has a newer schema.
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        try:
            private_db(self.path)  # the person's alone (storage/files.py)
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > _SCHEMA_VERSION:
                raise SessionStoreError(
                    f"{self.path} was written by a newer tabmcp "
                    f"(schema {version}, this one reads {_SCHEMA_VERSION})"
                )
            with self._db:
                self._db.execute(_SCHEMA)
                self._db.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
        except (sqlite3.Error, OSError) as exc:
            raise SessionStoreError(f"cannot open session store {self.path}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SqliteSnapshots:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _check_name(name: str) -> str:
        name = name.strip()
        if not name or len(name) > _MAX_NAME:
            raise SessionStoreError(f"snapshot names are 1-{_MAX_NAME} characters", name=name[:_MAX_NAME])
        return name

    def save(self, name: str, snapshot: dict[str, Any]) -> SnapshotInfo:
        """Store (or replace) a snapshot under ``name``."""
        name = self._check_name(name)
        raw = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        blob = zlib.compress(raw, 6)
        entries = len(snapshot.get("entries", []))
        created = time.time()
        try:
            with self._lock, self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO snapshots (name, created_at, entries, raw_bytes, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (name, created, entries, len(raw), blob),
                )
        except sqlite3.Error as exc:
            raise SessionStoreError(f"cannot save snapshot {name!r}: {exc}", name=name) from exc
        return SnapshotInfo(name, created, entries, len(raw), len(blob))

    def load(self, name: str) -> dict[str, Any]:
        """The snapshot stored under ``name``.

        Raises:
            SnapshotNotFound: no such name (``details.known`` lists the names there are).
            SnapshotFormatError: the stored data does not decode.
        """
        name = self._check_name(name)
        try:
            with self._lock:
                row = self._db.execute("SELECT data FROM snapshots WHERE name = ?", (name,)).fetchone()
        except sqlite3.Error as exc:
            raise SessionStoreError(f"cannot read snapshot {name!r}: {exc}", name=name) from exc
        if row is None:
            known = [s.name for s in self.list()]
            raise SnapshotNotFound(f"no snapshot named {name!r}", name=name, known=known or None)
        try:
            data = json.loads(zlib.decompress(row[0]).decode("utf-8"))
        except (zlib.error, UnicodeDecodeError, ValueError) as exc:
            raise SnapshotFormatError(f"snapshot {name!r} is corrupt: {exc}", name=name) from exc
        if not isinstance(data, dict):
            raise SnapshotFormatError(f"snapshot {name!r} is not a JSON object", name=name)
        return data

    def list(self) -> list[SnapshotInfo]:
        """Every snapshot, newest first."""
        try:
            with self._lock:
                rows = self._db.execute(
                    "SELECT name, created_at, entries, raw_bytes, length(data) FROM snapshots "
                    "ORDER BY created_at DESC"
                ).fetchall()
        except sqlite3.Error as exc:
            raise SessionStoreError(f"cannot list snapshots: {exc}") from exc
        return [SnapshotInfo(*row) for row in rows]

    def delete(self, name: str) -> bool:
        """Remove a snapshot; ``False`` if there was none of that name."""
        name = self._check_name(name)
        try:
            with self._lock, self._db:
                cur = self._db.execute("DELETE FROM snapshots WHERE name = ?", (name,))
        except sqlite3.Error as exc:
            raise SessionStoreError(f"cannot delete snapshot {name!r}: {exc}", name=name) from exc
        return cur.rowcount > 0
