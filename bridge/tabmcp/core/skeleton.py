"""Text folded to the letters a model reads, so a scanner matches past look-alike disguises.

:func:`fold` maps text to a skeleton in the spirit of Unicode TS #39 (format characters and
combining marks dropped, NFKC, case folded, confusables mapped to ASCII, with the
``confusable-homoglyphs`` table). For matching only: what reaches the agent is never folded.
"""

from __future__ import annotations

import re
import string
import unicodedata
from functools import cache

__all__ = ["fold"]

_ASCII = set(string.ascii_lowercase + string.digits)
_FORMAT_OR_MARK_RE = re.compile(
    r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    r"\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    r"\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


_LATIN_NAME_RE = re.compile(r"LATIN (?:(CAPITAL|SMALL) )?LETTER (?:SMALL CAPITAL |DOTLESS )?([A-Z])(?: WITH [A-Z ]+)?")


def _latin(target: str) -> str:
    """The ASCII letter or digit a confusables target is, or "": itself, the letter under its marks
    ("O" with a stroke overlay, as Unicode files Cherokee NA), or the Latin letter its name says it
    is (small capital T, Greek tau's prototype); else ""."""
    base = "".join(ch for ch in unicodedata.normalize("NFKD", target) if not unicodedata.combining(ch))
    if len(base) != 1:
        return ""
    if base.isascii():
        return base if base.isalnum() else ""
    match = _LATIN_NAME_RE.fullmatch(unicodedata.name(base, ""))
    if not match:
        return ""
    return match.group(2) if match.group(1) == "CAPITAL" else match.group(2).lower()


_L_SHAPED: set[str] = set()
"""Capitals Unicode files as l-like that :func:`_table` folds to "i" (filled with the table)."""


@cache
def _table() -> dict[int, str]:
    """Each non-ASCII character that looks like an ASCII letter or digit → that one, lower-cased.

    A capital maps to a capital's look-alike and a letter wins over a digit (Cyrillic capital O is
    O, not 0), where Unicode's table would give l or 0.
    """
    from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]

    table: dict[int, str] = {}
    for char, glyphs in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        looks = {_latin(g["c"]) for g in glyphs} | {_latin(char)}
        looks.discard("")
        upper = sorted(c for c in looks if c.isupper())
        lower = sorted(c for c in looks if c.islower()) or sorted(c for c in looks if c.isdigit())
        pick = upper if char.isupper() and upper else lower or upper
        if pick:  # Unicode's prototype of every I-like shape is "l": a capital one is an I
            table[ord(char)] = "i" if char.isupper() and pick[0] == "l" else pick[0].lower()
            if char.isupper() and pick[0] == "l":
                _L_SHAPED.add(char)
    return table


@cache
def _capital_i_re() -> re.Pattern[str]:
    """The capitals folded to "i" though Unicode files them as l-like: after a small letter
    ("саІІ", Cyrillic І) a reader sees an l."""
    _table()
    return re.compile("[" + "".join(sorted(_L_SHAPED)) + "]+")


def _after_small(match: re.Match[str]) -> str:
    start = match.start()
    return "l" * len(match.group(0)) if start and match.string[start - 1].islower() else match.group(0)


def _nfkc(text: str) -> str:
    """NFKC, with the few characters that expand to many (U+FDFA is 18 letters) read as a space
    when they would make the text more than twice as long: a page chooses the text, and every
    pattern pass after this reads what it became."""
    folded = unicodedata.normalize("NFKC", text)
    if len(folded) <= 2 * len(text):
        return folded
    # each distinct character normalized once (a page repeats the same few)
    return text.translate({ord(ch): n if len(n := unicodedata.normalize("NFKC", ch)) <= 3 else " " for ch in set(text)})


@cache
def _marks() -> dict[int, None]:
    """Every combining mark (a non-zero combining class), as a table that deletes it (all lie in
    U+0300–U+1FFFF, which the tests check: the rest of Unicode is not scanned on first use)."""
    return {cp: None for cp in range(0x300, 0x20000) if unicodedata.combining(chr(cp))}


def fold(text: str) -> str:
    """``text`` as its skeleton: what it reads as, in plain lower-case ASCII where it looks like it."""
    if text.isascii():  # no format character, mark or look-alike is ASCII
        return text.lower()
    text = _FORMAT_OR_MARK_RE.sub("", text)
    table = _table()
    text = _capital_i_re().sub(_after_small, text)
    # mapped before case folding too: capitals look alike (Greek Nu is N, its small letter looks like v)
    text = _nfkc(text).translate(table).casefold()
    text = unicodedata.normalize("NFKD", text).translate(_marks())
    return unicodedata.normalize("NFKC", text).translate(table)
