"""The ``[trust]`` section of the config file (see docs/security.md)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["TrustSettings"]


class TrustSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_result_chars: int = Field(default=100_000, ge=1_000, le=10_000_000)
    """Page results longer than this (text, or structured content as JSON) are cut, with a marker."""
    frame_text: bool = True
    """Wrap each text part of a page result in a short delimiter naming its origin ("spotlighting")."""
    strip_hidden: bool = True
    """Remove invisible characters (Unicode tags, zero-width, bidi controls, BOM, soft hyphens and other
    invisible format characters) from every page string that reaches the agent."""
    flag_results: bool = True
    """Scan page results for text that gives the agent orders; flag them in ``_meta``."""
    lockdown: bool = True
    """After a flagged result, every write tool needs the person's approval until the flag is cleared."""
    pin_definitions: bool = True
    """Pin the first definition of each origin+tool; a changed one needs approval until accepted."""
    pins_per_origin: int = Field(default=1_000, ge=1, le=1_000_000)
    """Pins kept per origin. At the cap, an origin the person never trusted loses its least recently
    seen pin; a trusted one (allowed site, a pin the person kept) keeps its pins and new names go unpinned."""
    transient_pins: int = Field(default=20_000, ge=1, le=10_000_000)
    """Pins of all origins the person never trusted, together; the least recently seen go first."""
    transient_grace_s: float = Field(default=86_400.0, ge=0.0, le=365 * 86_400.0)
    """The pins and usage counts of an origin the person never trusted expire this long after its
    last tab closed (docs/security.md §7)."""
    consequential_approval: bool = True
    """Tools the page marks ``consequentialHint`` need approval, like destructive ones."""
    show_debugging: bool = False
    """List tools the page marks ``debugging: true`` (hidden from agents by default)."""
