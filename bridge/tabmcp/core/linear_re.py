"""The scanners' own regular expressions on RE2, so a page's text costs linear time to scan.

Python's ``re`` backtracks: the result patterns cost about 0.7 µs a character of ordinary text,
and a page chooses the text. RE2 runs the same pattern strings in one pass (docs/security.md, "A
scanner in linear time", lists where its semantics differ from ``re``'s and why each is safe).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import re2

__all__ = ["PY_SPACE", "Found", "LinearPattern", "linear"]

PY_SPACE = ("\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}"
            "\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}")
"""Python's ``\\s`` on text (every character ``str.isspace`` accepts) as an RE2 class body; RE2's
``\\s`` is only ``[\\t\\n\\f\\r ]`` and would read less."""

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_ASCII_FOLDS = str.maketrans("\u0130\u0131\u017f\u212a", "iisk")
"""The only letters ``re`` matches to an ASCII letter ignoring case (checked over every code point
in the tests). RE2 does not match İ and ı to ``i``; it matches ſ and the Kelvin sign to ``s`` and
``k`` but its ASCII ``\\b`` sees no word there, so "thiſ" had no word's end. Read as the ASCII
letter, each is a word character to both engines."""


class Found:
    """A match's span (and text), as ``re.Match`` gives them: what the scanners read of a match."""

    __slots__ = ("_end", "_start", "_text")

    def __init__(self, text: str, start: int, end: int) -> None:
        self._text, self._start, self._end = text, start, end

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self, index: int = 0) -> str:
        if index:
            raise IndexError("only the whole match is kept")
        return self._text[self._start : self._end]


class LinearPattern:
    """An RE2 pattern with the calls of ``re`` the scanners use, safe on any Python string.

    RE2 reads UTF-8, which has no lone surrogates (JSON may carry them): those are read as U+FFFD,
    one character for one, so offsets hold; both are non-word characters to ``re`` and RE2 alike.
    The text is encoded once per call and searched as bytes through the ``re2`` module's public
    ``search`` (its private ``_regexp.Match`` would save about 0.8 µs a call: not worth a private
    API); ASCII text's byte offsets are its character offsets.
    """

    __slots__ = ("_compiled", "_ignorecase", "pattern")

    def __init__(self, pattern: str, options: Any) -> None:
        self.pattern = pattern
        """The pattern as written for ``re`` (RE2 runs it with Python's ``\\s``)."""
        self._compiled = re2.compile(pattern.replace("\\s", f"[{PY_SPACE}]"), options)
        self._ignorecase = not options.case_sensitive

    def _utf8(self, text: str) -> tuple[str, bytes]:
        """The text as RE2 reads it (İ, ı, ſ and K as ASCII when ignoring case, surrogates as U+FFFD), in UTF-8."""
        if text.isascii():
            return text, text.encode("ascii")
        if self._ignorecase:
            text = text.translate(_ASCII_FOLDS)
        try:
            return text, text.encode("utf-8")
        except UnicodeEncodeError:
            text = _SURROGATE_RE.sub("\ufffd", text)
            return text, text.encode("utf-8")

    def _spans(self, data: bytes) -> Iterator[tuple[int, int]]:
        """Byte spans of the matches, leftmost-first and non-overlapping, as ``re.finditer``'s."""
        pos, end = 0, len(data)
        while pos <= end:
            match = self._compiled.search(data, pos, end)
            if match is None:
                return
            start, stop = match.span()
            yield start, stop
            pos = stop if stop > start else stop + 1  # past an empty match (on a character's first byte)
            while 0 < pos < end and data[pos] & 0xC0 == 0x80:
                pos += 1

    def search(self, text: str) -> Found | None:
        """The first match (leftmost-first, as ``re``'s), its span in ``text``."""
        read, data = self._utf8(text)
        for start, stop in self._spans(data):
            if len(data) != len(read):  # past ASCII: byte offsets to character offsets
                start, stop = len(data[:start].decode("utf-8")), len(data[:stop].decode("utf-8"))
            return Found(text, start, stop)
        return None

    def finditer(self, text: str) -> list[Found]:
        """Every match, as ``re.finditer``'s."""
        read, data = self._utf8(text)
        if len(data) == len(read):
            return [Found(text, start, stop) for start, stop in self._spans(data)]
        found, chars, done = [], 0, 0
        for start, stop in self._spans(data):  # offsets counted once over the text: linear
            chars += len(data[done:start].decode("utf-8"))
            length = len(data[start:stop].decode("utf-8"))
            found.append(Found(text, chars, chars + length))
            chars, done = chars + length, stop
        return found

    def findall(self, text: str) -> list[str]:
        return [match.group(0) for match in self.finditer(text)]


def linear(pattern: str, *, ignorecase: bool = False) -> LinearPattern:
    """``pattern`` (written for Python's ``re``) compiled on RE2, its ``\\s`` widened to Python's.

    Only for patterns whose ``\\b`` sit beside ASCII letters: RE2's ``\\b`` is ASCII-only, so there
    it finds a boundary wherever ``re`` does (and also beside a non-ASCII letter, more, never less).
    """
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = not ignorecase
    return LinearPattern(pattern, options)
