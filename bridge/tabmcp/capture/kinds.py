"""Capture kinds as data: each kind's wire model (how it reads) and its :class:`CaptureKind` record
in :data:`KINDS`, which the rest of the telemetry core and ``python -m tabmcp.protocol_js`` read.

Adding a kind: docs/telemetry.md ("Adding a kind touches three files").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import Field, TypeAdapter, ValidationError, WrapValidator, field_validator
from pydantic_core.core_schema import ValidatorFunctionWrapHandler

from ..core.trust.text import Captured
from .events import Sampling, Selectors, SourceLocation, TelemetryEvent, VitalsMetrics, Wire, cut, header_value

__all__ = [
    "EVENT_KINDS",
    "EVICTION_ORDER",
    "KINDS",
    "ActionEvent",
    "BufferKind",
    "CaptureKind",
    "ConsoleEvent",
    "ErrorEvent",
    "Event",
    "LongTaskEvent",
    "NavigationEvent",
    "NetworkEvent",
    "ObserveView",
    "Redact",
    "RejectedEvent",
    "VitalsEvent",
    "WebSocketEvent",
    "WireEvent",
    "buffer_kind_of",
    "capture_kind",
    "kind_of",
    "parse_event",
]


# -- the kinds' wire models -------------------------------------------------------------------


class ConsoleEvent(TelemetryEvent):
    kind: Literal["console"] = "console"
    level: Literal["log", "info", "warn", "error", "debug"]
    args: list[Captured] = Field(default_factory=list)
    """Arguments already serialized to strings by the page."""
    source: SourceLocation | None = None

    @property
    def text(self) -> Captured:
        return Captured(" ".join(self.args))

    def search_text(self) -> str:
        return self.text

    def where(self, page_url: str) -> str:
        return f"{self.source.url} {page_url}" if self.source and self.source.url else page_url

    def line(self, *, include_bodies: bool = False) -> Captured:
        return Captured(f"{self.level.upper():5} {self.text}")

    def summary(self) -> tuple[str, Captured]:
        return "console", Captured(f"{self.level}: {self.text}")

    def shrink(self, budget: int) -> Self:
        share = max(budget * 2 // max(len(self.args), 1), 64)
        return self.model_copy(update={"args": [cut(a, share) or "" for a in self.args]})


class ErrorEvent(TelemetryEvent):
    kind: Literal["error"] = "error"
    message: Captured
    stack: Captured | None = None
    source: SourceLocation | None = None
    error_type: Literal["uncaught", "unhandledrejection", "console"] = "uncaught"

    def search_text(self) -> str:
        return f"{self.message}\n{self.stack or ''}"

    def where(self, page_url: str) -> str:
        return f"{self.source.url} {page_url}" if self.source and self.source.url else page_url

    def line(self, *, include_bodies: bool = False) -> Captured:
        where = f" at {self.source.url}:{self.source.line}" if self.source and self.source.url else ""
        first_frame = ""
        if self.stack:
            frames = [ln.strip() for ln in self.stack.splitlines()[1:3] if ln.strip()]
            first_frame = "".join(f"\n    {f}" for f in frames)
        return Captured(f"[{self.error_type}] {self.message}{where}{first_frame}")

    def summary(self) -> tuple[str, Captured]:
        return "error", Captured(f"{self.error_type}: {self.message}")

    def shrink(self, budget: int) -> Self:
        return self.model_copy(update={"message": cut(self.message, budget), "stack": cut(self.stack, budget)})


class NetworkEvent(TelemetryEvent):
    kind: Literal["network"] = "network"
    request_id: str
    api: Literal["fetch", "xhr"]
    method: Captured
    url: Captured
    status: int = 0
    """HTTP status; 0 when the request failed (see ``failure``)."""
    status_text: Captured = Captured("")
    start_time: float = 0.0
    """Epoch ms when the request started (a small value is read as relative, see :attr:`started_at`)."""
    duration: float = 0.0
    request_headers: dict[Captured, Captured] = Field(default_factory=dict)
    response_headers: dict[Captured, Captured] = Field(default_factory=dict)
    request_body: Captured | None = None
    response_body: Captured | None = None
    body_truncated: bool = False
    mime_type: Captured | None = None
    failure: Captured | None = None

    @field_validator("method")
    @classmethod
    def _upper(cls, v: Captured) -> Captured:
        return Captured(v.upper())

    @property
    def started_at(self) -> float:
        """Epoch ms the request started (completion time minus duration when ``startTime`` was
        relative to the page's time origin)."""
        if self.start_time > 1e11:
            return self.start_time
        return max(self.ts - self.duration, 0.0)

    @property
    def at(self) -> float:
        return self.started_at

    @property
    def failed(self) -> bool:
        return self.status == 0 or self.status >= 400 or self.failure is not None

    def search_text(self) -> str:
        return f"{self.url}\n{self.request_body or ''}\n{self.response_body or ''}\n{self.failure or ''}"

    def where(self, page_url: str) -> str:
        return self.url

    def line(self, *, include_bodies: bool = False) -> Captured:
        status = str(self.status) if self.status else f"FAILED ({self.failure or 'no response'})"
        line = f"{self.method} {self.url} → {status} in {self.duration:.0f} ms [{self.api}]"
        if include_bodies:
            if self.request_body:
                line += f"\n    request: {self.request_body}"
            if self.response_body:
                line += f"\n    response: {self.response_body}"
        return Captured(line)

    def summary(self) -> tuple[str, Captured]:
        outcome = str(self.status) if self.status else f"failed: {self.failure or 'no response'}"
        return "request", Captured(f"{self.method} {self.url} → {outcome} ({self.duration:.0f} ms)")

    def shrink(self, budget: int) -> Self:
        return self.model_copy(
            update={
                "request_body": cut(self.request_body, budget),
                "response_body": cut(self.response_body, budget),
                "body_truncated": True,
            }
        )

    def mime_of(self, field: str) -> str | None:
        if field == "request_body":
            return header_value(self.request_headers, "content-type")
        return self.mime_type if field == "response_body" else None


class WebSocketEvent(TelemetryEvent):
    kind: Literal["websocket"] = "websocket"
    connection_id: Captured
    event: Literal["open", "close", "error", "message"]
    url: Captured
    direction: Literal["in", "out"] | None = None
    data: Captured | None = None
    size: int | None = None
    sampled: Sampling | None = None
    """Set when the page kept only one message in ``every`` of a chatty socket."""
    code: int | None = None
    reason: Captured | None = None

    def search_text(self) -> str:
        return f"{self.data or ''} {self.reason or ''}"

    def where(self, page_url: str) -> str:
        return self.url

    def line(self, *, include_bodies: bool = False) -> Captured:
        arrow = {"in": "←", "out": "→"}.get(self.direction or "", "·")
        detail = self.data or (f"code {self.code} {self.reason or ''}".strip() if self.event == "close" else "")
        sampled = f" (1 in {self.sampled.every})" if self.sampled else ""
        return Captured(f"ws {self.connection_id} {self.event} {arrow} {detail}{sampled}".rstrip())

    def summary(self) -> tuple[str, Captured]:
        shown = self.url if self.event == "open" else (self.data or "")
        return "websocket", Captured(f"{self.event} {self.connection_id} {shown}".strip())

    def shrink(self, budget: int) -> Self:
        return self.model_copy(update={"data": cut(self.data, budget * 2)})


class ActionEvent(TelemetryEvent):
    kind: Literal["action"] = "action"
    action: Literal["click", "input", "change", "submit", "keydown", "navigate", "route"]
    url: Captured
    selectors: Selectors = Field(default_factory=lambda: Selectors())
    value: Captured | None = None
    """Already redacted by the page for password and card fields."""
    key: Captured | None = None
    tag: Captured | None = None

    def search_text(self) -> str:
        s = self.selectors
        return " ".join(x for x in (self.action, s.test_id, s.role, s.name, s.label, s.text, s.css, self.value) if x)

    def where(self, page_url: str) -> str:
        return self.url

    def line(self, *, include_bodies: bool = False) -> Captured:
        target = self.selectors.describe()
        value = f" = {self.value!r}" if self.value is not None else ""
        key = f" key {self.key}" if self.key else ""
        return Captured(f"{self.action} {target or self.url}{value}{key}")

    def summary(self) -> tuple[str, Captured]:
        if self.action in ("navigate", "route"):
            return "action", Captured(f"{self.action} to {self.url}")
        value = f" = {self.value!r}" if self.value is not None and self.action in ("input", "change") else ""
        key = f" {self.key}" if self.key else ""
        return "action", Captured(f"{self.action}{key} {self.selectors.describe()}{value}")

    def secret_hints(self) -> str:
        s = self.selectors
        return " ".join(x for x in (s.test_id, s.name, s.label, s.css) if x)


class VitalsEvent(TelemetryEvent):
    kind: Literal["vitals"] = "vitals"
    load_id: str
    metrics: VitalsMetrics = Field(default_factory=lambda: VitalsMetrics.model_validate({}))
    navigation: dict[str, float | int | str | None] | None = None
    """Navigation timing (``domContentLoaded``, ``load``, ``transferSize``, ...), ms."""


class LongTaskEvent(TelemetryEvent):
    kind: Literal["longtask"] = "longtask"
    start_time: float
    duration: float


class NavigationEvent(TelemetryEvent):
    kind: Literal["navigation"] = "navigation"
    load_id: str
    url: Captured
    nav_type: Literal["load", "reload", "back_forward", "spa"]

    @property
    def new_document(self) -> bool:
        """A full page load starts a new "current page load"; an SPA route change does not."""
        return self.nav_type != "spa"

    def summary(self) -> tuple[str, Captured]:
        return "navigation", Captured(f"{self.nav_type} {self.url}")


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
"""Any event of a known kind, told apart by ``kind`` (one member per record in :data:`KINDS`)."""

_EVENT = TypeAdapter[Event](Event)


class RejectedEvent(Wire):
    """An event the bridge could not accept: malformed, or of a kind it does not know."""

    kind: str = "unknown"
    """The kind it claimed (``unknown`` when it named none)."""


def parse_event(raw: Any) -> Event | None:
    """Validate one event; ``None`` if it is malformed or of a kind this bridge does not know."""
    if isinstance(raw, TelemetryEvent):
        return raw  # type: ignore[return-value]  # parsed already: one of Event's members
    if not isinstance(raw, dict):
        return None
    try:
        return _EVENT.validate_python(raw)
    except ValidationError:
        return None


def _one_event(raw: Any, handler: ValidatorFunctionWrapHandler) -> Event | RejectedEvent:
    if isinstance(raw, RejectedEvent):
        return raw
    event = parse_event(raw)
    if event is not None:
        return event
    kind = raw.get("kind") if isinstance(raw, dict) else None
    return RejectedEvent(kind=kind if isinstance(kind, str) and kind else "unknown")


WireEvent = Annotated[Event | RejectedEvent, WrapValidator(_one_event)]
"""One event of a ``telemetry`` batch on the wire: a known kind, or a rejected one. Each event is
parsed on its own, so one malformed event is counted (``rejected``), not the whole batch refused."""


# -- the records ------------------------------------------------------------------------------


class BufferKind(StrEnum):
    """Where events are kept (one per kind: ``console`` events go to ``logs``)."""

    ERRORS = "errors"
    LOGS = "logs"
    NETWORK = "network"
    WEBSOCKET = "websocket"
    ACTIONS = "actions"
    VITALS = "vitals"
    LONGTASKS = "longtasks"
    NAVIGATIONS = "navigations"


class Redact(StrEnum):
    """How redaction rewrites a field (``tabmcp/core/telemetry/redact.py`` applies them)."""

    TEXT = "text"
    """Free text: the patterns, then card numbers."""
    URL = "url"
    """A URL: secret query / fragment parameters, a password in it, then the text rules."""
    BODY = "body"
    """A body, frame or log argument: JSON and forms by key names, anything else as text."""
    BODIES = "bodies"
    """A list of those (a console call's arguments)."""
    HEADERS = "headers"
    """Secret header names lose their values; the others get the text rules."""
    SOURCE = "source"
    """A source location's URL."""
    INPUT = "input"
    """A value typed into a field: gone when the field's names say secret (``secret_hints``)."""
    SELECTORS = "selectors"
    """An element's names (accessible name, label, text) as free text, as the page redacts them."""


@dataclass(frozen=True, slots=True)
class ObserveView:
    """How ``observe`` shows a kind: ``observe(what=mode)``."""

    mode: str
    label: str
    """Plural noun in answers ("console messages")."""
    help: str
    """The mode's line in the tool's description."""
    filters: frozenset[str]
    """The ``observe`` filters that apply (the others are ignored, and said so)."""
    always: bool = False
    """Listed with no data yet (it may arrive any moment)."""


@dataclass(frozen=True, slots=True)
class CaptureKind:
    """One kind of captured event, as data the rest of the telemetry core reads."""

    name: str
    """The wire's ``kind``."""
    model: type[TelemetryEvent]
    buffer: BufferKind
    cap: int
    """Entries of this kind a tab keeps by default (``[telemetry.buffers]``)."""
    max_cap: int
    """The most ``[telemetry.buffers]`` may ask for."""
    page_cap: int
    """Events the page holds between two batches; beyond, it counts them as dropped."""
    evict_rank: int
    """Under the byte ceiling, kinds of lower rank lose entries first (errors last)."""
    redact: Mapping[str, Redact] = field(default_factory=dict)
    """The fields redaction rewrites, and by which rule (the page's capture applies the same)."""
    observe: ObserveView | None = None
    timeline: bool = False
    """Shown in ``analyze(timeline)`` when asked for (its ``summary``)."""
    noise: bool = False
    """Noise rules apply to it (console text, request / socket / source URLs)."""
    example: Mapping[str, Any] = field(default_factory=dict)
    """The smallest event of this kind as the page sends it, besides ``kind`` and ``ts`` (tests
    build one of each kind from it; docs/telemetry.md shows them)."""


KINDS: tuple[CaptureKind, ...] = (
    CaptureKind(
        "error", ErrorEvent, BufferKind.ERRORS, cap=500, max_cap=100_000, page_cap=100, evict_rank=7,
        example={"message": "boom"},
        redact={"message": Redact.TEXT, "stack": Redact.TEXT, "source": Redact.SOURCE},
        observe=ObserveView(
            "errors", "errors", "uncaught errors, unhandled rejections and console.error (filters: url, contains)",
            frozenset({"url", "contains"}), always=True),
        timeline=True, noise=True,
    ),
    CaptureKind(
        "console", ConsoleEvent, BufferKind.LOGS, cap=1000, max_cap=100_000, page_cap=300, evict_rank=0,
        example={"level": "log", "args": ["hello"]},
        redact={"args": Redact.BODIES, "source": Redact.SOURCE},
        observe=ObserveView(
            "logs", "console messages", "console messages (filters: level, url, contains)",
            frozenset({"url", "contains", "level"}), always=True),
        timeline=True, noise=True,
    ),
    CaptureKind(
        "network", NetworkEvent, BufferKind.NETWORK, cap=300, max_cap=100_000, page_cap=100, evict_rank=3,
        example={"requestId": "r1", "api": "fetch", "method": "GET", "url": "https://shop.test/api"},
        redact={"url": Redact.URL, "status_text": Redact.TEXT, "request_headers": Redact.HEADERS,
                "response_headers": Redact.HEADERS, "request_body": Redact.BODY, "response_body": Redact.BODY,
                "failure": Redact.TEXT},
        observe=ObserveView(
            "network", "network requests",
            "fetch/XHR requests (filters: url, method, status_min, status_max, include_bodies)",
            frozenset({"url", "method", "status_min", "status_max", "include_bodies", "contains"})),
        timeline=True, noise=True,
    ),
    CaptureKind(
        "websocket", WebSocketEvent, BufferKind.WEBSOCKET, cap=500, max_cap=100_000, page_cap=300, evict_rank=1,
        example={"connectionId": "c1", "event": "open", "url": "wss://shop.test/ws"},
        redact={"url": Redact.URL, "data": Redact.BODY, "reason": Redact.TEXT},
        observe=ObserveView(
            "websocket_events", "WebSocket events",
            "WebSocket frames and lifecycle (filters: connection_id, direction, url)",
            frozenset({"url", "connection_id", "direction", "contains"})),
        timeline=True, noise=True,
    ),
    CaptureKind(
        "action", ActionEvent, BufferKind.ACTIONS, cap=500, max_cap=100_000, page_cap=100, evict_rank=5,
        example={"action": "input", "url": "https://shop.test/", "value": "hi"},
        redact={"url": Redact.URL, "value": Redact.INPUT, "selectors": Redact.SELECTORS},
        observe=ObserveView(
            "actions", "user actions", "user clicks, inputs, submits, key presses and navigations",
            frozenset({"url", "contains"})),
        timeline=True,
    ),
    CaptureKind(
        "vitals", VitalsEvent, BufferKind.VITALS, cap=50, max_cap=10_000, page_cap=10, evict_rank=4,
        example={"loadId": "l1", "metrics": {"LCP": 100}},
        observe=ObserveView(
            "vitals", "Web Vitals measurements", "Core Web Vitals (LCP, CLS, INP, FCP, TTFB) per page load",
            frozenset({"url"})),
    ),
    CaptureKind(
        "longtask", LongTaskEvent, BufferKind.LONGTASKS, cap=200, max_cap=100_000, page_cap=50, evict_rank=2,
        example={"startTime": 1, "duration": 60},
    ),
    CaptureKind(
        "navigation", NavigationEvent, BufferKind.NAVIGATIONS, cap=100, max_cap=10_000, page_cap=30, evict_rank=6,
        example={"loadId": "l1", "url": "https://shop.test/", "navType": "load"},
        redact={"url": Redact.URL}, timeline=True,
    ),
)
"""Every capture kind, in the order observe lists their modes."""

EVENT_KINDS: tuple[str, ...] = tuple(k.name for k in KINDS)

EVICTION_ORDER: tuple[BufferKind, ...] = tuple(k.buffer for k in sorted(KINDS, key=lambda k: k.evict_rank))
"""Under the byte ceiling, kinds lose entries in this order (first = least valuable)."""

_BY_NAME: dict[str, CaptureKind] = {k.name: k for k in KINDS}
_BY_MODEL: dict[type[TelemetryEvent], CaptureKind] = {k.model: k for k in KINDS}


def capture_kind(name: str) -> CaptureKind | None:
    """The record of a wire kind (None for a kind this bridge does not know)."""
    return _BY_NAME.get(name)


def kind_of(event: TelemetryEvent) -> CaptureKind:
    """The record of an event parsed by :func:`.models.parse_event`."""
    return _BY_MODEL[type(event)]


def buffer_kind_of(event_kind: str) -> str:
    """The buffer a wire event kind lands in (unknown kinds keep their own name)."""
    kind = _BY_NAME.get(event_kind)
    return kind.buffer.value if kind is not None else event_kind
