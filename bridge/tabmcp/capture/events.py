"""What every telemetry event shares: the wire base, the event base class whose defaults each kind's
model (:mod:`.kinds`) overrides, and the small shapes several kinds embed.
"""

from __future__ import annotations

import math
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from ..core.trust.text import Captured

__all__ = [
    "TRUNCATED",
    "Sampling",
    "Selectors",
    "SourceLocation",
    "TelemetryEvent",
    "VitalsMetrics",
    "Wire",
    "cut",
    "header_value",
]

TRUNCATED = "…[truncated by tabmcp]"


def cut(text: str | None, limit: int) -> str | None:
    """``text`` cut to ``limit`` characters, marked as truncated (None stays None)."""
    if text is None or len(text) <= limit:
        return text
    return text[: max(limit - len(TRUNCATED), 0)] + TRUNCATED


class Wire(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown fields ignored (a newer extension
    can add fields without breaking an older bridge)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True, use_attribute_docstrings=True
    )


class TelemetryEvent(Wire):
    """One captured event. Each kind's model (:mod:`.kinds`) sets ``kind`` and overrides the
    defaults below for how it reads."""

    kind: str
    ts: float
    """When the page recorded the event, epoch milliseconds."""
    page_reported: bool | None = None
    """True when written by the page's own scripts, not seen by the extension's capture: a batch the page
    posted itself, or a URL of another origin than the tab's document (see ``TelemetryState.ingest``).
    Set by the bridge only; whatever the event says about itself is overwritten."""

    @field_validator("ts")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v) or v < 0:
            raise ValueError("ts must be a non-negative epoch time in milliseconds")
        return v

    # -- how a kind reads (overridden per kind) -----------------------------------------------

    @property
    def at(self) -> float:
        """When it happened, for time-ordered views (a request: when it started)."""
        return self.ts

    def search_text(self) -> str:
        """What ``observe``'s ``contains`` filter searches."""
        return ""

    def where(self, page_url: str) -> str:
        """What ``observe``'s ``url`` filter searches (``page_url``: the tab's URL then)."""
        return page_url

    def line(self, *, include_bodies: bool = False) -> Captured:
        """The event as one ``observe`` line, after its time (the page's words in it: :data:`Captured`)."""
        return Captured(self.kind)

    def summary(self) -> tuple[str, Captured]:
        """(type, one-line summary) in a timeline and the PR summary."""
        return self.kind, Captured(self.kind)

    def shrink(self, budget: int) -> Self:
        """A copy with its large text fields cut to about ``budget`` characters each (the event
        was larger than ``max_event_bytes``); the event itself when it has none."""
        return self

    def secret_hints(self) -> str:
        """Words that make a captured value secret whatever it looks like (an input's name)."""
        return ""

    def mime_of(self, field: str) -> str | None:
        """The media type of a body field, when the event knows it."""
        return None


class SourceLocation(Wire):
    url: Captured | None = None
    line: int | None = None
    col: int | None = None


class Sampling(Wire):
    every: int = Field(ge=1)


class Selectors(Wire):
    """Every way the page could name the element acted on, best first (see generate/locators)."""

    test_id: Captured | None = None
    role: Captured | None = None
    name: Captured | None = None
    label: Captured | None = None
    text: Captured | None = None
    css: Captured = Captured("")

    def describe(self) -> Captured:
        """A short human name for the element (``button "Save"``, ``[data-testid=cart]``)."""
        if self.test_id:
            return Captured(f"[data-testid={self.test_id}]")
        if self.role and self.name:
            return Captured(f'{self.role} "{self.name}"')
        if self.label:
            return Captured(f'field "{self.label}"')
        if self.text:
            return Captured(f'"{self.text}"')
        return self.css or Captured("(unknown element)")


class VitalsMetrics(Wire):
    lcp: float | None = Field(None, alias="LCP")
    cls: float | None = Field(None, alias="CLS")
    inp: float | None = Field(None, alias="INP")
    fcp: float | None = Field(None, alias="FCP")
    ttfb: float | None = Field(None, alias="TTFB")


def header_value(headers: dict[Captured, Captured], name: str) -> Captured | None:
    """A header's value by case-insensitive name (pages send them in any case)."""
    lowered = name.lower()
    for key, value in headers.items():
        if key.lower() == lowered:
            return value
    return None


