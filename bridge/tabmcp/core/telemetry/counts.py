"""What the store holds, as plain numbers: the only input tools/list needs.

Kept apart from the store so the availability rules and the tool-definition builder can be
tested (and benchmarked) with made-up counts, no store at all.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DataCounts"]


@dataclass(frozen=True, slots=True)
class DataCounts:
    """Entries currently held, all tabs together (read in O(1) from maintained counters)."""

    errors: int = 0
    logs: int = 0
    network: int = 0
    websocket_events: int = 0
    websocket_connections: int = 0
    actions: int = 0
    vitals: int = 0
    longtasks: int = 0
    navigations: int = 0
    api_endpoints: int = 0

    @property
    def total(self) -> int:
        """Buffered entries of every kind (connections and endpoints are derived, not counted)."""
        return (
            self.errors
            + self.logs
            + self.network
            + self.websocket_events
            + self.actions
            + self.vitals
            + self.longtasks
            + self.navigations
        )
