"""Telemetry on the extension link: batches in, page config out, tabs' info and closed tabs kept.

The buffers and tools are :mod:`tabmcp.core.telemetry`; this wires them to the link and the
registry (a bad batch is reported to the extension, not raised).
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from ..config import Config
from ..core.disclosure import ClientView
from ..core.extension_links import ExtensionLinks, Peer
from ..core.registry import Registry
from ..core.telemetry import MalformedBatch, TelemetryState, build_tool_definitions
from ..protocol import Telemetry, TelemetryConfig
from ..storage.snapshots import SqliteSnapshots

__all__ = ["KEEP_CLOSED_TABS", "TelemetryLink"]

KEEP_CLOSED_TABS = 10
"""Closed tabs whose telemetry is kept (newest first); older ones are forgotten."""


class TelemetryLink:
    """The telemetry of one bridge core, on its extension link.

    Args:
        changed: agents' listings may differ now (telemetry tools appear or disappear).
        flush_soon: send what the session queued, from synchronous code.
    """

    def __init__(
        self,
        config: Config,
        registry: Registry,
        session: ExtensionLinks,
        *,
        changed: Callable[[], None],
        flush_soon: Callable[[], None],
    ) -> None:
        self.store = TelemetryState(config.telemetry)
        self.store.add_listener(self._store_changed)
        self.sessions = SqliteSnapshots(config.telemetry.session_db or config.store.path or ":memory:")
        self._registry = registry
        self._session = session
        self._changed = changed
        self._flush_soon = flush_soon
        self._closed_tabs: collections.deque[int] = collections.deque()
        self._revision = 0
        self._page_config: dict[str, Any] | None = None

    @property
    def revision(self) -> int:
        """Grows with every change of telemetry availability (part of ``BridgeCore.revision``)."""
        return self._revision

    def use_store(self, store: TelemetryState) -> None:
        """Serve ``store`` from now on (the benches swap in filled buffers)."""
        self.store = store

    def _store_changed(self) -> None:
        self._revision += 1
        self._changed()

    # -- the link --------------------------------------------------------------------------

    def connected(self, peer: Peer) -> None:
        """A new link: its pages get the current config."""
        self._page_config = self.store.settings.page_config()
        self._session.send(peer, TelemetryConfig(config=self._page_config))

    def on_message(self, peer: Peer, message: Telemetry) -> None:
        """One batch from the pages; a malformed one is reported to the extension."""
        try:
            self.store.ingest(message)
        except MalformedBatch as exc:
            self._session.report(peer, exc.code, exc.message, ref="telemetry")

    def config_changed(self) -> None:
        """The telemetry settings may have changed: send the pages their new config if it did."""
        config = self.store.settings.page_config()
        if config == self._page_config:
            return
        self._page_config = config
        if self._session.ready:
            self._session.send(None, TelemetryConfig(config=config))
            self._flush_soon()

    # -- the registry ------------------------------------------------------------------------

    def registry_changed(self) -> None:
        """Each tab's URL, title and focus, as the registry now has them."""
        for tab in self._registry.tabs.values():
            self.store.set_tab_info(tab.tab_id, url=tab.url, title=tab.title)
            if tab.focused:
                self.store.focus(tab.tab_id)

    def tab_closed(self, tab_id: int) -> None:
        """Keep a closed tab's telemetry for a while (the agent may ask what went wrong), then
        drop it: only the most recently closed ``KEEP_CLOSED_TABS`` stay, so memory stays bounded."""
        if tab_id in self._closed_tabs:
            return
        self._closed_tabs.append(tab_id)
        while len(self._closed_tabs) > KEEP_CLOSED_TABS:
            old = self._closed_tabs.popleft()
            if self._registry.tab(old) is None:
                self.store.forget_tab(old)

    def definitions(self, view: ClientView) -> list[dict[str, Any]]:
        """The telemetry tools a client's listing shows (disclosure's ``extra_tools``)."""
        return build_tool_definitions(
            self.store.counts(),
            dynamic=view.dynamic,
            observed=view.exposure.observed,
            exposure_enabled=self.store.settings.dynamic_exposure,
        )

    def definitions_key(self, view: ClientView) -> tuple[Any, ...]:
        """All :meth:`definitions` depends on, cheaply (equal keys, equal definitions): listing
        caches key on it instead of building and fingerprinting the definitions."""
        return (self.store.counts(), view.dynamic, view.exposure.observed, self.store.settings.dynamic_exposure)

    def focused_tab(self) -> int | None:
        """The tab the person looks at (:meth:`Registry.focused_tab`)."""
        return self._registry.focused_tab(self.store.current_tab_id)
