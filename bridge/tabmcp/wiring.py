"""The composition root: the bridge's collaborators, built once, for the bridge and for tests.

:class:`BridgeCore` builds every core object, the :class:`tabmcp.server.hub.Hub` and the
one-job services, handing each its hooks. It is also the facade the MCP layer and the
built-in tools see (:class:`tabmcp.core.tools.Bridge`). Tests build one with no socket
(``BridgeCore(config)``).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Any

from . import __version__
from .config import Config
from .core.activity import FLUSH_DELAY_S as ACTIVITY_FLUSH_DELAY_S
from .core.disclosure import ClientView, Disclosure
from .core.extension_links import Disconnected, Event, ExtensionLinks, HandshakeDone, KindView, Peer
from .core.listing_json import ListingRenderer
from .core.page_forms import FormsPolicy
from .core.pairing import Pairing, Pairings
from .core.reachable_sites import Sites
from .core.registry import CategoryEntry, Registry, ToolEntry
from .core.scoping import PolicyCheck
from .core.search import SearchIndex
from .core.search.sync import IndexSync
from .core.secrets import Mask, Secrets
from .core.stalls import StallMeter
from .core.telemetry import SnapshotStore, TelemetryState
from .core.tools import RESERVED_NAMES
from .core.trust.guard import TrustGuard
from .core.trust.pins import PinLimits, Pins
from .core.trust.retention import Retention
from .errors import SecretStoreUnavailable
from .mediation import Mediation, ToolMiddleware, load_mediator
from .protocol import (
    PROTOCOL_VERSION,
    ControlSet,
    FormsSet,
    PanelQuery,
    SiteForget,
    SitePermission,
    TabClosedMessage,
    TabsSync,
    TabUpdate,
    Telemetry,
)
from .server.calls import PageRequests
from .server.changes import ChangeListeners, RegistryFanOut
from .server.hub import Hub, Link
from .server.intake import RegistryIntake
from .server.link_timers import LinkTimers
from .server.person_link import PersonLink
from .server.reader import OffLoop
from .server.shared_state import SharedStateWatch
from .server.site_opening import SiteLink
from .server.telemetry import TelemetryLink
from .server.trace import trace_enabled
from .server.write_behind import WriteBehind
from .storage.build import activity_log, person_controls, search_stores
from .storage.database import FormsSwitchStore, SqlitePairings, UsageStore, default_db_path
from .storage.secret_store import SecretStore
from .storage.trust import TrustStore

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
        self.listeners = ChangeListeners()
        """Told after every page-driven change of the registry (server/changes.py)."""
        self.add_change_listener = self.listeners.add
        self.stalls = StallMeter()
        """The event loop's stalls and the origins whose work filled them (core/stalls.py; its timer,
        server/loop_watch.py, runs while the bridge serves)."""
        # a tab's snapshot on the loop: charged to its origin
        self.registry = Registry(reserved_names=RESERVED_NAMES, charge=self.stalls.work)
        self.reader = OffLoop()
        """Reads the pages' snapshots on a worker thread, puts them in on the loop in arrival order
        (server/reader.py): every registry change a link's message makes goes through it."""
        self.session_id = secrets.token_hex(8)
        self.pairings = Pairings(
            SqlitePairings(db_path), token=config.server.extension_token or None, control_key=control_key
        )
        """Who may be the extension: paired installs, launchers' pairings, the pre-shared token
        (core/pairing.py)."""
        self.session = ExtensionLinks(session_id=self.session_id, bridge_version=__version__, pairing=self.pairings,
                                      read_apart=True)
        self.hub = Hub(self.session, trace=trace_enabled(), work=self.stalls.work, off_loop=self.reader.submit,
                       on_connected=self._connected,
                       on_disconnected=self._disconnected, after=self._opened_tabs)
        """The links' I/O (server/hub.py)."""
        self.activity = activity_log(  # agent calls that reach a page, redacted as telemetry is
            config.store.path, max_rows=config.store.activity_rows, redactor=lambda: self.telemetry.redactor,
            on_pending=lambda: self.activity_writer.poke(),
            flush_soon=lambda: self.activity_writer.soon(),  # a full batch: after the answer, not before it
        )
        self.activity_writer = WriteBehind(
            self.activity.flush, delay_s=ACTIVITY_FLUSH_DELAY_S, name="activity"
        )
        """Writes the activity batch within a second of a call, with or without later calls."""
        self.controls = person_controls(config.store.path)
        """The person's switches (popup, ``tabmcp controls``)."""
        self.forms_switches = FormsSwitchStore(config.store.path)
        self.forms = FormsPolicy(config.policy.origins, self.forms_switches.all(),
                                 has_secret=lambda origin: bool(self.secrets.names_for(origin)))
        """Which origins' ordinary forms are offered as tools."""
        self.policy_check = PolicyCheck(config.policy, config.trust, self.forms, controls=self.controls)
        """Policy, the person's switches and forms, applied to every entry (core/scoping.py)."""
        self.panel = PersonLink(
            self.registry,
            self.session,
            self.activity,
            controls=self.controls,
            forms=self.forms,
            forms_switches=self.forms_switches,
            policy_check=self.policy_check,
            changed=self.listeners.changed,
            touch=lambda: self.fan_out.apply(self.registry.touch()),
            flush_soon=self.hub.flush_soon,
            trust=lambda: self.trust,
            secrets=lambda: self.secrets,
        )
        """The person's side: the popup's panel, their switches, forms as tools (server/person_link.py)."""
        self.usage = UsageStore(config.store.path)
        self.requests = PageRequests(config, self.registry, self.session, self.hub, self.usage)
        """Calls, approvals and page queries, each to the browser that owns the tab (server/calls.py)."""
        self.call_tool = self.requests.call_tool
        self.request_approval = self.requests.request_approval
        self.page_query = self.requests.page_query
        self.secrets = Secrets(_secret_store(config))
        self._masked_listing: tuple[tuple[int, int], bytes, Mask, bytes] | None = None
        """The last listing masked (:meth:`listing_json`), with the bytes and mask it was made of."""
        """Secrets by name: names and sites in the database, values in the keychain (core/secrets.py)."""
        core_n = config.disclosure.core_from_usage
        self.telemetry_link = TelemetryLink(
            config, self.registry, self.session, changed=self.listeners.changed, flush_soon=self.hub.flush_soon
        )
        """Telemetry on the link: batches in, page config out, closed tabs kept (server/telemetry.py)."""
        # an origin the person allowed as a site, or turned forms-as-tools on for: its pins never go
        self.pins = Pins(TrustStore(db_path), PinLimits.of(config.trust), trusted=lambda origin: (
            self.site_link.sites.reachable(origin) or self.forms.enabled(origin)
        ))
        """The trust pins: last-seen definitions per origin + tool (the trust guard shares them)."""
        self.trust = TrustGuard(config.trust, pins=self.pins)  # one pins table, one cache
        """The trust defences: the call path's gate, the listings' marks; the popup shows and clears them."""
        self.disclosure = Disclosure(
            self.registry,
            profile=config.disclosure.profile,
            policy_check=self.policy_check,
            core_tools=config.disclosure.core_tools,
            usage_core=(lambda: self.usage.top_set(core_n)) if core_n else None,
            extra_tools=self.telemetry_link.definitions,
            extra_key=self.telemetry_link.definitions_key,
            definition_hook=self.trust.mark_definition,
            hook_version=lambda: self.trust.version,
        )
        self.listing_renderer = ListingRenderer(self.disclosure)
        """tools/list as ready-made JSON bytes (:meth:`listing_json`)."""
        self.site_link = SiteLink(
            config,
            self.registry,
            self.session,
            pins=self.pins,
            usage=self.usage,
            db_path=db_path,
            changed=self.listeners.changed,
            flush_soon=self.hub.flush_soon,
            wait=self.hub.wait,
        )
        """Reachable sites on the link: the popup's list, the person's choices, opening (server/site_opening.py)."""
        self.retention = Retention(self.pins, self.usage)
        """Expiry of the pins and usage of origins the person never trusted (core/trust/retention.py)."""
        self.shared_state = SharedStateWatch(db_path, self.follow_shared_state)
        """Follows what the CLI changes in the database file while the bridge runs
        (server/shared_state.py)."""
        self.search_sync = IndexSync(
            self.registry, semantic=config.search.semantic, stores=search_stores(config.store.path)
        )
        self.mediation = Mediation(on_enhanced=lambda snap: self.intake.enhanced(snap))
        if config.mediator.enabled:  # the [mediator] section: its middleware, before any tab comes in
            middleware, mode = load_mediator(config.mediator.mediator_settings())
            self.mediation.set_middleware(middleware, mode=mode, timeout_s=config.mediator.timeout_s)
        self._trust_mark: int | None = None
        self.link_timers = LinkTimers(config, self.session, self.reader, self.registry, self.retention,
                                      apply=lambda change: self.fan_out.apply(change))
        """The sweep of transient origins' state and the reconnect grace (server/link_timers.py)."""
        self.fan_out = RegistryFanOut(
            self.registry, self.session, self.hub, telemetry_link=self.telemetry_link, mediation=self.mediation,
            site_link=self.site_link, retention=self.retention, arm_sweep=self.link_timers.arm_sweep,
            changed=self.listeners.changed,
        )
        """A registry change to everything that follows the registry (server/changes.py)."""
        self.intake = RegistryIntake(self.registry, self.reader, self.mediation, self.stalls, self.session,
                                     self.hub, apply=self.fan_out.apply)
        """The links' tab messages read and put in the registry (server/intake.py)."""
        self._wire()

    def _wire(self) -> None:
        """The hub's one table: each wire message to its handler."""
        hub = self.hub
        hub.on(TabsSync, handler=self.intake.on_sync)
        hub.on(TabUpdate, handler=self.intake.on_update)
        hub.on(TabClosedMessage, handler=self.intake.tab_closed)
        hub.on(
            SitePermission, SiteForget, handler=lambda _peer, m: self.site_link.on_message(m)
        )  # the person, in the popup
        hub.on(FormsSet, handler=self.panel.forms_set)
        hub.on(Telemetry, handler=self._on_telemetry)
        hub.on(PanelQuery, ControlSet, handler=self.panel.on_message)

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
        if self.intake.enhancing:
            await self.reader.drain()

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

    # -- change fan-out (server/changes.py) ---------------------------------------------

    @property
    def revision(self) -> int:
        """Grows with every page-driven change of what tools/list shows (the registry's version plus
        telemetry availability changes); listings and notifications carry it, so a client can tell
        a notification of the state it saw from an older one."""
        return self.registry.version + self.telemetry_link.revision + self.panel.revision

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
        self.link_timers.came_back(peer)
        self.intake.second_browser(peer)
        self.telemetry_link.connected(peer)
        self.panel.connected(peer)
        self.site_link.connected()
        self.link_timers.arm_sweep()

    def _disconnected(self, event: Disconnected) -> None:
        peer = event.peer
        if not self.session.ready:
            self.panel.disconnected()
        self.link_timers.start_grace(peer)

    def _opened_tabs(self) -> list[Event]:
        return self.site_link.opened_tabs() if self.session.opening() else []

    # -- telemetry on the link (tabs' readings: server/intake.py) ---------------------------

    def _on_telemetry(self, peer: Peer, message: Telemetry) -> None:
        tab = self.registry.tab(message.tab_id)
        with self.stalls.work(message.origin or (tab.origin if tab else "")):
            self.telemetry_link.on_message(peer, message)

    # -- pairing (the control API: ``tabmcp pair``, launchers) ------------------------------

    async def confirm_pairing(self, code: str) -> Pairing:
        """The person typed ``code``: pair the connection that showed it (:meth:`ExtensionLinks.confirm_pairing`).

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

    # -- the person's side (server/person_link.py): only the extension link reaches it ------------

    def panel_state(self, query: PanelQuery | None = None) -> dict[str, Any]:
        """What the popup shows (:meth:`PersonLink.state`)."""
        return self.panel.state(query)

    def sync_controls(self) -> None:
        """Pick up switches another process changed (:meth:`PersonLink.sync_controls`)."""
        self.panel.sync_controls()

    def set_forms_as_tools(self, origin: str, enabled: bool) -> None:
        """The person's forms-as-tools choice for one origin (:meth:`PersonLink.set_forms_as_tools`)."""
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
            self.trust.reload()
            self.panel.trust_changed()
        self._trust_mark = trust

    # -- reachable sites (server/site_opening.py) --------------------------------------------------

    @property
    def sites(self) -> Sites:
        """The reachable sites' rules and records (core/reachable_sites.py)."""
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
    def telemetry(self) -> TelemetryState:
        """The telemetry buffers (core/telemetry)."""
        return self.telemetry_link.store

    @telemetry.setter
    def telemetry(self, store: TelemetryState) -> None:  # the benches swap in filled buffers
        self.telemetry_link.use_store(store)

    @property
    def sessions(self) -> SnapshotStore:
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
        self.hub.set_trace(on)

    # -- what clients see ------------------------------------------------------------------

    def listing(self, view: ClientView | None = None, *, profile: str | None = None) -> list[Mapping[str, Any]]:
        """tools/list for a client (:meth:`Disclosure.listing`)."""
        return self.disclosure.listing(view, profile=profile)  # type: ignore[arg-type]

    def listing_json(self, view: ClientView | None = None, *, protocol_version: str) -> bytes:
        """The UTF-8 JSON of the ``tools`` array the MCP SDK would send for :meth:`listing` of ``view``.

        Built from per-document bytes kept across calls, so a change re-encodes only its tab
        (:class:`tabmcp.core.listing_json.ListingRenderer`). Await :meth:`settle` first.

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


