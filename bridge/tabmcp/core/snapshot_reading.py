"""A tab's snapshot read into a :class:`~tabmcp.core.tab_records.Tab`: each tool, category and
state validated alone (a bad one is rejected with its reason, the rest kept), page forms marked,
and every page-written field of a definition checked for injection (:func:`check_definition`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..protocol import FrameSnapshot, TabSnapshot
from .budget import CUT_OFF_REASON, budget_scope
from .injection import scan_text, scan_tool
from .lru import IdentityMemo
from .models import (
    MAX_STATES,
    PageCategory,
    PageTool,
    Rejection,
    parse_category,
    parse_tool,
)
from .page_forms import PAGE_FORM_MARK
from .tab_records import Tab, origin_of, snapshot_origin, trusted_url
from .trust.gate import FORGED_FRAME, forged_frame
from .trust.text import PageText, page_strings

__all__ = ["MAX_TOOLS_PER_TAB", "check_definition"]

MAX_TOOLS_PER_TAB = 10_000

def _tab_from_snapshot(snap: TabSnapshot, browser: tuple[str, str] = ("", "")) -> Tab:
    top = _document(snap, snap.tab_id, 0, snapshot_origin(snap))
    frames = tuple(
        replace(_document(f, snap.tab_id, f.frame_id, snapshot_origin(f)), browser=browser[0], profile=browser[1])
        for f in snap.frames
        if f.frame_id
    )
    rejected = top.rejected + tuple(
        r.model_copy(update={"name": f"frame {f.frame_id}: {r.name}"}) for f in frames for r in f.rejected
    )
    forms_origin = origin_of(snap.forms.origin) if snap.forms is not None else ""
    return replace(top, native=snap.native, active=snap.active, focused=snap.focused, rejected=rejected,
                   frames=frames, forms_origin=forms_origin, browser=browser[0], profile=browser[1])


def _as_page_form(tool: PageTool) -> PageTool:
    """A page form as the agent sees it: marked, never read-only, in no category, no page scope."""
    description = tool.description
    if not description.startswith(PAGE_FORM_MARK):
        description = PageText(f"{PAGE_FORM_MARK} {description}"[:8_000])
    return tool.model_copy(
        update={"description": description, "annotations": {}, "scope": None, "category": None}
    )


_CUT_OFF = Rejection(kind="tool", name="(every tool)", reason=CUT_OFF_REASON)


def _document(snap: TabSnapshot | FrameSnapshot, tab_id: int, frame_id: int, origin: str) -> Tab:
    """Validate one document's tools, categories and states (each bad one rejected alone)."""
    rejected: list[Rejection] = []
    tools: dict[str, PageTool] = {}
    with budget_scope():  # a list of schema bombs costs a few budgets, not one per tool (core/budget.py)
        parsed_tools = [parse_tool(raw) for raw in snap.tools[:MAX_TOOLS_PER_TAB]]
    for parsed in parsed_tools:
        if isinstance(parsed, Rejection):
            rejected.append(parsed)
        elif parsed.page_form and frame_id:
            continue  # page forms are the top document's only
        elif parsed.name in tools:
            rejected.append(Rejection(kind="tool", name=parsed.name, reason="duplicate tool name in this tab"))
        else:
            if parsed.page_form:
                parsed = _as_page_form(parsed)
            if parsed.output_schema_dropped:  # the tool stays; only its outputSchema is not relayed
                rejected.append(Rejection(kind="outputSchema", name=parsed.name,
                                          reason=f"not relayed, the tool is kept without it: {parsed.output_schema_dropped}"))
            warnings = _DEFINITION_CHECKS.get(parsed)
            tools[parsed.name] = parsed.model_copy(update={"warnings": warnings}) if warnings else parsed
    if len(snap.tools) > MAX_TOOLS_PER_TAB:
        rejected.append(
            Rejection(
                kind="tool",
                name="(overflow)",
                reason=f"{len(snap.tools) - MAX_TOOLS_PER_TAB} tools beyond the {MAX_TOOLS_PER_TAB}-tool limit",
            )
        )
    categories: dict[str, PageCategory] = {}
    for raw in snap.categories:
        cat = parse_category(raw)
        if isinstance(cat, Rejection):
            rejected.append(cat)
            continue
        if cat.name in tools or cat.name in categories:
            rejected.append(Rejection(kind="category", name=cat.name, reason="name already used in this tab"))
            continue
        members = tuple(n for n in cat.tools if n in tools and not tools[n].page_form)
        missing = [n for n in cat.tools if n not in tools or tools[n].page_form]
        rejected.extend(  # the page's word for the member is not quoted: where it is says enough
            Rejection(kind="member", name=cat.name, reason=f"its tools[{cat.tools.index(m)}] is not a tool of this tab")
            for m in missing[:20]
        )
        categories[cat.name] = cat.model_copy(update={"tools": members})
    # A tool's category is whatever category lists it (the page's word for it wins over a
    # stale `category` field), so the two views can never disagree.
    owner = {m: c.name for c in categories.values() for m in c.tools}
    tools = {
        n: (t if t.category == owner.get(n) else t.model_copy(update={"category": owner.get(n)}))
        for n, t in tools.items()
    }
    # The rest of what a listing shows of each tool: its category's description, and the
    # document's title and URL (every definition's ``_meta["tabmcp/source"]``). A flag there is
    # a flag of every tool it travels with, so quarantine hides them together.
    shared = _shared_warnings(snap.title[:500], trusted_url(snap, origin))
    by_category = {c.name: _category_warnings(c) for c in categories.values()}
    for n, t in tools.items():
        extra = shared + by_category.get(t.category or "", ())
        if extra:
            tools[n] = t.model_copy(update={"warnings": tuple(dict.fromkeys(t.warnings + extra))})
    states = tuple(dict.fromkeys(PageText(s) for s in snap.states if isinstance(s, str) and 0 < len(s) <= 128))
    if len(states) > MAX_STATES:
        rejected.append(Rejection(kind="state", name="(overflow)", reason=f"more than {MAX_STATES} states"))
        states = states[:MAX_STATES]
    return Tab(
        tab_id=tab_id,
        frame_id=frame_id,
        url=PageText(trusted_url(snap, origin)),
        title=PageText(snap.title[:500]),
        origin=origin,
        document_id=snap.document_id,
        native=False,
        active=False,
        states=states,
        tools=tools,
        categories=categories,
        rejected=tuple(rejected),
    )


