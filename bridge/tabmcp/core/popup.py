"""What the person sees and steers in the extension popup: one state, one set of actions.

The popup asks with ``panel.query`` and acts with ``control.set`` on the extension's own link only;
both are answered with :func:`panel_state` (switches, activity, tabs with the policy's decisions,
trust changes, secret names). No I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from ..errors import SecretError
from .activity import ActivityLog
from .browsers import OTHER_BROWSER, slot_of, wire_tab_id
from .registry import CategoryEntry, Registry, Tab, ToolEntry
from .scoping import PolicyCheck
from .switches import InvalidOrigin, PersonSwitches, normalize_origin
from .trust.gate import for_person
from .trust.text import Shown

if TYPE_CHECKING:
    from ..protocol import ControlSet, PanelQuery
    from .secrets import Secrets
    from .trust.guard import TrustGuard

__all__ = ["ControlRefused", "ControlResult", "Insight", "apply_control", "for_browser", "panel_state"]

MAX_TOOLS_PER_TAB = 200
"""Insight lists at most this many tools per document (a page with thousands is summarised)."""


class ControlRefused(ValueError):
    """A ``control.set`` that cannot be applied (no origin, an invalid one, an unknown tool)."""


class ControlResult:
    """What :func:`apply_control` changed: ``listing`` when agents' tools/list differs now."""

    def __init__(self, changed: bool = False, listing: bool = False) -> None:
        self.changed = changed
        self.listing = listing


def apply_control(message: ControlSet, controls: PersonSwitches, trust: TrustGuard | None,
                  secrets: Secrets | None = None) -> ControlResult:
    """Apply the person's switch.

    Raises:
        ControlRefused: the message lacks what its action needs, or names an invalid origin.
    """
    action = message.action
    if action in ("pause", "resume"):
        return ControlResult(controls.set_paused(action == "pause"))
    if action == "writes":
        return _listing(controls.set_writes(message.enabled))
    if action == "origin":
        if message.enabled is None:
            raise ControlRefused("control.set origin needs enabled: true or false")
        try:
            return _listing(controls.set_origin(message.origin, message.enabled))
        except InvalidOrigin as exc:
            raise ControlRefused(str(exc)) from exc
    if action == "accept":
        if trust is None or not message.origin or not message.tool:
            raise ControlRefused("control.set accept needs origin and tool (and pinned definitions on)")
        return _listing(trust.pins.accept(message.origin, message.tool))
    if action == "unbind":
        if secrets is None or not message.origin or not message.secret:
            raise ControlRefused("control.set unbind needs origin and secret")
        try:
            secrets.unbind(message.secret, message.origin)
        except SecretError as exc:
            raise ControlRefused(str(exc)) from exc
        return ControlResult(True)  # listings name no secret: describe/search ask the vault each time
    if trust is None:  # clear
        raise ControlRefused("the trust defences are not running")
    return ControlResult(trust.lockdown.clear() > 0)


def _listing(changed: bool) -> ControlResult:
    return ControlResult(changed, changed)


class ToolInsight(TypedDict, total=False):
    """A tool as the popup shows it: the page's words in it only as :data:`Shown` (the person's gate,
    :func:`~tabmcp.core.trust.gate.for_person`), so strict mypy refuses a page string put there raw."""

    name: str
    publicName: str
    title: Shown
    description: Shown
    category: str
    readOnly: bool
    visible: bool
    code: str
    reason: str | None
    needsApproval: bool
    changed: bool


class CategoryInsight(TypedDict):
    name: str
    publicName: str
    description: Shown
    tools: list[str]
    visible: list[str]


class DocumentInsight(TypedDict, total=False):
    """A document as the popup shows it (its title and URL the page's: :data:`Shown` only)."""

    tabId: int
    frameId: int
    origin: str
    url: Shown
    title: Shown
    originOn: bool
    toolCount: int
    hiddenCount: int
    tools: list[ToolInsight]
    categories: list[CategoryInsight]
    detailed: bool


def _tool_insight(entry: ToolEntry, policy_check: PolicyCheck, trust: TrustGuard | None) -> ToolInsight:
    decision = policy_check.decide(entry)
    tool = entry.tool
    out: ToolInsight = {
        "name": tool.name,
        "publicName": entry.public_name,
        "title": for_person(tool.title or ""),
        "description": for_person(tool.description[:300]),
        "category": tool.category or "",
        "readOnly": tool.read_only,
        "visible": decision.visible,
        "code": decision.code or "",
        "reason": decision.reason,
        "needsApproval": decision.needs_approval,
    }
    if trust is not None and decision.visible and trust.settings.pin_definitions:
        out["changed"] = trust.observe(entry).changed
    return out


def _document(doc: Tab, entries: list[ToolEntry], cats: list[CategoryEntry], policy_check: PolicyCheck,
              trust: TrustGuard | None) -> DocumentInsight:
    # Every tool is decided (the hidden count needs them all); only MAX_TOOLS_PER_TAB are listed.
    decided = [_tool_insight(e, policy_check, trust) for e in entries]
    tools = decided[:MAX_TOOLS_PER_TAB]
    return {
        "tabId": doc.tab_id,
        "frameId": doc.frame_id,
        "origin": doc.origin,
        "url": for_person(doc.url),
        "title": for_person(doc.title),
        "originOn": policy_check.origin_enabled(doc),
        "toolCount": len(entries),
        "hiddenCount": sum(1 for t in decided if not t.get("visible")),
        "tools": tools,
        "categories": [
            {"name": c.category.name, "publicName": c.public_name, "description": for_person(c.category.description[:300]),
             "tools": [m.tool.name for m in c.members],
             "visible": [m.tool.name for m in policy_check.visible_members(c)]}
            for c in cats
        ],
    }


