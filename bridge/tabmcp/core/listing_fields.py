"""What a listing entry carries beside the page's definition (``_meta`` keys, a client's view, the
category marker, mapped annotations); :mod:`tabmcp.core.disclosure` builds the entries."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from .registry import SourceKey, ToolEntry
from .telemetry import ExposureState
from .trust.gate import definition_text
from .trust.text import ListedAnnotations

__all__ = [
    "META_CATEGORY",
    "META_ENHANCEMENT",
    "META_EXPANDED",
    "META_PAGE_FORM",
    "META_PAGE_NAME",
    "META_REVISION",
    "META_SOURCE",
    "META_UNCHECKED",
    "META_WARNINGS",
    "META_WEBMCP_ANNOTATIONS",
    "PROFILES",
    "ClientView",
    "Profile",
    "category_marker",
    "read_category_marker",
    "summary",
]

Profile = Literal["passthrough", "categories", "meta", "hybrid"]
PROFILES: tuple[Profile, ...] = ("passthrough", "categories", "meta", "hybrid")

META_SOURCE = "tabmcp/source"
META_PAGE_NAME = "tabmcp/pageName"
META_CATEGORY = "tabmcp/category"
META_ENHANCEMENT = "tabmcp/enhancement"
META_WARNINGS = "tabmcp/warnings"
META_UNCHECKED = "tabmcp/unchecked"
"""What of the tool's input schema the bridge cannot evaluate, so does not check arguments against
(core/unchecked.py); the tool is kept."""
META_WEBMCP_ANNOTATIONS = "tabmcp/annotations"
META_PAGE_FORM = "tabmcp/pageForm"
"""On page forms only: offered by the person's forms-as-tools switch for the origin, not by the site."""
_WEBMCP_ANNOTATIONS = ("consequentialHint", "untrustedContentHint", "debugging")
META_REVISION = "tabmcp/revision"
"""On tools/list results and list-changed notifications: the bridge's change counter. A
notification whose revision is at least a listing's reports a state at least that new."""
META_EXPANDED = "tabmcp/expanded"
"""On a list-changed notification sent to one client: the category it opened."""
_SUMMARY_LIMIT = 300
"""Characters of a category's description shown in a listing (describe_tools shows it all)."""
_MARKER = re.compile(r"^\[(?:(?P<origin>\S+); )?category, (?P<count>\d+) tools?\](?: |$)")


@dataclass
class ClientView:
    """Disclosure state of one MCP client connection (``dynamic``: tools/list may change as a side
    effect of its requests, allowed before protocol 2026-07-28)."""

    dynamic: bool = False
    expanded: set[tuple[SourceKey, str]] = field(default_factory=set)
    """(tab id, category name as the page registered it) of categories this client opened."""
    exposure: ExposureState = field(init=False)
    """Progressive disclosure of the telemetry tools for this client."""

    def __post_init__(self) -> None:
        self.exposure = ExposureState(dynamic=self.dynamic)


def summary(text: str, limit: int = _SUMMARY_LIMIT) -> str:
    """``text`` on one line, whole if it fits in ``limit`` characters, else cut after its last
    sentence that fits (or at ``limit``, with "…")."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1]
    end = max(head.rfind(stop) for stop in (". ", "? ", "! "))
    return head[: end + 1] if end > 0 else head.rstrip() + "…"


def category_marker(origin: str, count: int) -> str:
    """The bracket that opens a category's description (``[https://shop.test; category, 4 tools]``),
    written before any page text, so it also tells which entries are categories."""
    noun = "tool" if count == 1 else "tools"
    return f"[{origin}; category, {count} {noun}]" if origin else f"[category, {count} {noun}]"


def read_category_marker(description: str) -> tuple[str, int] | None:
    """``(origin, member count)`` if ``description`` opens with :func:`category_marker`'s bracket."""
    match = _MARKER.match(description)
    return (match["origin"] or "", int(match["count"])) if match else None


def _tool_annotations(entry: ToolEntry) -> ListedAnnotations:
    """MCP ToolAnnotations from the page's: the MCP ones as they are, WebMCP's mapped where they
    correspond (docs/security.md, "Annotations acted on")."""
    page = entry.tool.annotations
    ann: ListedAnnotations = {}
    if "title" in page:  # checked text; a number as it is (pages' hints are yes or no: PageTool)
        ann["title"] = definition_text(page["title"]) if isinstance(page["title"], str) else page["title"]
    if "readOnlyHint" in page:
        ann["readOnlyHint"] = page["readOnlyHint"]
    if "destructiveHint" in page:
        ann["destructiveHint"] = page["destructiveHint"]
    if "idempotentHint" in page:
        ann["idempotentHint"] = page["idempotentHint"]
    if "openWorldHint" in page:
        ann["openWorldHint"] = page["openWorldHint"]
    if entry.tool.page_form:
        # It submits a form: never read-only, and it may destroy (MCP's default when unsaid).
        return {"readOnlyHint": False, "openWorldHint": True}
    if entry.tool.destructive:
        ann["destructiveHint"] = True
    if page.get("consequentialHint") is True and "readOnlyHint" not in ann:
        ann["readOnlyHint"] = False
    if page.get("untrustedContentHint") is True and "openWorldHint" not in ann:
        ann["openWorldHint"] = True
    return ann
