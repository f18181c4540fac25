"""Pending tool calls: ids, states, deadlines, and who fails them when a tab goes away.

Plain bookkeeping without asyncio. The extension layer pairs each call id with a future;
this table decides what state a call is in and which calls a closed tab, a navigation, a
disconnect or a deadline ends.
"""

from __future__ import annotations

import enum
import secrets
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidState

__all__ = ["CallState", "CallTable", "PendingCall"]


class CallState(enum.Enum):
    PENDING = "pending"
    """Created, not yet sent to the extension."""
    SENT = "sent"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


_FINAL = frozenset({CallState.DONE, CallState.FAILED, CallState.CANCELLED})


@dataclass
class PendingCall:
    call_id: str
    tab_id: int
    document_id: str | None
    page_tool: str
    public_name: str
    arguments: dict[str, Any]
    deadline: float
    client_id: str | None = None
    frame_id: int = 0
    state: CallState = CallState.PENDING
    outcome: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        return self.state in _FINAL


class CallTable:
    """Every call not yet finished, by id."""

    def __init__(self) -> None:
        self._calls: dict[str, PendingCall] = {}
        self.completed = 0
        self.failed = 0

    def __len__(self) -> int:
        return len(self._calls)

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._calls

    def new(
        self,
        *,
        tab_id: int,
        document_id: str | None,
        page_tool: str,
        public_name: str,
        arguments: dict[str, Any],
        deadline: float,
        client_id: str | None = None,
        frame_id: int = 0,
    ) -> PendingCall:
        call = PendingCall(
            call_id=secrets.token_hex(8),
            tab_id=tab_id,
            document_id=document_id,
            page_tool=page_tool,
            public_name=public_name,
            arguments=arguments,
            deadline=deadline,
            client_id=client_id,
            frame_id=frame_id,
        )
        self._calls[call.call_id] = call
        return call

    def get(self, call_id: str) -> PendingCall | None:
        return self._calls.get(call_id)

    def mark_sent(self, call_id: str) -> PendingCall:
        call = self._require(call_id)
        if call.state is not CallState.PENDING:
            raise InvalidState(f"call {call_id} is {call.state.value}, not pending")
        call.state = CallState.SENT
        return call

    def finish(self, call_id: str, state: CallState, outcome: dict[str, Any] | None = None) -> PendingCall | None:
        """Move a call to a final state and forget it; ``None`` if it already finished."""
        if state not in _FINAL:
            raise InvalidState(f"{state.value} is not a final state")
        call = self._calls.pop(call_id, None)
        if call is None:
            return None
        call.state = state
        call.outcome = outcome
        if state is CallState.DONE:
            self.completed += 1
        else:
            self.failed += 1
        return call

    def for_tab(self, tab_id: int, *, document_id: str | None = None) -> list[PendingCall]:
        """Unfinished calls in a tab (only those sent to another document, if one is given)."""
        return [
            c
            for c in self._calls.values()
            if c.tab_id == tab_id and (document_id is None or (c.document_id and c.document_id != document_id))
        ]

    def all(self) -> list[PendingCall]:
        return list(self._calls.values())

    def expired(self, now: float) -> list[PendingCall]:
        return [c for c in self._calls.values() if c.deadline <= now]

    def _require(self, call_id: str) -> PendingCall:
        call = self._calls.get(call_id)
        if call is None:
            raise InvalidState(f"no unfinished call {call_id}")
        return call
