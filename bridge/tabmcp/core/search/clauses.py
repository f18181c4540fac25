"""Requests of several steps: split into clauses, one ranking each, merged so every step shows.

One ranking of "find the crash in Sentry and open a GitHub issue about it" loses one step.
:func:`split_clauses` cuts only where a new action verb starts and the request itself opens with
one, so "salt and pepper" stays whole (the verbs are a fixed list, not learnt from the bench);
:func:`interleave` merges rankings round by round (docs/search.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

__all__ = ["ACTION_VERBS", "MAX_CLAUSES", "interleave", "split_clauses"]

MAX_CLAUSES = 4
"""At most this many clauses (the last takes the rest): each costs a ranking."""
MIN_CLAUSE_WORDS = 2
"""Both sides of a cut need this many words (a lone word names no action of its own)."""

ACTION_VERBS: frozenset[str] = frozenset(
    [
        "add", "analyse", "analyze", "append", "apply", "approve", "archive", "assign", "attach", "audit",
        "back", "block", "book", "bump", "buy", "calculate", "call", "cancel", "change", "check", "clean",
        "clear", "click", "close", "comment", "commit", "compare", "compute", "configure", "confirm",
        "connect", "convert", "copy", "count", "create", "deploy", "delete", "describe", "diff", "disable",
        "dismiss", "download", "drag", "draw", "drop", "duplicate", "edit", "email", "emulate", "enable",
        "estimate", "evaluate", "explain", "export", "fetch", "figure", "file", "fill", "filter", "find",
        "finalize", "finalise", "fix", "follow", "fork", "format", "forward", "generate", "get", "give",
        "go", "grab", "hide", "highlight", "hover", "import", "install", "invite", "kick", "label",
        "launch", "let", "link", "list", "load", "lock", "log", "look", "make", "mark", "measure", "merge",
        "message", "move", "multiply", "mute", "navigate", "note", "notify", "open", "order", "paste",
        "pause", "pay", "pick", "pin", "ping", "plot", "post", "press", "print", "profile", "publish",
        "pull", "push", "put", "query", "read", "rebase", "record", "refund", "reload", "remind", "remove",
        "rename", "reopen", "reply", "report", "request", "reserve", "reset", "resize", "resolve",
        "restart", "restore", "retrieve", "return", "revert", "review", "rotate", "run", "save", "schedule",
        "scroll", "search", "see", "select", "send", "set", "share", "show", "sign", "solve", "sort",
        "stage", "star", "start", "stop", "store", "submit", "subscribe", "sum", "summarise", "summarize",
        "switch", "sync", "tag", "take", "tell", "test", "track", "translate", "trigger", "turn", "type",
        "undo", "unstar", "unsubscribe", "update", "upgrade", "upload", "verify", "view", "visit", "wait",
        "watch", "write"
    ]
)
"""Words that start an action (imperative verbs of tasks)."""
_QUESTION = frozenset({"what", "which", "who", "how", "where"})
_LEAD = frozenset(
    [
        "then", "also", "and", "finally", "afterwards", "please", "kindly", "just", "next", "after", "that",
        "so", "now", "plus", "can", "could", "would", "will", "you", "i", "we", "want", "need", "to"
    ]
)
"""Words skipped before the verb of a clause (``and then please save ...``, ``can you find``)."""

_CUT = re.compile(r"((?<=[.!?;])\s+|\s*;\s*|,\s*|\s+(?:and|then|also|plus)\s+)", re.IGNORECASE)
_LEADING = re.compile(r"^(?:(?:and|then|also|plus|finally|afterwards)\s+)+", re.IGNORECASE)
_TRAILING = re.compile(r"(?:[\s,]+(?:and|then|also|plus))+$", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:'[a-z]+)?")

T = TypeVar("T")


def _starts_action(piece: str) -> bool:
    for word in _WORD.findall(piece.casefold()):
        if word in _LEAD:
            continue
        return word in ACTION_VERBS or word in _QUESTION
    return False


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def split_clauses(query: str) -> list[str]:
    """The request's clauses, in order (one element when it names a single action)."""
    parts = _CUT.split(query.strip())
    clauses = [parts[0]]
    for i in range(1, len(parts) - 1, 2):
        cut, piece = parts[i], parts[i + 1]
        long_enough = _words(piece) >= MIN_CLAUSE_WORDS and _words(clauses[-1]) >= MIN_CLAUSE_WORDS
        if _starts_action(piece) and long_enough:
            clauses.append(piece)
        else:
            clauses[-1] += cut + piece
    if len(clauses) > 1 and not _starts_action(clauses[0]):
        return [query.strip()]  # context first ("I bought the wrong size. Where is it?"): one ask
    clauses = [_TRAILING.sub("", _LEADING.sub("", c.strip(" ,.;!?"))).strip(" ,.;!?") for c in clauses]
    clauses = [c for c in clauses if c]
    if len(clauses) > MAX_CLAUSES:
        clauses = [*clauses[: MAX_CLAUSES - 1], " ".join(clauses[MAX_CLAUSES - 1 :])]
    return clauses or [query.strip()]


def interleave(
    rankings: Sequence[Sequence[T]], limit: int, key: Callable[[T], Hashable] = lambda x: x
) -> list[T]:
    """Round-robin over the rankings (best of each, then second of each, ...), skipping items
    whose ``key`` an earlier one already gave, until ``limit`` items."""
    out: list[T] = []
    seen: set[Hashable] = set()
    depth = max((len(r) for r in rankings), default=0)
    for i in range(depth):
        for ranking in rankings:
            if i < len(ranking) and (k := key(ranking[i])) not in seen:
                seen.add(k)
                out.append(ranking[i])
                if len(out) >= limit:
                    return out
    return out
