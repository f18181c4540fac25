"""A pull-request summary in Markdown ("How I tested this"): what was done in the browser and what
it showed, each section present only when there is something to say.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..accessibility import IMPACT_ORDER
from ..answer import fmt_time
from ..api_schemas import template_path
from ..buffers import BufferKind
from ..models import ActionEvent, ErrorEvent, NetworkEvent, VitalsEvent
from ..state import Scope, TelemetryState
from ..timeline import describe_entry
from ..vitals import CORE_WEB_VITALS, THRESHOLDS, rate

__all__ = ["pr_summary"]

_MAX_STEPS = 30
_MAX_ROWS = 10


def _cell(text: Any, limit: int = 160) -> str:
    flat = " ".join(str(text).split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _fmt_metric(metric: str, value: float) -> str:
    return f"{value:.3f}" if metric == "CLS" else f"{value:.0f} ms"


def pr_summary(
    store: TelemetryState, *, scope: Scope = "tab", tab_id: int | None = None, title: str | None = None
) -> str:
    """The Markdown summary of the telemetry in scope."""
    tab_id = store.resolve_tab(tab_id)
    tab = store.tab(tab_id) if tab_id is not None else None
    actions = store.select(BufferKind.ACTIONS, scope=scope, tab_id=tab_id)
    errors = store.select(BufferKind.ERRORS, scope=scope, tab_id=tab_id)
    requests = store.select(BufferKind.NETWORK, scope=scope, tab_id=tab_id)
    vitals = store.select(BufferKind.VITALS, scope=scope, tab_id=tab_id)
    every = [*actions, *errors, *requests, *vitals]
    out = [f"## {title or 'Browser session summary'}", ""]
    if tab is not None:
        page = f"{tab.title} — {tab.url}" if tab.title else tab.url
        out.append(f"**Page:** {page} (tab {tab.tab_id})")
    if every:
        start = min(e.event.ts for e in every)
        end = max(e.event.ts for e in every)
        out.append(
            f"**Recorded:** {fmt_time(start)} to {fmt_time(end)} UTC ({(end - start) / 1000:.0f} s): "
            f"{len(actions)} actions, {len(requests)} requests, {len(errors)} errors"
        )
    else:
        out.append("_No telemetry recorded in this scope._")
    out.append("")

    if actions:
        out += ["### Steps", ""]
        for i, e in enumerate(actions[:_MAX_STEPS], 1):
            assert isinstance(e.event, ActionEvent)
            out.append(f"{i}. {_cell(describe_entry(e)[1], 200)}")
        if len(actions) > _MAX_STEPS:
            out.append(f"{_MAX_STEPS + 1}. … and {len(actions) - _MAX_STEPS} more")
        out.append("")

    if errors:
        groups: Counter[tuple[str, str]] = Counter()
        sources: dict[tuple[str, str], str] = {}
        for e in errors:
            ev = e.event
            assert isinstance(ev, ErrorEvent)
            key = (ev.error_type, ev.message.splitlines()[0] if ev.message else "")
            groups[key] += 1
            if ev.source and ev.source.url:
                sources.setdefault(key, f"{ev.source.url}:{ev.source.line or '?'}")
        out += [f"### Errors ({len(groups)} distinct, {len(errors)} total)", ""]
        out += ["| Count | Type | Message | Source |", "|---:|---|---|---|"]
        for (kind, msg), n in groups.most_common(_MAX_ROWS):
            out.append(f"| {n} | {kind} | {_cell(msg)} | {_cell(sources.get((kind, msg), ''))} |")
        out.append("")

    failed: Counter[tuple[str, str]] = Counter()
    for e in requests:
        ev = e.event
        if isinstance(ev, NetworkEvent) and ev.failed:
            outcome = str(ev.status) if ev.status else (ev.failure or "failed")
            failed[(f"{ev.method} {template_path(ev.url.split('?')[0])}", outcome)] += 1
    if failed:
        out += ["### Failed requests", "", "| Count | Request | Outcome |", "|---:|---|---|"]
        for (req, outcome), n in failed.most_common(_MAX_ROWS):
            out.append(f"| {n} | `{_cell(req)}` | {_cell(outcome)} |")
        out.append("")

    endpoints = store.api.endpoints()
    if endpoints:
        out += [
            "### API endpoints exercised",
            "",
            "| Method | Endpoint | Statuses | Samples |",
            "|---|---|---|---:|",
        ]
        for ep in endpoints[: _MAX_ROWS * 2]:
            statuses = ", ".join(str(s) for s in sorted(ep.statuses))
            out.append(f"| {ep.method} | `{_cell(ep.origin + ep.path)}` | {statuses} | {ep.samples} |")
        out.append("")

    if vitals:
        metrics: dict[str, float] = {}
        for e in vitals:
            if isinstance(e.event, VitalsEvent) and e.load_id == vitals[-1].load_id:
                metrics.update(e.event.metrics.model_dump(by_alias=True, exclude_none=True))
        if metrics:
            out += ["### Performance (latest page load)", "", "| Metric | Value | Rating |", "|---|---:|---|"]
            for m, v in metrics.items():
                if m in THRESHOLDS:
                    out.append(f"| {m} | {_fmt_metric(m, v)} | {rate(m, v)} |")
            measured = [m for m in CORE_WEB_VITALS if m in metrics]
            if measured:
                ok = all(rate(m, metrics[m]) == "good" for m in measured)
                missing = [m for m in CORE_WEB_VITALS if m not in metrics]
                verdict = "pass" if ok and not missing else ("fail" if not ok else "good so far")
                note = f" ({', '.join(missing)} not measured)" if missing else ""
                out += ["", f"Core Web Vitals: **{verdict}**{note}"]
            out.append("")

    audit = store.accessibility(tab_id)
    if audit:
        violations = audit.get("violations") or []
        by_impact = Counter(v.get("impact") or "unknown" for v in violations)
        impacts = ", ".join(f"{by_impact[i]} {i}" for i in IMPACT_ORDER if by_impact[i]) or "none"
        out += ["### Accessibility (axe-core)", "", f"{len(violations)} rules fail ({impacts})."]
        for v in sorted(
            violations,
            key=lambda v: IMPACT_ORDER.index(v["impact"]) if v.get("impact") in IMPACT_ORDER else 9,
        )[:_MAX_ROWS]:
            nodes = len(v.get("nodes") or [])
            out.append(
                f"- **{v.get('impact')}** `{v.get('id')}`: {_cell(v.get('help', ''))} ({nodes} elements)"
            )
        out.append("")

    sockets = store.connections.connections(None if scope == "all" else tab_id)
    if sockets:
        out += ["### WebSockets", ""]
        for c in sockets[:_MAX_ROWS]:
            out.append(f"- `{_cell(c.url)}`: {c.state}, {c.messages_in} in / {c.messages_out} out")
        out.append("")

    out.append("<sub>Generated by tabmcp from browser telemetry; secrets were redacted.</sub>")
    return "\n".join(out) + "\n"
