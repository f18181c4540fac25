"""The rules that end pending requests, the same way for every kind (timeout, cancel, tab closed or
navigated, link gone), and how an answer or a failure ends one.

A part of :class:`tabmcp.core.extension_links.ExtensionLinks` (it inherits :class:`RequestEndings`),
kept apart so the links' protocol reads in pieces with one job each.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ToolCallError, tool_error_class
from ..protocol import ApprovalWithdraw, CallCancel, WireModel
from .end_rules import END_RULES, EndRule
from .flood import TabFlood
from .link_events import Event, RequestEnded
from .link_peer import Peer
from .pending_requests import PendingRequest, RequestKind, RequestState, RequestTable

__all__ = ["RequestEndings"]

log = logging.getLogger("tabmcp.session")


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


class RequestEndings:
    """Ends requests in :attr:`requests`: by a rule, by the extension's answer, by a failure."""

    requests: RequestTable
    tab_flood: TabFlood
    clock: Callable[[], float]

    if TYPE_CHECKING:
        def send(self, peer: Peer | None, message: WireModel) -> None: ...
        def _expire_open(self, request: PendingRequest, now: float) -> list[Event]: ...

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
