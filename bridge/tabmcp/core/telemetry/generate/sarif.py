"""SARIF 2.1.0 from an axe-core result, for code-scanning dashboards and CI gates.

The mapping follows Microsoft's ``axe-sarif-converter``; a page has no line numbers, so an element
is a logical location (its CSS selector).
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..accessibility import check_axe_results

__all__ = ["SARIF_SCHEMA_URI", "build_sarif", "level_for"]

SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_LEVELS = {"critical": "error", "serious": "error", "moderate": "warning", "minor": "note"}


def level_for(impact: str | None) -> str:
    """SARIF level of a failing axe result with this impact."""
    return _LEVELS.get(impact or "", "warning")


def _target(node: dict[str, Any]) -> str:
    parts = node.get("target") or []
    return " ".join(p if isinstance(p, str) else " >>> ".join(p) for p in parts)


def _fingerprint(rule_id: str, target: str) -> str:
    return hashlib.sha256(f"{rule_id}|{target}".encode()).hexdigest()[:32]


def build_sarif(axe_results: dict[str, Any], *, include_incomplete: bool = True) -> dict[str, Any]:
    """A SARIF log with one run for one ``axe.run()`` result."""
    results_in = check_axe_results(axe_results)
    url = results_in.get("url") or "about:blank"
    engine = results_in.get("testEngine") or {}
    groups: list[tuple[str, list[dict[str, Any]]]] = [("fail", results_in["violations"])]
    if include_incomplete:
        groups.append(("review", results_in.get("incomplete") or []))

    rules: list[dict[str, Any]] = []
    rule_index: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    for kind, items in groups:
        for rule in items:
            rule_id = rule.get("id") or "unknown"
            if rule_id not in rule_index:
                rule_index[rule_id] = len(rules)
                descriptor: dict[str, Any] = {
                    "id": rule_id,
                    "shortDescription": {"text": rule.get("help") or rule_id},
                    "fullDescription": {"text": rule.get("description") or rule.get("help") or rule_id},
                    "properties": {"tags": list(rule.get("tags") or [])},
                }
                if rule.get("helpUrl"):
                    descriptor["helpUri"] = rule["helpUrl"]
                rules.append(descriptor)
            for node in rule.get("nodes") or []:
                target = _target(node)
                summary = (node.get("failureSummary") or "").strip()
                text = rule.get("help") or rule_id
                if summary:
                    text += ". " + summary
                result: dict[str, Any] = {
                    "ruleId": rule_id,
                    "ruleIndex": rule_index[rule_id],
                    "kind": kind,
                    "level": level_for(node.get("impact") or rule.get("impact"))
                    if kind == "fail"
                    else "none",
                    "message": {"text": text},
                    "locations": [
                        {
                            "physicalLocation": {"artifactLocation": {"uri": url, "index": 0}},
                            "logicalLocations": [{"fullyQualifiedName": target, "kind": "element"}],
                            "message": {"text": node.get("html") or target},
                        }
                    ],
                    "partialFingerprints": {"axeTarget/v1": _fingerprint(rule_id, target)},
                    "properties": {"impact": node.get("impact") or rule.get("impact")},
                }
                results.append(result)

    invocation: dict[str, Any] = {"executionSuccessful": True}
    if results_in.get("timestamp"):
        invocation["endTimeUtc"] = results_in["timestamp"]
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": engine.get("name") or "axe-core",
                        "version": str(engine.get("version") or ""),
                        "informationUri": "https://github.com/dequelabs/axe-core",
                        "rules": rules,
                    }
                },
                "invocations": [invocation],
                "artifacts": [{"location": {"uri": url}, "mimeType": "text/html"}],
                "results": results,
                "properties": {
                    "passes": len(results_in.get("passes") or []),
                    "inapplicable": len(results_in.get("inapplicable") or []),
                    "generator": "tabmcp",
                },
            }
        ],
    }
