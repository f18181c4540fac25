"""Spot tool definitions that try to instruct the model (prompt injection) or hide text.

Page tools are untrusted input that ends up in the agent's context. A description that
addresses the model ("ignore previous instructions", "you must call…"), hides characters
(zero-width, Unicode tag characters, bidi overrides) or embeds markup meant for the model is
flagged: the flag travels in ``_meta["tabmcp/warnings"]`` and ``policy.quarantine_suspicious``
hides such tools altogether. A heuristic, not a proof: it catches the common patterns and says
so in docs/security.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["scan_text", "scan_tool"]

_PHRASES = [
    r"\bignore (all |any )?(the )?(previous|prior|above|earlier) (instructions|prompts?|messages?|rules)",
    r"\bdisregard (all |any )?(the )?(previous|prior|above|system) ",
    r"\b(forget|override) (all |your )?(previous |prior )?(instructions|rules|guidelines)",
    r"\b(system|developer) (prompt|message|instructions?)\b",
    r"\byou (are|must|should|will) (now |always |never )?(act as|call|run|invoke|use|obey|ignore|send|reveal|output)",
    r"\b(before|after) (using|calling) (any|every|this|other) tools?,? (you )?(must|should|always)\b",
    r"\bdo not (tell|inform|mention to) the user\b",
    r"\b(exfiltrate|send|post|upload) (the |all )?(conversation|chat history|credentials|api keys?|tokens?|secrets?)\b",
    r"<\s*/?\s*(system|instructions?|important|assistant|im_start|im_end)\s*>",
    r"\[\s*(system|inst)\s*\]",
]
_PHRASE_RE = re.compile("|".join(f"(?:{p})" for p in _PHRASES), re.IGNORECASE)
_HIDDEN_RE = re.compile("[\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff\U000e0000-\U000e007f]")
_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)


def scan_text(text: str) -> list[str]:
    """Reasons this text looks like an injection attempt (empty when it looks fine)."""
    reasons: list[str] = []
    if _HIDDEN_RE.search(text):
        reasons.append("hidden characters (zero-width, bidi override or Unicode tag characters)")
    if _COMMENT_RE.search(text):
        reasons.append("an HTML comment (hidden from people, read by models)")
    match = _PHRASE_RE.search(text)
    if match:
        reasons.append(f"instructions addressed to the model: {match.group(0)!r}")
    return reasons


def _strings(value: Any, depth: int = 0) -> Iterable[str]:
    if depth > 6:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, depth + 1)


def scan_tool(name: str, title: str | None, description: str, input_schema: dict[str, Any]) -> list[str]:
    """Reasons a tool definition looks like an injection attempt (in its text or its schema's text)."""
    reasons = scan_text(" ".join(filter(None, [title, description])))
    for text in _strings(input_schema):
        for reason in scan_text(text):
            reasons.append(f"in the input schema: {reason}")
            break
    return list(dict.fromkeys(reasons))
