"""The bridge's side of the extension links, as a protocol object that does no I/O.

After ``websockets``' protocol objects: frames go in (:meth:`Session.receive`), what to send
comes out (:meth:`Session.data_to_send`: messages and closes, each naming its connection), and
what happened comes back as events for the caller to act on. The server layer
(:mod:`tabmcp.server.hub`) only moves bytes, pairs requests with futures and runs one timer
for :meth:`Session.next_deadline`. Everything here runs in unit tests with no socket::

    session = Session(session_id="s1", bridge_version="0.1")
    link = Peer("test")
    session.receive(link, '{"type": "hello", "protocol": 1}')   # [HandshakeDone(link)]
    session.data_to_send()                                       # [Send(link, Welcome(...))]
    call = session.start_call(tab_id=7, document_id="d", page_tool="t", public_name="t",
                              arguments={}, timeout_s=30)        # queues call.start
    session.receive(link, '{"type": "call.result", "callId": "...", "ok": true}')
    # [RequestEnded(call, result={"content": []})]

One table holds every pending request the bridge made of the extension: tool calls,
approval questions and live page queries. Each has a deadline and ends exactly once, by the
extension's answer or by one of the rules below, applied the same way to every kind:

* ``TIMEOUT``: its deadline passed (:meth:`Session.expire`); a call is cancelled in the page,
  an approval question withdrawn;
* ``CANCELLED``: the asker gave up (:meth:`Session.cancel`); the same messages go out;
* ``TAB_CLOSED`` / ``TAB_NAVIGATED``: its tab closed, or its document was replaced
  (:meth:`Session.tab_closed`, :meth:`Session.tab_navigated`);
* ``EXTENSION_DISCONNECTED``: the connection it was sent on closed or was replaced by a newer one.

Several browsers at once (:mod:`tabmcp.core.browsers`): :attr:`Session.links` holds one admitted
link per browser. Tab ids from a browser are qualified by its slot as they come in; a request is
sent on the link of the browser that owns its tab (with that browser's own id), only that link's
answer ends it, and only that link's closing ends it ``EXTENSION_DISCONNECTED``.

A fourth kind, ``OPEN``, opens a reachable site for the agent (``site.open``): it knows its tab
once the extension reports it ``opened``, and ends when the page registers the wanted tool
(:meth:`Session.site_tools`), when the page went to another origin (``SITE_REDIRECTED``), when the
page loaded and then stayed quiet for ``settle_s`` without it (``SITE_TOOL_GONE``; for
``open_page``, which wants no tool, that is success), or at its deadline (``SITE_NOT_REGISTERED``);
the tab closing and the link dropping end it like any other request.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import logging
import secrets
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import (
    BadResult,
    ExtensionDisconnected,
    InvalidState,
    NotPaired,
    NotReady,
    PageError,
    PairingError,
    PairingLocked,
    ProtocolError,
    ProtocolVersionMismatch,
    SiteNotRegistered,
    SiteRedirected,
    SiteToolGone,
    ToolCallError,
    error_for_code,
    page_error,
    tool_error_class,
)
from ..protocol import (
    MAX_SYNC_PARTS,
    PROTOCOL_VERSION,
    ApprovalRequest,
    ApprovalResult,
    ApprovalWithdraw,
    CallCancel,
    CallResult,
    CallStart,
    ErrorCode,
    Hello,
    PageQuery,
    PageResult,
    PairCode,
    PairDone,
    PairRequest,
    PairRequired,
    Ping,
    Pong,
    SiteOpen,
    SiteStatus,
    TabsSync,
    Telemetry,
    Welcome,
    WireError,
    WireModel,
    parse_extension_message,
)
from .browsers import BrowserSlots, browser_key, browser_name, inbound, slot_of, wire_tab_id
from .end_rules import END_RULES, EndRule
from .flood import TabFlood
from .pairing import Pairing, Pairings, TokenOnly, Verdict, format_code
from .trust.text import Shown

__all__ = [
    "CallState",
    "Close",
    "Disconnected",
    "Event",
    "HandshakeDone",
    "LinkState",
    "MessageReceived",
    "Peer",
    "PendingRequest",
    "RequestEnded",
    "RequestKind",
    "RequestState",
    "RequestTable",
    "Send",
    "Session",
]

log = logging.getLogger("tabmcp.session")


class LinkState(enum.Enum):
    """Where one extension connection is in its life."""

    CONNECTED = "connected"
    """Socket open, no ``hello`` yet: every other message is refused with ``NOT_READY``."""
    PAIRING = "pairing"
    """Said ``hello`` without a valid pairing: never the current link; it may only ask for a
    pairing code (``pair.request``), ping, or say ``hello`` again; anything else is ``NOT_PAIRED``."""
    READY = "ready"
    """Handshake done: this is (or was) the bridge's current link."""
    CLOSED = "closed"
    """Closed or being closed; receiving on it is a misuse (:class:`InvalidState`)."""


