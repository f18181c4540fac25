"""The hub: one extension connection, the registry it feeds, and the calls routed through it.

The extension endpoint hands every frame to :meth:`Hub.handle_frame`; the MCP layer reads
``hub.registry`` / ``hub.disclosure`` and runs page tools with :meth:`Hub.call_tool`. All
decisions live in ``core``; this module pairs call ids with futures, enforces deadlines and
turns a closed tab, a navigation or a disconnect into named errors for every waiting call.
"""

from __future__ import annotations

import asyncio
import collections
import enum
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

from .. import __version__
from ..config import Config
from ..core.builtins import BUILTIN_NAMES, PROFILE_BUILTINS
from ..core.calls import CallState, CallTable
from ..core.disclosure import ClientView, Disclosure
from ..core.models import BRIDGE_ONLY_FIELDS
from ..core.registry import Registry, RegistryChange, ToolEntry, origin_of
from ..core.scoping import Gate
from ..core.search import SearchIndex
from ..core.search.sync import IndexSync
from ..core.telemetry import (
    TELEMETRY_TOOLS,
    MalformedBatch,
    SessionStore,
    TelemetryStore,
    build_tool_definitions,
)
from ..mediation import ToolMiddleware
from ..store import UsageStore
from ..errors import (
    BadResult,
    ExtensionDisconnected,
    InvalidState,
    NotReady,
    ProtocolError,
    ProtocolVersionMismatch,
    TabClosed,
    TabNavigated,
    ToolCallError,
    ToolTimeout,
    error_for_code,
)
from ..protocol import (
    PROTOCOL_VERSION,
    ApprovalRequest,
    ApprovalResult,
    CallCancel,
    CallResult,
    CallStart,
    ErrorBody,
    Hello,
    PageQuery,
    PageResult,
    Ping,
    Pong,
    TabClosed as TabClosedMsg,
    TabSnapshot,
    TabsSync,
    TabUpdate,
    Telemetry,
    Welcome,
    WireError,
    WireModel,
    dump,
    parse_extension_message,
)

__all__ = ["Hub", "Link", "LinkState"]

log = logging.getLogger("tabmcp.hub")

KEEP_CLOSED_TABS = 10
"""Closed tabs whose telemetry is kept (newest first); older ones are forgotten."""

MEDIATION_QUIET_S = 0.3
"""Eager enhancement waits for a tab's tool list to be quiet this long."""


class LinkState(enum.Enum):
    CONNECTED = "connected"
    """Socket open, no hello yet."""
    READY = "ready"
    CLOSED = "closed"


class _Socket(Protocol):
    async def send_text(self, data: str) -> None: ...
    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Link:
    """One WebSocket connection from an extension, with its handshake state."""

    def __init__(self, socket: _Socket, *, peer: str = "") -> None:
        self._socket = socket
        self._lock = asyncio.Lock()
        self.peer = peer
        self.state = LinkState.CONNECTED
        self.hello: Hello | None = None
        self.connected_at = time.time()
        self.last_seen = time.monotonic()

    async def send(self, message: WireModel) -> None:
        if self.state is LinkState.CLOSED:
            raise InvalidState("link is closed")
        async with self._lock:
            await self._socket.send_text(dump(message))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.state is LinkState.CLOSED:
            return
        self.state = LinkState.CLOSED
        try:
            await self._socket.close(code=code, reason=reason)
        except Exception:  # the socket may already be gone; closing is best effort
            log.debug("closing link %s failed", self.peer, exc_info=True)


def _has_bridge_only_fields(tools: list[Any]) -> bool:
    return any(isinstance(t, dict) and any(f in t for f in BRIDGE_ONLY_FIELDS) for t in tools)


def _without_bridge_only_fields(tools: list[Any]) -> list[Any]:
    """Pages may not set what only the bridge's middleware sets (page names, argument maps, ...)."""
    return [{k: v for k, v in t.items() if k not in BRIDGE_ONLY_FIELDS} if isinstance(t, dict) else t for t in tools]


