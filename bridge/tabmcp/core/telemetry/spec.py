"""How a telemetry tool describes itself: a :class:`ToolSpec` beside each handler, so schema and
behaviour change together; the input schema is derived from the argument model that checks a call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pydantic import BaseModel

__all__ = ["ToolSpec", "input_schema"]

_ORDER = ("type", "enum", "items", "properties", "required", "additionalProperties", "minimum", "maximum",
          "minLength", "maxLength", "maxItems", "default", "description")
"""Key order of a derived property (the type first, its description last, as people read it)."""


def _compact(node: Any, defs: dict[str, Any]) -> Any:
    """pydantic's JSON schema as a tool listing needs it: references inlined, ``None`` alternatives
    and titles dropped (an optional argument is one that may be left out)."""
    if isinstance(node, list):
        return [_compact(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    node = dict(node)
    ref = node.pop("$ref", None)
    if ref is not None:
        node = {**defs[ref.rsplit("/", 1)[-1]], **node}
    alternatives = [a for a in node.pop("anyOf", []) if a != {"type": "null"}]
    if len(alternatives) == 1:
        node = {**_compact(alternatives[0], defs), **node}
    elif alternatives:
        node["type"] = [a["type"] for a in alternatives]  # only scalar unions (number | string)
    node.pop("title", None)
    if node.get("default", 0) is None:
        del node["default"]
    out = {}
    for key in sorted(node, key=lambda k: _ORDER.index(k) if k in _ORDER else len(_ORDER)):
        value = node[key]
        if key == "properties":
            value = {name: _compact(prop, defs) for name, prop in value.items()}
        elif key in ("items", "additionalProperties"):
            value = _compact(value, defs)
        out[key] = value
    return out


def input_schema(model: type[BaseModel], *, skip: str = "") -> tuple[dict[str, Any], tuple[str, ...]]:
    """The properties and required names of ``model``'s JSON schema, without the field ``skip``."""
    schema = model.model_json_schema()
    compact = _compact({k: v for k, v in schema.items() if k != "$defs"}, schema.get("$defs", {}))
    properties = {k: v for k, v in compact.get("properties", {}).items() if k != skip}
    return properties, tuple(r for r in compact.get("required", ()) if r != skip)


@dataclass(frozen=True)
class ToolSpec:
    """A tool's static description; ``mode_param`` names the enum parameter that picks the mode
    (empty for a tool without modes), and ``mode_help`` has one line per mode, in canonical order."""

    name: str
    title: str
    intro: str
    args: type[BaseModel]
    mode_param: str = ""
    mode_help: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def _schema(self) -> tuple[dict[str, Any], tuple[str, ...]]:
        return input_schema(self.args, skip=self.mode_param)

    @property
    def properties(self) -> dict[str, Any]:
        """JSON Schema properties other than the mode parameter."""
        return self._schema[0]

    @property
    def required(self) -> tuple[str, ...]:
        """Required properties other than the mode parameter."""
        return self._schema[1]
