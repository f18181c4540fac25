"""The telemetry tools' MCP definitions for one client's tools/list.

Built from O(1) counters, with each definition's static part cached per set of modes, so the cost
does not grow with the buffers.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .analyze import ANALYZE_SPEC
from .availability import TELEMETRY_TOOLS, TOOL_MODES, available_modes, mode_counts, visible_tools
from .configure import CONFIGURE_SPEC
from .counts import DataCounts
from .generate import GENERATE_SPEC
from .observe import OBSERVE_SPEC
from .query_dom import QUERY_DOM_SPEC
from .spec import ToolSpec

__all__ = ["META_AVAILABLE_MODES", "META_DATA_COUNTS", "SPECS", "build_tool_definitions"]

META_AVAILABLE_MODES = "available_modes"
META_DATA_COUNTS = "data_counts"

SPECS: dict[str, ToolSpec] = {
    s.name: s for s in (OBSERVE_SPEC, ANALYZE_SPEC, GENERATE_SPEC, CONFIGURE_SPEC, QUERY_DOM_SPEC)
}
assert tuple(SPECS) == TELEMETRY_TOOLS

_WITH_COUNTS = frozenset({"observe", "analyze", "generate"})


@lru_cache(maxsize=256)
def _static(name: str, modes: tuple[str, ...], filtered: bool) -> tuple[str, dict[str, Any]]:
    """Description and input schema of a tool listing ``modes`` (cached: modes change rarely)."""
    spec = SPECS[name]
    properties: dict[str, Any] = {}
    required = list(spec.required)
    description = spec.intro
    if spec.mode_param:
        lines = [f"- {m}: {spec.mode_help[m]}" for m in modes]
        description += f"\n\n{spec.mode_param}:\n" + "\n".join(lines)
        if filtered and len(modes) < len(TOOL_MODES[name]):
            description += "\nOther modes appear once the browser has data for them."
        properties[spec.mode_param] = {"type": "string", "enum": list(modes)}
        required.insert(0, spec.mode_param)
    properties.update(spec.properties)
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return description, schema


def build_tool_definitions(
    counts: DataCounts, *, dynamic: bool, observed: bool, exposure_enabled: bool
) -> list[dict[str, Any]]:
    """MCP definitions of the telemetry tools for one client (:class:`ExposureState`'s ``dynamic`` and
    ``observed``); shared parts are cached, so treat the result as read-only."""
    visible = visible_tools(dynamic=dynamic, observed=observed, exposure_enabled=exposure_enabled)
    real = available_modes(counts)
    per_tool = mode_counts(counts)
    out: list[dict[str, Any]] = []
    for name in TELEMETRY_TOOLS:
        if name not in visible:
            continue
        spec = SPECS[name]
        modes = (real[name] if exposure_enabled else TOOL_MODES[name]) if spec.mode_param else ()
        if spec.mode_param and not modes:
            continue
        description, schema = _static(name, modes, exposure_enabled)
        definition: dict[str, Any] = {
            "name": name,
            "title": spec.title,
            "description": description,
            "inputSchema": schema,
            "annotations": spec.annotations,
        }
        if name in _WITH_COUNTS:
            definition["_meta"] = {
                META_AVAILABLE_MODES: list(real[name]),
                META_DATA_COUNTS: {m: n for m, n in per_tool[name].items() if m in modes},
            }
        out.append(definition)
    return out
