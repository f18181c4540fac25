"""The bridge's side of the extension links, as a protocol object that does no I/O.

After ``websockets``' protocol objects: frames go in (:meth:`ExtensionLinks.receive`), what to send
comes out (:meth:`ExtensionLinks.data_to_send`: messages and closes, each naming its connection), and
what happened comes back as events for the caller to act on. The server layer
(:mod:`tabmcp.server.hub`) only moves bytes, pairs requests with futures and runs one timer
for :meth:`ExtensionLinks.next_deadline`. Everything here runs in unit tests with no socket::

    session = ExtensionLinks(session_id="s1", bridge_version="0.1")
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

* ``TIMEOUT``: its deadline passed (:meth:`ExtensionLinks.expire`); a call is cancelled in the page,
  an approval question withdrawn;
* ``CANCELLED``: the asker gave up (:meth:`ExtensionLinks.cancel`); the same messages go out;
* ``TAB_CLOSED`` / ``TAB_NAVIGATED``: its tab closed, or its document was replaced
  (:meth:`ExtensionLinks.tab_closed`, :meth:`ExtensionLinks.tab_navigated`);
* ``EXTENSION_DISCONNECTED``: the connection it was sent on closed or was replaced by a newer one.

Several browsers at once (:mod:`tabmcp.core.browsers`): :attr:`ExtensionLinks.links` holds one admitted
link per browser. Tab ids from a browser are qualified by its slot as they come in; a request is
sent on the link of the browser that owns its tab (with that browser's own id), only that link's
answer ends it, and only that link's closing ends it ``EXTENSION_DISCONNECTED``.

A fourth kind, ``OPEN``, opens a reachable site for the agent (``site.open``): it knows its tab
once the extension reports it ``opened``, and ends when the page registers the wanted tool
(:meth:`ExtensionLinks.site_tools`), when the page went to another origin (``SITE_REDIRECTED``), when the
page loaded and then stayed quiet for ``settle_s`` without it (``SITE_TOOL_GONE``; for
``open_page``, which wants no tool, that is success), or at its deadline (``SITE_NOT_REGISTERED``);
the tab closing and the link dropping end it like any other request.

The parts, each a module with one job: the records (:mod:`.link_peer`, :mod:`.pending_requests`,
:mod:`.link_events`), the handshake and pairing ceremony (:mod:`.link_handshake`) and the rules that
end requests (:mod:`.request_endings`), the last two inherited by :class:`ExtensionLinks`; the names
they define are importable from here too.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Callable, Hashable
from typing import Any, Literal

from ..errors import (
    BadResult,
    ExtensionDisconnected,
    InvalidState,
    MalformedMessage,
    NotPaired,
    NotReady,
    PageError,
    ProtocolError,
    ProtocolVersionMismatch,
    SiteNotRegistered,
    SiteRedirected,
    SiteToolGone,
    ToolCallError,
    error_for_code,
    page_error,
)
from ..protocol import (
    ApprovalRequest,
    ApprovalResult,
    CallResult,
    CallStart,
    Chunk,
    ErrorCode,
    Hello,
    PageQuery,
    PageResult,
    PairRequest,
    Ping,
    Pong,
    SiteOpen,
    SiteStatus,
    TabClosedMessage,
    TabsSync,
    TabUpdate,
    Telemetry,
    WireError,
    WireModel,
    parse_extension_message,
)
from .browsers import BrowserSlots, inbound, slot_of, wire_tab_id
from .chunks import CHUNKED_TYPES, LANE_TYPES
from .end_rules import EndRule
from .flood import TabFlood
from .link_chunks import LinkChunks, read_apart
from .link_events import Close, Disconnected, Event, HandshakeDone, MessageReceived, ReadApart, RequestEnded, Send
from .link_handshake import LinkHandshake
from .link_peer import LinkState, Peer
from .pairing import Pairings, TokenOnly
from .pending_requests import CallState, KindView, PendingRequest, RequestKind, RequestState, RequestTable
from .request_endings import RequestEndings
from .tab_revisions import TabRevisions
from .trust.text import Shown

__all__ = [
    "CallState",
    "Close",
    "Disconnected",
    "Event",
    "ExtensionLinks",
    "HandshakeDone",
    "KindView",
    "LinkState",
    "MessageReceived",
    "Peer",
    "PendingRequest",
    "ReadApart",
    "RequestEnded",
    "RequestKind",
    "RequestState",
    "RequestTable",
    "Send",
    "read_apart",
]

log = logging.getLogger("tabmcp.session")

_Rule = EndRule
"""The rules that end requests: one table with the worker's (core/end_rules.py)."""

_NOT_CONNECTED: dict[RequestKind, str] = {
    RequestKind.CALL: "the browser extension is not connected to the bridge",
    RequestKind.APPROVAL: "the browser extension is not connected, so nobody can be asked",
    RequestKind.QUERY: "the browser extension is not connected",
    RequestKind.OPEN: "the browser extension is not connected, so no site can be opened",
}


# -- the session ---------------------------------------------------------------------------


class ExtensionLinks(LinkHandshake, LinkChunks, RequestEndings):
    """The extension link's protocol: handshake, pending requests and the rules that end them.

    Args:
        session_id: sent in ``welcome`` (tells the extension which bridge run it talks to).
        bridge_version: sent in ``welcome``.
        token: without ``pairing``: when set, a ``hello`` must carry it or the link is closed
            (``UNAUTHORIZED``); unset, every ``hello`` is admitted (tests of other rules).
        pairing: who may be the extension (the bridge always passes one): a ``hello`` it does
            not admit leaves its connection in the pairing ceremony (:attr:`LinkState.PAIRING`).
        clock: monotonic seconds; deadlines are on this clock (tests pass their own).
        read_apart: a message put together from chunks is handed out to be parsed off the loop
            (``ReadApart``, then :meth:`take_apart`), as the bridge does; False: parsed at once.
    """

    def __init__(
        self,
        *,
        session_id: str,
        bridge_version: str,
        token: str | None = None,
        pairing: Pairings | None = None,
        clock: Callable[[], float] = time.monotonic,
        read_apart: bool = False,
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
        self.read_apart = read_apart
        self.revisions = TabRevisions()
        """The revision of each tab the bridge holds, per browser: what a reconnect's sync may keep
        (core/tab_revisions.py)."""
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

    def _receive(self, peer: Peer, frame: str | bytes, *, chunked: bool = False) -> list[Event]:
        self.messages_received += 1
        try:
            message = parse_extension_message(frame)
        except ProtocolError as exc:
            return self._refused(peer, frame, exc)
        if peer.apart and message.type in LANE_TYPES:  # behind the lane's message read off the loop
            peer.apart += 1
            return [ReadApart(peer, message=message)]
        return self._take(peer, frame, message, chunked=chunked)

    def _take(self, peer: Peer, frame: str | bytes, message: Any, *, chunked: bool = False) -> list[Event]:
        try:
            if chunked and message.type not in CHUNKED_TYPES:
                raise MalformedMessage(f"chunk: a {message.type} may not be sent in chunks", ref="chunk")
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
            return self._refused(peer, frame, exc)

    def _refused(self, peer: Peer, frame: str | bytes, exc: ProtocolError) -> list[Event]:
        """``frame`` is answered with its named error (and the link closed on a version mismatch)."""
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
        if isinstance(message, Chunk):
            return self._on_chunk(peer, message)
        if isinstance(message, TabUpdate):
            self.revisions.updated(peer.key, message.tab)
        elif isinstance(message, TabClosedMessage):
            self.revisions.closed(peer.key, message.tab_id)
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

