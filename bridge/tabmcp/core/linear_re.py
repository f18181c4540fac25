"""The scanners' own regular expressions on RE2, so a page's text costs linear time to scan.

Python's ``re`` backtracks: the result patterns cost about 0.6 µs a character on ordinary text,
and a page chooses the text. RE2 runs the same pattern strings in one pass (docs/security.md, "A
scanner in linear time", lists where its semantics differ from ``re``'s and why each is safe).
"""

from __future__ import annotations

import re
from typing import Any

import re2

__all__ = ["PY_SPACE", "LinearPattern", "linear"]

PY_SPACE = ("\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}"
            "\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}")
"""Python's ``\\s`` on text (every character ``str.isspace`` accepts) as an RE2 class body; RE2's
``\\s`` is only ``[\\t\\n\\f\\r ]`` and would read less."""

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_DOTTED_I = str.maketrans("\u0130\u0131", "ii")
"""İ and ı: ``re`` matches them to ``i`` ignoring case, RE2 does not (the only letters where its
case folding reads less, checked over every code point in the tests)."""


class LinearPattern:
    """An RE2 pattern with ``re``'s calls the scanners use, safe on any Python string.

    RE2 reads UTF-8, which has no lone surrogates (JSON may carry them): those are read as U+FFFD,
    one character for one, so offsets hold; both are non-word characters to ``re`` and RE2 alike.
    """

    __slots__ = ("_ignorecase", "_re", "pattern")

    def __init__(self, pattern: str, options: Any) -> None:
        self.pattern = pattern
        """The pattern as written for ``re`` (RE2 runs it with Python's ``\\s``)."""
        self._re = re2.compile(pattern.replace("\\s", f"[{PY_SPACE}]"), options)
        self._ignorecase = not options.case_sensitive

    def search(self, text: str) -> Any:
        """The first match (leftmost-first, as ``re``'s); its span is the text's, its ``group(0)``
        may show İ, ı or a lone surrogate as RE2 read it: quote ``text[start:end]``."""
        if self._ignorecase and not text.isascii():
            text = text.translate(_DOTTED_I)
        try:
            return self._re.search(text)
        except UnicodeEncodeError:
            return self._re.search(_SURROGATE_RE.sub("\ufffd", text))

    def finditer(self, text: str) -> list[Any]:
        """Every match, as ``re.finditer``'s (``findall`` quotes the text itself)."""
        if self._ignorecase and not text.isascii():
            text = text.translate(_DOTTED_I)
        try:
            return list(self._re.finditer(text))
        except UnicodeEncodeError:
            return list(self._re.finditer(_SURROGATE_RE.sub("\ufffd", text)))

    def findall(self, text: str) -> list[str]:
        return [text[match.start() : match.end()] for match in self.finditer(text)]


def linear(pattern: str, *, ignorecase: bool = False) -> LinearPattern:
    """``pattern`` (written for Python's ``re``) compiled on RE2, its ``\\s`` widened to Python's.

    Only for patterns whose ``\\b`` sit beside ASCII letters: RE2's ``\\b`` is ASCII-only, so there
    it finds a boundary wherever ``re`` does (and also beside a non-ASCII letter, more, never less).
    """
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = not ignorecase
    return LinearPattern(pattern, options)
