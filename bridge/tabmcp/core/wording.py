"""Page text cut short for a listing line (no imports of the bridge: the tools and the
disclosure both use it)."""

from __future__ import annotations

__all__ = ["one_line"]


def one_line(text: str, limit: int = 160) -> str:
    """The first sentence or line of a description, cut to ``limit`` characters."""
    first = text.strip().split("\n", 1)[0]
    for stop in (". ", "? ", "! "):
        if stop in first:
            first = first.split(stop, 1)[0] + stop.strip()
            break
    return first if len(first) <= limit else first[: limit - 1] + "…"
