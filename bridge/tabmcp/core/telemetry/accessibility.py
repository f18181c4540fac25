"""``analyze(accessibility)``: a readable summary of an axe-core result.

The audit runs in the page; the core only summarizes its JSON, so a stored real result tests it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .answer import ToolAnswer
from .errors import InvalidTelemetryArguments

__all__ = ["IMPACT_ORDER", "check_axe_results", "summarize_axe"]

IMPACT_ORDER = ("critical", "serious", "moderate", "minor")
_MAX_TARGETS = 5


def check_axe_results(results: Any) -> dict[str, Any]:
    """Accept only something shaped like an ``axe.run()`` result (an object with a ``violations`` list)."""
    if not isinstance(results, dict) or not isinstance(results.get("violations"), list):
        raise InvalidTelemetryArguments(
            "accessibility results must be the object axe.run() returns (with a 'violations' list)",
            field="axe_results",
        )
    return results


def _rank(impact: str | None) -> int:
    return IMPACT_ORDER.index(impact) if impact in IMPACT_ORDER else len(IMPACT_ORDER)


def _target(node: dict[str, Any]) -> str:
    target = node.get("target") or []
    return " ".join(t if isinstance(t, str) else ">>>".join(t) for t in target) or node.get("html", "")


def summarize_axe(results: dict[str, Any], *, limit: int = 50) -> ToolAnswer:
    """Violations by impact (most severe first) with where they are and how to fix them."""
    results = check_axe_results(results)
    violations = sorted(results["violations"], key=lambda v: (_rank(v.get("impact")), v.get("id", "")))
    by_impact: Counter[str] = Counter()
    rows = []
    for v in violations:
        nodes = v.get("nodes") or []
        by_impact[v.get("impact") or "unknown"] += len(nodes)
        rows.append(
            {
                "id": v.get("id"),
                "impact": v.get("impact"),
                "help": v.get("help"),
                "helpUrl": v.get("helpUrl"),
                "wcag": [t for t in v.get("tags", []) if t.startswith("wcag")],
                "nodes": len(nodes),
                "targets": [_target(n) for n in nodes[:_MAX_TARGETS]],
                "fix": (nodes[0].get("failureSummary") or "").strip() if nodes else "",
            }
        )
    engine = results.get("testEngine") or {}
    data: dict[str, Any] = {
        "target": "accessibility",
        "url": results.get("url"),
        "timestamp": results.get("timestamp"),
        "engine": f"{engine.get('name', 'axe-core')} {engine.get('version', '')}".strip(),
        "violations": rows[:limit],
        "totals": {
            "violations": len(violations),
            "nodes": sum(by_impact.values()),
            "byImpact": {i: by_impact[i] for i in IMPACT_ORDER if by_impact[i]},
            "passes": len(results.get("passes") or []),
            "incomplete": len(results.get("incomplete") or []),
            "inapplicable": len(results.get("inapplicable") or []),
        },
    }
    if not violations:
        text = (
            f"No accessibility violations found by {data['engine']} on {data['url']} "
            f"({data['totals']['passes']} rules passed, {data['totals']['incomplete']} need manual review)."
        )
        return ToolAnswer(text=text, data=data)
    impact_text = ", ".join(f"{n} {i}" for i, n in data["totals"]["byImpact"].items())
    lines = [
        f"{len(violations)} accessibility rules fail on {data['url']} ({impact_text} element(s)); "
        f"{data['totals']['passes']} pass, {data['totals']['incomplete']} need manual review."
    ]
    for r in rows[:limit]:
        wcag = f" [{', '.join(r['wcag'])}]" if r["wcag"] else ""
        lines.append(f"- {r['impact'] or 'unknown'}: {r['id']} — {r['help']}{wcag} ({r['nodes']} element(s))")
        for t in r["targets"]:
            lines.append(f"    at {t}")
        if r["helpUrl"]:
            lines.append(f"    how to fix: {r['helpUrl']}")
    return ToolAnswer(text="\n".join(lines), data=data)
