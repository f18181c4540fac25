"""Which telemetry tools and modes a client sees: a mode only when the store holds data for it, and,
on connections before 2026-07-28, only ``observe`` and ``query_dom`` until the first ``observe``.

Both rules and ``dynamic_exposure = false`` are described in docs/telemetry.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ...capture.kinds import KINDS, CaptureKind
from .counts import DataCounts

__all__ = [
    "ANALYZE_MODES",
    "CONFIGURE_MODES",
    "GENERATE_MODES",
    "LIVE_MODES",
    "OBSERVE_MODES",
    "TELEMETRY_TOOLS",
    "TOOL_MODES",
    "ExposureState",
    "Signature",
    "available_modes",
    "mode_counts",
    "signature",
    "visible_tools",
]

_DERIVED_OBSERVE: Final[dict[str, str]] = {"websocket_status": "websocket_events"}
"""Observe modes that are not a capture kind's, each listed after the mode it follows."""


def _observe_modes() -> tuple[str, ...]:
    modes: list[str] = []
    for kind in KINDS:
        if kind.observe is not None:
            modes.append(kind.observe.mode)
            modes += [m for m, after in _DERIVED_OBSERVE.items() if after == kind.observe.mode]
    return (*modes, "page")


OBSERVE_MODES: Final = _observe_modes()
"""Each capture kind's observe mode (:mod:`tabmcp.capture.kinds`), the WebSocket connections'
table, and ``page`` (the live tab)."""
ANALYZE_MODES: Final = ("performance", "api", "accessibility", "changes", "timeline")
GENERATE_MODES: Final = ("reproduction", "test", "pr_summary", "sarif", "har")
CONFIGURE_MODES: Final = (
    "status",
    "noise",
    "clear",
    "buffers",
    "redaction",
    "exposure",
    "save_snapshot",
    "load_snapshot",
    "list_snapshots",
    "delete_snapshot",
)

TOOL_MODES: Final[dict[str, tuple[str, ...]]] = {
    "observe": OBSERVE_MODES,
    "analyze": ANALYZE_MODES,
    "generate": GENERATE_MODES,
    "configure": CONFIGURE_MODES,
}
TELEMETRY_TOOLS: Final = ("observe", "analyze", "generate", "configure", "query_dom")
"""Every tool this package defines, in tools/list order."""

LIVE_MODES: Final[dict[str, frozenset[str]]] = {
    "observe": frozenset({"page"}),
    "analyze": frozenset({"accessibility"}),
    "generate": frozenset({"sarif"}),
}
"""Modes the extension answers from the live page: the bridge asks the tab first (page info,
an ``axe.run()`` result) and hands the answer to the core entry point."""

_BEFORE_FIRST_OBSERVE: Final = frozenset({"observe", "query_dom"})

_Count = Callable[[DataCounts], int | None]
"""A mode's data count; ``None`` means the mode has no meaningful count (always available)."""


def _buffer_count(kind: CaptureKind) -> _Count:
    name = kind.buffer.value  # a plain str: hashed in C, read on every tools/list
    return lambda c: c.n.get(name, 0)


_OBSERVE_COUNTS: Final[dict[str, _Count]] = {
    **{k.observe.mode: _buffer_count(k) for k in KINDS if k.observe is not None},
    "websocket_status": lambda c: c.websocket_connections,
    "page": lambda c: None,
}

_COUNTS: Final[dict[str, dict[str, _Count]]] = {
    "observe": {m: _OBSERVE_COUNTS[m] for m in OBSERVE_MODES},
    "analyze": {
        "performance": lambda c: c.vitals,
        "api": lambda c: c.api_endpoints,
        "accessibility": lambda c: None,
        "changes": lambda c: c.total,
        "timeline": lambda c: c.actions,
    },
    "generate": {
        "reproduction": lambda c: c.actions,
        "test": lambda c: c.actions,
        "pr_summary": lambda c: c.total,
        "sarif": lambda c: None,
        "har": lambda c: c.network,
    },
}

_ALWAYS: Final[dict[str, frozenset[str]]] = {
    "observe": frozenset({k.observe.mode for k in KINDS if k.observe is not None and k.observe.always} | {"page"}),
    "analyze": frozenset({"accessibility"}),
    "generate": frozenset({"sarif"}),
}
"""Modes listed with or without data: errors/logs may arrive any moment; page,
accessibility and sarif are live queries the extension answers on demand."""


def mode_counts(counts: DataCounts) -> dict[str, dict[str, int]]:
    """``_meta.data_counts`` of each tool: every mode that has a meaningful count."""
    out: dict[str, dict[str, int]] = {}
    for tool, modes in _COUNTS.items():
        out[tool] = {mode: n for mode, fn in modes.items() if (n := fn(counts)) is not None}
    return out


def available_modes(counts: DataCounts) -> dict[str, tuple[str, ...]]:
    """Modes with data (or always available), in the tool's canonical order."""
    out: dict[str, tuple[str, ...]] = {}
    for tool, modes in _COUNTS.items():
        always = _ALWAYS[tool]
        out[tool] = tuple(m for m, fn in modes.items() if m in always or (fn(counts) or 0) > 0)
    out["configure"] = CONFIGURE_MODES
    return out


def visible_tools(*, dynamic: bool, observed: bool, exposure_enabled: bool) -> frozenset[str]:
    """Telemetry tools a client may see, before data filtering (progressive disclosure applies
    only where ``dynamic``)."""
    if exposure_enabled and dynamic and not observed:
        return _BEFORE_FIRST_OBSERVE
    return frozenset(TELEMETRY_TOOLS)


Signature = tuple[bool, tuple[tuple[str, tuple[str, ...]], ...]]


def signature(counts: DataCounts, *, exposure_enabled: bool) -> Signature:
    """What data-driven availability looks like now; when it changes, tools/list changed.

    Counts alone changing is not a change (they are informational ``_meta``).
    """
    if not exposure_enabled:
        return (False, ())
    return (True, tuple(available_modes(counts).items()))


@dataclass
class ExposureState:
    """Progressive-disclosure state of one MCP client connection; never persisted, so a new
    connection or a bridge restart starts over."""

    dynamic: bool
    observed: bool = False

    def note_observe(self, *, exposure_enabled: bool) -> bool:
        """Record a successful observe (a "no data yet" answer counts); ``True`` if that changed
        this client's tools/list."""
        if self.observed:
            return False
        self.observed = True
        return self.dynamic and exposure_enabled
