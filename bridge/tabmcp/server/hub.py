"""The hub: the extension link's I/O, and the registry it feeds.

The extension endpoint hands every frame to :meth:`Hub.handle_frame`. The link's protocol
(handshake, every pending call, approval and page query, and the rules that end them) is
:class:`tabmcp.core.session.Session`, which does no I/O; this module only moves its messages
to and from sockets, pairs its requests with futures, and runs one timer for its next deadline.

Topics of their own live beside it, each behind a small interface the hub calls on handshake,
disconnect, registry change and its messages: the person's panel, switches and forms as tools
(:mod:`.panel`), reachable sites (:mod:`.sites`), telemetry (:mod:`.telemetry`), debug-mode
trace stamps (:mod:`.trace`), mediation (:mod:`tabmcp.mediation`) and index sync
(:mod:`tabmcp.core.search.sync`). The hub keeps their public names (``controls``, ``gate``,
``forms``, ``sites``, ``open_site``, ``telemetry``, ...) as one-line delegations: it is the
:class:`tabmcp.core.tools.Bridge` facade.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .. import __version__
from ..config import Config
from ..core.activity import FLUSH_DELAY_S as ACTIVITY_FLUSH_DELAY_S
from ..core.activity import ActivityLog
from ..core.controls import PersonControls
from ..core.disclosure import ClientView, Disclosure
from ..core.listing_json import ListingRenderer
from ..core.page_forms import FormsPolicy
from ..core.pairing import Pairing, Pairings
from ..core.registry import Registry, RegistryChange, ToolEntry
from ..core.scoping import Gate
from ..core.search import SearchIndex
from ..core.search.sync import IndexSync
from ..core.session import (
    Close,
    Disconnected,
    Event,
    HandshakeDone,
    KindView,
    LinkState,
    MessageReceived,
    Peer,
    PendingRequest,
    RequestEnded,
    Session,
)
from ..core.sites import Sites
from ..core.telemetry import SessionStore, TelemetryStore
from ..core.tools import RESERVED_NAMES
from ..core.trust.pins import PinLimits, Pins
from ..core.trust.retention import Retention
from ..core.trust.store import TrustStore
from ..errors import ErrorCode, InvalidState, ToolCallError
from ..mediation import Mediation, ToolMiddleware
from ..protocol import (
    PROTOCOL_VERSION,
    ControlSet,
    FormsSet,
    PanelQuery,
    SiteForget,
    SitePermission,
    TabSnapshot,
    TabsSync,
    TabUpdate,
    Telemetry,
    WireModel,
    dump,
)
from ..protocol import (
    TabClosed as TabClosedMsg,
)
from ..store import FormsSwitchStore, SqlitePairings, UsageStore, default_db_path
from .panel import PersonPanel
from .shared_state import SharedStateWatch
from .sites import SiteLink
from .telemetry import KEEP_CLOSED_TABS, TelemetryLink
from .trace import ARRIVED, TRACE, stamp, trace_enabled
from .write_behind import WriteBehind

if TYPE_CHECKING:
    from ..core.trust.guard import TrustGuard

__all__ = ["ARRIVED", "KEEP_CLOSED_TABS", "TRACE", "Hub", "Link", "LinkState"]  # ARRIVED, TRACE: see server/trace.py

log = logging.getLogger("tabmcp.hub")


class _Socket(Protocol):
    async def send_text(self, data: str) -> None: ...
    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Link(Peer):
    """One WebSocket connection from an extension: the session's :class:`Peer` plus its socket."""

    def __init__(self, socket: _Socket, *, peer: str = "") -> None:
        super().__init__(peer)
        self._socket = socket
        self._lock = asyncio.Lock()
        self.socket_closed = False

    @property
    def peer(self) -> str:
        return self.name

    async def send(self, message: WireModel) -> None:
        if self.socket_closed:
            raise InvalidState("link is closed")
        async with self._lock:
            await self._socket.send_text(dump(message))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the socket (the session decides when; this only does it)."""
        self.state = LinkState.CLOSED
        if self.socket_closed:
            return
        self.socket_closed = True
        try:
            await self._socket.close(code=code, reason=reason)
        except Exception:  # the socket may already be gone; closing is best effort
            log.debug("closing link %s failed", self.peer, exc_info=True)


STATUS_ACTIVITY = 20
"""How many of the newest activity rows ``status()`` (``/health``) carries."""

class Hub:
    """The bridge facade (:class:`tabmcp.core.tools.Bridge`): the core objects, and the I/O of the session."""

    def __init__(self, config: Config | None = None, *, control_key: str | None = None) -> None:
        self.config = config or Config()
        self.registry = Registry(reserved_names=RESERVED_NAMES)
        self.session_id = secrets.token_hex(8)
        db_path = self.config.store.path or default_db_path()
        self.pairings = Pairings(SqlitePairings(db_path), token=self.config.server.extension_token or None,
                                 control_key=control_key)
        """Who may be the extension: paired installs, launchers' pairings, the pre-shared token (core/pairing.py)."""
        self.session = Session(session_id=self.session_id, bridge_version=__version__, pairing=self.pairings)
        self.trust: TrustGuard | None = None
        """The trust defences, once the MCP layer installed them (the popup shows and clears them)."""
        self.activity = ActivityLog.open(  # agent calls that reach a page, redacted as telemetry is
            self.config.store.path, max_rows=self.config.store.activity_rows, redactor=lambda: self.telemetry.redactor
        )
        self.activity_writer = WriteBehind(self.activity.flush, delay_s=ACTIVITY_FLUSH_DELAY_S, name="activity")
        """Writes the activity batch within a second of a call, with or without later calls."""
        self.activity.on_pending = self.activity_writer.poke
        self.panel = PersonPanel(self.config, self.registry, self.session, self.activity,
                                 changed=self._changed, touch=lambda: self._apply(self.registry.touch()),
                                 flush_soon=self._flush_soon, trust=lambda: self.trust)
        """The person's side: the popup's panel, their switches, forms as tools (server/panel.py)."""
        self.usage = UsageStore(self.config.store.path)
        core_n = self.config.disclosure.core_from_usage
        self.disclosure = Disclosure(
            self.registry,
            profile=self.config.disclosure.profile,
            gate=self.gate,
            core_tools=self.config.disclosure.core_tools,
            usage_core=(lambda: self.usage.top_set(core_n)) if core_n else None,
            extra_tools=lambda view: self.telemetry_link.definitions(view),
            extra_key=lambda view: self.telemetry_link.definitions_key(view),
        )
        self.listing_renderer = ListingRenderer(self.disclosure)
        """tools/list as ready-made JSON bytes (:meth:`listing_json`)."""
        self.pins = Pins(TrustStore(db_path), PinLimits.of(self.config.trust))
        """The trust pins: last-seen definitions per origin + tool (the trust guard shares them)."""
        self.site_link = SiteLink(self.config, self.registry, self.session, pins=self.pins, usage=self.usage,
                                  db_path=db_path, changed=self._changed, flush_soon=self._flush_soon,
                                  wait=self._wait)
        """Reachable sites on the link: the popup's list, the person's choices, opening (server/sites.py)."""
        # an origin the person allowed as a site, or turned forms-as-tools on for: its pins never go
        self.pins.trusted = lambda origin: self.site_link.sites.reachable(origin) or self.panel.forms.enabled(origin)
        self.retention = Retention(self.pins, self.usage)
        """Expiry of the pins and usage of origins the person never trusted (core/trust/retention.py)."""
        self._sweep: asyncio.TimerHandle | None = None
        self.shared_state = SharedStateWatch(db_path, self.follow_shared_state)
        """Follows what the CLI changes in the database file while the bridge runs (server/shared_state.py)."""
        self._trust_mark: int | None = None
        self.search_sync = IndexSync(
            self.registry, semantic=self.config.search.semantic, db_path=self.config.store.path
        )
        self._futures: dict[str, asyncio.Future[Any]] = {}
        self.trace = trace_enabled()
        """Debug mode: calls carry hop timestamps (see :data:`TRACE`); off, the call path pays one check."""
        self._frame_at = 0.0
        self._traces: dict[str, list[tuple[str, float]]] = {}
        self._deadline: asyncio.TimerHandle | None = None
        self._deadline_at: float | None = None
        self.mediation = Mediation(on_enhanced=self._enhanced)
        self.telemetry_link = TelemetryLink(self.config, self.registry, self.session,
                                            changed=self._changed, flush_soon=self._flush_soon)
        """Telemetry on the link: batches in, page config out, closed tabs kept (server/telemetry.py)."""
        self._listeners: list[Callable[[], None]] = []
        self._grace: asyncio.TimerHandle | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._link_ready = asyncio.Event()

    # -- tool middleware (the mediator hook, see tabmcp.mediation) --------------------------

    def set_tool_middleware(
        self, middleware: ToolMiddleware | None, *, mode: str = "eager", timeout_s: float = 60.0
    ) -> None:
        """Apply ``middleware`` to each tab's tools before disclosure (:meth:`Mediation.set_middleware`)."""
        self.mediation.set_middleware(middleware, mode=mode, timeout_s=timeout_s)

    @property
    def mediation_scheduled(self) -> bool:
        """Enhancement of some tab is armed (waiting for a quiet tool list) or running."""
        return self.mediation.scheduled

    async def settle(self, timeout_s: float | None = None) -> None:
        """Let pending enhancement finish before answering a request (:meth:`Mediation.settle`)."""
        await self.mediation.settle(timeout_s)

    def _enhanced(self, snap: TabSnapshot) -> None:
        if self.registry.tab(snap.tab_id):
            self._apply(self.registry.apply(snap))

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
        return self.registry.version + self.telemetry_link.revision + self.panel.revision

    def _changed(self) -> None:
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:  # a listener's bug must not stop the hub
                log.exception("change listener failed")

    # -- extension side ------------------------------------------------------------------

    @property
    def link(self) -> Link | None:
        current = self.session.current
        return current if isinstance(current, Link) else None

    @property
    def connected(self) -> bool:
        return self.session.ready

    @property
    def calls(self) -> KindView:
        """The pending tool calls (``len``, ``completed``, ``failed``)."""
        return self.session.calls

    @property
    def protocol_errors(self) -> int:
        return self.session.protocol_errors

    async def wait_connected(self, timeout: float) -> bool:
        """Wait until an extension has completed its handshake (for the CLI and tests)."""
        try:
            await asyncio.wait_for(self._link_ready.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def handle_frame(self, link: Link, frame: str | bytes) -> None:
        """Process one frame from an extension. Never raises for bad input: it answers it."""
        if link.state is LinkState.CLOSED:
            return  # the bridge closed it; the socket's last frames are dropped
        if self.trace:
            self._frame_at = time.time_ns() / 1e6
        try:
            self._handle(self.session.receive(link, frame))
        except Exception as exc:  # last line: a frame must never take the link (or the bridge) down
            log.exception("extension %s: frame could not be handled", link.peer)
            self.session.internal_error(link, exc)
        await self._flush()

    async def link_closed(self, link: Link) -> None:
        """The socket closed. Waiting requests end now; tabs survive a short grace period."""
        link.socket_closed = True
        self._handle(self.session.closed(link))
        await self._flush()

    def _handle(self, events: list[Event]) -> None:
        """Act on what the session reports (all synchronous; sending is :meth:`_flush`'s job)."""
        for event in events:
            if isinstance(event, RequestEnded):
                self._settle(event)
            elif isinstance(event, MessageReceived):
                self._on_message(event.peer, event.message)
            elif isinstance(event, HandshakeDone):
                if self._grace is not None:
                    self._grace.cancel()
                    self._grace = None
                self.telemetry_link.connected(event.peer)
                self.panel.connected(event.peer)
                self.site_link.connected()
                self._link_ready.set()
                self._arm_sweep()
            elif isinstance(event, Disconnected):
                self._link_ready.clear()
                self.panel.disconnected()
                grace = self.config.server.reconnect_grace_s
                if self._grace is not None:
                    self._grace.cancel()
                self._grace = asyncio.get_running_loop().call_later(grace, self._grace_expired)
                log.info("extension disconnected; keeping tabs for %.1fs", grace)
        if self.session.opening():
            ended = self.site_link.opened_tabs()
            if ended:
                self._handle(ended)
        self._arm_deadline()

    def _on_message(self, peer: Peer, message: WireModel) -> None:
        if isinstance(message, TabsSync):
            self._apply(self.registry.sync([self.mediation.intake(t) for t in message.tabs]))
            for tab in self.registry.tabs.values():
                if tab.rejected:
                    self._report_rejections(peer, RegistryChange(changed=False, tab_id=tab.tab_id,
                                                                 rejected=tab.rejected))
        elif isinstance(message, TabUpdate):
            change = self.registry.apply(self.mediation.intake(message.tab))
            self._apply(change)
            if change.rejected:
                self._report_rejections(peer, change)
        elif isinstance(message, TabClosedMsg):
            self._apply(self.registry.remove(message.tab_id))
        elif isinstance(message, SitePermission | SiteForget):  # the person, in the popup (never a page)
            self.site_link.on_message(message)
        elif isinstance(message, FormsSet):
            self.panel.forms_set(peer, message)
        elif isinstance(message, Telemetry):
            self.telemetry_link.on_message(peer, message)
        elif isinstance(message, PanelQuery | ControlSet):
            self.panel.on_message(peer, message)

    # -- pairing (the control API: ``tabmcp pair``, launchers) ------------------------------

    async def confirm_pairing(self, code: str) -> Pairing:
        """The person typed ``code``: pair the connection that showed it (:meth:`Session.confirm_pairing`).

        Raises:
            PairingCodeWrong, PairingLocked: the code matches no pending request.
        """
        try:
            return self.session.confirm_pairing(code)
        finally:
            await self._flush()

    async def forget_pairing(self, pairing_id: str) -> bool:
        """Remove a pairing; the link it admitted is closed. Whether it existed."""
        existed, events = self.session.forget_pairing(pairing_id)
        self._handle(events)
        await self._flush()
        return existed

    # -- the person's side (server/panel.py): only the extension link reaches it ------------

    @property
    def controls(self) -> PersonControls:
        """The person's switches (popup, ``tabmcp controls``)."""
        return self.panel.controls

    @property
    def forms(self) -> FormsPolicy:
        """Which origins' ordinary forms are offered as tools."""
        return self.panel.forms

    @property
    def forms_switches(self) -> FormsSwitchStore:
        return self.panel.forms_switches

    @property
    def gate(self) -> Gate:
        """Policy, the person's switches and forms, applied to every entry (core/scoping.py)."""
        return self.panel.gate

    def panel_state(self, query: PanelQuery | None = None) -> dict[str, Any]:
        """What the popup shows (:meth:`PersonPanel.state`)."""
        return self.panel.state(query)

    def sync_controls(self) -> None:
        """Pick up switches another process changed (:meth:`PersonPanel.sync_controls`)."""
        self.panel.sync_controls()

    def set_forms_as_tools(self, origin: str, enabled: bool) -> None:
        """The person's forms-as-tools choice for one origin (:meth:`PersonPanel.set_forms_as_tools`)."""
        self.panel.set_forms_as_tools(origin, enabled)

    def _report_rejections(self, peer: Peer, change: RegistryChange) -> None:
        text = "; ".join(f"{r.kind} {r.name!r}: {r.reason}" for r in change.rejected[:20])
        log.warning("tab %s: rejected %d definitions: %s", change.tab_id, len(change.rejected), text)
        self.session.report(peer, ErrorCode.INVALID_TOOL, text, ref=f"tab:{change.tab_id}")

    async def _flush(self) -> None:
        """Send what the session queued, in order; a socket that fails is closed for good."""
        for action in self.session.data_to_send():
            link = action.peer
            if not isinstance(link, Link):
                continue
            if isinstance(action, Close):
                await link.close(action.code, action.reason)
                continue
            try:
                await link.send(action.message)
            except Exception:  # the peer is gone; its close handler (or this) ends its requests
                log.debug("could not send %s to %s", action.message.__class__.__name__, link.peer, exc_info=True)
                if not link.socket_closed:
                    link.socket_closed = True
                    self._handle(self.session.closed(link))

    def _flush_soon(self) -> None:
        """Send queued messages from synchronous code (timers, cancellation)."""
        task = asyncio.get_running_loop().create_task(self._flush())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _arm_deadline(self) -> None:
        """One timer for the session's next deadline.

        Armed lazily: a timer already due no later than the next deadline stays (when it fires
        early, nothing has expired and it is armed again for the then next deadline), so a call
        that ends before its deadline costs no timer of its own.
        """
        deadline = self.session.next_deadline()
        if deadline is None or (self._deadline_at is not None and self._deadline_at <= deadline):
            return
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline_at = deadline
        delay = max(0.0, deadline - self.session.clock())
        self._deadline = asyncio.get_running_loop().call_later(delay, self._deadline_passed)

    def _deadline_passed(self) -> None:
        self._deadline = None
        self._deadline_at = None
        events = self.session.expire()
        self._handle(events)  # arms the timer again for what is left
        if events:
            self._flush_soon()

    def _settle(self, event: RequestEnded) -> None:
        future = self._futures.pop(event.request.request_id, None)
        if future is None or future.done():
            return
        if event.trace is not None and self.trace:
            self._traces[event.request.request_id] = [
                *event.trace, ("bridge.frame", self._frame_at), ("bridge.ended", time.time_ns() / 1e6)
            ]
        if event.error is not None:
            future.set_exception(event.error)
        else:
            future.set_result(event.result)

    def _grace_expired(self) -> None:
        self._grace = None
        if self.session.current is None:
            self._apply(self.registry.clear())

    def _apply(self, change: RegistryChange) -> None:
        for tab_id in change.closed:
            self.telemetry_link.tab_closed(tab_id)
            self.mediation.forget(tab_id)
        events: list[Event] = []
        for tab_id in change.closed:
            events += self.session.tab_closed(tab_id)
        for tab_id in change.navigated:
            tab = self.registry.tab(tab_id)
            events += self.session.tab_navigated(tab_id, tab.document_id if tab else None)
        if change.changed:
            self.site_link.registry_changed()
            self.telemetry_link.registry_changed()
            self.retention.note_open(d.origin for d in self.registry.documents() if d.is_open)
            self._arm_sweep()
        self._handle(events)
        if change.changed:
            self._changed()

    def _arm_sweep(self) -> None:
        """One timer for the expiry of transient origins' state, re-armed while an extension is
        linked (the next handshake or registry change arms it again). It holds the hub weakly: a
        hub nobody uses any more is not kept alive by its timer."""
        if self._sweep is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a hub driven without a loop (tests of the core): the next change arms it
            return
        self._sweep = loop.call_later(self.retention.interval_s, _sweep_due, weakref.ref(self))

    def _swept(self) -> None:
        self._sweep = None
        try:
            self.retention.sweep()
        except Exception:  # the database may be busy or gone; the next sweep tries again
            log.exception("expiring the state of transient origins failed")
        if self.session.current is not None:
            self._arm_sweep()
    # -- decisions another process wrote (server/shared_state.py) ---------------------------

    def follow_shared_state(self, changes: dict[str, int]) -> None:
        """Another connection wrote the database file: reload what another process changed (the
        switches, reachable sites, the trust pins and lockdown), so search, listings, calls and the
        popup see it; agents are told when their listing differs."""
        self.panel.sync_controls()
        if self.sites.changed_elsewhere():
            self.site_link.changed()
        trust = changes.get("trust", 0)
        if self._trust_mark is None:
            self._trust_mark = self.shared_state.baseline.get("trust", 0)
        if trust != self._trust_mark:
            if self.trust is not None:
                self.trust.reload()
            else:
                self.pins.reload()
            self.panel.trust_changed()
        self._trust_mark = trust

    # -- reachable sites (server/sites.py) --------------------------------------------------

    @property
    def sites(self) -> Sites:
        """The reachable sites' rules and records (core/sites.py)."""
        return self.site_link.sites

    def sites_changed(self) -> None:
        """A site was allowed, forgotten or marked stale (:meth:`SiteLink.changed`)."""
        self.site_link.changed()

    async def open_site(self, url: str, *, tool: str = "", timeout_s: float | None = None,
                        focus: bool = False) -> int:
        """Open a reachable site and wait for ``tool`` there (:meth:`SiteLink.open`); the tab's id."""
        return await self.site_link.open(url, tool=tool, timeout_s=timeout_s, focus=focus)

    # -- telemetry (server/telemetry.py) ----------------------------------------------------

    @property
    def telemetry(self) -> TelemetryStore:
        """The telemetry buffers (core/telemetry)."""
        return self.telemetry_link.store

    @telemetry.setter
    def telemetry(self, store: TelemetryStore) -> None:  # the benches swap in filled buffers
        self.telemetry_link.store = store

    @property
    def sessions(self) -> SessionStore:
        """Saved telemetry sessions (``configure``'s save/load)."""
        return self.telemetry_link.sessions

    def page_config_changed(self) -> None:
        """The telemetry settings may have changed (:meth:`TelemetryLink.config_changed`)."""
        self.telemetry_link.config_changed()

    def focused_tab(self) -> int | None:
        """The tab the person looks at (:meth:`TelemetryLink.focused_tab`)."""
        return self.telemetry_link.focused_tab()

    # -- requests: calls, approvals, page queries ------------------------------------------

    async def _wait(self, request: PendingRequest, *, traced: bool = False) -> Any:
        """Send the request and wait for the session to end it (by answer or by rule)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._futures[request.request_id] = future
        self._arm_deadline()
        try:
            if traced:  # before the write: the sending task may resume only after the worker got it
                stamp("bridge.sent")
            await self._flush()
            return await future
        except asyncio.CancelledError:
            self._handle(self.session.cancel(request.request_id))
            self._flush_soon()
            raise
        finally:
            self._futures.pop(request.request_id, None)
            if not future.done():
                future.cancel()

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
        trace = TRACE.get() if self.trace else None
        call_trace = None
        if trace is not None:
            trace.append(("bridge.hub", time.time_ns() / 1e6))
            call_trace = list(trace)
        call = self.session.start_call(
            tab_id=entry.tab.tab_id,
            document_id=entry.tab.document_id,
            frame_id=entry.tab.frame_id,
            page_tool=entry.tool.call_name,
            public_name=entry.public_name,
            arguments=entry.tool.page_arguments(arguments),
            timeout_s=timeout_s if timeout_s is not None else self.config.calls.timeout_s,
            client_id=client_id,
            source="form" if entry.tool.page_form else None,
            trace=call_trace,
        )
        try:
            result: dict[str, Any] = await self._wait(call, traced=trace is not None)
        finally:
            if trace is not None:
                back = self._traces.pop(call.request_id, None)
                if back is not None:  # what was sent, the local stamps since ("bridge.sent"), the hops'
                    sent = len(call_trace or ())
                    trace[:] = [*back[:sent], *trace[sent:], *back[sent:]]
                trace.append(("bridge.resumed", time.time_ns() / 1e6))
        self.usage.record(entry.tab.origin, entry.tool.name)
        return result

    async def request_approval(
        self, entry: ToolEntry, arguments: dict[str, Any], reason: str, timeout_s: float
    ) -> tuple[bool, str]:
        """Ask the person at the tab to allow a call; ``(approved, why)``. Never raises."""
        try:
            approval = self.session.start_approval(
                tab_id=entry.tab.tab_id,
                document_id=entry.tab.document_id,
                origin=entry.tab.origin,
                frame_id=entry.tab.frame_id,
                tool_name=entry.tool.name,
                tool=entry.public_name,
                title=entry.tool.title or entry.tool.name,
                description=entry.tool.description,
                arguments=arguments,
                reason=reason,
                timeout_s=timeout_s,
            )
            answer: tuple[bool, str] = await self._wait(approval)
        except ToolCallError as exc:
            return False, exc.message
        return answer

    async def page_query(
        self, tab_id: int, kind: str, args: dict[str, Any] | None = None, timeout_s: float = 15.0
    ) -> Any:
        """Ask a tab's page something live (``dom``, ``page``, ``axe``, ``vitals``); its answer.

        Raises:
            ToolCallError: the tab closed or navigated, the extension went away, the page did
                not answer in time, or reported an error (``details`` name the tab).
        """
        tab = self.registry.tab(tab_id)
        query = self.session.start_query(tab_id=tab_id, document_id=tab.document_id if tab else None,
                                         kind=kind, args=args or {}, timeout_s=timeout_s)
        return await self._wait(query)

    def listing(self, view: ClientView | None = None, *, profile: str | None = None) -> list[dict[str, Any]]:
        """tools/list for a client (:meth:`Disclosure.listing`)."""
        return self.disclosure.listing(view, profile=profile)  # type: ignore[arg-type]

    def listing_json(self, view: ClientView | None = None, *, protocol_version: str) -> bytes:
        """The UTF-8 JSON of the ``tools`` array the MCP SDK's server would send for
        :meth:`listing` of ``view`` at ``protocol_version`` (after its per-version sieve), built
        from per-document bytes kept across calls (:class:`tabmcp.core.listing_json.ListingRenderer`):
        after a change in one tab only that tab is encoded again; an unchanged listing is a lookup.

        Like :meth:`listing`, it shows the registry as it is: a transport answering tools/list
        awaits :meth:`settle` first, as the SDK handler does.

        Raises:
            ValueError: ``protocol_version`` is not a protocol version the MCP SDK knows.
        """
        return self.listing_renderer.render(view, protocol_version=protocol_version, salt=(self.revision,))

    def status(self) -> dict[str, Any]:
        """A JSON-able summary for ``/health`` and ``tabmcp tools``."""
        link = self.session.current
        return {
            "bridge": __version__,
            "protocol": PROTOCOL_VERSION,
            "extension": {
                "connected": self.connected,
                "id": link.hello.extension_id if link and link.hello else None,
                "version": link.hello.extension_version if link and link.hello else None,
            },
            **self.registry.counts(),
            **self.registry.closed_site_counts(),
            "pendingCalls": len(self.calls),
            "profile": self.disclosure.profile,
            "controls": self.controls.state().to_dict(),
            "activity": [e.to_dict() for e in self.activity.latest(STATUS_ACTIVITY)],
        }


def _sweep_due(hub: weakref.ref[Hub]) -> None:
    target = hub()
    if target is not None:
        target._swept()
