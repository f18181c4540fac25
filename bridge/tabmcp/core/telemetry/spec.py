"""How a telemetry tool describes itself; the definitions builder filters modes from these.

Each tool module (observe, analyze, generate, configure, query_dom) declares one
:class:`ToolSpec` beside its handler, so schema and behaviour change together.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolSpec"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool's static description.

    Attributes:
        name: the MCP tool name.
        title: short human title.
        intro: the description's first paragraph (what the tool is for, when to call it).
        mode_param: the enum parameter that picks the mode (``what``, ``target``...); empty
            for a tool without modes.
        mode_help: one line per mode, in canonical order; only listed modes are described.
        properties: JSON Schema properties other than the mode parameter.
        required: required properties other than the mode parameter.
        annotations: MCP tool annotations.
    """

    name: str
    title: str
    intro: str
    mode_param: str = ""
    mode_help: dict[str, str] = field(default_factory=dict)
    properties: dict[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    annotations: dict[str, Any] = field(default_factory=dict)
