"""What every wire message shares: the protocol's version, the frame limit, the base model
(camelCase on the wire, unknown fields ignored), an error's body, and a traced call's hop stamps (both
directions carry them)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from ..core.trust.text import PageJson, PageText

__all__ = [
    "MAX_FRAME_BYTES",
    "MAX_TRACE_STAMPS",
    "PROTOCOL_VERSION",
    "ErrorBody",
    "TraceStamp",
    "WireModel",
    "dump",
]

PROTOCOL_VERSION = 2
"""Bumped whenever a message or a field changes meaning. Mirrored in extension/protocol.js."""

MAX_FRAME_BYTES = 16 * 1024 * 1024
"""Frames larger than this are refused (the WebSocket closes with 1009 Message Too Big)."""


class WireModel(BaseModel):
    """Base of every wire message: camelCase aliases, unknown fields ignored (forward compatible)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True, use_attribute_docstrings=True
    )


class ErrorBody(WireModel):
    """Why something failed: a named ``code`` (``ErrorCode``), a message, optional details."""

    code: str
    message: PageText
    """The worker's words for its own codes; any other code's message is the page's (page text either way)."""
    details: PageJson | None = None
    from_page: bool = False
    """The worker relays this error from the page (its code, message and details are the page's
    words): the bridge reports it as ``PAGE_ERROR`` with them as page data, never as its own code."""


MAX_TRACE_STAMPS = 32
TraceStamp = tuple[Annotated[str, Field(max_length=40)], float]
"""One hop's timestamp in a traced call: its name and epoch milliseconds."""


def dump(message: WireModel) -> str:
    """Serialize a message for the wire (camelCase, no nulls)."""
    return message.model_dump_json(by_alias=True, exclude_none=True)
