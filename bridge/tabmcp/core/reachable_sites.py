"""Reachable sites: origins the person lets agents open, their last-seen tools, and the rules.

People think in sites, not tabs: a reachable origin's tools stay findable with no tab open (as a
closed-site document in the registry), and a call of one opens the page that registered it. Off
by default, only the person makes an origin reachable; the rules are in docs/security.md §4b.
No I/O: storage goes through a :class:`~tabmcp.core.stores.SiteTable` and the trust pins.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from .lru import LRU
from .models import PageCategory, PageTool, parse_tool
from .registry import ClosedSite, Registry, Tab, origin_of
from .scoping import PolicySettings
from .stores import SiteTable, UsageCounts
from .trust.pins import Pins, definition_of
from .trust.text import PageText

__all__ = [
    "SiteInfo", "SiteTool", "Sites", "how_to_allow", "open_tool_names", "same_page", "site_category_name",
]

_SEEN_MAX = 20_000
MAX_CLOSED_SITE_TOOLS = 500
"""At most this many stored tools per closed site are offered (the newest seen first)."""


def how_to_allow(origin: str) -> str:
    """What the person does to let agents open ``origin`` (said in every SITE_NOT_REACHABLE)."""
    return (
        f"the person can allow it: open a page of {origin} and turn on \"Agents may open this site\" in the "
        f"tabmcp popup, or add to the config file: [[policy.origins]] match = \"{origin}\" reachable = true"
    )


def site_category_name(origin: str) -> str:
    """The one category a closed site's tools are gathered in (``site_ferry_test_8443``)."""
    parts = urlsplit(origin)
    host = (parts.hostname or "site").replace(".", "_").replace("-", "_")
    return f"site_{host}" + (f"_{parts.port}" if parts.port else "")


def open_tool_names(docs: Iterable[Tab]) -> dict[str, frozenset[str]]:
    """Origin → the tool names its open documents offer now (origins offering none left out)."""
    names: dict[str, set[str]] = {}
    for doc in docs:
        if doc.is_open and doc.tools:
            names.setdefault(doc.origin, set()).update(doc.tools)
    return {origin: frozenset(tools) for origin, tools in names.items()}


def same_page(a: str, b: str) -> bool:
    """Do two URLs name the same page (scheme, host, port and path; query and fragment aside)?"""
    pa, pb = urlsplit(a), urlsplit(b)
    return (pa.scheme, pa.netloc, pa.path or "/") == (pb.scheme, pb.netloc, pb.path or "/")


@dataclass(frozen=True)
class SiteTool:
    """One stored tool of a site, as the person sees it (``tabmcp sites``, the popup)."""

    name: str
    url: str
    last_seen: float
    stale: bool

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "url": self.url, "lastSeen": self.last_seen, "stale": self.stale}


@dataclass(frozen=True)
class SiteInfo:
    origin: str
    reachable: bool
    allowed_by: Literal["config", "person", ""]
    open: bool
    tools: tuple[SiteTool, ...] = field(default=())

    @property
    def last_seen(self) -> float | None:
        return max((t.last_seen for t in self.tools), default=None)

    def pages(self) -> dict[str, tuple[SiteTool, ...]]:
        """The site's tools by the page that registered them (query and fragment aside): pages in
        the order their newest tool was seen, tools by name."""
        pages: dict[str, list[SiteTool]] = {}
        for tool in sorted(self.tools, key=lambda t: (-t.last_seen, t.name)):
            parts = urlsplit(tool.url)
            pages.setdefault(f"{parts.scheme}://{parts.netloc}{parts.path or '/'}", []).append(tool)
        return {url: tuple(sorted(tools, key=lambda t: t.name)) for url, tools in pages.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "origin": self.origin,
            "reachable": self.reachable,
            "allowedBy": self.allowed_by or None,
            "open": self.open,
            "lastSeen": self.last_seen,
            "tools": [t.to_dict() for t in self.tools],
            "pages": [{"url": url, "tools": [t.name for t in tools]} for url, tools in self.pages().items()],
        }


