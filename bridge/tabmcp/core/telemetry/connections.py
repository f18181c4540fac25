"""WebSocket connection status: one row per socket, updated by every WebSocket event, so a
connection's state and counts stay right after its early frames were evicted (sampled counts are
scaled and flagged as estimates).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ..trust.text import Captured
from .models import WebSocketEvent

__all__ = ["ConnectionState", "ConnectionTable"]

State = Literal["open", "closed", "error"]


@dataclass(slots=True)
class ConnectionState:
    tab_id: int
    connection_id: Captured
    url: Captured
    load_id: str | None
    state: State = "open"
    opened_at: float | None = None
    closed_at: float | None = None
    code: int | None = None
    reason: Captured | None = None
    messages_in: int = 0
    messages_out: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    last_message_at: float | None = None
    sampled_every: int | None = None
    first_seq: int = 0
    last_seq: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = {_camel(k): v for k, v in asdict(self).items() if v is not None}
        out["estimated"] = self.sampled_every is not None
        return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


class ConnectionTable:
    """Every tab's WebSocket connections, bounded per tab (closed ones are forgotten first)."""

    def __init__(self, per_tab_limit: int) -> None:
        self.per_tab_limit = per_tab_limit
        self._tabs: dict[int, OrderedDict[str, ConnectionState]] = {}
        self._count = 0
        self.forgotten = 0

    @property
    def count(self) -> int:
        return self._count

    def count_for(self, tab_id: int) -> int:
        return len(self._tabs.get(tab_id, ()))

    def update(self, tab_id: int, load_id: str | None, event: WebSocketEvent, seq: int) -> None:
        table = self._tabs.setdefault(tab_id, OrderedDict())
        conn = table.get(event.connection_id)
        if conn is None:
            conn = ConnectionState(tab_id, event.connection_id, event.url, load_id, first_seq=seq)
            table[event.connection_id] = conn
            self._count += 1
            self._bound(table)
        conn.last_seq = seq
        if event.event == "open":
            conn.state, conn.opened_at = "open", event.ts
        elif event.event == "close":
            conn.state, conn.closed_at, conn.code, conn.reason = "closed", event.ts, event.code, event.reason
        elif event.event == "error":
            conn.state = "error"
        else:
            weight = event.sampled.every if event.sampled else 1
            if event.sampled:
                conn.sampled_every = event.sampled.every
            size = event.size if event.size is not None else len(event.data or "")
            if event.direction == "out":
                conn.messages_out += weight
                conn.bytes_out += size * weight
            else:
                conn.messages_in += weight
                conn.bytes_in += size * weight
            conn.last_message_at = event.ts

    def _bound(self, table: OrderedDict[str, ConnectionState]) -> None:
        while len(table) > self.per_tab_limit:
            victim = next((k for k, c in table.items() if c.state != "open"), next(iter(table)))
            del table[victim]
            self._count -= 1
            self.forgotten += 1

    def connections(self, tab_id: int | None = None) -> list[ConnectionState]:
        tabs = [self._tabs.get(tab_id, OrderedDict())] if tab_id is not None else list(self._tabs.values())
        return sorted((c for t in tabs for c in t.values()), key=lambda c: c.first_seq)

    def clear(self, tab_id: int | None = None) -> None:
        if tab_id is None:
            self._tabs.clear()
            self._count = 0
            return
        table = self._tabs.pop(tab_id, None)
        if table:
            self._count -= len(table)

    def resize(self, per_tab_limit: int) -> None:
        self.per_tab_limit = per_tab_limit
        for table in self._tabs.values():
            self._bound(table)

    def export(self) -> list[dict[str, Any]]:
        return [asdict(c) for c in self.connections()]

    def restore(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            conn = ConnectionState(**row)
            table = self._tabs.setdefault(conn.tab_id, OrderedDict())
            if conn.connection_id not in table:
                self._count += 1
            table[conn.connection_id] = conn
            self._bound(table)
