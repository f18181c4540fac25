"""A tab's tools as the extension reports them (``tabs.sync``, ``tab.update``): the tab's
snapshot, its allowed child frames', and the page forms Chrome's document sent."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from ..core.trust.text import PageText
from .base import WireModel

__all__ = [
    "MAX_FRAMES_PER_TAB",
    "MAX_REVISION_CHARS",
    "MAX_TAB_ID",
    "FrameSnapshot",
    "PageForms",
    "TabRef",
    "TabSnapshot",
]

MAX_TAB_ID = 2**31 - 1
"""Browsers' tab ids are small positive 32-bit integers (Chrome's and Firefox's alike); anything
larger is garbage. The bound also keeps each browser's ids apart once the bridge qualifies them
(``tabmcp.core.browsers.TAB_STRIDE``)."""


MAX_REVISION_CHARS = 64
"""A tab revision is the worker's word (its instance id and a counter), never a page's: short."""


MAX_FRAMES_PER_TAB = 16
"""Frames beyond this many (per tab) are ignored: a page with hundreds of ad frames is not a tool source."""


class FrameSnapshot(WireModel):
    """A child frame's document, reported only when the top page allows its origin to offer tools
    (same origin, or ``<iframe allow="tools ...">``); ``origin`` comes from Chrome, not the frame."""

    frame_id: int = Field(ge=1, le=MAX_TAB_ID)
    document_id: str | None = None
    origin: str = ""
    url: PageText = PageText("")
    title: PageText = PageText("")
    tools: list[Any] = Field(default_factory=list)
    categories: list[Any] = Field(default_factory=list)
    states: list[Any] = Field(default_factory=list)


class PageForms(WireModel):
    """A page's ordinary forms described as tools, sent only for origins with forms-as-tools on;
    ``origin`` is Chrome's word, and the bridge decides on it again (``core/page_forms.py``)."""

    origin: str = ""
    tools: list[Any] = Field(default_factory=list)


class TabSnapshot(WireModel):
    """Everything the bridge needs to know about one tab's top-level document; ``tools`` and
    ``categories`` stay raw so the registry rejects a bad tool alone, not the tab."""

    tab_id: int = Field(ge=0, le=MAX_TAB_ID)
    window_id: int | None = None
    origin: str = ""
    """Chrome's word for the top document's origin (its port's ``sender.origin``), never the
    page's: the bridge decides per-origin rules on it, and does not trust a ``url`` of another
    origin (a page script can post a snapshot claiming any URL)."""
    url: PageText = PageText("")
    title: PageText = PageText("")
    document_id: str | None = None
    active: bool = False
    focused: bool = False
    """Active in the browser's focused window: the tab the person looks at."""
    native: bool = False
    """True when the page runs Chromium's native ``document.modelContext``."""
    tools: list[Any] = Field(default_factory=list)
    categories: list[Any] = Field(default_factory=list)
    states: list[Any] = Field(default_factory=list)
    frames: list[FrameSnapshot] = Field(default_factory=list)
    """Child frames whose tools the top page allows (see :class:`FrameSnapshot`); at most
    ``MAX_FRAMES_PER_TAB``, the rest are ignored."""
    forms: PageForms | None = None
    """The top document's ordinary forms as tools, when its origin's forms-as-tools switch is on."""
    revision: str | None = Field(default=None, min_length=1, max_length=MAX_REVISION_CHARS)
    """Opaque, made by the worker for this state of the tab (its instance id and a counter), sent
    to a bridge whose ``welcome`` said ``revisions``: a later sync may keep the tab by it (:class:`TabRef`)."""

    @field_validator("frames", mode="before")
    @classmethod
    def _cap_frames(cls, value: Any) -> Any:
        return value[:MAX_FRAMES_PER_TAB] if isinstance(value, list) else value



class TabRef(WireModel):
    """A tab by its revision: in ``welcome.held``, the tabs the bridge holds in that revision; in
    ``tabs.sync.kept``, a tab unchanged since the worker sent it in that revision (not sent again)."""

    tab_id: int = Field(ge=0, le=MAX_TAB_ID)
    revision: str = Field(min_length=1, max_length=MAX_REVISION_CHARS)
