"""Telemetry wire models: the batch the extension sends and the events in it (kinds re-exported
from :mod:`tabmcp.capture.kinds`).

Events are parsed one by one, so a malformed or unknown one becomes a counted
:class:`RejectedEvent` rather than failing the whole batch.
"""

from __future__ import annotations

from typing import Any, Literal

from ...capture.events import Sampling, Selectors, SourceLocation, TelemetryEvent, VitalsMetrics, header_value
from ...capture.kinds import (
    EVENT_KINDS,
    ActionEvent,
    ConsoleEvent,
    ErrorEvent,
    Event,
    LongTaskEvent,
    NavigationEvent,
    NetworkEvent,
    RejectedEvent,
    VitalsEvent,
    WebSocketEvent,
    WireEvent,
    parse_event,
)
from ...protocol import Telemetry
from ..trust.text import Captured

__all__ = [
    "EVENT_KINDS",
    "ActionEvent",
    "ConsoleEvent",
    "ErrorEvent",
    "Event",
    "LongTaskEvent",
    "NavigationEvent",
    "NetworkEvent",
    "RejectedEvent",
    "Sampling",
    "Selectors",
    "SourceLocation",
    "TelemetryBatch",
    "TelemetryEvent",
    "VitalsEvent",
    "VitalsMetrics",
    "WebSocketEvent",
    "WireEvent",
    "event_to_wire",
    "header_value",
    "parse_event",
]


def event_to_wire(event: TelemetryEvent) -> dict[str, Any]:
    """The event as the extension would send it (camelCase, no unset optionals)."""
    return event.model_dump(by_alias=True, exclude_none=True, mode="json")


class TelemetryBatch(Telemetry):
    """One ``telemetry`` message (the wire's :class:`tabmcp.protocol.Telemetry`, its events typed by
    kind), as the store reads it: ``type`` may be left out, and a later extension may name the
    tab's title."""

    type: Literal["telemetry"] = "telemetry"
    title: Captured | None = None
    """Not sent by the current extension; accepted so a later one can send it."""
