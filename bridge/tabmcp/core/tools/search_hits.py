"""How ``search_tools`` shows a hit to the agent: compact, so ten cost what five used to.

One line a hit: the exact name, the required arguments (the first :data:`SHOWN_REQUIRED`,
then ``+n``), and a gist (the description's first sentence without articles, cut to
:data:`GIST_WORDS` words): ``github_create_issue(owner, repo +1): Create new issue in…``. The
site, category and score stay in the structured result; ``describe_tools``
gives the full definition. Pure functions, no bridge state: the bench counts their tokens.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["GIST_WORDS", "SHOWN_REQUIRED", "gist", "hit_line", "required_arguments"]

GIST_WORDS = 4
"""Words of the description shown (its first sentence, articles dropped). Chosen so that ten hits
cost no more tokens than five in the previous form (catalog requests, both halves, o200k_base:
five previous hits 149 tokens; ten compact hits 148 with 4 words, 157 with 5, 165 with 6)."""
SHOWN_REQUIRED = 2
"""Required arguments named on the line; more are counted (``+2``)."""
_ARTICLES = frozenset({"a", "an", "the"})


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
