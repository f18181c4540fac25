"""The registry's records: a tab's document (:class:`Tab`), a page tool or category under its public
name (:class:`ToolEntry`, :class:`CategoryEntry`), a snapshot read and not yet committed
(:class:`Reading`), what one update did (:class:`RegistryChange`), and the origin a document is of.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from ..protocol import FrameSnapshot, TabSnapshot
from .budget import BudgetScope
from .models import (
    PageCategory,
    PageTool,
    Rejection,
)
from .trust.gate import definition_text
from .trust.text import PageText

__all__ = [
    "CategoryEntry",
    "ClosedSite",
    "Reading",
    "RegistryChange",
    "SourceKey",
    "Tab",
    "ToolEntry",
    "origin_of",
    "snapshot_origin",
    "trusted_url",
]

SourceKey = tuple[int, int]
"""``(tab_id, frame_id)``: one document that offers tools (frame 0 is the tab's top document)."""


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower-cased, default port dropped (as Chrome spells
    origins, and as :func:`tabmcp.core.switches.normalize_origin` does); ``"file://"`` for file
    URLs; ``""`` for URLs without one (``about:blank``). User info never counts as the host."""
    try:
        parts = urlsplit(str(url).strip())
        port = parts.port
    except ValueError:
        return ""
    scheme = parts.scheme.lower()
    if scheme == "file":
        return "file://"
    host = (parts.hostname or "").lower()  # hostname drops "user:pass@" and lower-cases
    if not scheme or not host:
        return ""
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != _DEFAULT_PORTS.get(scheme) else "")


def snapshot_origin(snap: TabSnapshot | FrameSnapshot) -> str:
    """A document's origin: Chrome's word for it (``origin``) when the extension sent one, never
    the URL the page itself reported (a page script can claim any URL); the URL's for old
    extensions that send no origin."""
    chrome = origin_of(snap.origin) if snap.origin and snap.origin != "null" else ""
    return chrome or origin_of(snap.url)


def trusted_url(snap: TabSnapshot | FrameSnapshot, origin: str) -> str:
    """The page's URL if it is of the origin Chrome reported, else just that origin (a page that
    claims another site's URL does not get to show it)."""
    return snap.url if origin_of(snap.url) == origin else origin


@dataclass(frozen=True)
class ClosedSite:
    """What a closed site's document knows beyond its tools: where each tool was last registered."""

    urls: tuple[tuple[str, str], ...] = ()
    """``(tool name, URL of the document that registered it)``, the URL a call of it opens."""

    def url_of(self, tool: str, default: str = "") -> str:
        return next((url for name, url in self.urls if name == tool), default)


@dataclass(frozen=True)
class Tab:
    """One tab's top-level document as last reported by the extension."""

    tab_id: int
    url: PageText
    title: PageText
    origin: str
    document_id: str | None
    native: bool
    active: bool
    states: tuple[PageText, ...]
    tools: dict[str, PageTool]
    categories: dict[str, PageCategory]
    rejected: tuple[Rejection, ...] = ()
    focused: bool = False
    frame_id: int = 0
    """0 for a tab's top-level document; a child frame's id otherwise."""
    frames: tuple[Tab, ...] = ()
    """The child frames whose tools the top page allows (each a ``Tab`` with ``frame_id > 0``)."""
    closed_site: ClosedSite | None = None
    """Set on the stand-in of a reachable site with no open tab (its ``tab_id`` is negative)."""

    @property
    def is_open(self) -> bool:
        """A real tab's document, not a closed site's stand-in."""
        return self.closed_site is None
    forms_origin: str = ""
    """The origin Chrome gave the document that sent page forms (``TabSnapshot.forms.origin``)."""
    browser: str = ""
    """The browser that holds the tab (``chromium``, ``firefox``; ``""``: its link did not say)."""
    profile: str = ""
    """Which profile of it (a short stable name; ``""``: not said)."""

    @property
    def key(self) -> SourceKey:
        """Identifies this document among every tab's documents: ``(tab_id, frame_id)``."""
        return (self.tab_id, self.frame_id)

    def documents(self) -> tuple[Tab, ...]:
        """This document and its allowed child frames."""
        return (self, *self.frames)

    def source_meta(self) -> dict[str, object]:
        # The URL is checked with the definitions it travels with; the title is not listed (it is
        # the page's text, not a definition: introspect shows it through the gate).
        url = definition_text(self.url)
        if self.closed_site is not None:  # no tab yet: a call opens ``url`` in a background tab
            return {"origin": self.origin, "url": url, "open": False}
        meta: dict[str, object] = {"tabId": self.tab_id, "origin": self.origin, "url": url}
        if self.frame_id:
            meta["frameId"] = self.frame_id
        if self.browser:
            meta["browser"] = self.browser
        if self.profile:
            meta["profile"] = self.profile
        return meta


@dataclass(frozen=True)
class ToolEntry:
    """A page tool under its public name."""

    public_name: str
    tab: Tab
    tool: PageTool

    @property
    def category(self) -> PageCategory | None:
        name = self.tool.category
        return self.tab.categories.get(name) if name else None


@dataclass(frozen=True)
class CategoryEntry:
    """A page category under its public name, with its member tools."""

    public_name: str
    tab: Tab
    category: PageCategory
    members: tuple[ToolEntry, ...]


@dataclass(frozen=True)
class Reading:
    """One snapshot read (:meth:`Registry.read`), not yet in the registry (:meth:`Registry.commit`)."""

    tab_id: int
    origin: str
    """The origin the per-tab work rule keys on (the snapshot's URL's, as :meth:`Registry.cut_off`)."""
    tab: Tab | None = None
    """``None``: not read (the tab was cut off when it came)."""
    scope: BudgetScope | None = None
    """What its checks spent (the per-tab rule counts the overruns when it is committed)."""


@dataclass(frozen=True)
class RegistryChange:
    """What one update did. ``changed`` is True when any listing may differ."""

    changed: bool
    tab_id: int | None = None
    closed: tuple[int, ...] = ()
    navigated: tuple[int, ...] = ()
    """Tabs whose document changed: calls pending in the old document cannot complete."""
    rejected: tuple[Rejection, ...] = ()
    unread: tuple[int, ...] = ()
    """Tabs whose snapshot was not put in (cut off for work over budget): they stay as last read,
    so the bridge does not hold the revision that snapshot came with (core/tab_revisions.py)."""

