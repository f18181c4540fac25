"""Pinned tool definitions: the first definition seen per origin + tool is the one trusted.

A page may change a tool after the agent (and the person) got used to it: "Read notes" becomes
"Read notes and share the contact with our partners". The first definition seen (title,
description, input schema, annotations) is pinned in SQLite; a later, different one is marked
``changed`` (with a diff against the pin) and the tool needs the person's approval until they
accept the change (``tabmcp trust accept ORIGIN TOOL``), which pins the new definition. A page
that registers the same definition again (an SPA navigation, a reload) changes nothing; one
that goes back to the pinned definition is trusted again.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, Literal

from ...store import mark_changed
from .store import TrustStore

__all__ = ["PinRecord", "PinState", "Pins", "definition_of"]

Status = Literal["new", "pinned", "changed"]
_TOUCH_EVERY_S = 60.0


def definition_of(
    title: str | None, description: str, input_schema: dict[str, Any], annotations: dict[str, Any]
) -> dict[str, Any]:
    """The parts of a tool definition that are pinned."""
    return {
        "title": title,
        "description": description,
        "inputSchema": input_schema,
        "annotations": annotations,
    }


def _canon(definition: dict[str, Any]) -> str:
    return json.dumps(definition, sort_keys=True, ensure_ascii=False, default=str)


def _hash(definition: dict[str, Any]) -> str:
    return hashlib.sha256(_canon(definition).encode()).hexdigest()


def diff_definitions(old: dict[str, Any], new: dict[str, Any]) -> str:
    """A unified diff of two definitions (pretty JSON, keys sorted)."""
    a = json.dumps(old, sort_keys=True, indent=1, ensure_ascii=False, default=str).splitlines()
    b = json.dumps(new, sort_keys=True, indent=1, ensure_ascii=False, default=str).splitlines()
    return "\n".join(difflib.unified_diff(a, b, "pinned", "now", lineterm="", n=1))


@dataclass(frozen=True)
class PinState:
    """What :meth:`Pins.observe` found."""

    status: Status
    diff: str = ""

    @property
    def changed(self) -> bool:
        return self.status == "changed"


@dataclass(frozen=True)
class PinRecord:
    origin: str
    name: str
    status: str
    pinned: dict[str, Any]
    current: dict[str, Any]
    document_url: str
    first_seen: float
    last_seen: float
    changed_at: float | None

    @property
    def diff(self) -> str:
        return diff_definitions(self.pinned, self.current) if self.status == "changed" else ""


_COLUMNS = "origin, name, status, pinned_def, current_def, document_url, first_seen, last_seen, changed_at"


def _record(row: tuple[Any, ...]) -> PinRecord:
    o, n, st, p, c, url, first, last, changed = row
    return PinRecord(
        str(o),
        str(n),
        str(st),
        json.loads(p),
        json.loads(c),
        str(url),
        float(first),
        float(last),
        None if changed is None else float(changed),
    )


class Pins:
    def __init__(self, store: TrustStore) -> None:
        self.store = store
        self.version = 0
        """Goes up whenever a tool's pin status changes (listing caches key on it)."""
        # (origin, name) -> (hash seen last, status, last written last_seen)
        self._seen: dict[tuple[str, str], tuple[str, str, float]] = {}

    def _row(self, origin: str, name: str) -> tuple[str, str, str, str] | None:
        row: tuple[str, str, str, str] | None = self.store.db.execute(
            "SELECT pinned_hash, pinned_def, current_hash, status FROM tool_pins WHERE origin = ? AND name = ?",
            (origin, name),
        ).fetchone()
        return row

    def observe(self, origin: str, name: str, definition: dict[str, Any], document_url: str = "") -> PinState:
        """Record that ``origin`` offers ``name`` with ``definition`` now; pin it if it is the first."""
        key = (origin, name)
        digest = _hash(definition)
        now = time.time()
        seen = self._seen.get(key)
        if seen is not None and seen[0] == digest and seen[1] == "pinned":
            if now - seen[2] > _TOUCH_EVERY_S:
                with self.store.lock:
                    self.store.db.execute(
                        "UPDATE tool_pins SET last_seen = ?, document_url = ? WHERE origin = ? AND name = ?",
                        (now, document_url, origin, name),
                    )
                self._seen[key] = (digest, "pinned", now)
            return PinState("pinned")
        canon = _canon(definition)
        with self.store.lock:
            row = self._row(origin, name)
            if row is None:
                self.store.db.execute(
                    "INSERT INTO tool_pins (origin, name, pinned_hash, pinned_def, current_hash, current_def, status, "
                    "document_url, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, 'pinned', ?, ?, ?)",
                    (origin, name, digest, canon, digest, canon, document_url, now, now),
                )
                state = PinState("new")
                status = "pinned"
            else:
                pinned_hash, pinned_def, current_hash, old_status = row
                if digest == pinned_hash:
                    self.store.db.execute(
                        "UPDATE tool_pins SET current_hash = pinned_hash, current_def = pinned_def, status = 'pinned', "
                        "last_seen = ?, document_url = ? WHERE origin = ? AND name = ?",
                        (now, document_url, origin, name),
                    )
                    state, status = PinState("pinned"), "pinned"
                else:
                    changed_at = "changed_at" if current_hash == digest and old_status == "changed" else "?"
                    params: tuple[Any, ...] = (digest, canon, now, document_url)
                    if changed_at == "?":
                        params += (now,)
                    self.store.db.execute(
                        "UPDATE tool_pins SET current_hash = ?, current_def = ?, status = 'changed', last_seen = ?, "
                        f"document_url = ?, changed_at = {changed_at} WHERE origin = ? AND name = ?",
                        (*params, origin, name),
                    )
                    state = PinState("changed", diff_definitions(json.loads(pinned_def), definition))
                    status = "changed"
                if status != old_status:
                    self.version += 1
        self._seen[key] = (digest, status, now)
        return state

    def state(self, origin: str, name: str) -> PinState:
        """The stored pin state of a tool, read only (for a closed site's tool: nothing is observed)."""
        record = self.get(origin, name)
        if record is None:
            return PinState("new")
        return PinState("changed", record.diff) if record.status == "changed" else PinState("pinned")

    def forget_cached(self, origin: str) -> None:
        """Drop what this object remembers of ``origin`` (its rows were deleted)."""
        for key in [k for k in self._seen if k[0] == origin]:
            del self._seen[key]
        self.version += 1

    def accept(self, origin: str, name: str) -> bool:
        """Pin the tool's current definition (the person accepted the change); False if nothing was changed."""
        with self.store.lock:
            cur = self.store.db.execute(
                "UPDATE tool_pins SET pinned_hash = current_hash, pinned_def = current_def, status = 'pinned', "
                "changed_at = NULL WHERE origin = ? AND name = ? AND status = 'changed'",
                (origin, name),
            )
            if cur.rowcount:
                mark_changed(self.store.db, "trust")  # a running bridge follows (server/shared_state.py)
        self._seen.pop((origin, name), None)
        if cur.rowcount:
            self.version += 1
        return bool(cur.rowcount)

    def reload(self) -> None:
        """Another process changed the pins (accepted a definition, forgot a site): forget what
        this object remembers of them and move :attr:`version` (listings are built again)."""
        self._seen.clear()
        self.version += 1

    def get(self, origin: str, name: str) -> PinRecord | None:
        with self.store.lock:
            row = self.store.db.execute(
                f"SELECT {_COLUMNS} FROM tool_pins WHERE origin = ? AND name = ?", (origin, name)
            ).fetchone()
        return _record(row) if row else None

    def records(self, *, changed_only: bool = False, origin: str | None = None) -> list[PinRecord]:
        sql = f"SELECT {_COLUMNS} FROM tool_pins"
        where, args = [], []
        if changed_only:
            where.append("status = 'changed'")
        if origin is not None:
            where.append("origin = ?")
            args.append(origin)
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self.store.lock:
            rows = self.store.db.execute(sql + " ORDER BY origin, name", args).fetchall()
        return [_record(r) for r in rows]
