"""The SQLite enhancement cache: the second visit to a site costs no LLM call.

Entries are keyed by (namespace, source, hash of the raw tools): a page that changes its
tools gets a fresh enhancement, and switching model or prompt (the namespace) never
serves another model's answer. Each entry expires after a TTL (default 7 days).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

from pydantic import TypeAdapter, ValidationError

from tabmcp_mediator.errors import CacheError
from tabmcp_mediator.models import EnhancedTool, RawTool
from tabmcp_mediator.naming import normalize_source

T = TypeVar("T")

DEFAULT_TTL = timedelta(days=7)
CACHE_FILE_NAME = "enhancements.sqlite3"

_TOOLS: TypeAdapter[list[EnhancedTool]] = TypeAdapter(list[EnhancedTool])
_SCHEMA = """
CREATE TABLE IF NOT EXISTS enhancements (
    namespace  TEXT NOT NULL,
    source     TEXT NOT NULL,
    tools_hash TEXT NOT NULL,
    created_at REAL NOT NULL,
    payload    TEXT NOT NULL,
    PRIMARY KEY (namespace, source, tools_hash)
)
"""


@dataclass(frozen=True)
class CacheKey:
    """Identifies one enhancement: who made it, for which site, from which raw tools."""

    namespace: str
    source: str
    tools_hash: str


def hash_tools(tools: Sequence[RawTool]) -> str:
    """A stable hash of what a transformer sees: names, descriptions and schemas.

    Order-independent (pages register in any order) and blind to ``metadata``, which
    carries per-visit details such as a tab id.
    """
    canonical = sorted(
        (tool.model_dump(mode="json", include={"name", "description", "input_schema"}) for tool in tools),
        key=lambda item: item["name"],
    )
    encoded = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(encoded.encode()).hexdigest()


class EnhancementCache:
    """A file-backed cache of enhanced tool lists with a time-to-live.

    Each operation opens its own connection in a worker thread, so the event loop never
    blocks on disk and concurrent processes (a bridge and the CLI) can share one file.
    """

    def __init__(
        self,
        path: str | Path,
        ttl: timedelta | float = DEFAULT_TTL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """Open (and create if needed) the cache.

        Args:
            path: The SQLite file, or a directory to put ``enhancements.sqlite3`` in.
            ttl: How long an entry is served (a ``timedelta`` or seconds).
            clock: Seconds since the epoch; injectable so expiry is testable.

        Raises:
            CacheError: The file or its directory cannot be created.
        """
        path = Path(path)
        self.path = path / CACHE_FILE_NAME if path.is_dir() or not path.suffix else path
        self.ttl = ttl.total_seconds() if isinstance(ttl, timedelta) else float(ttl)
        self._clock = clock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._run(lambda db: db.execute(_SCHEMA))
        except (OSError, sqlite3.Error) as exc:
            raise CacheError(f"cannot open cache {self.path}: {exc}") from exc

    @staticmethod
    def key(namespace: str, source: str, tools: Sequence[RawTool]) -> CacheKey:
        """Build the key for ``tools`` of ``source`` as enhanced by ``namespace``."""
        return CacheKey(namespace, normalize_source(source), hash_tools(tools))

    async def get(self, key: CacheKey) -> list[EnhancedTool] | None:
        """The stored tools, or ``None`` if absent or older than the TTL.

        Raises:
            CacheError: The database cannot be read, or the entry is corrupt.
        """
        row = await self._call(
            lambda db: db.execute(
                "SELECT created_at, payload FROM enhancements"
                " WHERE namespace=? AND source=? AND tools_hash=?",
                (key.namespace, key.source, key.tools_hash),
            ).fetchone()
        )
        if row is None or self._clock() - row[0] >= self.ttl:
            return None
        try:
            return _TOOLS.validate_json(row[1])
        except ValidationError as exc:
            raise CacheError(f"corrupt cache entry for {key.source}: {exc}") from exc

    async def set(self, key: CacheKey, tools: Sequence[EnhancedTool]) -> None:
        """Store ``tools`` under ``key`` (replacing any older entry) and drop expired ones.

        Raises:
            CacheError: The database cannot be written.
        """
        payload = _TOOLS.dump_json(list(tools)).decode()
        now = self._clock()

        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT OR REPLACE INTO enhancements VALUES (?, ?, ?, ?, ?)",
                (key.namespace, key.source, key.tools_hash, now, payload),
            )
            db.execute("DELETE FROM enhancements WHERE created_at <= ?", (now - self.ttl,))

        await self._call(write)

    async def clear(self) -> None:
        """Forget everything (e.g. after curating prompts)."""
        await self._call(lambda db: db.execute("DELETE FROM enhancements"))

    async def _call(self, operation: Callable[[sqlite3.Connection], T]) -> T:
        try:
            return await asyncio.to_thread(self._run, operation)
        except sqlite3.Error as exc:
            raise CacheError(f"cache {self.path}: {exc}") from exc

    def _run(self, operation: Callable[[sqlite3.Connection], T]) -> T:
        with closing(sqlite3.connect(self.path, timeout=5.0)) as db, db:
            return operation(db)