class Sites:
    """Which origins agents may open, and the stand-ins of those that are closed.

    Args:
        policy: the ``[policy]`` settings (``[[policy.origins]]`` with ``reachable``/``enabled``).
        pins: the trust pins: where last-seen definitions and their document URLs live.
        store: the person's permissions and the stale marks.
        usage: the usage counts (``forget`` removes a site's).
    """

    def __init__(
        self, policy: PolicySettings, pins: Pins, store: SiteTable, usage: UsageCounts | None = None
    ) -> None:
        self.policy = policy
        self.pins = pins
        self.store = store
        self.usage = usage
        self.version = 0
        """Goes up when what :meth:`closed_tabs` returns may change (new tools, permissions, stale)."""
        self._allowed = store.allowed()
        self._seen: LRU[tuple[str, str], PageTool] = LRU(_SEEN_MAX)  # a miss observes the pin again
        self._ids: dict[str, int] = {}
        self._cache: tuple[Any, list[Tab]] | None = None
        self._mark = store.changes()

    # -- permission ------------------------------------------------------------------------

    def _rules(self, origin: str) -> list[Any]:
        return [r for r in self.policy.origins if fnmatch.fnmatchcase(origin, r.match)]

    def allowed_by(self, origin: str) -> Literal["config", "person", ""]:
        """Who made ``origin`` reachable (``""``: nobody, or a policy rule disables the origin)."""
        if not origin or not origin.startswith(("http://", "https://")):
            return ""
        rules = self._rules(origin)
        if not all(r.enabled for r in rules):
            return ""
        if any(r.reachable for r in rules):
            return "config"
        return "person" if origin in self._allowed else ""

    def reachable(self, origin: str) -> bool:
        """May agents open ``origin``? Only if the person said so (config or popup)."""
        return bool(self.allowed_by(origin))

    def allow(self, origin: str, allowed: bool = True) -> bool:
        """The person's choice from the popup: agents may (not) open ``origin``. True if it changed."""
        origin = origin_of(origin) or origin
        if not origin.startswith(("http://", "https://")):
            return False
        changed = self.store.set_allowed(origin, allowed)
        if allowed:
            self._allowed.add(origin)
        else:
            self._allowed.discard(origin)
        if changed:
            self._changed_here()
        return changed

    def _bump(self) -> None:
        self.version += 1
        self._cache = None

    # -- what the open tabs show ------------------------------------------------------------

    def observe(self, docs: Iterable[Tab]) -> None:
        """Record the tools that open documents of reachable origins offer now (their pins and
        URLs), and clear their stale marks."""
        for doc in docs:
            if not doc.is_open or not doc.tools or not self.reachable(doc.origin):
                continue
            fresh: list[str] = []
            for tool in doc.tools.values():
                key = (doc.origin, tool.name)
                if self._seen.get(key) is tool:
                    continue
                self._seen[key] = tool
                state = self.pins.observe(
                    doc.origin, tool.name,
                    definition_of(tool.title, tool.description, tool.input_schema, tool.annotations), doc.url,
                )
                fresh.append(tool.name)
                if state.status in ("new", "changed"):
                    self._bump()
            if fresh and self.store.clear_stale(doc.origin, fresh):
                self._bump()

    def document_url(self, origin: str, name: str) -> str:
        """The URL of the document that last registered ``name`` on ``origin`` (``""``: unknown)."""
        record = self.pins.get(origin, name)
        return record.document_url if record is not None else ""

    def mark_stale(self, origin: str, name: str) -> None:
        """The tool's own page loaded and settled without ``name``: shown as stale, no longer offered."""
        self.store.mark_stale(origin, name)
        self._seen.pop((origin, name))
        self._changed_here()

    def changed_elsewhere(self) -> bool:
        """Another process (``tabmcp sites``) changed the sites since this one last looked (one
        read of the counter: a running bridge asks within a second of any write to the file)."""
        return self.store.changes() != self._mark

    def _follow_other_writers(self) -> None:
        """Another process (``tabmcp sites``) changed the sites: reload the permissions, rebuild."""
        mark = self.store.changes()
        if mark != self._mark:
            self._allowed = self.store.allowed()
            self._seen.clear()
            self.pins.reload()  # a forget deleted pins this process may still remember
            self._bump()
            self._mark = mark

    def _changed_here(self) -> None:
        """This process changed the sites: other processes' bridges follow (:meth:`_follow_other_writers`)."""
        self._mark = self.store.touch()
        self._bump()

    def refresh(self, registry: Registry) -> list[Tab]:
        """Observe the open documents, then the stand-ins of the closed reachable sites."""
        self._follow_other_writers()
        docs = [d for d in registry.documents() if d.is_open]
        self.observe(docs)
        return self.closed_tabs(open_tool_names(docs))

    def closed_tabs(self, open_tools: Mapping[str, frozenset[str]] | None = None) -> list[Tab]:
        """One stand-in per reachable origin holding its stored tools that no open document of the
        origin offers now (``open_tools``: origin → the names its open documents offer)."""
        open_tools = open_tools or {}
        key = (self.version, frozenset(open_tools.items()))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        stale = self.store.stale()
        by_origin: dict[str, list[Any]] = {}
        for origin in self._known_reachable():
            offered = open_tools.get(origin, frozenset())
            for record in self.pins.records(origin=origin):
                if (record.origin, record.name) not in stale and record.name not in offered:
                    by_origin.setdefault(record.origin, []).append(record)
        tabs = [self._stand_in(origin, records) for origin, records in sorted(by_origin.items())]
        out = [t for t in tabs if t is not None]
        self._cache = (key, out)
        return out

    def _stand_in(self, origin: str, records: list[Any]) -> Tab | None:
        records = sorted(records, key=lambda r: -r.last_seen)[:MAX_CLOSED_SITE_TOOLS]
        tools: dict[str, PageTool] = {}
        urls: list[tuple[str, str]] = []
        for record in records:
            current = record.current
            raw = {"name": record.name, **{k: v for k, v in current.items() if v is not None}}
            parsed = parse_tool(raw)
            if not isinstance(parsed, PageTool):
                continue
            url = record.document_url if origin_of(record.document_url) == origin else origin + "/"
            tools[parsed.name] = parsed
            urls.append((parsed.name, url))
        if not tools:
            return None
        category = site_category_name(origin)
        main_url = urls[0][1]
        tools = {n: t.model_copy(update={"category": category}) for n, t in sorted(tools.items())}
        cat = PageCategory.model_validate({
            "name": category,
            "description": (
                f"Tools of {origin}, a site that is not open: calling one opens {main_url} in a background tab"
            )[:500],
            "tools": tuple(tools),
        })
        tab_id = self._ids.setdefault(origin, -(len(self._ids) + 1))
        return Tab(
            tab_id=tab_id, url=PageText(main_url), title=PageText(urlsplit(origin).netloc), origin=origin,
            document_id=None,
            native=False, active=False, states=(), tools=tools, categories={category: cat},
            closed_site=ClosedSite(urls=tuple(sorted(urls))),
        )

    def _known_reachable(self) -> list[str]:
        """Origins with stored tools that agents may open (read without loading every pin)."""
        with self.pins.store.lock:
            origins = list(self.pins.store.pin_origins())
        return sorted(o for o in origins if self.reachable(o))

    def unreachable_origin_of(self, name: str) -> str | None:
        """The origin that last offered a tool called ``name``, if agents may not open it."""
        with self.pins.store.lock:
            origin = self.pins.store.last_origin_of(name)
        if origin is None or self.reachable(origin):
            return None
        return origin

    # -- what the person sees and forgets ---------------------------------------------------

    def list(self, registry: Registry | None = None) -> list[SiteInfo]:
        """Every origin that is reachable or has stored tools of a reachable past, newest first."""
        open_tools = open_tool_names(d for d in registry.documents() if d.is_open) if registry else {}
        stale = self.store.stale()
        origins = set(self._allowed) | {r.match for r in self.policy.origins if r.reachable and "*" not in r.match}
        origins |= set(self._known_reachable())
        tools: dict[str, list[SiteTool]] = {}
        for origin in origins:
            for record in self.pins.records(origin=origin):
                tools.setdefault(record.origin, []).append(
                    SiteTool(record.name, record.document_url, record.last_seen, (record.origin, record.name) in stale)
                )
        out = [
            SiteInfo(o, self.reachable(o), self.allowed_by(o), o in open_tools, tuple(tools.get(o, ())))
            for o in origins
        ]
        return sorted(out, key=lambda s: (-(s.last_seen or 0), s.origin))

    def forget(self, origin: str) -> bool:
        """Remove the site's stored definitions, usage, stale marks and the person's permission."""
        origin = origin_of(origin) or origin
        known = origin in self._allowed or bool(self.pins.records(origin=origin))
        with self.pins.store.lock:
            self.pins.store.forget_origin(origin)
        self.pins.forget_cached(origin)
        self.store.forget(origin)
        self._allowed.discard(origin)
        if self.usage is not None:
            self.usage.forget(origin)
        self._seen.drop_where(lambda k: k[0] == origin)
        self._changed_here()
        return known