class Hub:
    """Owns the registry, the pending calls and the current extension link."""

    def __init__(self, config: Config | None = None) -> None:
        self.config = config or Config()
        self.registry = Registry(reserved_names=BUILTIN_NAMES | frozenset(TELEMETRY_TOOLS))
        self.calls = CallTable()
        self.gate = Gate(self.config.policy, self.config.trust)
        self.usage = UsageStore(self.config.store.path)
        core_n = self.config.disclosure.core_from_usage
        self.disclosure = Disclosure(
            self.registry,
            profile=self.config.disclosure.profile,
            gate=self.gate,
            core_tools=self.config.disclosure.core_tools,
            usage_core=(lambda: self.usage.top_set(core_n)) if core_n else None,
        )
        self.search_sync = IndexSync(
            self.registry, semantic=self.config.search.semantic, db_path=self.config.store.path
        )
        self.session_id = secrets.token_hex(8)
        self._futures: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._approvals: dict[str, tuple[int, asyncio.Future[tuple[bool, str]]]] = {}
        self._middleware: ToolMiddleware | None = None
        self._middleware_mode = "eager"
        self._middleware_timeout = 60.0
        self._mediated: dict[str, dict[str, Any] | None] = {}
        self._mediating: dict[int, tuple[str, asyncio.Task[None]]] = {}
        self._withheld: dict[int, tuple[TabSnapshot, str]] = {}
        self._mediation_timers: dict[int, asyncio.TimerHandle] = {}
        self._raw: dict[int, TabSnapshot] = {}
        self.telemetry = TelemetryStore(self.config.telemetry)
        self.telemetry.add_listener(self._telemetry_changed)
        self.sessions = SessionStore(self.config.telemetry.session_db or self.config.store.path or ":memory:")
        self._queries: dict[str, tuple[int, asyncio.Future[PageResult]]] = {}
        self._closed_tabs: collections.deque[int] = collections.deque()
        self._link: Link | None = None
        self._listeners: list[Callable[[], None]] = []
        self._grace: asyncio.TimerHandle | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._link_ready = asyncio.Event()
        self.protocol_errors = 0
        self._telemetry_revision = 0

    # -- tool middleware (the mediator hook) -----------------------------------------------

    def set_tool_middleware(
        self, middleware: ToolMiddleware | None, *, mode: str = "eager", timeout_s: float = 60.0
    ) -> None:
        """Apply ``middleware`` to each tab's tools before disclosure (see :mod:`tabmcp.mediation`).

        ``eager``: a tab's tools are enhanced as soon as the page reports them; ``lazy``: on the
        first request that needs them. Until enhancement finishes (or fails, or takes longer than
        ``timeout_s``) the tab's tools are withheld, so agents never see names that then change.
        """
        self._middleware = middleware
        self._middleware_mode = mode
        self._middleware_timeout = timeout_s
        self._mediated.clear()

    @staticmethod
    def _mediation_key(snap: TabSnapshot) -> str:
        data = json.dumps([origin_of(snap.url), snap.tools, snap.categories], sort_keys=True, default=str)
        return hashlib.sha256(data.encode()).hexdigest()

    def _intake(self, snap: TabSnapshot) -> TabSnapshot:
        """What to put in the registry for an incoming snapshot, now."""
        if _has_bridge_only_fields(snap.tools):
            snap = snap.model_copy(update={"tools": _without_bridge_only_fields(snap.tools)})
        if any(_has_bridge_only_fields(f.tools) for f in snap.frames):
            snap = snap.model_copy(update={"frames": [
                f.model_copy(update={"tools": _without_bridge_only_fields(f.tools)}) for f in snap.frames
            ]})
        self._raw[snap.tab_id] = snap
        if self._middleware is None or not snap.tools:
            return snap
        key = self._mediation_key(snap)
        if key in self._mediated:
            return _merge_enhanced(snap, self._mediated[key])
        self._withheld[snap.tab_id] = (snap, key)
        if self._middleware_mode == "eager":
            # Pages register tools one by one: enhance once the list has been quiet a moment,
            # not once per intermediate snapshot (each could cost an LLM call).
            timer = self._mediation_timers.pop(snap.tab_id, None)
            if timer is not None:
                timer.cancel()
            self._mediation_timers[snap.tab_id] = asyncio.get_running_loop().call_later(
                MEDIATION_QUIET_S, self._start_withheld, snap.tab_id
            )
        return snap.model_copy(update={"tools": [], "categories": []})

    def _start_withheld(self, tab_id: int) -> None:
        self._mediation_timers.pop(tab_id, None)
        pending = self._withheld.pop(tab_id, None)
        if pending is not None and self._raw.get(tab_id) is pending[0]:
            self._start_mediation(*pending)

    def _start_mediation(self, snap: TabSnapshot, key: str) -> None:
        running = self._mediating.get(snap.tab_id)
        if running is not None and running[0] == key:
            return
        # An older run is left to finish (its result is cached under its own key; cancelling it
        # could cancel an LLM call that a newer run shares).
        task = asyncio.get_running_loop().create_task(self._mediate(snap, key))
        self._mediating[snap.tab_id] = (key, task)

    async def _mediate(self, snap: TabSnapshot, key: str) -> None:
        assert self._middleware is not None
        host = urlsplit(snap.url).hostname or origin_of(snap.url) or "unknown"
        context = {"source": host, "sourceType": "web", "origin": origin_of(snap.url), "url": snap.url,
                   "tabId": snap.tab_id, "title": snap.title}
        tools = [t for t in snap.tools if isinstance(t, dict)]
        result: dict[str, Any] | None
        try:
            result = await asyncio.wait_for(self._middleware(tools, context), self._middleware_timeout)
        except TimeoutError:
            log.warning("tool middleware took longer than %.0fs for %s; serving the page's tools",
                        self._middleware_timeout, host)
            result = None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # we are being cancelled (the tab closed)
            log.warning("tool middleware was cancelled for %s; serving the page's tools", host)
            result = None
        except Exception:  # a middleware bug must not lose the page's tools
            log.exception("tool middleware failed for %s; serving the page's tools", host)
            result = None
        self._mediated[key] = result
        current = self._mediating.get(snap.tab_id)
        if current is not None and current[0] == key:
            del self._mediating[snap.tab_id]
        latest = self._raw.get(snap.tab_id)
        if latest is not None and self._mediation_key(latest) == key and self.registry.tab(snap.tab_id):
            self._apply(self.registry.apply(_merge_enhanced(latest, result)))

    @property
    def mediation_scheduled(self) -> bool:
        """Enhancement of some tab is armed (waiting for a quiet tool list) or running."""
        return bool(self._mediation_timers or self._mediating)

    async def settle(self, timeout_s: float | None = None) -> None:
        """Let pending enhancement finish (withheld tabs start now) before answering a request."""
        for tab_id in list(self._withheld):
            timer = self._mediation_timers.pop(tab_id, None)
            if timer is not None:
                timer.cancel()
            self._start_withheld(tab_id)
        tasks = [task for _, task in self._mediating.values()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout_s if timeout_s is not None else self._middleware_timeout)

    @property
    def search(self) -> SearchIndex:
        """The search index, brought up to date with the registry first (see core/search/sync.py)."""
        return self.search_sync.index

    # -- change fan-out ------------------------------------------------------------------

    def add_change_listener(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` after every page-driven change of the registry; returns a remover."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    @property
    def revision(self) -> int:
        """Grows with every page-driven change of what tools/list shows (the registry's version plus
        telemetry availability changes); listings and notifications carry it, so a client can tell
        a notification of the state it saw from an older one."""
        return self.registry.version + self._telemetry_revision

    def _telemetry_changed(self) -> None:
        self._telemetry_revision += 1
        self._changed()

    def _changed(self) -> None:
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:  # a listener's bug must not stop the hub
                log.exception("change listener failed")

    # -- extension side ------------------------------------------------------------------

    @property
    def link(self) -> Link | None:
        return self._link

    @property
    def connected(self) -> bool:
        return self._link is not None and self._link.state is LinkState.READY

    async def wait_connected(self, timeout: float) -> bool:
        """Wait until an extension has completed its handshake (for the CLI and tests)."""
        try:
            await asyncio.wait_for(self._link_ready.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def handle_frame(self, link: Link, frame: str | bytes) -> None:
        """Process one frame from an extension. Never raises for bad input: it answers it."""
        link.last_seen = time.monotonic()
        try:
            message = parse_extension_message(frame)
            if link.state is not LinkState.READY and not isinstance(message, Hello):
                raise NotReady(f"{message.type} before hello", ref=message.type)
            await self._dispatch(link, message)
        except ProtocolError as exc:
            self.protocol_errors += 1
            log.warning("extension %s: %s: %s", link.peer, exc.code, exc.message)
            self._fail_unusable_result(frame, exc)
            await self._send_quietly(link, WireError(type="error", code=exc.code, message=exc.message, ref=exc.ref))
            if isinstance(exc, ProtocolVersionMismatch):
                await link.close(1002, "protocol version mismatch")
        except Exception as exc:  # last line: a frame must never take the link (or the bridge) down
            self.protocol_errors += 1
            log.exception("extension %s: frame could not be handled", link.peer)
            await self._send_quietly(link, WireError(type="error", code="INTERNAL_ERROR",
                                                     message=f"the bridge could not handle this frame: {type(exc).__name__}"))

    async def _dispatch(self, link: Link, message: Any) -> None:
        if isinstance(message, Hello):
            await self._on_hello(link, message)
        elif isinstance(message, TabsSync):
            self._apply(self.registry.sync([self._intake(t) for t in message.tabs]))
            await self._report_rejections(link, self.registry.counts())
        elif isinstance(message, TabUpdate):
            change = self.registry.apply(self._intake(message.tab))
            self._apply(change)
            if change.rejected:
                await self._send_rejections(link, change)
        elif isinstance(message, TabClosedMsg):
            self._apply(self.registry.remove(message.tab_id))
        elif isinstance(message, CallResult):
            self._on_result(message)
        elif isinstance(message, Telemetry):
            try:
                self.telemetry.ingest(message.model_dump(by_alias=True))
            except MalformedBatch as exc:
                await self._send_quietly(link, WireError(type="error", code=exc.code, message=exc.message,
                                                         ref="telemetry"))
        elif isinstance(message, PageResult):
            pending_query = self._queries.get(message.request_id)
            if pending_query is not None and not pending_query[1].done():
                pending_query[1].set_result(message)
        elif isinstance(message, ApprovalResult):
            pending = self._approvals.get(message.approval_id)
            if pending is not None and not pending[1].done():
                pending[1].set_result((message.approved, message.reason))
        elif isinstance(message, Ping):
            await link.send(Pong(type="pong", ts=message.ts))
        elif isinstance(message, Pong):
            pass
        elif isinstance(message, WireError):
            log.warning("extension reported %s: %s (ref %s)", message.code, message.message, message.ref)

    async def _on_hello(self, link: Link, hello: Hello) -> None:
        if hello.protocol != PROTOCOL_VERSION:
            raise ProtocolVersionMismatch(
                f"extension speaks protocol {hello.protocol}, this bridge speaks {PROTOCOL_VERSION}: "
                "update the extension or the bridge so they match",
                ref="hello",
            )
        token = self.config.server.extension_token
        if token and not secrets.compare_digest(hello.token or "", token):
            log.warning("extension %s: refused, wrong or missing token", link.peer)
            await self._send_quietly(
                link, WireError(type="error", code="UNAUTHORIZED", message="wrong or missing extension token")
            )
            await link.close(1008, "unauthorized")
            return
        old = self._link
        link.hello = hello
        link.state = LinkState.READY
        self._link = link
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        if old is not None and old is not link:
            log.info("extension reconnected; closing the previous connection")
            self._fail_all(ExtensionDisconnected("the extension reconnected while the call was running"))
            await old.close(4000, "replaced by a newer connection")
        await link.send(Welcome(bridge_version=__version__, session_id=self.session_id))
        self._link_ready.set()
        log.info(
            "extension %s connected (version %s, instance %s)", hello.extension_id, hello.extension_version,
            hello.instance_id,
        )

    async def link_closed(self, link: Link) -> None:
        """The socket closed. Waiting calls fail now; tabs survive a short grace period."""
        was_current = link is self._link
        link.state = LinkState.CLOSED
        if not was_current:
            return
        self._link = None
        self._link_ready.clear()
        self._fail_all(ExtensionDisconnected("the browser extension disconnected during the call"))
        for _tab, future in self._approvals.values():
            if not future.done():
                future.set_result((False, "the browser extension disconnected"))
        grace = self.config.server.reconnect_grace_s
        loop = asyncio.get_running_loop()
        if self._grace is not None:
            self._grace.cancel()
        self._grace = loop.call_later(grace, self._grace_expired)
        log.info("extension disconnected; keeping tabs for %.1fs", grace)

    def _grace_expired(self) -> None:
        self._grace = None
        if self._link is None:
            self._apply(self.registry.clear())

    def _apply(self, change: RegistryChange) -> None:
        for tab_id in change.closed:
            self._forget_telemetry_later(tab_id)
            self._raw.pop(tab_id, None)
            self._withheld.pop(tab_id, None)
            timer = self._mediation_timers.pop(tab_id, None)
            if timer is not None:
                timer.cancel()
            running = self._mediating.pop(tab_id, None)
            if running is not None:
                running[1].cancel()
        for approval_id, (tab_id, future) in list(self._approvals.items()):
            if tab_id in change.closed and not future.done():
                future.set_result((False, f"tab {tab_id} closed before anyone answered"))
        for tab_id, (query_tab, future) in list(self._queries.items()):
            if query_tab in change.closed and not future.done():
                future.set_result(PageResult(type="page.result", request_id=tab_id, ok=False,
                                             error=ErrorBody(code="TAB_CLOSED", message=f"tab {query_tab} closed")))
        if change.changed:
            for tab in self.registry.tabs.values():
                self.telemetry.set_tab_info(tab.tab_id, url=tab.url, title=tab.title)
                if tab.focused:
                    self.telemetry.focus(tab.tab_id)
        for tab_id in change.closed:
            for call in self.calls.for_tab(tab_id):
                self._fail(call.call_id, TabClosed(f"tab {tab_id} closed during the call", tab_id=tab_id))
        for tab_id in change.navigated:
            tab = self.registry.tab(tab_id)
            for call in self.calls.for_tab(tab_id, document_id=tab.document_id if tab else None):
                self._fail(call.call_id, TabNavigated(f"tab {tab_id} navigated away during the call", tab_id=tab_id))
        if change.changed:
            self._changed()

    async def _report_rejections(self, link: Link, _counts: dict[str, int]) -> None:
        for tab in self.registry.tabs.values():
            if tab.rejected:
                await self._send_rejections(link, RegistryChange(changed=False, tab_id=tab.tab_id, rejected=tab.rejected))

    async def _send_rejections(self, link: Link, change: RegistryChange) -> None:
        text = "; ".join(f"{r.kind} {r.name!r}: {r.reason}" for r in change.rejected[:20])
        log.warning("tab %s: rejected %d definitions: %s", change.tab_id, len(change.rejected), text)
        await self._send_quietly(
            link, WireError(type="error", code="INVALID_TOOL", message=text, ref=f"tab:{change.tab_id}")
        )

    async def _send_quietly(self, link: Link, message: WireModel) -> None:
        try:
            await link.send(message)
        except Exception:  # the peer is gone; its close handler cleans up
            log.debug("could not send %s to %s", message.__class__.__name__, link.peer, exc_info=True)

    # -- calls ---------------------------------------------------------------------------

    def _on_result(self, message: CallResult) -> None:
        future = self._futures.get(message.call_id)
        if future is None or future.done():
            log.info("result for unknown or finished call %s ignored", message.call_id)
            return
        if message.ok:
            self.calls.finish(message.call_id, CallState.DONE, message.result)
            future.set_result(message.result or {"content": []})
        else:
            err = message.error
            code, text = (err.code, err.message) if err else ("PAGE_ERROR", "the page reported a failure")
            details = {k: v for k, v in ((err.details or {}) if err else {}).items()
                       if k not in ("message", "code", "page_code")}
            self.calls.finish(message.call_id, CallState.FAILED)
            future.set_exception(error_for_code(code, text, **details))

    def _fail_unusable_result(self, frame: str | bytes, exc: ProtocolError) -> None:
        """A malformed ``call.result`` that still names a waiting call ends that call now."""
        if exc.ref != "call.result":
            return
        try:
            data = json.loads(frame)
        except (ValueError, RecursionError):
            return
        call_id = data.get("callId") if isinstance(data, dict) else None
        if isinstance(call_id, str) and call_id in self._futures:
            self._fail(call_id, BadResult(f"the extension sent an unusable result: {exc.message}"))

    def _fail(self, call_id: str, error: ToolCallError) -> None:
        future = self._futures.get(call_id)
        self.calls.finish(call_id, CallState.FAILED)
        if future is not None and not future.done():
            future.set_exception(error)

    def _fail_all(self, error: ToolCallError) -> None:
        for call in self.calls.all():
            self._fail(call.call_id, error)

    async def call_tool(
        self,
        entry: ToolEntry,
        arguments: dict[str, Any],
        *,
        timeout_s: float | None = None,
        client_id: str | None = None,
    ) -> dict[str, Any]:
        """Run a page tool in its tab and return the page's CallToolResult (a dict).

        Raises:
            ToolCallError: a named failure (timeout, tab closed, navigation, disconnect,
                cancellation, or the page's own error).
        """
        link = self._link
        if link is None or link.state is not LinkState.READY:
            raise ExtensionDisconnected("the browser extension is not connected to the bridge")
        timeout = timeout_s if timeout_s is not None else self.config.calls.timeout_s
        arguments = entry.tool.page_arguments(arguments)
        call = self.calls.new(
            tab_id=entry.tab.tab_id,
            document_id=entry.tab.document_id,
            frame_id=entry.tab.frame_id,
            page_tool=entry.tool.call_name,
            public_name=entry.public_name,
            arguments=arguments,
            deadline=time.monotonic() + timeout,
            client_id=client_id,
        )
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._futures[call.call_id] = future
        try:
            await link.send(
                CallStart(
                    call_id=call.call_id,
                    tab_id=call.tab_id,
                    document_id=call.document_id,
                    frame_id=call.frame_id or None,
                    tool=call.page_tool,
                    arguments=arguments,
                    timeout_ms=int(timeout * 1000),
                )
            )
            self.calls.mark_sent(call.call_id)
            result = await asyncio.wait_for(asyncio.shield(future), timeout)
            self.usage.record(entry.tab.origin, entry.tool.name)
            return result
        except TimeoutError:
            self._cancel_in_page(call.call_id, "timeout")
            self.calls.finish(call.call_id, CallState.FAILED)
            raise ToolTimeout(
                f"{entry.public_name} did not answer within {timeout:g}s", timeout_s=timeout
            ) from None
        except asyncio.CancelledError:
            if self.calls.finish(call.call_id, CallState.CANCELLED) is not None:
                self._cancel_in_page(call.call_id, "the MCP client cancelled the call")
            raise
        except InvalidState as exc:
            self.calls.finish(call.call_id, CallState.FAILED)
            raise ExtensionDisconnected("the browser extension disconnected before the call was sent") from exc
        finally:
            self._futures.pop(call.call_id, None)
            if not future.done():
                future.cancel()

    async def request_approval(
        self, entry: ToolEntry, arguments: dict[str, Any], reason: str, timeout_s: float
    ) -> tuple[bool, str]:
        """Ask the person at the tab to allow a call; ``(approved, why)``. Never raises."""
        link = self._link
        if link is None or link.state is not LinkState.READY:
            return False, "the browser extension is not connected, so nobody can be asked"
        approval_id = secrets.token_hex(8)
        future: asyncio.Future[tuple[bool, str]] = asyncio.get_running_loop().create_future()
        self._approvals[approval_id] = (entry.tab.tab_id, future)
        try:
            await link.send(
                ApprovalRequest(
                    approval_id=approval_id,
                    tab_id=entry.tab.tab_id,
                    tool=entry.public_name,
                    title=entry.tool.title or entry.tool.name,
                    description=entry.tool.description,
                    arguments=arguments,
                    reason=reason,
                    timeout_ms=int(timeout_s * 1000),
                    origin=entry.tab.origin,
                )
            )
            return await asyncio.wait_for(asyncio.shield(future), timeout_s)
        except TimeoutError:
            return False, f"nobody answered within {timeout_s:g}s"
        except InvalidState:
            return False, "the browser extension disconnected"
        finally:
            self._approvals.pop(approval_id, None)

    def listing(self, view: ClientView | None = None, *, profile: str | None = None) -> list[dict[str, Any]]:
        """tools/list for a client: built-ins, the telemetry tools (not in ``meta``), page tools."""
        view = view or ClientView()
        chosen = profile or self.disclosure.profile
        tools = self.disclosure.list_tools(view, profile=chosen)  # type: ignore[arg-type]
        if chosen != "meta":
            telemetry = build_tool_definitions(
                self.telemetry.counts(),
                dynamic=view.dynamic,
                observed=view.exposure.observed,
                exposure_enabled=self.telemetry.settings.dynamic_exposure,
            )
            at = len(PROFILE_BUILTINS[chosen])
            tools[at:at] = telemetry
        return tools

    def _forget_telemetry_later(self, tab_id: int) -> None:
        """Keep a closed tab's telemetry for a while (the agent may ask what went wrong), then
        drop it: only the most recently closed ``KEEP_CLOSED_TABS`` stay, so memory stays bounded."""
        if tab_id in self._closed_tabs:
            return
        self._closed_tabs.append(tab_id)
        while len(self._closed_tabs) > KEEP_CLOSED_TABS:
            old = self._closed_tabs.popleft()
            if self.registry.tab(old) is None:
                self.telemetry.forget_tab(old)

    def focused_tab(self) -> int | None:
        """The tab the person looks at (else the tab that last sent telemetry, else any tab)."""
        tabs = self.registry.tabs
        for tab in tabs.values():
            if tab.focused:
                return tab.tab_id
        current = self.telemetry.current_tab_id
        if current in tabs:
            return current
        for tab in tabs.values():
            if tab.active:
                return tab.tab_id
        return next(iter(tabs), None)

    async def page_query(
        self, tab_id: int, kind: str, args: dict[str, Any] | None = None, timeout_s: float = 15.0
    ) -> PageResult:
        """Ask a tab's page something live (``dom``, ``page``, ``axe``, ``vitals``). Never raises."""
        link = self._link
        if link is None or link.state is not LinkState.READY:
            return PageResult(type="page.result", request_id="", ok=False, error=ErrorBody(
                code="EXTENSION_DISCONNECTED", message="the browser extension is not connected"))
        request_id = secrets.token_hex(8)
        future: asyncio.Future[PageResult] = asyncio.get_running_loop().create_future()
        self._queries[request_id] = (tab_id, future)
        try:
            await link.send(PageQuery(request_id=request_id, tab_id=tab_id, kind=kind,  # type: ignore[arg-type]
                                      args=args or {}, timeout_ms=int(timeout_s * 1000)))
            return await asyncio.wait_for(asyncio.shield(future), timeout_s)
        except TimeoutError:
            return PageResult(type="page.result", request_id=request_id, ok=False, error=ErrorBody(
                code="TIMEOUT", message=f"tab {tab_id} did not answer within {timeout_s:g}s"))
        except InvalidState:
            return PageResult(type="page.result", request_id=request_id, ok=False, error=ErrorBody(
                code="EXTENSION_DISCONNECTED", message="the browser extension disconnected"))
        finally:
            self._queries.pop(request_id, None)

    def _cancel_in_page(self, call_id: str, reason: str) -> None:
        link = self._link
        if link is None:
            return
        task = asyncio.get_running_loop().create_task(self._send_quietly(link, CallCancel(call_id=call_id, reason=reason)))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def status(self) -> dict[str, Any]:
        """A JSON-able summary for ``/health`` and ``tabmcp tools``."""
        link = self._link
        return {
            "bridge": __version__,
            "protocol": PROTOCOL_VERSION,
            "extension": {
                "connected": self.connected,
                "id": link.hello.extension_id if link and link.hello else None,
                "version": link.hello.extension_version if link and link.hello else None,
            },
            **self.registry.counts(),
            "pendingCalls": len(self.calls),
            "profile": self.disclosure.profile,
        }



def _merge_enhanced(snap: TabSnapshot, result: dict[str, Any] | None) -> TabSnapshot:
    """The snapshot with the middleware's tools and categories (the page's own fields kept)."""
    if not result or not isinstance(result.get("tools"), list):
        return snap
    raw_by_name = {t["name"]: t for t in snap.tools if isinstance(t, dict) and isinstance(t.get("name"), str)}
    renamed: dict[str, str] = {}
    tools: list[Any] = []
    for enhanced in result["tools"]:
        if not isinstance(enhanced, dict):
            continue
        original = enhanced.get("originalName") or enhanced.get("name")
        raw = raw_by_name.get(original)
        if raw is None:
            continue  # never a tool the page does not have
        name = enhanced.get("name") or original
        renamed[original] = name
        tool = {k: raw[k] for k in ("title", "annotations", "scope") if k in raw}
        tool.update(
            name=name,
            description=enhanced.get("description") or raw.get("description"),
            inputSchema=enhanced.get("inputSchema") or raw.get("inputSchema"),
        )
        if name != original:
            tool["pageName"] = original
        if enhanced.get("argumentMap"):
            tool["argumentMap"] = enhanced["argumentMap"]
        tool["enhancement"] = {
            "originalName": original,
            "enhancedBy": enhanced.get("enhancedBy", "middleware"),
            "confidence": enhanced.get("confidence"),
        }
        tools.append(tool)
    for original, raw in raw_by_name.items():
        if original not in renamed:
            tools.append(raw)  # tools the middleware left out stay as the page registered them
            renamed[original] = original
    if snap.categories:
        categories: list[Any] = [
            {**c, "tools": [renamed.get(m, m) for m in c.get("tools", [])]} if isinstance(c, dict) else c
            for c in snap.categories
        ]
    else:
        categories = [c for c in result.get("categories") or [] if isinstance(c, dict)]
    return snap.model_copy(update={"tools": tools, "categories": categories})
