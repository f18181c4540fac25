"""The composition root: the bridge's collaborators, built once, for the bridge and for tests.

:class:`BridgeCore` makes every core object (the registry, the links' session, disclosure, the
gate, the trust pins, telemetry, sites, the person's panel, search, activity) and the
:class:`tabmcp.server.hub.Hub` that moves the links' messages, then wires them: which handler
takes which wire message, what a link's coming and going does, how a registry change fans out.
It is also the facade the MCP layer and the built-in tools see
(:class:`tabmcp.core.tools.Bridge`): their public names (``registry``, ``gate``, ``controls``,
``sites``, ``telemetry``, ``call_tool``, ...) are these objects, or one-line delegations to them.

Tests build one (``BridgeCore(config)``) with no socket, or get the running bridge's as
``BridgeApp.core``; :meth:`BridgeCore.tool` is what a public name names now. One name each: the
bridge core is this object (``core`` wherever code holds it); the hub is only the message mover
it owns, ``BridgeCore.hub`` (server/hub.py).

Several browsers at once (:mod:`tabmcp.core.browsers`): every browser's link feeds the one
registry with its own tabs (ids qualified by its slot); a sync replaces that browser's tabs only;
when a browser's link goes, its tabs stay for the reconnect grace and then go, alone.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
import weakref
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from . import __version__
from .config import Config
from .core.activity import FLUSH_DELAY_S as ACTIVITY_FLUSH_DELAY_S
from .core.activity import ActivityLog
from .core.browsers import slot_of, wire_tab_id
from .core.controls import PersonControls
from .core.disclosure import ClientView, Disclosure
from .core.listing_json import ListingRenderer
from .core.page_forms import FormsPolicy
from .core.pairing import Pairing, Pairings
from .core.registry import CategoryEntry, Reading, Registry, RegistryChange, ToolEntry, origin_of
from .core.scoping import Gate
from .core.search import SearchIndex
from .core.search.sync import IndexSync
from .core.search.sync import warm as warm_search
from .core.secrets import Mask, Secrets
from .core.session import Disconnected, Event, HandshakeDone, KindView, Peer, Session
from .core.sites import Sites
from .core.stalls import LINK_WORK, StallMeter
from .core.telemetry import SessionStore, TelemetryStore
from .core.tools import RESERVED_NAMES
from .core.trust.gate import definition_text, for_person
from .core.trust.pins import PinLimits, Pins
from .core.trust.retention import Retention
from .core.trust.tables import TrustStore
from .core.trust.text import PageJson, PageValue
from .database import FormsSwitchStore, SqlitePairings, UsageStore, default_db_path
from .errors import ErrorCode, SecretStoreUnavailable, ToolCallError
from .mediation import Mediation, ToolMiddleware
from .protocol import (
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
)
from .protocol import TabClosed as TabClosedMsg
from .secret_store import SecretStore
from .server.hub import Hub, Link
from .server.panel import PersonPanel
from .server.reader import OffLoop
from .server.shared_state import SharedStateWatch
from .server.sites import SiteLink
from .server.telemetry import TelemetryLink
from .server.trace import TRACE, trace_enabled
from .server.write_behind import WriteBehind

if TYPE_CHECKING:
    from .core.trust.guard import TrustGuard

__all__ = ["STATUS_ACTIVITY", "BridgeCore"]

log = logging.getLogger("tabmcp.core")


def _secret_store(config: Config) -> SecretStore | None:
    """The person's secrets; ``None`` (every placeholder refused by name) when the keychain the
    config insists on cannot be used."""
    try:
        return SecretStore(config.store.path, kind=config.store.secrets)
    except SecretStoreUnavailable as exc:
        log.warning("secrets are unavailable: %s", exc)
        return None

STATUS_ACTIVITY = 20
"""How many of the newest activity rows ``status()`` (``/health``) carries."""


class BridgeCore:
    """Every collaborator of one bridge, wired; the :class:`tabmcp.core.tools.Bridge` facade."""

    def __init__(self, config: Config | None = None, *, control_key: str | None = None) -> None:
        self.config = config = config or Config()
        db_path = config.store.path or default_db_path()
        self.stalls = StallMeter()
        """The event loop's stalls and the origins whose work filled them (core/stalls.py; its timer,
        server/loop_watch.py, runs while the bridge serves)."""
        self.registry = Registry(reserved_names=RESERVED_NAMES)
        self.registry.charge = self.stalls.work  # a tab's snapshot on the loop: charged to its origin
        self.reader = OffLoop()
        """Reads the pages' snapshots on a worker thread, puts them in on the loop in arrival order
        (server/reader.py): every registry change a link's message makes goes through it."""
        self.session_id = secrets.token_hex(8)
        self.pairings = Pairings(
            SqlitePairings(db_path), token=config.server.extension_token or None, control_key=control_key
        )
        """Who may be the extension: paired installs, launchers' pairings, the pre-shared token
        (core/pairing.py)."""
        self.session = Session(session_id=self.session_id, bridge_version=__version__, pairing=self.pairings)
        self.hub = Hub(self.session, trace=trace_enabled(), work=self.stalls.work)
        """The links' I/O (server/hub.py)."""
        self.trust: TrustGuard | None = None
        """The trust defences, once the MCP layer installed them (the popup shows and clears them)."""
        self.activity = ActivityLog.open(  # agent calls that reach a page, redacted as telemetry is
            config.store.path, max_rows=config.store.activity_rows, redactor=lambda: self.telemetry.redactor
        )
        self.activity_writer = WriteBehind(
            self.activity.flush, delay_s=ACTIVITY_FLUSH_DELAY_S, name="activity"
        )
        """Writes the activity batch within a second of a call, with or without later calls."""
        self.activity.on_pending = self.activity_writer.poke
        self.controls = PersonControls.open(config.store.path)
        """The person's switches (popup, ``tabmcp controls``)."""
        self.forms_switches = FormsSwitchStore(config.store.path)
        self.forms = FormsPolicy(config.policy.origins, self.forms_switches.all())
        """Which origins' ordinary forms are offered as tools."""
        self.gate = Gate(config.policy, config.trust, self.forms, controls=self.controls)
        """Policy, the person's switches and forms, applied to every entry (core/scoping.py)."""
        self.panel = PersonPanel(
            self.registry,
            self.session,
            self.activity,
            controls=self.controls,
            forms=self.forms,
            forms_switches=self.forms_switches,
            gate=self.gate,
            changed=self._changed,
            touch=lambda: self._apply(self.registry.touch()),
            flush_soon=self.hub.flush_soon,
            trust=lambda: self.trust,
            secrets=lambda: self.secrets,
        )
        """The person's side: the popup's panel, their switches, forms as tools (server/panel.py)."""
        self.usage = UsageStore(config.store.path)
        self.secrets = Secrets(_secret_store(config))
        self._masked_listing: tuple[tuple[int, int], bytes, Mask, bytes] | None = None
        """The last listing masked (:meth:`listing_json`), with the bytes and mask it was made of."""
        """Secrets by name: names and sites in the database, values in the keychain (core/secrets.py)."""
        self.forms.has_secret = lambda origin: bool(self.secrets.names_for(origin))
        core_n = config.disclosure.core_from_usage
        self.telemetry_link = TelemetryLink(
            config, self.registry, self.session, changed=self._changed, flush_soon=self.hub.flush_soon
        )
        """Telemetry on the link: batches in, page config out, closed tabs kept (server/telemetry.py)."""
        self.disclosure = Disclosure(
            self.registry,
            profile=config.disclosure.profile,
            gate=self.gate,
            core_tools=config.disclosure.core_tools,
            usage_core=(lambda: self.usage.top_set(core_n)) if core_n else None,
            extra_tools=self.telemetry_link.definitions,
            extra_key=self.telemetry_link.definitions_key,
        )
        self.listing_renderer = ListingRenderer(self.disclosure)
        """tools/list as ready-made JSON bytes (:meth:`listing_json`)."""
        self.pins = Pins(TrustStore(db_path), PinLimits.of(config.trust))
        """The trust pins: last-seen definitions per origin + tool (the trust guard shares them)."""
        self.site_link = SiteLink(
            config,
            self.registry,
            self.session,
            pins=self.pins,
            usage=self.usage,
            db_path=db_path,
            changed=self._changed,
            flush_soon=self.hub.flush_soon,
            wait=self.hub.wait,
        )
        """Reachable sites on the link: the popup's list, the person's choices, opening (server/sites.py)."""
        # an origin the person allowed as a site, or turned forms-as-tools on for: its pins never go
        self.pins.trusted = lambda origin: (
            self.site_link.sites.reachable(origin) or self.forms.enabled(origin)
        )
        self.retention = Retention(self.pins, self.usage)
        """Expiry of the pins and usage of origins the person never trusted (core/trust/retention.py)."""
        self.shared_state = SharedStateWatch(db_path, self.follow_shared_state)
        """Follows what the CLI changes in the database file while the bridge runs
        (server/shared_state.py)."""
        self.search_sync = IndexSync(
            self.registry, semantic=config.search.semantic, db_path=config.store.path
        )
        self.mediation = Mediation(on_enhanced=self._enhanced)
        self._sweep: asyncio.TimerHandle | None = None
        self._trust_mark: int | None = None
        self._listeners: list[Callable[[], None]] = []
        self._several = False
        """A second browser linked during this run: sources name their browser from then on."""
        self._grace: dict[Hashable, asyncio.TimerHandle] = {}
        self._enhancing = 0
        """A middleware's snapshots not yet put in (:meth:`settle` waits for them)."""
        """A browser whose link went: the timer after which its tabs go (by its browser key)."""
        self._wire()

    def _wire(self) -> None:
        """The hub's one table: each wire message to its handler; the links' life to ours."""
        hub = self.hub
        hub.on(TabsSync, handler=self._on_sync)
        hub.on(TabUpdate, handler=self._on_update)
        hub.on(TabClosedMsg, handler=lambda _peer, m: self.reader.submit(
            None, lambda _: self._apply(self.registry.remove(m.tab_id))))  # after its tab's readings
        hub.on(
            SitePermission, SiteForget, handler=lambda _peer, m: self.site_link.on_message(m)
        )  # the person, in the popup
        hub.on(FormsSet, handler=self.panel.forms_set)
        hub.on(Telemetry, handler=self._on_telemetry)
        hub.on(PanelQuery, ControlSet, handler=self.panel.on_message)
        hub.on_connected = self._connected
        hub.on_disconnected = self._disconnected
        hub.after = self._opened_tabs

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
        """Let pending enhancement finish before answering a request (:meth:`Mediation.settle`),
        its snapshots put in (they are read on the reader's thread like the pages' own)."""
        await self.mediation.settle(timeout_s)
        if self._enhancing:
            await self.reader.drain()

    def _enhanced(self, snap: TabSnapshot) -> None:
        tab = self.registry.tab(snap.tab_id)
        if tab and not self.registry.cut_off(snap):
            self._enhancing += 1
            self.reader.submit(functools.partial(_read, snap, (tab.browser, tab.profile)),
                               functools.partial(self._enhanced_in, snap))

    def _enhanced_in(self, snap: TabSnapshot, reading: Reading) -> None:
        self._enhancing -= 1
        self._updated(None, snap, reading)

    @property
    def search(self) -> SearchIndex:
        """The search index, brought up to date with the registry first (see core/search/sync.py)."""
        return self.search_sync.index

    async def read_in(self) -> None:
        """Wait until every snapshot received so far is read and put in, and what putting it in
        queued for the links is sent (tests that drive the hub frame by frame)."""
        await self.reader.drain()
        await self.hub.flush()

    @property
    def search_as_is(self) -> SearchIndex:
        """The index as it is: a call learning from the search that led to it does not pay for
        re-indexing a page that changed meanwhile (a flood of tools) on the call's path."""
        return self.search_sync.as_is

    def tool(self, public_name: str) -> ToolEntry | CategoryEntry | None:
        """What ``public_name`` names now (a page tool or category), as tools/call would find it."""
        return self.registry.resolve(public_name)

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
            except Exception:  # a listener's bug must not stop the bridge
                log.exception("change listener failed")

    # -- the links (server/hub.py moves their messages) -----------------------------------

    @property
    def link(self) -> Link | None:
        """The browser link admitted last (one browser: its link)."""
        return self.hub.link

    @property
    def links(self) -> list[Link]:
        """Every browser's link, oldest first."""
        return self.hub.links

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
        return await self.hub.wait_connected(timeout)

    def _connected(self, event: HandshakeDone) -> None:
        peer = event.peer
        grace = self._grace.pop(peer.key, None)
        if grace is not None:
            grace.cancel()
        if peer.slot and not self._several:  # a second browser: every tab's source names its browser now
            self._several = True
            for link in self.session.links.values():
                stamp = functools.partial(self.registry.stamp, functools.partial(_in_slot, link.slot),
                                          self._browser_of(link))
                self.reader.submit(None, functools.partial(self._stamped, stamp))
        self.telemetry_link.connected(peer)
        self.panel.connected(peer)
        self.site_link.connected()
        self._arm_sweep()

    def _stamped(self, stamp: Callable[[], RegistryChange], _: object) -> None:
        self._apply(stamp())

    def _disconnected(self, event: Disconnected) -> None:
        peer = event.peer
        if not self.session.ready:
            self.panel.disconnected()
        grace = self.config.server.reconnect_grace_s
        old = self._grace.pop(peer.key, None)
        if old is not None:
            old.cancel()
        self._grace[peer.key] = asyncio.get_running_loop().call_later(
            grace, self._grace_expired, peer.key, peer.slot
        )
        log.info("extension disconnected; keeping its tabs for %.1fs", grace)

    def _grace_expired(self, key: Hashable, slot: int) -> None:
        self._grace.pop(key, None)
        if key not in self.session.links:  # the browser did not come back: its tabs go, only its
            self.reader.submit(None, lambda _: self._apply(self.registry.clear(
                within=lambda tab_id: slot_of(tab_id) == slot)))

    def _opened_tabs(self) -> list[Event]:
        return self.site_link.opened_tabs() if self.session.opening() else []

    # -- registry intake -------------------------------------------------------------------

    def _browser_of(self, peer: Peer) -> tuple[str, str]:
        """What a tab's source says of its browser: nothing while one browser was ever linked (the
        listing an agent pays for is as it was), its browser and profile once there were two."""
        return (peer.browser, peer.profile) if self._several else ("", "")

    # A page's snapshot is read on the reader's thread (its definitions checked, scanned, split for
    # search: the work a page chooses) and put in on the loop, in the order the messages came.

    def _on_sync(self, peer: Peer, message: TabsSync) -> None:
        snaps = [self.mediation.intake(t) for t in message.tabs]
        cut = [self.registry.cut_off(s) for s in snaps]  # a cut-off tab's snapshot is not read
        browser = self._browser_of(peer)

        def read() -> list[Reading]:
            return [Reading(s.tab_id, origin_of(s.url)) if skip else _read(s, browser)
                    for s, skip in zip(snaps, cut, strict=True)]

        self.reader.submit(read, functools.partial(self._synced, peer))

    def _synced(self, peer: Peer, readings: list[Reading]) -> None:
        slot = peer.slot
        with self.stalls.work(LINK_WORK):  # each tab's part is charged to its origin (Registry.commit_sync)
            self._apply(self.registry.commit_sync(readings, within=lambda tab_id: slot_of(tab_id) == slot))
        for tab in self.registry.tabs.values():
            if tab.rejected and slot_of(tab.tab_id) == slot:
                self._report_rejections(
                    peer, RegistryChange(changed=False, tab_id=tab.tab_id, rejected=tab.rejected)
                )
        self._send_soon()

    def _on_update(self, peer: Peer, message: TabUpdate) -> None:
        snap = self.mediation.intake(message.tab)
        work = None if self.registry.cut_off(snap) else functools.partial(_read, snap, self._browser_of(peer))
        self.reader.submit(work, functools.partial(self._updated, peer, snap))

    def _updated(self, peer: Peer | None, snap: TabSnapshot, reading: Reading | None) -> None:
        """Put one tab's reading in (``None``: not read, the tab is cut off); ``peer``: the link to
        tell of rejected definitions (none for a mediator's rewrite)."""
        if reading is None:
            reading = Reading(snap.tab_id, origin_of(snap.url))
        with self.stalls.work(reading.tab.origin if reading.tab else reading.origin):
            change = self.registry.commit(reading)
            self._apply(change)
        if change.rejected and peer is not None:
            self._report_rejections(peer, change)
        self._send_soon()

    def _send_soon(self) -> None:
        """A reading was put in after its frame's turn: send what it queued (reports, ended calls)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # driven without a loop (tests of the core): nothing to send on
            return
        self.hub.flush_soon()

    def _on_telemetry(self, peer: Peer, message: Telemetry) -> None:
        tab = self.registry.tab(message.tab_id)
        with self.stalls.work(message.origin or (tab.origin if tab else "")):
            self.telemetry_link.on_message(peer, message)

    def _report_rejections(self, peer: Peer, change: RegistryChange) -> None:
        text = "; ".join(f"{r.kind} {r.name!r}: {r.reason}" for r in change.rejected[:20])
        log.warning("tab %s: rejected %d definitions: %s", change.tab_id, len(change.rejected), text)
        tab = wire_tab_id(change.tab_id) if change.tab_id is not None else None  # the browser's own id
        self.session.report(peer, ErrorCode.INVALID_TOOL, text, ref=f"tab:{tab}")

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
        self.hub.handle(events)
        if change.changed:
            self._changed()

    def _arm_sweep(self) -> None:
        """One timer for the expiry of transient origins' state, re-armed while an extension is
        linked (the next handshake or registry change arms it again). It holds the core weakly:
        a bridge nobody uses any more is not kept alive by its timer."""
        if self._sweep is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # driven without a loop (tests of the core): the next change arms it
            return
        self._sweep = loop.call_later(self.retention.interval_s, _sweep_due, weakref.ref(self))

    def _swept(self) -> None:
        self._sweep = None
        try:
            self.retention.sweep()
        except Exception:  # the database may be busy or gone; the next sweep tries again
            log.exception("expiring the state of transient origins failed")
        if self.session.links:
            self._arm_sweep()

    # -- pairing (the control API: ``tabmcp pair``, launchers) ------------------------------

    async def confirm_pairing(self, code: str) -> Pairing:
        """The person typed ``code``: pair the connection that showed it (:meth:`Session.confirm_pairing`).

        Raises:
            PairingCodeWrong, PairingLocked: the code matches no pending request.
        """
        try:
            return self.session.confirm_pairing(code)
        finally:
            await self.hub.flush()

    async def forget_pairing(self, pairing_id: str) -> bool:
        """Remove a pairing; the link it admitted is closed. Whether it existed."""
        existed, events = self.session.forget_pairing(pairing_id)
        self.hub.handle(events)
        await self.hub.flush()
        return existed

    # -- the person's side (server/panel.py): only the extension link reaches it ------------

    def panel_state(self, query: PanelQuery | None = None) -> dict[str, Any]:
        """What the popup shows (:meth:`PersonPanel.state`)."""
        return self.panel.state(query)

    def sync_controls(self) -> None:
        """Pick up switches another process changed (:meth:`PersonPanel.sync_controls`)."""
        self.panel.sync_controls()

    def set_forms_as_tools(self, origin: str, enabled: bool) -> None:
        """The person's forms-as-tools choice for one origin (:meth:`PersonPanel.set_forms_as_tools`)."""
        self.panel.set_forms_as_tools(origin, enabled)

    # -- decisions another process wrote (server/shared_state.py) ---------------------------

    def follow_shared_state(self, changes: dict[str, int]) -> None:
        """Another connection wrote the database file: reload what another process changed (the
        switches, reachable sites, the trust pins and lockdown), so search, listings, calls and the
        popup see it; agents are told when their listing differs."""
        self.panel.sync_controls()
        self.panel.follow_secrets()  # tabmcp secrets set / unbind / remove: sign-in forms come or go
        self.secrets.refresh()  # ... and the values masked in answers follow the bindings (core/secrets.py)
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

    async def open_site(
        self, url: str, *, tool: str = "", timeout_s: float | None = None, focus: bool = False
    ) -> int:
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

    # -- requests: calls, approvals, page queries (each to the browser that owns the tab) ----

    @property
    def trace(self) -> bool:
        """Debug mode: calls carry hop timestamps (:data:`tabmcp.server.trace.TRACE`)."""
        return self.hub.trace

    @trace.setter
    def trace(self, on: bool) -> None:  # tests turn debug mode on for a running bridge
        self.hub.trace = on

    async def call_tool(
        self,
        entry: ToolEntry,
        arguments: dict[str, Any],
        *,
        timeout_s: float | None = None,
        client_id: str | None = None,
    ) -> PageJson:
        """Run a page tool in its tab and return the page's CallToolResult (page text: only the gate shows it).

        Raises:
            ToolCallError: a named failure (timeout, tab closed, navigation, disconnect,
                cancellation, or the page's own error).
        """
        trace = TRACE.get() if self.hub.trace else None
        call_trace = None
        if trace is not None:
            trace.append(("bridge.core", time.time_ns() / 1e6))
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
            result: PageJson = await self.hub.wait(call, traced=trace is not None)
        finally:
            if trace is not None:
                back = self.hub.trace_of(call.request_id)
                if back is not None:  # what was sent, the local stamps since ("bridge.sent"), the hops'
                    sent = len(call_trace or ())
                    trace[:] = [*back[:sent], *trace[sent:], *back[sent:]]
                trace.append(("bridge.resumed", time.time_ns() / 1e6))
        self.usage.record(entry.tab.origin, entry.tool.name)
        return result

    async def request_approval(
        self, entry: ToolEntry, arguments: dict[str, Any], reason: str, timeout_s: float, *,
        may_give_up: bool = False,
    ) -> tuple[bool, str]:
        """Ask the person at the tab (in its browser) to allow a call; ``(approved, why)``. Never raises.
        ``may_give_up``: nothing keeps the agent's client waiting (the window says so)."""
        try:
            approval = self.session.start_approval(
                tab_id=entry.tab.tab_id,
                document_id=entry.tab.document_id,
                origin=entry.tab.origin,
                frame_id=entry.tab.frame_id,
                tool_name=entry.tool.name,
                tool=entry.public_name,
                title=definition_text(entry.tool.title or entry.tool.name),
                description=definition_text(entry.tool.description),
                arguments=arguments,
                reason=for_person(reason),  # a changed definition's diff quotes the page
                timeout_s=timeout_s,
                may_give_up=may_give_up,
            )
            answer: tuple[bool, str] = await self.hub.wait(approval)
        except ToolCallError as exc:
            return False, exc.message
        return answer

    async def page_query(
        self, tab_id: int, kind: str, args: dict[str, Any] | None = None, timeout_s: float = 15.0
    ) -> PageValue:
        """Ask a tab's page something live (``dom``, ``page``, ``axe``, ``vitals``); its answer.

        Raises:
            ToolCallError: the tab closed or navigated, the extension went away, the page did
                not answer in time, or reported an error (``details`` name the tab).
        """
        tab = self.registry.tab(tab_id)
        query = self.session.start_query(
            tab_id=tab_id,
            document_id=tab.document_id if tab else None,
            kind=kind,
            args=args or {},
            timeout_s=timeout_s,
        )
        answer: PageValue = await self.hub.wait(query)
        return answer

    # -- what clients see ------------------------------------------------------------------

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
        encoded = self.listing_renderer.render(view, protocol_version=protocol_version, salt=(self.revision,))
        mask = self.secrets.mask_for(None)
        if not mask:  # no secret bound anywhere: the bytes as rendered
            return encoded
        # A page that received a secret's value may write it into a definition: the listing is page
        # text the agent reads, masked like every answer (one pass, remembered for these bytes).
        key = (id(encoded), id(mask))
        if self._masked_listing is None or self._masked_listing[0] != key:
            self._masked_listing = (key, encoded, mask, mask.text(encoded.decode("utf-8")).encode("utf-8"))
        return self._masked_listing[3]

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
            "browsers": [
                {
                    "browser": p.browser or None,
                    "profile": p.profile or None,
                    "slot": p.slot,
                    "version": p.hello.extension_version if p.hello else None,
                }
                for p in self.session.links.values()
            ],
            **self.registry.counts(),
            **self.registry.closed_site_counts(),
            # `tabmcp doctor`: whether a connected browser runs native WebMCP (the polyfill says per page).
            "nativeTabs": sum(1 for tab in self.registry.tabs.values() if tab.native),
            "pendingCalls": len(self.calls),
            "profile": self.disclosure.profile,
            "controls": self.controls.state().to_dict(),
            "activity": [e.to_dict() for e in self.activity.latest(STATUS_ACTIVITY)],
            "loop": self.stalls.status(),
        }


def _in_slot(slot: int, tab_id: int) -> bool:
    return slot_of(tab_id) == slot


def _read(snap: TabSnapshot, browser: tuple[str, str]) -> Reading:
    """One snapshot read on the reader's thread: its definitions, and its texts split for search."""
    reading = Registry.read(snap, browser=browser)
    if reading.tab is not None:
        warm_search(reading.tab)
    return reading


def _sweep_due(core: weakref.ref[BridgeCore]) -> None:
    target = core()
    if target is not None:
        target._swept()
