"""Telemetry wire models: the batch the extension sends and the eight event kinds in it.

The extension captures in the page and sends ``{"type": "telemetry", ...}`` batches. Field
names are camelCase on the wire (aliases) and snake_case in Python; unknown fields are
ignored so a newer extension can add fields without breaking an older bridge.

Events are parsed one by one (:func:`parse_event`), not as part of the batch, so a single
malformed or unknown event is counted and skipped instead of failing the whole batch.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator
from pydantic.alias_generators import to_camel

__all__ = [
    "EVENT_KINDS",
    "ActionEvent",
    "ConsoleEvent",
    "ErrorEvent",
    "Event",
    "LongTaskEvent",
    "NavigationEvent",
    "NetworkEvent",
    "Sampling",
    "Selectors",
    "SourceLocation",
    "TelemetryBatch",
    "VitalsEvent",
    "VitalsMetrics",
    "WebSocketEvent",
    "event_to_wire",
    "header_value",
    "parse_event",
]

EVENT_KINDS = ("console", "error", "network", "websocket", "action", "vitals", "longtask", "navigation")


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)


class _Event(_Wire):
    ts: float
    """When the page recorded the event, epoch milliseconds."""
    page_reported: bool | None = None
    """True when written by the page's own scripts, not seen by the extension's capture: a batch the page
    posted itself, or a URL of another origin than the tab's document (see ``TelemetryStore.ingest``).
    Set by the bridge only; whatever the event says about itself is overwritten."""

    @field_validator("ts")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v) or v < 0:
            raise ValueError("ts must be a non-negative epoch time in milliseconds")
        return v


class SourceLocation(_Wire):
    url: str | None = None
    line: int | None = None
    col: int | None = None


class ConsoleEvent(_Event):
    kind: Literal["console"] = "console"
    level: Literal["log", "info", "warn", "error", "debug"]
    args: list[str] = Field(default_factory=list)
    """Arguments already serialized to strings by the page."""
    source: SourceLocation | None = None

    @property
    def text(self) -> str:
        return " ".join(self.args)


class ErrorEvent(_Event):
    kind: Literal["error"] = "error"
    message: str
    stack: str | None = None
    source: SourceLocation | None = None
    error_type: Literal["uncaught", "unhandledrejection", "console"] = "uncaught"


class NetworkEvent(_Event):
    kind: Literal["network"] = "network"
    request_id: str
    api: Literal["fetch", "xhr"]
    method: str
    url: str
    status: int = 0
    """HTTP status; 0 when the request failed (see ``failure``)."""
    status_text: str = ""
    start_time: float = 0.0
    """Epoch ms when the request started (a small value is read as relative, see :attr:`started_at`)."""
    duration: float = 0.0
    request_headers: dict[str, str] = Field(default_factory=dict)
    response_headers: dict[str, str] = Field(default_factory=dict)
    request_body: str | None = None
    response_body: str | None = None
    body_truncated: bool = False
    mime_type: str | None = None
    failure: str | None = None

    @field_validator("method")
    @classmethod
    def _upper(cls, v: str) -> str:
        return v.upper()

    @property
    def started_at(self) -> float:
        """Epoch ms the request started.

        ``startTime`` may come from ``performance.now()`` (relative to the page's time
        origin) instead of the epoch; then completion time minus duration is the best guess.
        """
        if self.start_time > 1e11:
            return self.start_time
        return max(self.ts - self.duration, 0.0)

    @property
    def failed(self) -> bool:
        return self.status == 0 or self.status >= 400 or self.failure is not None


class Sampling(_Wire):
    every: int = Field(ge=1)


class WebSocketEvent(_Event):
    kind: Literal["websocket"] = "websocket"
    connection_id: str
    event: Literal["open", "close", "error", "message"]
    url: str
    direction: Literal["in", "out"] | None = None
    data: str | None = None
    size: int | None = None
    sampled: Sampling | None = None
    """Set when the page kept only one message in ``every`` of a chatty socket."""
    code: int | None = None
    reason: str | None = None


class Selectors(_Wire):
    """Every way the page could name the element acted on, best first (see generate/locators)."""

    test_id: str | None = None
    role: str | None = None
    name: str | None = None
    label: str | None = None
    text: str | None = None
    css: str = ""

    def describe(self) -> str:
        """A short human name for the element (``button "Save"``, ``[data-testid=cart]``)."""
        if self.test_id:
            return f"[data-testid={self.test_id}]"
        if self.role and self.name:
            return f'{self.role} "{self.name}"'
        if self.label:
            return f'field "{self.label}"'
        if self.text:
            return f'"{self.text}"'
        return self.css or "(unknown element)"


class ActionEvent(_Event):
    kind: Literal["action"] = "action"
    action: Literal["click", "input", "change", "submit", "keydown", "navigate", "route"]
    url: str
    selectors: Selectors = Field(default_factory=lambda: Selectors())
    value: str | None = None
    """Already redacted by the page for password and card fields."""
    key: str | None = None
    tag: str | None = None


class VitalsMetrics(_Wire):
    lcp: float | None = Field(None, alias="LCP")
    cls: float | None = Field(None, alias="CLS")
    inp: float | None = Field(None, alias="INP")
    fcp: float | None = Field(None, alias="FCP")
    ttfb: float | None = Field(None, alias="TTFB")


class VitalsEvent(_Event):
    kind: Literal["vitals"] = "vitals"
    load_id: str
    metrics: VitalsMetrics = Field(default_factory=lambda: VitalsMetrics.model_validate({}))
    navigation: dict[str, float | int | str | None] | None = None
    """Navigation timing (``domContentLoaded``, ``load``, ``transferSize``, ...), ms."""


class LongTaskEvent(_Event):
    kind: Literal["longtask"] = "longtask"
    start_time: float
    duration: float


class NavigationEvent(_Event):
    kind: Literal["navigation"] = "navigation"
    load_id: str
    url: str
    nav_type: Literal["load", "reload", "back_forward", "spa"]

    @property
    def new_document(self) -> bool:
        """A full page load starts a new "current page load"; an SPA route change does not."""
        return self.nav_type != "spa"


Event = Annotated[
    ConsoleEvent
    | ErrorEvent
    | NetworkEvent
    | WebSocketEvent
    | ActionEvent
    | VitalsEvent
    | LongTaskEvent
    | NavigationEvent,
    Field(discriminator="kind"),
]

_EVENT = TypeAdapter[Event](Event)


def parse_event(raw: Any) -> Event | None:
    """Validate one event; ``None`` if it is malformed or of a kind this bridge does not know."""
    if not isinstance(raw, dict):
        return None
    try:
        return _EVENT.validate_python(raw)
    except ValidationError:
        return None


def header_value(headers: dict[str, str], name: str) -> str | None:
    """A header's value by case-insensitive name (pages send them in any case)."""
    lowered = name.lower()
    for key, value in headers.items():
        if key.lower() == lowered:
            return value
    return None


def event_to_wire(event: Event) -> dict[str, Any]:
    """The event as the extension would send it (camelCase, no unset optionals)."""
    return event.model_dump(by_alias=True, exclude_none=True, mode="json")


class TelemetryBatch(_Wire):
    """One ``telemetry`` message. ``events`` stay raw here; see :func:`parse_event`."""

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
    events: list[Any] = Field(default_factory=list)
    dropped: dict[str, int] = Field(default_factory=dict)
    """What the page itself had to drop, by event kind, since its previous batch."""

    @field_validator("dropped")
    @classmethod
    def _non_negative(cls, v: dict[str, int]) -> dict[str, int]:
        return {k: n for k, n in v.items() if n > 0}
