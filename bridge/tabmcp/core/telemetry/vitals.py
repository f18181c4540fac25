"""``analyze(performance)``: Web Vitals against Google's Core Web Vitals thresholds
(web.dev/articles/vitals), plus long tasks; INP without an interaction is "not measured", not a pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .answer import ToolAnswer
from .buffers import BufferKind, Entry
from .models import LongTaskEvent, NetworkEvent, VitalsEvent
from .state import Scope, TelemetryState

__all__ = ["CORE_WEB_VITALS", "THRESHOLDS", "Threshold", "performance_report", "rate"]

Rating = Literal["good", "needs-improvement", "poor"]


@dataclass(frozen=True)
class Threshold:
    good: float
    poor: float
    unit: str


THRESHOLDS: dict[str, Threshold] = {
    "LCP": Threshold(2500, 4000, "ms"),
    "INP": Threshold(200, 500, "ms"),
    "CLS": Threshold(0.1, 0.25, ""),
    "FCP": Threshold(1800, 3000, "ms"),
    "TTFB": Threshold(800, 1800, "ms"),
}
CORE_WEB_VITALS = ("LCP", "INP", "CLS")
LONG_TASK_BLOCKING_MS = 50.0
"""Main-thread work beyond 50 ms in one task blocks input (the Total Blocking Time rule)."""


def rate(metric: str, value: float) -> Rating:
    """Rate one metric value against its thresholds."""
    t = THRESHOLDS[metric]
    if value <= t.good:
        return "good"
    if value <= t.poor:
        return "needs-improvement"
    return "poor"


def _fmt(metric: str, value: float) -> str:
    return f"{value:.3f}" if metric == "CLS" else f"{value:.0f} ms"


def _load_report(
    tab_id: int,
    load_id: str,
    vitals: list[VitalsEvent],
    longtasks: list[LongTaskEvent],
    requests: list[NetworkEvent],
) -> dict[str, Any]:
    metrics: dict[str, float] = {}
    navigation: dict[str, Any] = {}
    for v in vitals:
        metrics.update(v.metrics.model_dump(by_alias=True, exclude_none=True))
        navigation.update(v.navigation or {})
    rated = {
        m: {"value": val, "rating": rate(m, val), "good": THRESHOLDS[m].good, "poor": THRESHOLDS[m].poor}
        for m, val in metrics.items()
        if m in THRESHOLDS
    }
    measured = [m for m in CORE_WEB_VITALS if m in rated]
    if len(measured) == len(CORE_WEB_VITALS):
        verdict = "pass" if all(rated[m]["rating"] == "good" for m in measured) else "fail"
    elif any(rated[m]["rating"] != "good" for m in measured):
        verdict = "fail"
    else:
        verdict = "incomplete"
    durations = [t.duration for t in longtasks]
    slowest = sorted(requests, key=lambda r: r.duration, reverse=True)[:5]
    return {
        "tabId": tab_id,
        "loadId": load_id,
        "metrics": rated,
        "coreWebVitals": verdict,
        "notMeasured": [m for m in CORE_WEB_VITALS if m not in rated],
        "navigation": navigation,
        "longTasks": {
            "count": len(durations),
            "totalMs": round(sum(durations), 1),
            "longestMs": round(max(durations, default=0.0), 1),
            "blockingMs": round(sum(max(0.0, d - LONG_TASK_BLOCKING_MS) for d in durations), 1),
        },
        "slowestRequests": [
            {"method": r.method, "url": r.url, "status": r.status, "durationMs": round(r.duration, 1)}
            for r in slowest
        ],
    }


def performance_report(store: TelemetryState, *, scope: Scope, tab_id: int | None) -> ToolAnswer:
    """Summarize each page load in scope that has vitals."""
    vitals = store.select(BufferKind.VITALS, scope=scope, tab_id=tab_id)
    if not vitals:
        where = (
            "the current page load" if scope == "page_load" else ("this tab" if scope == "tab" else "any tab")
        )
        text = (
            f"No Web Vitals recorded for {where} yet. The page reports LCP/FCP/TTFB after it loads "
            "and CLS/INP when it is hidden or after interactions; reload the page or try scope='tab'."
        )
        return ToolAnswer(text=text, data={"target": "performance", "loads": [], "message": text}, empty=True)

    def by_load(entries: list[Entry]) -> dict[tuple[int, str | None], list[Entry]]:
        out: dict[tuple[int, str | None], list[Entry]] = {}
        for e in entries:
            out.setdefault((e.tab_id, e.load_id), []).append(e)
        return out

    tasks = by_load(store.select(BufferKind.LONGTASKS, scope=scope, tab_id=tab_id))
    requests = by_load(store.select(BufferKind.NETWORK, scope=scope, tab_id=tab_id))
    reports = []
    for (tid, load_id), entries in by_load(vitals).items():
        reports.append(
            _load_report(
                tid,
                load_id or "",
                [e.event for e in entries if isinstance(e.event, VitalsEvent)],
                [e.event for e in tasks.get((tid, load_id), []) if isinstance(e.event, LongTaskEvent)],
                [e.event for e in requests.get((tid, load_id), []) if isinstance(e.event, NetworkEvent)],
            )
        )
    lines = []
    for r in reports:
        lines.append(
            f"Page load {r['loadId']} (tab {r['tabId']}): Core Web Vitals {r['coreWebVitals'].upper()}"
        )
        for m, info in r["metrics"].items():
            t = THRESHOLDS[m]
            lines.append(
                f"  {m} {_fmt(m, info['value'])} — {info['rating']} "
                f"(good ≤ {_fmt(m, t.good)}, poor > {_fmt(m, t.poor)})"
            )
        if r["notMeasured"]:
            lines.append(f"  not measured yet: {', '.join(r['notMeasured'])}")
        lt = r["longTasks"]
        if lt["count"]:
            lines.append(
                f"  long tasks: {lt['count']}, longest {lt['longestMs']:.0f} ms, "
                f"blocking {lt['blockingMs']:.0f} ms"
            )
        for req in r["slowestRequests"][:3]:
            lines.append(f"  slow request: {req['method']} {req['url']} {req['durationMs']:.0f} ms")
    data = {
        "target": "performance",
        "thresholds": {m: vars(t) for m, t in THRESHOLDS.items()},
        "loads": reports,
    }
    return ToolAnswer(text="\n".join(lines), data=data)
