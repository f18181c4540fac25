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
    consequential_approval: bool = True
    """Tools the page marks ``consequentialHint`` need approval, like destructive ones."""
    show_debugging: bool = False
    """List tools the page marks ``debugging: true`` (hidden from agents by default)."""