def _insight(registry: Registry, policy_check: PolicyCheck, trust: TrustGuard | None,
             tab_ids: Iterable[int] | None) -> list[dict[str, Any]]:
    wanted = set(tab_ids) if tab_ids is not None else None
    by_doc: dict[tuple[int, int], tuple[Tab, list[ToolEntry], list[CategoryEntry]]] = {}
    for doc in registry.documents():
        if wanted is None or doc.tab_id in wanted:
            by_doc[doc.key] = (doc, [], [])
    for entry in registry.entries():
        slot = by_doc.get(entry.tab.key)
        if slot is None:
            continue
        if isinstance(entry, ToolEntry):
            slot[1].append(entry)
        else:
            slot[2].append(entry)
    return [{**_document(doc, tools, cats, policy_check, trust), "detailed": True} for doc, tools, cats in by_doc.values()]


class Insight:
    """Per-document insight, kept until the registry, the switches or the pins change.

    The popup refreshes every second and deciding 20 busy tabs costs tens of milliseconds.
    """

    def __init__(self) -> None:
        self._key: tuple[int, int, int] | None = None
        self._docs: list[dict[str, Any]] = []

    def documents(self, registry: Registry, policy_check: PolicyCheck, trust: TrustGuard | None) -> list[dict[str, Any]]:
        key = (registry.version, policy_check.version, trust.version if trust is not None else 0)
        if key != self._key:
            self._docs = _insight(registry, policy_check, trust, None)
            self._key = key
        return self._docs


def _summaries(docs: list[dict[str, Any]], expanded: set[int]) -> list[dict[str, Any]]:
    """Each document's counts; its tools and categories only when its tab is expanded."""
    return [d if d["tabId"] in expanded else {**d, "tools": [], "categories": [], "detailed": False} for d in docs]


def _trust(trust: TrustGuard | None) -> dict[str, Any]:
    if trust is None:
        return {"changed": [], "lockdown": [], "enabled": False}
    return {
        "enabled": True,
        "changed": [
            {"origin": r.origin, "tool": r.name, "diff": for_person(r.diff), "changedAt": r.changed_at,
             "url": for_person(r.document_url)}
            for r in trust.pins.records(changed_only=True)
        ],
        "lockdown": [
            {"id": f.id, "origin": f.origin, "tool": f.tool, "reasons": [for_person(r) for r in f.reasons],
             "flaggedAt": f.flagged_at}
            for f in trust.lockdown.active()
        ],
    }


def panel_state(
    *,
    registry: Registry,
    policy_check: PolicyCheck,
    controls: PersonSwitches,
    activity: ActivityLog,
    trust: TrustGuard | None,
    query: PanelQuery | None = None,
    insight: Insight | None = None,
    secrets: Secrets | None = None,
) -> dict[str, Any]:
    """The popup's whole view, as JSON (see the module docstring). Tools are listed one by one
    only for the tabs in ``query.expanded``; every document gets its counts."""
    origin = query.origin if query is not None else None
    if origin:
        try:
            origin = normalize_origin(origin)
        except InvalidOrigin:
            pass  # filter on the text as given: no row matches, nothing breaks
    tab_id = query.tab_id if query is not None else None
    limit = query.limit if query is not None else 100
    rows = activity.latest(limit, origin=origin or None, tab_id=tab_id)
    policy = policy_check.policy
    docs = (insight or Insight()).documents(registry, policy_check, trust)
    return {
        "controls": {**controls.state().to_dict(), "writesByConfig": policy.allow_writes},
        "activity": [r.to_dict() for r in rows],
        "tabs": _summaries(docs, set(query.expanded) if query is not None else set()),
        "trust": _trust(trust),
        "secrets": secrets.bound(d["origin"] for d in docs) if secrets is not None else {},
    }


def for_browser(state: dict[str, Any], slot: int, labels: Mapping[int, str] | None = None,
                this_run: int = 0) -> dict[str, Any]:
    """:func:`panel_state` as the popup of the browser at ``slot`` sees it: its own tabs, under its ids.

    Activity and switches span browsers: another browser's row names it, and a row from an earlier
    run shows no tab (``earlier``), since browsers link in any order."""
    tabs = [{**d, "tabId": wire_tab_id(d["tabId"])} for d in state["tabs"]
            if d["tabId"] < 0 or slot_of(d["tabId"]) == slot]
    activity = [{**r, "tabId": None, "earlier": True} if r["id"] < this_run and r["tabId"] is not None and r["tabId"] >= 0
                else _row_for(r, slot, labels or {}) for r in state["activity"]]
    origins = {d["origin"] for d in tabs}
    secrets = {o: names for o, names in state.get("secrets", {}).items() if o in origins}
    return {**state, "tabs": tabs, "activity": activity, "secrets": secrets}


def _row_for(row: dict[str, Any], slot: int, labels: Mapping[int, str]) -> dict[str, Any]:
    tab_id = row["tabId"]
    if tab_id is None or tab_id < 0:  # no tab, or a closed site's stand-in: no browser holds it
        return row
    owner = slot_of(tab_id)
    shown = {**row, "tabId": wire_tab_id(tab_id)}
    if owner != slot:
        shown["browser"] = labels.get(owner, OTHER_BROWSER)
    return shown
