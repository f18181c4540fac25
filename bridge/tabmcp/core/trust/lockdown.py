"""Lockdown: after a result that gave the agent orders, writes need the person's approval.

It covers every origin, since injected text can point anywhere, until ``tabmcp trust clear``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from ..stores import FlagTable

__all__ = ["Flag", "Lockdown"]


@dataclass(frozen=True)
class Flag:
    id: int
    origin: str
    tool: str
    reasons: tuple[str, ...]
    flagged_at: float


class Lockdown:
    def __init__(self, store: FlagTable) -> None:
        self.store = store

    def flag(self, origin: str, tool: str, reasons: list[str]) -> Flag:
        now = time.time()
        with self.store.lock:
            flag_id = self.store.add_flag(origin, tool, json.dumps(reasons), now)
        return Flag(flag_id, origin, tool, tuple(reasons), now)

    def active(self) -> list[Flag]:
        """Flags not cleared yet, oldest first (read from the database: another process may clear them)."""
        with self.store.lock:
            rows = self.store.open_flags()
        return [Flag(i, o, t, tuple(json.loads(r)), at) for i, o, t, r, at in rows]

    @property
    def locked(self) -> bool:
        with self.store.lock:
            return self.store.any_open_flag()

    def clear(self) -> int:
        """Clear every flag; how many were cleared."""
        with self.store.lock:
            return self.store.clear_flags(time.time())

    def reason(self) -> str | None:
        """Why writes need approval now (None when there is no lockdown)."""
        flags = self.active()
        if not flags:
            return None
        last = flags[-1]
        more = f" (and {len(flags) - 1} more)" if len(flags) > 1 else ""
        return (
            f"Lockdown: a result of {last.tool} on {last.origin} looked like instructions to the agent"
            f"{more} ({last.reasons[0] if last.reasons else 'flagged'}). Writes need approval until you clear it "
            "(tabmcp trust clear)."
        )
