"""``introspect``: what the browser offers, at a glance."""

from __future__ import annotations

from typing import Any

from ..trust.text import ShownResult, shown_result
from .base import BuiltinTool, ToolContext, listed_schema

__all__ = ["INTROSPECT"]

SCHEMA: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

DEFINITION: dict[str, Any] = {
    "name": "introspect",
    "title": "Overview",
    "description": (
        "The open tabs offering tools: origins, categories, page states, profile and policy."
    ),
    "inputSchema": listed_schema(SCHEMA),
    "annotations": {"readOnlyHint": True},
}


async def introspect(ctx: ToolContext, arguments: dict[str, Any]) -> ShownResult:
    """Each document's page text (URL, title, states, category descriptions, refusals) comes
    through the gate, framed with its origin; a flag starts the lockdown, as a page result's does."""
    answer = ctx.bridge.disclosure.introspect(ctx.trust.settings)
    for gate, trust in answer.gates:
        ctx.trust.flag_answer(gate, trust)
    answer.data["extension"] = ctx.bridge.status()["extension"]
    return shown_result(answer.text(), answer.data)


INTROSPECT = BuiltinTool("introspect", introspect, DEFINITION, SCHEMA)
