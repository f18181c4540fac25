"""Telemetry wire models: the batch the extension sends and the events in it.

The extension captures in the page and sends ``{"type": "telemetry", ...}`` batches. Field
names are camelCase on the wire (aliases) and snake_case in Python; unknown fields are
ignored so a newer extension can add fields without breaking an older bridge. Each kind of
event is a model and a record in :mod:`tabmcp.capture.kinds` (re-exported here).

Events are typed on the wire (:data:`WireEvent`: one of the kinds, told apart by ``kind``) and
parsed one by one: a malformed event, or one of a kind this bridge does not know, becomes a
:class:`RejectedEvent` that is counted and skipped instead of failing the whole batch.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from ...capture.events import Sampling, Selectors, SourceLocation, TelemetryEvent, VitalsMetrics, Wire, header_value
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


class TelemetryBatch(Wire):
    """One ``telemetry`` message, its events typed (see :data:`WireEvent`)."""

    type: Literal["telemetry"] = "telemetry"
    tab_id: int
    document_id: str | None = None
    origin: str | None = None
    """The document's origin by Chrome's word (the extension's, not the page's); unset from an
    older extension or a test, and then nothing is checked against it."""
    url: str = ""
    page_reported: bool = False
    """The page's own scripts posted this batch (not the extension's capture)."""
    title: str | None = None
    """Not sent by the current extension; accepted so a later one can send it."""
    events: list[WireEvent] = Field(default_factory=list)
    dropped: dict[str, int] = Field(default_factory=dict)
    """What the page itself had to drop, by event kind, since its previous batch."""

    @field_validator("dropped")
    @classmethod
    def _non_negative(cls, v: dict[str, int]) -> dict[str, int]:
        return {k: n for k, n in v.items() if n > 0}