class Peer:
    """One connection from an extension, as the session sees it (no socket here).

    The server layer subclasses it to add the socket, so the session hands back the very
    object that can send.
    """

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.state = LinkState.CONNECTED
        self.hello: Hello | None = None
        self.pairing_id: str | None = None
        """The pairing that admitted this link (None: the pre-shared token, or not admitted)."""
        self.connected_at = time.time()
        self.last_seen = time.monotonic()
        self.sync_parts: list[TabsSync] = []
        """The parts of a sync received so far (each said ``more``), until its last part."""
        self.key: Hashable = None
        """Which browser this link is (:func:`tabmcp.core.browsers.browser_key`), once admitted."""
        self.slot = 0
        """The browser's slot: its tab ids are qualified with it (:mod:`tabmcp.core.browsers`)."""
        self.browser = ""
        """``chromium`` / ``firefox`` (``""``: the hello did not say)."""
        self.profile = ""
        """A short, stable name of the browser profile (the start of its ``profileId``)."""

    @property
    def batched(self) -> bool:
        """The peer said in ``hello`` that it reads and writes frames of several messages, one a line."""
        return self.hello is not None and self.hello.batch

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name or id(self)} {self.state.value}>"


# -- the table of pending requests ---------------------------------------------------------


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


# -- what comes out ------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    """Send ``message`` on ``peer``."""

    peer: Peer
    message: WireModel


@dataclass(frozen=True)
class Close:
    """Close ``peer``'s socket with this WebSocket close code (after what was queued before)."""

    peer: Peer
    code: int
    reason: str


@dataclass(frozen=True)
class HandshakeDone:
    """``peer`` completed the handshake and is now its browser's link (``replaced``: the browser's
    previous link, now closed)."""

    peer: Peer
    replaced: Peer | None = None


@dataclass(frozen=True)
class Disconnected:
    """A browser's link went away; the requests sent on it have already ended (events before this)."""

    peer: Peer


@dataclass(frozen=True)
class MessageReceived:
    """A message for the rest of the bridge: ``tabs.sync``, ``tab.update``, ``tab.closed``,
    ``telemetry`` (and the extension's own ``error`` reports, for the log)."""

    peer: Peer
    message: WireModel


@dataclass(frozen=True)
class RequestEnded:
    """A pending request ended: with ``result`` (its kind's answer) or with ``error``.

    Results: a call's CallToolResult dict; an approval's ``(approved, reason)``; a page
    query's answer (any JSON value).
    """

    request: PendingRequest
    result: Any = None
    error: ToolCallError | None = None
    trace: list[tuple[str, float]] | None = None
    """A traced call's stamps as the extension sent them back (debug mode only)."""


Event = HandshakeDone | Disconnected | MessageReceived | RequestEnded


_Rule = EndRule
"""The rules that end requests: one table with the worker's (core/end_rules.py)."""

_ERRORS: dict[_Rule, type[ToolCallError]] = {
    rule: tool_error_class(spec.code) for rule, spec in END_RULES.items() if "bridge" in spec.sides
}

_MESSAGES: dict[tuple[_Rule, RequestKind], str] = {
    (_Rule.TIMEOUT, RequestKind.CALL): "{label} did not answer within {timeout:g}s",
    (_Rule.TIMEOUT, RequestKind.APPROVAL): "nobody answered within {timeout:g}s",
    (_Rule.TIMEOUT, RequestKind.QUERY): "tab {tab} did not answer within {timeout:g}s",
    (_Rule.CANCELLED, RequestKind.CALL): "the MCP client cancelled the call",
    (_Rule.CANCELLED, RequestKind.APPROVAL): "the call was cancelled before anyone answered",
    (_Rule.CANCELLED, RequestKind.QUERY): "the query was cancelled",
    (_Rule.TAB_CLOSED, RequestKind.CALL): "tab {tab} closed during the call",
    (_Rule.TAB_CLOSED, RequestKind.APPROVAL): "tab {tab} closed before anyone answered",
    (_Rule.TAB_CLOSED, RequestKind.QUERY): "tab {tab} closed",
    (_Rule.TAB_NAVIGATED, RequestKind.CALL): "tab {tab} navigated away during the call",
    (_Rule.TAB_NAVIGATED, RequestKind.APPROVAL): "tab {tab} navigated away before anyone answered",
    (_Rule.TAB_NAVIGATED, RequestKind.QUERY): "tab {tab} navigated away before it answered",
    (_Rule.DISCONNECTED, RequestKind.CALL): "the browser extension disconnected during the call",
    (_Rule.DISCONNECTED, RequestKind.APPROVAL): "the browser extension disconnected",
    (_Rule.DISCONNECTED, RequestKind.QUERY): "the browser extension disconnected",
    (_Rule.REPLACED, RequestKind.CALL): "the extension reconnected while the call was running",
    (_Rule.REPLACED, RequestKind.APPROVAL): "the extension reconnected before anyone answered",
    (_Rule.REPLACED, RequestKind.QUERY): "the extension reconnected before the page answered",
    (_Rule.TIMEOUT, RequestKind.OPEN): "{label} was not registered within {timeout:g}s",
    (_Rule.CANCELLED, RequestKind.OPEN): "the MCP client cancelled before {label} was registered",
    (_Rule.TAB_CLOSED, RequestKind.OPEN): "tab {tab}, opened for {label}, was closed",
    (_Rule.TAB_NAVIGATED, RequestKind.OPEN): "tab {tab}, opened for {label}, navigated away",
    (_Rule.DISCONNECTED, RequestKind.OPEN): "the browser extension disconnected while opening the site",
    (_Rule.REPLACED, RequestKind.OPEN): "the extension reconnected while opening the site",
}

