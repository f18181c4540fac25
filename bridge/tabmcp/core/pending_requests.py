"""The table of every request the bridge made of the extension and has not yet ended.

Tool calls, approval questions, live page queries and site openings (:class:`RequestKind`), each
with its deadline and the link it went out on; :class:`tabmcp.core.extension_links.ExtensionLinks`
fills it and ends each request exactly once (:mod:`tabmcp.core.request_endings`).
"""

from __future__ import annotations

import enum
import secrets
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidState
from .link_peer import Peer

__all__ = ["CallState", "KindView", "PendingRequest", "RequestKind", "RequestState", "RequestTable"]


class RequestKind(enum.Enum):
    CALL = "call"
    """A page tool runs (``call.start`` → ``call.result``)."""
    APPROVAL = "approval"
    """The person at the tab is asked (``approval.request`` → ``approval.result``)."""
    QUERY = "query"
    """The page is asked something live (``page.query`` → ``page.result``)."""
    OPEN = "open"
    """A reachable site is opened for the agent (``site.open`` → ``site.status``, then its tools)."""


class RequestState(enum.Enum):
    PENDING = "pending"
    """Created, not yet handed out to send."""
    SENT = "sent"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


CallState = RequestState
"""The name this enum had when it only described calls."""

_FINAL = frozenset({RequestState.DONE, RequestState.FAILED, RequestState.CANCELLED})


@dataclass
class PendingRequest:
    """One request the bridge made of the extension, until it ends."""

    request_id: str
    kind: RequestKind
    tab_id: int
    document_id: str | None
    deadline: float
    timeout_s: float
    label: str
    """What the request is about, for messages: the tool's public name, or the query kind."""
    frame_id: int = 0
    page_tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict, repr=False)
    client_id: str | None = None
    state: RequestState = RequestState.PENDING
    outcome: Any = field(default=None, repr=False)
    origin: str = ""
    """OPEN: the origin the page must stay on."""
    loaded: bool = False
    """OPEN: the page finished loading; from then on quiet for ``settle_s`` means settled."""
    settle_s: float = 0.0
    final_deadline: float = 0.0
    """OPEN: the request's own deadline (``deadline`` moves earlier while settling)."""
    tools_seen: frozenset[str] = frozenset()
    """OPEN: the tools the opened page offered when last looked at."""
    peer: Peer | None = field(default=None, repr=False, compare=False)
    """The link (browser) the request was sent on: only its answer ends the request, and only its
    closing ends it ``EXTENSION_DISCONNECTED``."""

    @property
    def call_id(self) -> str:
        return self.request_id

    @property
    def public_name(self) -> str:
        return self.label

    @property
    def finished(self) -> bool:
        return self.state in _FINAL


PendingCall = PendingRequest


class RequestTable:
    """Every request not yet ended, by id, with counters per kind."""

    def __init__(self) -> None:
        self._pending: dict[str, PendingRequest] = {}
        self.completed: dict[RequestKind, int] = dict.fromkeys(RequestKind, 0)
        self.failed: dict[RequestKind, int] = dict.fromkeys(RequestKind, 0)

    def __len__(self) -> int:
        return len(self._pending)

    def __contains__(self, request_id: object) -> bool:
        return request_id in self._pending

    def new(
        self,
        kind: RequestKind,
        *,
        tab_id: int,
        document_id: str | None,
        deadline: float,
        timeout_s: float,
        label: str,
        frame_id: int = 0,
        page_tool: str = "",
        arguments: dict[str, Any] | None = None,
        client_id: str | None = None,
        **extra: Any,
    ) -> PendingRequest:
        request = PendingRequest(
            request_id=secrets.token_hex(8),
            kind=kind,
            tab_id=tab_id,
            document_id=document_id,
            deadline=deadline,
            timeout_s=timeout_s,
            label=label,
            frame_id=frame_id,
            page_tool=page_tool,
            arguments=arguments or {},
            client_id=client_id,
            **extra,
        )
        self._pending[request.request_id] = request
        return request

    def get(self, request_id: str, kind: RequestKind | None = None) -> PendingRequest | None:
        request = self._pending.get(request_id)
        if request is None or (kind is not None and request.kind is not kind):
            return None
        return request

    def mark_sent(self, request_id: str) -> PendingRequest:
        request = self._pending.get(request_id)
        if request is None:
            raise InvalidState(f"no unfinished request {request_id}")
        if request.state is not RequestState.PENDING:
            raise InvalidState(f"request {request_id} is {request.state.value}, not pending")
        request.state = RequestState.SENT
        return request

    def finish(self, request_id: str, state: RequestState, outcome: Any = None) -> PendingRequest | None:
        """Move a request to a final state and forget it; ``None`` if it already ended."""
        if state not in _FINAL:
            raise InvalidState(f"{state.value} is not a final state")
        request = self._pending.pop(request_id, None)
        if request is None:
            return None
        request.state = state
        request.outcome = outcome
        counter = self.completed if state is RequestState.DONE else self.failed
        counter[request.kind] += 1
        return request

    def all(self, kind: RequestKind | None = None) -> list[PendingRequest]:
        return [r for r in self._pending.values() if kind is None or r.kind is kind]

    def on(self, peer: Peer) -> list[PendingRequest]:
        """Unfinished requests sent on ``peer``'s link."""
        return [r for r in self._pending.values() if r.peer is peer]

    def for_tab(self, tab_id: int, *, document_id: str | None = None) -> list[PendingRequest]:
        """Unfinished requests in a tab (only those made of another document, if one is given)."""
        return [
            r
            for r in self._pending.values()
            if r.tab_id == tab_id and (document_id is None or (r.document_id and r.document_id != document_id))
        ]

    def expired(self, now: float) -> list[PendingRequest]:
        return [r for r in self._pending.values() if r.deadline <= now]

    def next_deadline(self) -> float | None:
        return min((r.deadline for r in self._pending.values()), default=None)


class KindView:
    """The calls (or another kind) of a :class:`RequestTable`: ``len``, counters, listing."""

    def __init__(self, table: RequestTable, kind: RequestKind) -> None:
        self._table = table
        self._kind = kind

    def __len__(self) -> int:
        return len(self._table.all(self._kind))

    def __contains__(self, request_id: object) -> bool:
        return isinstance(request_id, str) and self._table.get(request_id, self._kind) is not None

    @property
    def completed(self) -> int:
        return self._table.completed[self._kind]

    @property
    def failed(self) -> int:
        return self._table.failed[self._kind]

    def all(self) -> list[PendingRequest]:
        return self._table.all(self._kind)

    def get(self, request_id: str) -> PendingRequest | None:
        return self._table.get(request_id, self._kind)

