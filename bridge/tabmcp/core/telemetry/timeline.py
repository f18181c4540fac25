"""``analyze(timeline)``: actions, requests, errors and navigations merged in time order, to show
cause and effect ("clicked Save → POST /api/orders 500 → TypeError"); ties keep arrival order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ...capture.kinds import KINDS
from .answer import ToolAnswer, fmt_time
from .buffers import BufferKind, Entry
from .state import Scope, TelemetryState

__all__ = ["DEFAULT_TIMELINE_KINDS", "TIMELINE_KINDS", "describe_entry", "timeline", "timeline_items"]

TIMELINE_KINDS = tuple(k.buffer.value for k in KINDS if k.timeline)
"""The buffers a timeline may show: each capture kind whose record says ``timeline``."""
DEFAULT_TIMELINE_KINDS = ("actions", "network", "errors", "navigations")


def _time_of(entry: Entry) -> float:
    return entry.event.at


def describe_entry(entry: Entry) -> tuple[str, str]:
    """A (type, one-line summary) pair for any entry, shared with the PR summary (its kind's ``summary``)."""
    return entry.event.summary()


def timeline_items(
    store: TelemetryState,
    *,
    scope: Scope,
    tab_id: int | None,
    kinds: Iterable[str] = DEFAULT_TIMELINE_KINDS,
    keep: Callable[[Entry], bool] = lambda e: True,
) -> list[Entry]:
    """Entries of the chosen kinds in scope, in time order."""
    entries: list[Entry] = []
    for kind in kinds:
        entries.extend(e for e in store.select(BufferKind(kind), scope=scope, tab_id=tab_id) if keep(e))
    entries.sort(key=lambda e: (_time_of(e), e.seq))
    return entries


def timeline(
    store: TelemetryState,
    *,
    scope: Scope,
    tab_id: int | None,
    limit: int,
    kinds: Iterable[str] = DEFAULT_TIMELINE_KINDS,
    keep: Callable[[Entry], bool] = lambda e: True,
) -> ToolAnswer:
    """The most recent ``limit`` timeline items, oldest first, with offsets from the first."""
    kinds = tuple(kinds)
    entries = timeline_items(store, scope=scope, tab_id=tab_id, kinds=kinds, keep=keep)
    if not entries:
        text = (
            "Nothing to put on a timeline in this scope yet. Use the page (click, type, navigate) "
            "or widen it with scope='tab' or scope='all'."
        )
        return ToolAnswer(text=text, data={"target": "timeline", "items": [], "message": text}, empty=True)
    shown = entries[-limit:]
    start = _time_of(shown[0])
    items: list[dict[str, Any]] = []
    lines = []
    for e in shown:
        kind, summary = describe_entry(e)
        t = _time_of(e)
        items.append(
            {"ts": t, "offsetMs": round(t - start, 1), "type": kind, "summary": summary, "tabId": e.tab_id}
        )
        lines.append(f"+{(t - start) / 1000:8.3f}s {fmt_time(t)} {kind:10} {summary}")
    head = f"Timeline of {len(shown)} events" + (
        f" (last {len(shown)} of {len(entries)})" if len(entries) > limit else ""
    )
    data = {"target": "timeline", "kinds": list(kinds), "items": items, "total": len(entries)}
    return ToolAnswer(text="\n".join([head + ":", *lines]), data=data)
