"""How ``search_tools`` shows a hit to the agent: the best ones ready to call, the rest compact.

One line a hit. The first :data:`DETAILED_HITS` carry what calling needs (arguments, types, the
first sentence)::

    github_create_issue(owner, repo, title, body?, +2?): Create a new issue in a GitHub repository.

the others only a gist: ``github_create_issue(owner, repo +1): Create new issue in…``. Pure
functions, so the bench counts their tokens.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = [
    "DETAILED_HITS",
    "DETAIL_WORDS",
    "GIST_WORDS",
    "SHOWN_OPTIONAL",
    "SHOWN_REQUIRED",
    "detail_line",
    "gist",
    "hit_line",
    "required_arguments",
    "signature",
    "summary",
]

GIST_WORDS = 4
"""Words of the description shown (its first sentence, articles dropped), so that ten hits cost no
more tokens than five did in the previous form (docs/search.md)."""
SHOWN_REQUIRED = 2
"""Required arguments named on the line; more are counted (``+2``)."""
_ARTICLES = frozenset({"a", "an", "the"})
DETAILED_HITS = 3
"""Hits shown ready to call: a needed tool is among the first three for 0.68 of the tuning requests,
and 3 detailed + 5 compact lines cost what 5 hits did before (docs/search.md)."""
DETAIL_WORDS = 10
"""Words of the first sentence a detailed hit shows."""
SHOWN_OPTIONAL = 1
"""Optional arguments a detailed hit names (``name?``); more are counted (``+n?``)."""
SHOWN_DETAIL_REQUIRED = 6
"""Required arguments a detailed hit names; more are counted (``+n``)."""
MAX_ENUM = 4
"""An enum of at most this many short values is shown as ``a|b|c``; a longer one as its type."""
_TYPES = {"integer": "int", "number": "num", "boolean": "bool", "array": "list", "object": "obj"}
"""Type shorthands; a string shows none (most arguments are strings)."""


_SENTENCE_END = re.compile(r"[.?!] ")
"""Where the first sentence ends: the earliest stop followed by a space, whichever it is."""


def gist(description: str) -> str:
    """The description's first sentence or line, without articles, cut to ``GIST_WORDS`` words
    (``…`` when cut)."""
    first = _SENTENCE_END.split(description.strip().split("\n", 1)[0], maxsplit=1)[0]
    words = [w for w in first.rstrip(".").split() if w.casefold() not in _ARTICLES]
    return " ".join(words[:GIST_WORDS]) + ("…" if len(words) > GIST_WORDS else "")


def required_arguments(input_schema: dict[str, Any]) -> list[str]:
    """The schema's required argument names, in its order."""
    required = input_schema.get("required")
    return [str(r) for r in required] if isinstance(required, list) else []


def hit_line(name: str, description: str, required: Sequence[str], opens: str | None = None) -> str:
    """One hit: ``name(req1, req2 +n): gist`` (``name: gist`` without required arguments),
    plus where a call opens the site when its tab is closed."""
    args = ", ".join(required[:SHOWN_REQUIRED])
    if len(required) > SHOWN_REQUIRED:
        args += f" +{len(required) - SHOWN_REQUIRED}"
    head = f"{name}({args})" if required else name
    line = f"{head}: {gist(description)}"
    return f"{line} (not open; a call opens {opens})" if opens else line


def summary(description: str) -> str:
    """The description's first sentence or line, cut to ``DETAIL_WORDS`` words (``…`` when cut)."""
    first = _SENTENCE_END.split(description.strip().split("\n", 1)[0], maxsplit=1)[0]
    words = first.rstrip(".").split()
    return " ".join(words[:DETAIL_WORDS]) + ("…" if len(words) > DETAIL_WORDS else "")


def _kind(schema: Any) -> str:
    """An argument's type as a detailed hit shows it: ``""`` for a string or unknown."""
    if not isinstance(schema, dict):
        return ""
    values = schema.get("enum")
    if isinstance(values, list) and 0 < len(values) <= MAX_ENUM and all(
            isinstance(v, str | int) and not isinstance(v, bool) and len(str(v)) <= 16 for v in values):
        return "|".join(str(v) for v in values)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return _TYPES.get(kind, "") if isinstance(kind, str) else ""


def signature(input_schema: dict[str, Any]) -> str:
    """The arguments a call takes: required ones, then the first optional ones (``name?``), each
    with its type unless a string: ``owner, repo, count: int, body?, +3?``."""
    props = input_schema.get("properties")
    props = props if isinstance(props, dict) else {}
    required = required_arguments(input_schema)
    optional = [str(n) for n in props if n not in required]

    def arg(name: str, mark: str) -> str:
        kind = _kind(props.get(name))
        return f"{name}{mark}: {kind}" if kind else f"{name}{mark}"

    parts = [arg(n, "") for n in required[:SHOWN_DETAIL_REQUIRED]]
    if len(required) > SHOWN_DETAIL_REQUIRED:
        parts.append(f"+{len(required) - SHOWN_DETAIL_REQUIRED}")
    parts += [arg(n, "?") for n in optional[:SHOWN_OPTIONAL]]
    if len(optional) > SHOWN_OPTIONAL:
        parts.append(f"+{len(optional) - SHOWN_OPTIONAL}?")
    return ", ".join(parts)


def detail_line(name: str, description: str, input_schema: dict[str, Any], opens: str | None = None) -> str:
    """One hit ready to call: ``name(arguments): first sentence``, plus where a call opens the
    site when its tab is closed."""
    line = f"{name}({signature(input_schema)}): {summary(description)}"
    return f"{line} (not open; a call opens {opens})" if opens else line