def check_definition(tool: PageTool) -> tuple[str, ...]:
    """Why a tool's definition looks like an injection attempt, reading every page-written field:
    name, title, description and input schema (:func:`scan_tool`), and every string, keys too, of
    its annotations and its output schema (:func:`page_strings`, not a list of known fields)."""
    reasons = scan_tool(tool.name, tool.title, tool.description, tool.input_schema)
    for place, value in (("annotations", tool.annotations), ("output schema", tool.output_schema)):
        if value:
            text = "\n".join(s for _, s in page_strings(value))
            reasons += [f"in the {place}: {reason}" for reason in scan_text(text)]
    everything = [tool.title or "", tool.description, *(s for _, s in page_strings(
        [tool.input_schema, tool.annotations, tool.output_schema]))]
    if any(forged_frame(text) for text in everything):
        reasons.append(FORGED_FRAME)
    reasons += [f"in its name: {reason}" for reason in scan_text(_as_words(tool.name))]
    return tuple(dict.fromkeys(reasons))


def _as_words(name: str) -> str:
    """A name as the words a model reads in it (``ignore_all_previous_instructions``)."""
    return re.sub(r"[_.\-]+", " ", name)


_DEFINITION_CHECKS: IdentityMemo[PageTool, tuple[str, ...]] = IdentityMemo(check_definition, 8192)
"""Parsed tools are memoized by content (:func:`parse_tool`), so the same definition is the same
object: a snapshot that re-sends it costs a lookup, not a scan."""


def _text_warnings(where: str, text: str) -> list[str]:
    return [f"in {where}: {reason}" for reason in scan_text(text)] + (
        [f"in {where}: {FORGED_FRAME}"] if forged_frame(text) else [])


def _category_warnings(category: PageCategory) -> tuple[str, ...]:
    return tuple(_text_warnings("its category's description", category.description)
                 + _text_warnings("its category's name", _as_words(category.name)))


def _shared_warnings(title: str, url: str) -> tuple[str, ...]:
    return tuple(_text_warnings("the tab's title", title) + _text_warnings("the tab's URL", url))


def _keep_unchanged(old: Tab, new: Tab) -> None:
    """Give ``new`` (not yet shared) the very objects of ``old``'s tools and categories that did not
    change: whatever is derived per definition (trust pins, rendered listings) is then known to
    be unchanged by identity, without comparing or hashing the definition again."""
    before = {doc.key: doc for doc in old.documents()}
    for doc in new.documents():
        prev = before.get(doc.key)
        if prev is None:
            continue
        for table, kept in ((doc.tools, prev.tools), (doc.categories, prev.categories)):
            for name, value in table.items():
                same = kept.get(name)
                if same is not None and same is not value and same == value:
                    table[name] = same  # type: ignore[assignment]  # the same type: table and kept pair up

