"""How a registry change fans out (one job): closed and navigated tabs end their requests, telemetry,
sites and the trust pins' retention learn of it, and the change listeners (the MCP layer's
notifier) are told. Built by the composition root (tabmcp/wiring.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.extension_links import Event, ExtensionLinks
from ..core.registry import Registry, RegistryChange
from ..core.trust.retention import Retention
from .hub import Hub
from .site_opening import SiteLink
from .telemetry import TelemetryLink

if TYPE_CHECKING:
    from ..mediation import Mediation

__all__ = ["ChangeListeners", "RegistryFanOut"]

log = logging.getLogger("tabmcp.core")


class ChangeListeners:
    """Who is told after every page-driven change of what tools/list shows."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[], None]] = []

    def add(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` after every page-driven change of the registry; returns a remover."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def changed(self) -> None:
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:  # a listener's bug must not stop the bridge
                log.exception("change listener failed")


class RegistryFanOut:
    """A registry change to everything that follows the registry."""

    def __init__(self, registry: Registry, session: ExtensionLinks, hub: Hub, *, telemetry_link: TelemetryLink,
                 mediation: Mediation, site_link: SiteLink, retention: Retention,
                 arm_sweep: Callable[[], None], changed: Callable[[], None]) -> None:
        self.registry = registry
        self.session = session
        self.hub = hub
        self.telemetry_link = telemetry_link
        self.mediation = mediation
        self.site_link = site_link
        self.retention = retention
        self._arm_sweep = arm_sweep
        self._changed = changed

    def apply(self, change: RegistryChange) -> None:
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
