"""Reachable sites on the extension link: the popup's list, the person's choices, opening a site.

The rules are :class:`tabmcp.core.reachable_sites.Sites`; this module wires them to the link and
runs :meth:`SiteLink.open` one origin at a time.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..config import Config
from ..core.extension_links import Event, ExtensionLinks, PendingRequest
from ..core.reachable_sites import Sites, how_to_allow, same_page
from ..core.registry import Registry, origin_of
from ..errors import SiteNotReachable, SiteToolGone
from ..protocol import SiteForget, SitePermission, SitesList
from ..storage.sites import SiteStore

if TYPE_CHECKING:
    from ..core.trust.pins import Pins
    from ..storage.database import UsageStore

__all__ = ["SiteLink"]


class SiteLink:
    """The reachable sites of one bridge core, on its extension link.

    Args:
        changed: agents' listings may differ now (the bridge core notifies its listeners).
        flush_soon: send what the session queued, from synchronous code.
        wait: send a pending request and wait for the session to end it (the hub's futures).
    """

    def __init__(
        self,
        config: Config,
        registry: Registry,
        session: ExtensionLinks,
        *,
        pins: Pins,
        usage: UsageStore,
        db_path: str | os.PathLike[str],
        changed: Callable[[], None],
        flush_soon: Callable[[], None],
        wait: Callable[[PendingRequest], Awaitable[Any]],
    ) -> None:
        self.sites = Sites(config.policy, pins, SiteStore(db_path), usage=usage)
        self._settings = config.sites
        self._registry = registry
        self._session = session
        self._changed = changed
        self._flush_soon = flush_soon
        self._wait = wait
        self._sent: list[dict[str, Any]] | None = None
        self._locks: dict[str, asyncio.Lock] = {}
        self._version = -1
        registry.set_closed_sites(self.sites.closed_tabs())

    # -- the link and the registry -------------------------------------------------------

    def connected(self) -> None:
        """A new link starts with no list: it goes out if there are any sites."""
        self._sent = []
        self.send()

    def registry_changed(self) -> None:
        """The registry changed: closed sites' stand-ins follow; new tools of a reachable site
        change the popup's list."""
        self._registry.set_closed_sites(self.sites.refresh(self._registry))
        if self.sites.version != self._version:
            self._version = self.sites.version
            self.send()

    def changed(self) -> None:
        """A site was allowed, forgotten or marked stale: the closed sites' tools follow."""
        if self._registry.set_closed_sites(self.sites.refresh(self._registry)).changed:
            self._changed()
        self.send()
        self._flush_soon()

    def send(self) -> None:
        """The popup's list of reachable sites, when it changed since last sent."""
        if not self._session.ready:
            return
        listed = [s.to_dict() for s in self.sites.list(self._registry)]
        if listed != self._sent:
            self._sent = listed
            self._session.send(None, SitesList(sites=listed))

    def on_message(self, message: SitePermission | SiteForget) -> None:
        """The person allowed, refused or forgot a site in the popup."""
        if isinstance(message, SitePermission):
            self.sites.allow(message.origin, message.reachable)
        else:
            self.sites.forget(message.origin)
        self.changed()

    def opened_tabs(self) -> list[Event]:
        """Tell the session what each tab opened for a site offers now (it ends the waits it can)."""
        events: list[Event] = []
        for request in self._session.opening():
            tab = self._registry.tab(request.tab_id)
            if tab is not None:
                events += self._session.site_tools(request, tab.origin, frozenset(tab.tools))
        return events

    # -- opening a site --------------------------------------------------------------------

    async def open(self, url: str, *, tool: str = "", timeout_s: float | None = None,
                   focus: bool = False) -> int:
        """Open a reachable site's ``url`` in a background agent tab and wait until ``tool`` is
        registered there (``""``: until registration settles); the tab's id.

        Raises:
            SiteNotReachable: the person did not let agents open this origin.
            ToolCallError: ``SITE_NOT_REGISTERED``, ``SITE_TOOL_GONE`` (the tool is then marked
                stale), ``SITE_REDIRECTED``, ``TAB_CLOSED``, ``EXTENSION_DISCONNECTED``, ``CANCELLED``.
        """
        origin = origin_of(url)
        if not self.sites.reachable(origin):
            raise SiteNotReachable(f"agents may not open {origin or url}: {how_to_allow(origin or url)}",
                                   origin=origin or None)
        # One open per origin at a time: a second call for the same site waits, then uses the tab
        # the first opened (or one the person opened meanwhile) if it offers the tool.
        async with self._locks.setdefault(origin, asyncio.Lock()):
            if tool and not focus:
                for tab in self._registry.tabs.values():
                    if tab.origin == origin and tool in tab.tools:
                        return tab.tab_id
            return await self._open(url, origin, tool, timeout_s, focus)

    async def _open(self, url: str, origin: str, tool: str, timeout_s: float | None, focus: bool) -> int:
        settings = self._settings
        request = self._session.start_open(
            url=url, origin=origin, tool=tool, timeout_s=timeout_s or settings.open_timeout_s,
            settle_s=settings.settle_s, max_agent_tabs=settings.max_agent_tabs,
            idle_close_s=settings.idle_close_s, group_title=settings.group_title, focus=focus,
        )
        try:
            tab_id: int = await self._wait(request)
        except SiteToolGone as gone:
            # Stale only if the tool's own page settled without it: a site is many pages, and the
            # page opened (or the page it moved to) may be another one of them.
            tab = self._registry.tab(gone.details.get("tab_id", -1))
            settled_on = tab.url if tab is not None else url
            if same_page(settled_on, self.sites.document_url(origin, tool) or url):
                self.sites.mark_stale(origin, tool)
                self.changed()
            raise
        return tab_id
