"""Text as a model reads it past cheap disguises, so the injection scanner reads what the model does.

A model may follow an order in look-alike letters, split letters, backwards, ROT13, base64 or hex;
:func:`readings` gives the scanner each such reading. A page chooses the text, so each decoder runs
only on a cheap trigger, decoded text is bounded (:data:`MAX_DECODED`) and never decoded again.
The readings are for matching only: what reaches the agent is never changed.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re

from .linear_re import linear
from .skeleton import fold

__all__ = ["HIDDEN", "MAX_DECODED", "plain", "readings"]

HIDDEN = "hidden in tag characters"
"""How a reading is named when it is text hidden in Unicode tag characters inside an encoding."""

MAX_DECODED = 32_000
"""Characters decoded from base64 and hex runs per text, at most (an order is a sentence)."""

# The triggers and run finders run on RE2 (:mod:`.linear_re`: linear, and 4–8× faster than ``re``
# on ordinary text). ``_SPLIT_RE`` stays on ``re``: RE2 has no backreference (``\1``, one repeated
# separator) nor lookaround; it is linear as it is (each word tried once). ``_TAG_RE`` and
# ``_HEX_NOISE_RE`` are single character classes, linear on ``re`` too.

# Characters split by one repeated separator: "i.g.n.o.r.e", "c.l.o.s.e._.a.c.c.o.u.n.t", "i g n o r e"
# (a different or longer gap ends the word, so "a.l.l  p.r.e.v" reads "all prev"). Each word is
# tried once, from its start, and gives back at most its own length: linear.
_SPLIT_RE = re.compile(r"(?<!\S)\S([ .\-_*·•|,/+~:;'])(?:\S\1)*\S?(?!\S)")
_SPACE_RE = re.compile(r"[^\S\n]+")
# what _SPACE_RE changes: a run of two or more, or any space but " " (ordinary text has neither)
_ODD_SPACE_RE = linear(r"  |[\t\x0b\x0c\r\x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}"
                       r"\x{205f}\x{3000}]")
_LEET = str.maketrans("013457@$", "oieastas")

_BASE64_RUN_RE = linear(r"[A-Za-z0-9+/_-]{16,}")
_HEX_RUN_RE = linear(r"(?:(?:\\x|0x|%)?[0-9A-Fa-f]{2}[ ,:]?){8,}")
_HEX_NOISE_RE = re.compile(r"\\x|0x|%|[ ,:]")
_URLSAFE = str.maketrans("-_", "+/")

# Order words as they read backwards and in ROT13: the trigger for reading the whole text so.
_ORDER_WORDS = ("ignore", "disregard", "forget", "instruction", "previous", "system", "assistant", "you must",
                "the user", "agent", "override", "exfiltrate", "transfer", "call ", "tool", "model", "task",
                "send ", "password", "credential")
# ... and the commonest English words (any sentence has one), so an order in other words is read too.
_COMMON_WORDS = ("the", "and", "you", "your", "this", "with", "for", "all")
_REVERSED_RE = linear(
    "|".join(re.escape(w[::-1]) for w in _ORDER_WORDS) + r"|\b(?:" + "|".join(w[::-1] for w in _COMMON_WORDS) + r")\b"
)
_ROT13_RE = linear(
    "|".join(re.escape(codecs.encode(w, "rot13")) for w in _ORDER_WORDS)
    + r"|\b(?:" + "|".join(codecs.encode(w, "rot13") for w in _COMMON_WORDS) + r")\b"
)
_ROT13 = str.maketrans("abcdefghijklmnopqrstuvwxyz", "nopqrstuvwxyzabcdefghijklm")


_TAG_RE = re.compile("[\U000e0020-\U000e007e]+")


def plain(text: str) -> str:
    """``text`` as a model reads it past entities, Unicode tag characters (read as the ASCII they
    encode), look-alike letters, split letters and 1337."""
    if "&" in text:
        text = html.unescape(text)
    if not text.isascii():
        text = _TAG_RE.sub(lambda m: " " + "".join(chr(ord(c) - 0xE0000) for c in m.group(0)) + " ", text)
    text = fold(text)
    text = _SPLIT_RE.sub(lambda m: m.group(0).replace(m.group(1), ""), text)
    if _ODD_SPACE_RE.search(text):
        text = _SPACE_RE.sub(" ", text)
    return text.translate(_LEET)


def _as_text(data: bytes) -> str:
    """The bytes as text when they are mostly printable UTF-8 words (a few bad bytes, as where a run
    starts off its alignment, are let through); else ""."""
    text = data.decode("utf-8", "replace")
    printable = sum(
        1 for ch in text
        if (ch.isprintable() and ch != "\ufffd") or ch in "\n\r\t" or "\U000e0000" <= ch <= "\U000e007f"
    )
    return text if len(text) >= 8 and printable >= 0.9 * len(text) and " " in text else ""


def _base64(run: str) -> str:
    whole = run.rstrip("=").translate(_URLSAFE)
    for start in range(4):  # a run that starts mid-word ("xSWdu…") is off by up to three characters
        core = whole[start:]
        core = core[: len(core) - (len(core) % 4 == 1)]
        try:
            text = _as_text(base64.b64decode(core + "=" * (-len(core) % 4), validate=True))
        except (binascii.Error, ValueError):
            continue
        if text:
            return text
    return ""


def _hex(run: str) -> str:
    digits = _HEX_NOISE_RE.sub("", run)
    for start in (0, 1):  # a run that starts mid-word ("abc4967…") may be off by one digit
        try:
            text = _as_text(bytes.fromhex(digits[start : start + (len(digits) - start) // 2 * 2]))
        except ValueError:
            return ""
        if text:
            return text
    return ""


def _decoded_runs(text: str) -> list[tuple[str, str]]:
    """(encoding, text) of each base64 or hex run of ``text`` that decodes to text, up to the budget."""
    out: list[tuple[str, str]] = []
    if len(text) < 16:  # the shortest run either finder takes
        return out
    budget = MAX_DECODED
    for how, run_re, decode in (("base64", _BASE64_RUN_RE, _base64), ("hex", _HEX_RUN_RE, _hex)):
        for match in run_re.finditer(text):
            run = match.group(0)
            # base64 of words mixes cases; a run in one case is a word, a name or a hex digest
            if how == "base64" and (run.islower() or run.isupper() or run.isdigit()):
                continue
            decoded = decode(run[: budget * 4])[:budget]
            if decoded:
                out.append((how, decoded))
                budget -= len(decoded)
                if budget <= 0:
                    return out
    return out


def readings(text: str) -> list[tuple[str, str]]:
    """(how, reading) of ``text``: its plain reading, then what it decodes to where it holds encodings.

    Ordinary text has one reading, its plain one; the rest cost a regular-expression pass each.
    """
    base = plain(text)
    out = [("plain", base)]
    hidden: list[str] = []
    if "&" in text:
        text = html.unescape(text)
        hidden += _TAG_RE.findall(text)
    for how, decoded in _decoded_runs(text):
        out.append((how, plain(decoded)))
        hidden += _TAG_RE.findall(decoded)
    if hidden:
        out.append((HIDDEN, " ".join("".join(chr(ord(c) - 0xE0000) for c in run) for run in hidden)))
    if _REVERSED_RE.search(base):
        out.append(("reversed", base[::-1]))
    if _ROT13_RE.search(base):
        out.append(("ROT13", base.translate(_ROT13)))
    return out
