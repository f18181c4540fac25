"""``open_page``: open a page of a reachable site and get the tools it registered; and how a call
of a closed site's tool opens its site first (:func:`open_for_call`).

Only http(s) URLs of reachable origins, in a background tab so the person's tab stays in front.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ...errors import SiteNotReachable, SiteToolGone, ToolValidationError
from ..progress import doing
from ..reachable_sites import how_to_allow
from ..registry import ToolEntry, origin_of
from ..trust.gate import definition_text
from ..trust.text import ShownResult, listed, shown_result
from .base import BuiltinTool, ToolContext

__all__ = ["OPEN_PAGE", "not_reachable", "open_for_call"]

DEFINITION: dict[str, Any] = {
    "name": "open_page",
    "title": "Open a page of a reachable site",
    "description": (
        "Open an http(s) URL of a site the user lets agents open, in a background tab, and list the tools "
        "it registers. A tool of such a site can also be called directly: the call opens it."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "An http(s) URL of a reachable site."},
            "focus": {"type": "boolean", "default": False,
                      "description": "Bring an already open tab of the site to the front instead of opening one."},
        },
        "required": ["url"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True, "openWorldHint": True},
}


def _checked_url(url: str) -> tuple[str, str]:
    """``(url, origin)`` of an http(s) URL with a host.

    Raises:
        ToolValidationError: anything else (``javascript:``, ``file:``, ``chrome:``, no host).
    """
    try:
        parts = urlsplit(url.strip())
    except ValueError as exc:
        raise ToolValidationError(f"{url!r} is not a URL", field="url") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolValidationError(f"open_page opens http(s) URLs only, not {url[:200]!r}", field="url")
    return parts.geturl(), origin_of(parts.geturl())


async def open_page(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    bridge = ctx.bridge
    url, origin = _checked_url(str(arguments["url"]))
    if not bridge.sites.reachable(origin):
        raise SiteNotReachable(f"agents may not open {origin}: {how_to_allow(origin)}", origin=origin)
    with doing(f"opening {url} and waiting for its tools"):
        tab_id = await bridge.open_site(url, focus=bool(arguments.get("focus")))
    tab = bridge.registry.tab(tab_id)
    tools = []
    if tab is not None:
        for name in tab.tools:
            public = bridge.registry.public_name(tab_id, name)
            entry = bridge.registry.resolve(public) if public else None
            if isinstance(entry, ToolEntry) and bridge.policy_check.visible(entry):
                tools.append({"name": entry.public_name, "description": definition_text(entry.tool.description[:300])})
    # the page's URL (of the origin asked for; its path the page's) is cleaned like a definition's
    shown_url = definition_text(tab.url) if tab else url
    lines = [f"Opened {shown_url} in tab {tab_id} ({len(tools)} tools)."]
    lines += [f"- {t['name']}: {t['description']}" for t in tools]
    if tools:
        lines.append("Run them with call_tool(name, arguments); describe_tools gives their schemas.")
    return shown_result([listed("\n".join(lines))],  # checked definitions, the URL cleaned as theirs
                        {"tabId": tab_id, "url": shown_url, "origin": origin, "tools": tools})


async def open_for_call(ctx: ToolContext, entry: ToolEntry) -> ToolEntry:
    """Open the closed site of ``entry`` and return the tool its page registered, to be called with
    every usual rule (the caller applies them).

    Raises:
        SiteNotReachable, SiteNotRegistered, SiteToolGone, SiteRedirected: named failures; nothing
            was called.
    """
    bridge = ctx.bridge
    site = entry.tab.closed_site
    assert site is not None
    url = site.url_of(entry.tool.name, entry.tab.url)
    with doing(f"opening {entry.tab.origin} and waiting for its tool {entry.tool.name}"):
        tab_id = await bridge.open_site(url, tool=entry.tool.name)
    public = bridge.registry.public_name(tab_id, entry.tool.name)
    live = bridge.registry.resolve(public) if public else None
    if not isinstance(live, ToolEntry):  # gone again between the registration and now
        raise SiteToolGone(f"the page of {entry.tab.origin} no longer offers {entry.tool.name}",
                           tool=entry.tool.name, origin=entry.tab.origin, tab_id=tab_id)
    return live


def not_reachable(ctx: ToolContext, name: str) -> None:
    """A name no open tab offers, but that a site agents may not open did offer: say so, and how
    the person can allow the site (nothing is opened).

    Raises:
        SiteNotReachable: ``name`` was last seen on such a site.
    """
    origin = ctx.bridge.sites.unreachable_origin_of(name)
    if origin:
        raise SiteNotReachable(
            f"{name} belongs to {origin}, which has no open tab and which agents may not open: {how_to_allow(origin)}",
            tool=name, origin=origin)


OPEN_PAGE = BuiltinTool("open_page", open_page, DEFINITION)
