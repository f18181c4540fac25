"""Name hygiene: split cryptic tool names into words, make them legal and unique; normalise sources.

MCP clients reject tool names outside ``^[A-Za-z0-9_.-]{1,128}$`` and a bridge routes
calls by name, so every name the mediator hands out is legal and unique within its source,
whatever a transformer (or an LLM) proposed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,128}$"
"""The names a bridge may expose: the MCP tool-name rule."""

MAX_NAME_LENGTH = 128

_NAME_RE = re.compile(NAME_PATTERN)
_ILLEGAL = re.compile(r"[^A-Za-z0-9_.-]+")
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def is_valid_name(name: str) -> bool:
    """Tell whether ``name`` is a legal tool name as it stands."""
    return bool(_NAME_RE.match(name))


def split_words(name: str) -> list[str]:
    """Split ``getUsrByID``, ``gt_usr`` or ``list-orders.v2`` into lower-case words.

    Separators (``_ - .`` and spaces) and camelCase boundaries both split, so every
    naming style a page may use reaches the same vocabulary lookup.
    """
    return [w.lower() for w in _WORD.findall(name)]


def sanitize_name(name: str, fallback: str = "tool") -> str:
    """Turn any proposed name into a legal one, or ``fallback`` if nothing is left.

    Illegal runs become one underscore, edges are trimmed of ``_``, and the result is cut
    to 128 characters; legal names come back unchanged.
    """
    if is_valid_name(name):
        return name
    cleaned = _ILLEGAL.sub("_", name).strip("_")[:MAX_NAME_LENGTH]
    return cleaned or fallback


def unique_names(proposed: list[str], originals: list[str]) -> list[str]:
    """Make proposed names legal and unique, deterministically.

    A tool that keeps its original name has first claim on it, so an untouched ``delete``
    is never renamed because ``del`` was expanded to ``delete``; the others claim names in
    input order and a taken name gets the first free ``_2``, ``_3``... suffix.

    Args:
        proposed: The name each tool should get, in source order.
        originals: The page's name of each tool, same order.

    Returns:
        One legal name per tool, all distinct.
    """
    legal = [
        sanitize_name(name, fallback=sanitize_name(orig))
        for name, orig in zip(proposed, originals, strict=True)
    ]
    result: list[str | None] = [None] * len(legal)
    taken: set[str] = set()
    keeps = {i for i, (name, orig) in enumerate(zip(legal, originals, strict=True)) if name == orig}
    for i in sorted(range(len(legal)), key=lambda i: (i not in keeps, i)):
        result[i] = _claim(legal[i], taken)
    return [name for name in result if name is not None]


def _claim(name: str, taken: set[str]) -> str:
    """Return ``name`` or its first free numbered variant, and mark it taken."""
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        suffix = f"_{n}"
        candidate = name[: MAX_NAME_LENGTH - len(suffix)] + suffix
    taken.add(candidate)
    return candidate


def first_free(name: str, taken: Iterable[str]) -> str:
    """Return ``name`` or its first numbered variant not in ``taken`` (which is not changed)."""
    return _claim(name, set(taken))


def normalize_source(source: str) -> str:
    """Reduce a domain or URL to the key overrides and cache entries are filed under.

    ``https://www.Example.com/app`` and ``example.com`` name the same site, so both
    become ``example.com``.
    """
    host = urlsplit(source).hostname if "://" in source else source
    host = (host or source).strip().lower().rstrip(".")
    return host.removeprefix("www.")