_NOT_CONNECTED: dict[RequestKind, str] = {
    RequestKind.CALL: "the browser extension is not connected to the bridge",
    RequestKind.APPROVAL: "the browser extension is not connected, so nobody can be asked",
    RequestKind.QUERY: "the browser extension is not connected",
    RequestKind.OPEN: "the browser extension is not connected, so no site can be opened",
}


# -- the session ---------------------------------------------------------------------------


class Session:
    """The extension link's protocol: handshake, pending requests and the rules that end them.

    Args:
        session_id: sent in ``welcome`` (tells the extension which bridge run it talks to).
        bridge_version: sent in ``welcome``.
        token: without ``pairing``: when set, a ``hello`` must carry it or the link is closed
            (``UNAUTHORIZED``); unset, every ``hello`` is admitted (tests of other rules).
        pairing: who may be the extension (the bridge always passes one): a ``hello`` it does
            not admit leaves its connection in the pairing ceremony (:attr:`LinkState.PAIRING`).
        clock: monotonic seconds; deadlines are on this clock (tests pass their own).
    """

    def __init__(
        self,
        *,
        session_id: str,
        bridge_version: str,
        token: str | None = None,
        pairing: Pairings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session_id = session_id
        self.bridge_version = bridge_version
        self.token = token
        self.pairing = pairing
        self._admission = pairing if pairing is not None else TokenOnly(token)
        self.clock = clock
        self.links: dict[Hashable, Peer] = {}
        """The admitted link of each browser connected now, oldest first (:mod:`tabmcp.core.browsers`)."""
        self.slots = BrowserSlots()
        self.requests = RequestTable()
        self.calls = KindView(self.requests, RequestKind.CALL)
        self.protocol_errors = 0
        self.frames_received = 0
        self.messages_received = 0
        """Frames and the messages in them (more than frames once the link batches)."""
        self.tab_flood = TabFlood(clock=clock)
        """The per-tab flood rule (core/flood.py): one tab's telemetry past its rate is shed, alone."""
        self._out: list[Send | Close] = []

    # -- state ---------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Some browser's extension completed its handshake and its link is open."""
        return any(p.state is LinkState.READY for p in self.links.values())

    @property
    def current(self) -> Peer | None:
        """The browser link admitted last (``None``: no browser is linked): where a request that
        names no tab goes (opening a site)."""
        return next(reversed(self.links.values()), None)

    def link_for_tab(self, tab_id: int) -> Peer | None:
        """The link of the browser that owns tab ``tab_id`` (a qualified id), if it is linked."""
        slot = slot_of(tab_id)
        return next((p for p in self.links.values() if p.slot == slot and p.state is LinkState.READY), None)

    def data_to_send(self) -> list[Send | Close]:
        """What to send and close, in order, since the last call (the caller must do it)."""
        out, self._out = self._out, []
        return out

    def next_deadline(self) -> float | None:
        """When :meth:`expire` next has something to end (on :attr:`clock`), if ever."""
        return self.requests.next_deadline()

    def send(self, peer: Peer | None, message: WireModel) -> None:
        """Queue a message for ``peer`` (``None``: every browser's link); dropped if it is closed."""
        for target in (peer,) if peer is not None else tuple(self.links.values()):
            if target.state is not LinkState.CLOSED:
                self._out.append(Send(target, message))

    def report(self, peer: Peer, code: str, message: str, ref: str | None = None) -> None:
        """Tell the extension about a problem with what it sent (a named ``error`` message)."""
        self.send(peer, WireError(type="error", code=code, message=message, ref=ref))

    def internal_error(self, peer: Peer, exc: BaseException) -> None:
        """A frame could not be handled because of a bridge bug: say so, keep the link."""
        self.protocol_errors += 1
        self.report(peer, ErrorCode.INTERNAL_ERROR,
                    f"the bridge could not handle this frame: {type(exc).__name__}")

    # -- frames in -----------------------------------------------------------------------

    def receive(self, peer: Peer, frame: str | bytes) -> list[Event]:
        """Handle one frame from ``peer``. Bad input is answered (queued), never raised.

        A peer that said ``batch`` in its ``hello`` may join several messages in a frame, one a
        line: each line is handled as a frame of its own, in order (a bad one is answered and
        the rest still count).

        Raises:
            InvalidState: ``peer`` is closed.
        """
        if peer.state is LinkState.CLOSED:
            raise InvalidState(f"{peer!r} is closed")
        peer.last_seen = time.monotonic()
        self.frames_received += 1
        if peer.batched:
            newline = "\n" if isinstance(frame, str) else b"\n"
            if newline in frame:  # type: ignore[operator]  # str in str, or bytes in bytes
                events: list[Event] = []
                for line in frame.split(newline):  # type: ignore[arg-type]
                    if peer.state is LinkState.CLOSED:  # type: ignore[comparison-overlap]  # closed by a line
                        break
                    if line:
                        events += self._receive(peer, line)
                return events
        return self._receive(peer, frame)

    def _receive(self, peer: Peer, frame: str | bytes) -> list[Event]:
        self.messages_received += 1
        try:
            message = parse_extension_message(frame)
            if peer.state is LinkState.PAIRING and not isinstance(message, Hello | PairRequest | Ping | Pong):
                raise NotPaired(f"{message.type}: this connection is not paired; ask for a code (pair.request) "
                                "and have the person confirm it with `tabmcp pair CODE`", ref=message.type)
            if peer.state is LinkState.CONNECTED and not isinstance(message, Hello):
                raise NotReady(f"{message.type} before hello", ref=message.type)
            if peer.slot:  # another browser than the first: its tab ids, qualified
                message = inbound(message, peer.slot)
            if isinstance(message, Telemetry) and not self._admit_telemetry(message.tab_id):
                return []
            return self._dispatch(peer, message)
        except ProtocolError as exc:
            self.protocol_errors += 1
            log.warning("extension %s: %s: %s", peer.name, exc.code, exc.message)
            events = self._end_unusable_result(peer, frame, exc)
            self.report(peer, exc.code, exc.message, exc.ref)
            if isinstance(exc, ProtocolVersionMismatch):
                self._close(peer, 1002, "protocol version mismatch")
            return events

    def _dispatch(self, peer: Peer, message: Any) -> list[Event]:
        if isinstance(message, Hello):
            return self._on_hello(peer, message)
        if isinstance(message, PairRequest):
            return self._on_pair_request(peer)
        if isinstance(message, CallResult):
            return self._on_call_result(peer, message)
        if isinstance(message, ApprovalResult):
            return self._answer(peer, message.approval_id, RequestKind.APPROVAL, (message.approved, message.reason))
        if isinstance(message, PageResult):
            return self._on_page_result(peer, message)
        if isinstance(message, SiteStatus):
            return self._on_site_status(peer, message)
        if isinstance(message, Ping):
            self.send(peer, Pong(type="pong", ts=message.ts))
            return []
        if isinstance(message, Pong):
            return []
        if isinstance(message, TabsSync):
            return self._on_sync(peer, message)
        if isinstance(message, WireError):
            log.warning("extension reported %s: %s (ref %s)", message.code, message.message, message.ref)
        return [MessageReceived(peer, message)]

    def _admit_telemetry(self, tab_id: int) -> bool:
        """One tab's telemetry past its rate is shed (dropped, counted), alone: the link and the
        other tabs go on. The tab is named in the log when it starts flooding."""
        admitted = self.tab_flood.admit(tab_id)
        if admitted is None:
            log.warning("tab %d sent telemetry past %g batches a second: its batches are shed (%s) until it "
                        "slows down; the link and every other tab are not affected", tab_id,
                        self.tab_flood.rate, ErrorCode.TAB_FLOODED)
        return bool(admitted)

    def _on_sync(self, peer: Peer, message: TabsSync) -> list[Event]:
        """A sync, or a part of one: the full state goes on once its last part has arrived."""
        if message.more:
            if len(peer.sync_parts) >= MAX_SYNC_PARTS - 1:
                peer.sync_parts = []
                self.report(peer, ErrorCode.TOO_LARGE,
                            f"a sync in more than {MAX_SYNC_PARTS} parts: dropped (the next sync replaces it)",
                            ref="tabs.sync")
                return []
            peer.sync_parts.append(message)
            return []
        if peer.sync_parts:
            tabs = [tab for part in peer.sync_parts for tab in part.tabs]
            peer.sync_parts = []
            message = TabsSync(type="tabs.sync", tabs=[*tabs, *message.tabs])
        return [MessageReceived(peer, message)]

    def _on_hello(self, peer: Peer, hello: Hello) -> list[Event]:
        if hello.protocol != PROTOCOL_VERSION:
            raise ProtocolVersionMismatch(
                f"extension speaks protocol {hello.protocol}, this bridge speaks {PROTOCOL_VERSION}: "
                "update the extension or the bridge so they match",
                ref="hello",
            )
        admission = self._admission.admit(hello)
        if admission.verdict is Verdict.WRONG_TOKEN:
            log.warning("extension %s: refused, wrong or missing token", peer.name)
            self.report(peer, ErrorCode.UNAUTHORIZED, "wrong or missing extension token")
            self._close(peer, 1008, "unauthorized")
            return []
        if not admission.admitted:
            return self._unpaired(peer, hello, admission.verdict)
        # a second hello on a link is the same browser (its tabs keep their ids)
        key = peer.key if self.links.get(peer.key) is peer else browser_key(hello, admission.pairing_id)
        old = self.links.pop(key, None)
        peer.hello = hello
        peer.pairing_id = admission.pairing_id
        peer.key = key
        peer.slot = self.slots.slot(key)
        peer.browser = browser_name(hello) or ""
        peer.profile = (hello.profile_id or "")[:8] if peer.browser else ""  # which profile of that browser
        self.slots.name(peer.slot, peer.browser, peer.profile)
        peer.state = LinkState.READY
        self.links[key] = peer  # last: the browser linked most recently
        events: list[Event] = []
        replaced = None
        if old is not None and old is not peer:
            log.info("extension reconnected; closing the previous connection of that browser")
            events += self._end_link(old, _Rule.REPLACED)
            self._close(old, 4000, "replaced by a newer connection")
            replaced = old
        self.send(peer, Welcome(bridge_version=self.bridge_version, session_id=self.session_id,
                                batch=hello.batch))
        log.info("extension %s connected (version %s, instance %s, %s browser slot %d)", hello.extension_id,
                 hello.extension_version, hello.instance_id, peer.browser or "a", peer.slot)
        events.append(HandshakeDone(peer, replaced))
        return events

    def _unpaired(self, peer: Peer, hello: Hello, verdict: Verdict) -> list[Event]:
        """A ``hello`` without a valid pairing: the ceremony only. Never a browser's link, so it
        displaces nothing; if it was one (a later hello dropped its pairing) that link ends."""
        log.warning("extension %s: not paired (%s); only the pairing ceremony is open to it", peer.name, verdict.value)
        events: list[Event] = []
        if self.links.get(peer.key) is peer:
            del self.links[peer.key]
            events += self._end_link(peer, _Rule.DISCONNECTED)
            events.append(Disconnected(peer))
        peer.hello = hello
        peer.pairing_id = None
        peer.state = LinkState.PAIRING
        reason = "unknown" if verdict is Verdict.UNKNOWN else "unpaired"
        self.send(peer, PairRequired(reason=reason, message=(
            "this bridge does not know that pairing: pair again" if reason == "unknown"
            else "pair this browser with the bridge: ask for a code, then run `tabmcp pair CODE`")))
        return events

    def _on_pair_request(self, peer: Peer) -> list[Event]:
        if peer.state is not LinkState.PAIRING or self.pairing is None:
            return []  # already admitted (or no pairing on this bridge): nothing to pair
        try:
            pending = self.pairing.codes.issue(peer, label=_label(peer.hello))
        except PairingError as exc:
            self.report(peer, exc.code, exc.message, "pair.request")
            return []
        self.send(peer, PairCode(code=format_code(pending.code), expires_ms=int(self.pairing.codes.ttl_s * 1000)))
        return []

    def confirm_pairing(self, typed: str) -> Pairing:
        """The person typed a code (``tabmcp pair CODE``): pair the connection that asked for it
        and send it its secret (``pair.done``); it says ``hello`` again with it.

        Raises:
            InvalidState: this session has no pairing.
            PairingCodeWrong, PairingLocked: see :meth:`PairingCodes.redeem`.
        """
        if self.pairing is None:
            raise InvalidState("this bridge does not pair")
        try:
            owner, pairing, secret = self.pairing.confirm(typed)
        except PairingLocked as exc:
            for voided in getattr(exc, "voided", []):
                if isinstance(voided, Peer):
                    self.send(voided, PairRequired(reason="expired", message="too many wrong codes: ask for a new one"))
            raise
        if isinstance(owner, Peer) and owner.state is LinkState.PAIRING:
            self.send(owner, PairDone(pairing_id=pairing.id, secret=secret))
        log.info("paired extension %s (%s)", pairing.id, pairing.label)
        return pairing

    def forget_pairing(self, pairing_id: str) -> tuple[bool, list[Event]]:
        """Remove a pairing; the link it admitted (if any) is closed. Whether it existed, and events."""
        if self.pairing is None:
            return False, []
        existed = self.pairing.forget(pairing_id)
        events: list[Event] = []
        for key, peer in list(self.links.items()):
            if peer.pairing_id == pairing_id:
                del self.links[key]
                events += self._end_link(peer, _Rule.DISCONNECTED)
                events.append(Disconnected(peer))
                self._close(peer, 4001, "pairing forgotten")
        return existed, events

    def _on_call_result(self, peer: Peer, message: CallResult) -> list[Event]:
        events = self._on_call_outcome(peer, message)
        if message.trace is not None and events and isinstance(events[0], RequestEnded):
            events[0] = dataclasses.replace(events[0], trace=message.trace)
        return events

    def _on_call_outcome(self, peer: Peer, message: CallResult) -> list[Event]:
        if message.ok:
            return self._answer(peer, message.call_id, RequestKind.CALL, message.result or {"content": []})
        err = message.error
        if err is None:
            failure: ToolCallError = page_error(None, "the page reported a failure")
        else:
            failure = error_for_code(err.code, err.message, from_page=err.from_page, details=err.details)
        if isinstance(failure, PageError):
            request = self.requests.get(message.call_id, RequestKind.CALL)
            failure.tab_id = request.tab_id if request else None
        return self._fail(message.call_id, RequestKind.CALL, failure, peer=peer)

    def _on_page_result(self, peer: Peer, message: PageResult) -> list[Event]:
        if message.ok:
            return self._answer(peer, message.request_id, RequestKind.QUERY, message.result)
        request = self.requests.get(message.request_id, RequestKind.QUERY)
        err = message.error
        tab_id = request.tab_id if request else None
        if err is None:
            failure: ToolCallError = page_error(None, "the page did not answer")
        else:
            failure = error_for_code(err.code, err.message, from_page=err.from_page, details=err.details)
        if tab_id is not None:
            failure.details["tab_id"] = tab_id
        if isinstance(failure, PageError):
            failure.tab_id = tab_id
        return self._fail(message.request_id, RequestKind.QUERY, failure, peer=peer)

    def _on_site_status(self, peer: Peer, message: SiteStatus) -> list[Event]:
        request = self.requests.get(message.request_id, RequestKind.OPEN)
        if request is None or not self._from_its_link(request, peer):
            return []
        if message.tab_id is not None:
            request.tab_id = message.tab_id
        if message.state == "redirected":
            return self._fail(request.request_id, RequestKind.OPEN, SiteRedirected(
                f"the page opened for {request.label} went to {message.url or 'another origin'}, not {request.origin}: "
                "its tab was closed and nothing was called", url=message.url or None, origin=request.origin))
        if message.state == "failed":
            return self._fail(request.request_id, RequestKind.OPEN, SiteNotRegistered(
                f"could not open {request.label}: {message.message or 'the browser refused'}"))
        if message.state == "loaded" and not request.loaded:
            request.loaded = True
            request.deadline = min(request.final_deadline, self.clock() + request.settle_s)
        return []

    def _end_unusable_result(self, peer: Peer, frame: str | bytes, exc: ProtocolError) -> list[Event]:
        """A malformed ``call.result`` that still names a waiting call ends that call now."""
        if exc.ref != "call.result":
            return []
        try:
            data = json.loads(frame)
        except (ValueError, RecursionError):
            return []
        call_id = data.get("callId") if isinstance(data, dict) else None
        if not isinstance(call_id, str):
            return []
        return self._fail(call_id, RequestKind.CALL,
                          BadResult(f"the extension sent an unusable result: {exc.message}"), peer=peer)

    # -- the link closes -----------------------------------------------------------------

    def closed(self, peer: Peer) -> list[Event]:
        """``peer``'s socket closed. If it was a browser's link, the requests sent on it end now
        (another browser's go on)."""
        was_link = self.links.get(peer.key) is peer
        peer.state = LinkState.CLOSED
        if self.pairing is not None:
            self.pairing.codes.withdraw(peer)
        if not was_link:
            return []
        del self.links[peer.key]
        events = self._end_link(peer, _Rule.DISCONNECTED)
        events.append(Disconnected(peer))
        return events

    def _close(self, peer: Peer, code: int, reason: str) -> None:
        if peer.state is LinkState.CLOSED:
            return
        self._out.append(Close(peer, code, reason))
        peer.state = LinkState.CLOSED

    # -- requests out --------------------------------------------------------------------

    def _new(self, kind: RequestKind, timeout_s: float, peer: Peer | None, **fields: Any) -> PendingRequest:
        if peer is None or peer.state is not LinkState.READY:
            raise ExtensionDisconnected(_NOT_CONNECTED[kind])
        return self.requests.new(kind, deadline=self.clock() + timeout_s, timeout_s=timeout_s, peer=peer, **fields)

    def _sent(self, request: PendingRequest, message: WireModel) -> PendingRequest:
        self.send(request.peer, message)
        self.requests.mark_sent(request.request_id)
        return request

    def start_call(
        self,
        *,
        tab_id: int,
        document_id: str | None,
        page_tool: str,
        public_name: str,
        arguments: dict[str, Any],
        timeout_s: float,
        frame_id: int = 0,
        client_id: str | None = None,
        source: Literal["form"] | None = None,
        trace: list[tuple[str, float]] | None = None,
    ) -> PendingRequest:
        """Run ``page_tool`` in a tab: queues ``call.start``; ends with a :class:`RequestEnded`.
        ``source="form"``: a page form, run by the extension's forms script.
        ``trace`` (debug mode): stamps so far, sent along for each hop to add its own.

        Raises:
            ExtensionDisconnected: no extension is connected.
        """
        call = self._new(RequestKind.CALL, timeout_s, self.link_for_tab(tab_id), tab_id=tab_id,
                         document_id=document_id, label=public_name, frame_id=frame_id, page_tool=page_tool,
                         arguments=arguments, client_id=client_id)
        return self._sent(call, CallStart(
            call_id=call.request_id, tab_id=wire_tab_id(tab_id), document_id=document_id, frame_id=frame_id or None,
            tool=page_tool, arguments=arguments, timeout_ms=int(timeout_s * 1000), source=source, trace=trace,
        ))

    def start_approval(
        self,
        *,
        tab_id: int,
        document_id: str | None,
        origin: str = "",
        frame_id: int = 0,
        tool_name: str = "",
        tool: str,
        title: Shown,
        description: Shown,
        arguments: dict[str, Any],
        reason: Shown,
        timeout_s: float,
        may_give_up: bool = False,
    ) -> PendingRequest:
        """Ask the person at a tab whether ``tool`` may run: queues ``approval.request``. The
        tool's ``title`` and ``description`` are the page's words, and the ``reason`` may quote
        them (a changed definition's diff): only through the gate
        (:func:`~tabmcp.core.trust.gate.definition_text`, :func:`~tabmcp.core.trust.gate.for_person`)
        may they reach the person's window.

        Raises:
            ExtensionDisconnected: no extension is connected, so nobody can be asked.
        """
        approval = self._new(RequestKind.APPROVAL, timeout_s, self.link_for_tab(tab_id), tab_id=tab_id,
                             document_id=document_id, label=tool)
        return self._sent(approval, ApprovalRequest(  # in the browser whose tab asked
            approval_id=approval.request_id, tab_id=wire_tab_id(tab_id), tool=tool, title=title, description=description,
            arguments=arguments, reason=reason, timeout_ms=int(timeout_s * 1000), origin=origin,
            frame_id=frame_id, tool_name=tool_name or tool, may_give_up=may_give_up,
        ))

    def start_query(
        self, *, tab_id: int, document_id: str | None, kind: str, args: dict[str, Any], timeout_s: float
    ) -> PendingRequest:
        """Ask a tab's page something live (``dom``, ``page``, ``axe``, ``vitals``): queues ``page.query``.

        Raises:
            ExtensionDisconnected: no extension is connected.
        """
        query = self._new(RequestKind.QUERY, timeout_s, self.link_for_tab(tab_id), tab_id=tab_id,
                          document_id=document_id, label=kind)
        return self._sent(query, PageQuery(
            request_id=query.request_id, tab_id=wire_tab_id(tab_id), kind=kind,
            args=args, timeout_ms=int(timeout_s * 1000),
        ))

    def start_open(
        self,
        *,
        url: str,
        origin: str,
        tool: str,
        timeout_s: float,
        settle_s: float,
        max_agent_tabs: int = 5,
        idle_close_s: float = 300.0,
        group_title: str = "tabmcp agent",
        focus: bool = False,
    ) -> PendingRequest:
        """Open a reachable site's ``url`` in a background tab and wait for ``tool`` (``""``: for
        registration to settle): queues ``site.open``; ends with the tab's id.

        Raises:
            ExtensionDisconnected: no extension is connected.
        """
        request = self._new(RequestKind.OPEN, timeout_s, self.current, tab_id=-1, document_id=None, label=tool or url,
                            page_tool=tool, origin=origin, settle_s=settle_s)
        request.final_deadline = request.deadline
        return self._sent(request, SiteOpen(
            request_id=request.request_id, url=url, origin=origin, timeout_ms=int(timeout_s * 1000),
            max_agent_tabs=max_agent_tabs, idle_close_ms=int(idle_close_s * 1000), group_title=group_title,
            focus=focus,
        ))

    def opening(self) -> list[PendingRequest]:
        """The sites being opened whose tab is known (the caller reports their tools)."""
        return [r for r in self.requests.all(RequestKind.OPEN) if r.tab_id >= 0]

    def site_tools(self, request: PendingRequest, origin: str, tools: frozenset[str]) -> list[Event]:
        """What the page opened for ``request`` offers now (its ``origin`` and tool names).

        The wanted tool is there: the request ends with the tab's id. The page is on another
        origin: ``SITE_REDIRECTED``. Otherwise, once loaded, a change of its tools restarts the
        quiet period that means registration settled.
        """
        if request.finished or request.request_id not in self.requests:
            return []
        if origin and origin != request.origin:
            return self._fail(request.request_id, RequestKind.OPEN, SiteRedirected(
                f"the page opened for {request.label} is on {origin}, not {request.origin}: nothing was called",
                origin=request.origin, tab_id=request.tab_id))
        if request.page_tool and request.page_tool in tools and origin == request.origin:
            return self._answer(None, request.request_id, RequestKind.OPEN, request.tab_id)
        if tools != request.tools_seen:
            request.tools_seen = tools
            if request.loaded:
                request.deadline = min(request.final_deadline, self.clock() + request.settle_s)
        return []

    def _expire_open(self, request: PendingRequest, now: float) -> list[Event]:
        settled = request.loaded and now < request.final_deadline
        if not request.page_tool and request.loaded:  # open_page: whatever registered by now
            return self._answer(None, request.request_id, RequestKind.OPEN, request.tab_id)
        if settled:
            return self._fail(request.request_id, RequestKind.OPEN, SiteToolGone(
                f"the page of {request.origin} loaded and no longer offers {request.label}",
                tool=request.label, origin=request.origin, tab_id=request.tab_id))
        return self._fail(request.request_id, RequestKind.OPEN, SiteNotRegistered(
            f"{request.label} was not registered within {request.timeout_s:g}s of opening {request.origin}",
            tool=request.label, origin=request.origin, timeout_s=request.timeout_s,
            tab_id=request.tab_id if request.tab_id >= 0 else None))

    # -- the rules that end requests -------------------------------------------------------

    def cancel(self, request_id: str) -> list[Event]:
        """The asker gave up: the call is cancelled in the page, the question withdrawn."""
        request = self.requests.get(request_id)
        if request is None:
            return []
        return self._end(request, _Rule.CANCELLED, RequestState.CANCELLED)

    def expire(self, now: float | None = None) -> list[Event]:
        """End every request whose deadline has passed (``TIMEOUT``)."""
        now = self.clock() if now is None else now
        events: list[Event] = []
        for request in self.requests.expired(now):
            if request.kind is RequestKind.OPEN:
                events += self._expire_open(request, now)
            else:
                events += self._end(request, _Rule.TIMEOUT)
        return events

    def tab_closed(self, tab_id: int) -> list[Event]:
        """A tab closed: its requests end with ``TAB_CLOSED``."""
        self.tab_flood.forget(tab_id)
        events: list[Event] = []
        for request in self.requests.for_tab(tab_id):
            events += self._end(request, _Rule.TAB_CLOSED)
        return events

    def tab_navigated(self, tab_id: int, document_id: str | None) -> list[Event]:
        """A tab's document is now ``document_id``: requests made of an older one end."""
        events: list[Event] = []
        for request in self.requests.for_tab(tab_id, document_id=document_id):
            events += self._end(request, _Rule.TAB_NAVIGATED)
        return events

    def _end_link(self, peer: Peer, rule: _Rule) -> list[Event]:
        """End the requests sent on ``peer``'s link (another browser's are not its)."""
        events: list[Event] = []
        for request in self.requests.on(peer):
            events += self._end(request, rule)
        return events

    def _end(self, request: PendingRequest, rule: _Rule, state: RequestState = RequestState.FAILED) -> list[Event]:
        text = _MESSAGES[rule, request.kind].format(label=request.label, timeout=request.timeout_s,
                                                    tab=request.tab_id)
        details: dict[str, Any] = {}
        if rule is _Rule.TIMEOUT and request.kind is RequestKind.CALL:
            details["timeout_s"] = request.timeout_s
        if rule in (_Rule.TAB_CLOSED, _Rule.TAB_NAVIGATED) or request.kind is RequestKind.QUERY:
            details["tab_id"] = request.tab_id
        if rule in (_Rule.TIMEOUT, _Rule.CANCELLED) and request.state is RequestState.SENT:
            if request.kind is RequestKind.CALL:
                self._send_on(request, CallCancel(call_id=request.request_id,
                                                  reason="timeout" if rule is _Rule.TIMEOUT else text))
            elif request.kind is RequestKind.APPROVAL:
                self._send_on(request, ApprovalWithdraw(approval_id=request.request_id, reason=text))
        return self._fail(request.request_id, request.kind, _ERRORS[rule](text, **details), state)

    def _send_on(self, request: PendingRequest, message: WireModel) -> None:
        if request.peer is not None:
            self.send(request.peer, message)

    def _from_its_link(self, request: PendingRequest, peer: Peer | None) -> bool:
        """An answer counts only from the link the request went out on: another browser cannot
        answer (approve, resolve) what was asked of this one."""
        if peer is None or request.peer is peer:
            return True
        log.warning("extension %s answered %s %s, which was sent to %s: ignored", peer.name, request.kind.value,
                    request.request_id, request.peer.name if request.peer else "?")
        return False

    def _answer(self, peer: Peer | None, request_id: str, kind: RequestKind, result: Any) -> list[Event]:
        waiting = self.requests.get(request_id, kind)
        if waiting is None or not self._from_its_link(waiting, peer):
            log.info("answer for unknown or finished %s %s ignored", kind.value, request_id)
            return []
        request = self.requests.finish(request_id, RequestState.DONE, result)
        assert request is not None
        return [RequestEnded(request, result=result)]

    def _fail(
        self, request_id: str, kind: RequestKind, error: ToolCallError, state: RequestState = RequestState.FAILED,
        *, peer: Peer | None = None,
    ) -> list[Event]:
        """End a request with ``error``; ``peer``: the link that reported it (must be the request's)."""
        waiting = self.requests.get(request_id, kind)
        if waiting is None or not self._from_its_link(waiting, peer):
            return []
        request = self.requests.finish(request_id, state, error)
        assert request is not None
        return [RequestEnded(request, error=error)]


def _label(hello: Hello | None) -> str:
    """How ``tabmcp pair --list`` names a pairing: the browser's user agent, shortened."""
    if hello is None:
        return "extension"
    if hello.brand:  # Chromium's own word for itself (its user agent says "Chrome" whatever the build)
        return hello.brand[:60]
    browser = hello.browser or ""
    for name in ("Firefox", "Edg", "OPR", "Chrome", "Chromium"):
        if name in browser:
            version = browser.split(name + "/", 1)[-1].split(" ", 1)[0].split(".", 1)[0]
            return f"{'Edge' if name == 'Edg' else name} {version}".strip()[:60]
    return (browser or hello.extension_id or "extension")[:60]
