"""What tool search keeps in SQLite: tool vectors by content hash, so a restart or a tab reload
embeds nothing (:class:`EmbeddingStore`), and requests that ended in a call (:class:`UseStore`).

Keyed by model and text, so vectors of another model or text never mix; bounded to ``max_stored``
vectors, since a page chooses how many definitions it registers (docs/security.md §7).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..core.search.semantic import EmbeddingCache
from ..core.search.usage import MAX_USES
from .database import open_db
from .files import private_db

__all__ = ["EmbeddingStore", "UseStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS search_embeddings (
    hash TEXT PRIMARY KEY,
    dim INTEGER NOT NULL,
    vec BLOB NOT NULL
);
"""

Vector = npt.NDArray[np.float32]


class EmbeddingStore(EmbeddingCache):
    """Vectors by content hash in a SQLite file (``:memory:`` keeps them for this process).

    ``writes`` counts vectors written since this store opened (tests and benchmarks read it).
    """

    def __init__(
        self, path: str | os.PathLike[str], max_entries: int = 20_000, max_stored: int = 20_000
    ) -> None:
        super().__init__(max_entries)
        self.max_stored = max_stored
        target = str(path)
        private_db(target)  # the person's alone (storage/files.py)
        self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None, timeout=10)
        if target != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._db_lock = threading.Lock()
        self.writes = 0
        self._rows = self.stored()

    def get(self, key: str) -> Vector | None:
        vec = super().get(key)
        if vec is not None:
            return vec
        with self._db_lock:
            row = self._db.execute("SELECT dim, vec FROM search_embeddings WHERE hash = ?", (key,)).fetchone()
        if row is None:
            return None
        vec = np.frombuffer(row[1], dtype=np.float32).reshape(row[0]).copy()
        super().put(key, vec)
        return vec

    def put(self, key: str, vec: Vector) -> None:
        self.put_many([(key, vec)])

    def put_many(self, items: Sequence[tuple[str, Vector]]) -> None:
        if not items:
            return
        for key, vec in items:
            super().put(key, vec)
        rows = [(k, int(v.shape[0]), np.ascontiguousarray(v, dtype=np.float32).tobytes()) for k, v in items]
        with self._db_lock:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT OR REPLACE INTO search_embeddings (hash, dim, vec) VALUES (?, ?, ?)", rows
            )
            self._rows += len(rows)  # an upper bound: a replaced row counts again
            if self._rows > self.max_stored:  # a replaced row got a new rowid: oldest writes first
                self._db.execute(
                    "DELETE FROM search_embeddings WHERE rowid IN (SELECT rowid FROM search_embeddings "
                    "ORDER BY rowid DESC LIMIT -1 OFFSET ?)", (self.max_stored,)
                )
                self._rows = int(self._db.execute("SELECT COUNT(*) FROM search_embeddings").fetchone()[0])
            self._db.execute("COMMIT")
            self.writes += len(rows)

    def stored(self) -> int:
        """Vectors in the file."""
        with self._db_lock:
            return int(self._db.execute("SELECT COUNT(*) FROM search_embeddings").fetchone()[0])

    def close(self) -> None:
        with self._db_lock:
            self._db.close()


_USES_SCHEMA = """
CREATE TABLE IF NOT EXISTS search_uses (
    model TEXT NOT NULL,
    query TEXT NOT NULL,  -- a hash of the request: its words are not kept, only its vector
    tool TEXT NOT NULL,
    uses INTEGER NOT NULL,
    at REAL NOT NULL,
    vec BLOB NOT NULL,
    PRIMARY KEY (model, query, tool)
);
"""


class UseStore:
    """The (request, tool) pairs of one model in a SQLite file (``:memory:``: this process)."""

    def __init__(self, path: str | os.PathLike[str], max_rows: int = MAX_USES) -> None:
        self._db = open_db(path, _USES_SCHEMA)
        self._lock = threading.Lock()
        self.max_rows = max_rows
        self._rows = self.count()

    def load(self, model: str, limit: int = MAX_USES) -> list[tuple[str, str, Vector]]:
        """The most recent pairs of ``model``, oldest first: (query hash, tool, vector)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT query, tool, vec FROM search_uses WHERE model = ? ORDER BY at DESC LIMIT ?",
                (model, limit),
            ).fetchall()
        return [(q, t, np.frombuffer(v, dtype=np.float32).copy()) for q, t, v in reversed(rows)]

    def add(self, model: str, query: str, tool: str, vec: Vector) -> None:
        """Keep a pair (``query``: the request's hash, see :func:`request_key`)."""
        blob = np.ascontiguousarray(vec, dtype=np.float32).tobytes()
        with self._lock:
            self._db.execute(
                "INSERT INTO search_uses (model, query, tool, uses, at, vec) VALUES (?, ?, ?, 1, ?, ?) "
                "ON CONFLICT (model, query, tool) DO UPDATE SET uses = uses + 1, at = excluded.at",
                (model, query, tool, time.time(), blob),
            )
            self._rows += 1  # an upper bound: an update counts too
            if self._rows > self.max_rows:  # the oldest pairs go
                self._db.execute(
                    "DELETE FROM search_uses WHERE rowid IN (SELECT rowid FROM search_uses "
                    "ORDER BY at DESC LIMIT -1 OFFSET ?)", (self.max_rows,)
                )
                self._rows = int(self._db.execute("SELECT COUNT(*) FROM search_uses").fetchone()[0])

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM search_uses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
