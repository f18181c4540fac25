"""tools/list in pages, for transports that cannot carry a large listing in one message.

The SDK's client refuses a server-sent event over 1 MiB, so a larger listing goes in pages of at
most :data:`PAGE_BYTES` with a ``nextCursor`` (the index of the next page's first tool).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["PAGE_BYTES", "BadCursor", "page_of"]

PAGE_BYTES = 512 * 1024
"""Tools per page, in bytes of JSON: half the SDK client's event limit, leaving room for the envelope."""

_PREFIX = "tools:"


class BadCursor(ValueError):
    """A cursor this bridge did not hand out."""


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    digits = cursor.removeprefix(_PREFIX)
    if not cursor.startswith(_PREFIX) or not digits.isdigit() or len(digits) > 9:
        raise BadCursor(f"not a tools/list cursor of this bridge: {cursor[:40]!r}")
    return int(digits)


def page_of(
    tools: list[Mapping[str, Any]], cursor: str | None, max_bytes: int = PAGE_BYTES
) -> tuple[list[Mapping[str, Any]], str | None]:
    """The page of ``tools`` that ``cursor`` asks for, and the cursor of the next one (None: last).

    A page holds at least one tool (one larger than ``max_bytes`` is a page of its own).

    Raises:
        BadCursor: ``cursor`` is not one this function handed out.
    """
    start = _offset(cursor)
    if start == 0 and len(json.dumps(tools, separators=(",", ":"))) <= max_bytes:
        return tools, None
    size = 0
    end = start
    while end < len(tools):
        size += len(json.dumps(tools[end], separators=(",", ":"))) + 1
        if size > max_bytes and end > start:
            break
        end += 1
    return tools[start:end], (f"{_PREFIX}{end}" if end < len(tools) else None)
