"""Regular expressions the bridge hands to the extension, compiled once, here, for JavaScript.

Rules that run on both sides (redaction, secret fields, forms-as-tools globs) have one source, the
bridge's; the extension only calls ``new RegExp(source, flags)``. Each is compiled by ``regress``
here, so a rule the page could not compile is refused where it is configured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import regress

__all__ = ["JsPattern", "NotForJs", "glob_to_js", "js_pattern"]

_INLINE_FLAGS = re.compile(r"^\(\?([aiLmsux]+)\)")
_PY_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


class NotForJs(ValueError):
    """A pattern JavaScript cannot run as written (a construct only Python's ``re`` knows)."""


@dataclass(frozen=True, slots=True)
class JsPattern:
    """One regular expression as both sides run it."""

    source: str
    """ECMA-262 syntax: ``new RegExp(source, flags)``."""
    flags: str = ""
    """Of ``i``, ``m``, ``s`` (the page adds ``g`` / ``d`` where it replaces)."""

    def to_wire(self) -> dict[str, str]:
        return {"source": self.source, "flags": self.flags}

    def python(self) -> re.Pattern[str]:
        """The same expression for Python's ``re``, matching as the page's engine does (see
        :func:`_python`): one meaning for a rule on both sides, not two dialects."""
        return _python(self.source, self.flags)


_JS_SPACE = r"\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
r"""ECMA-262's ``\s`` (WhiteSpace and LineTerminator), as the members of a Python class."""
_JS_LINE_END = r"\n\r\u2028\u2029"


@lru_cache(maxsize=512)
def _python(source: str, flags: str) -> re.Pattern[str]:
    r"""Compile an ECMA-262 pattern (no ``u`` flag) so that Python's ``re`` matches what a browser does.

    ``\s``, ``.``, ``$`` and ``^`` are spelled out with ECMA's meaning, and with ``i`` a non-ASCII
    letter becomes the class of the letters ECMA folds it with. Left to differ: ``i`` on a range of
    non-ASCII letters (bridge/tests/parity/ runs every rule through both).

    Raises:
        NotForJs: ``\S`` inside a class other than ``[\s\S]`` (Python has no spelling for it).
    """
    multiline, fold = "m" in flags, "i" in flags
    out: list[str] = []
    i, n, in_class = 0, len(source), False
    while i < n:
        c = source[i]
        if c == "\\" and i + 1 < n:
            nxt = source[i + 1]
            named = re.match(r"k<(\w+)>", source[i + 1:])
            if nxt == "s":
                out.append(_JS_SPACE if in_class else f"[{_JS_SPACE}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{_JS_SPACE}]")
            elif nxt == "S":
                raise NotForJs(f"{source!r}: \\S inside a character class has no equal in Python's re")
            elif named:
                out.append(f"(?P={named.group(1)})")
                i += 1 + named.end()
                continue
            elif fold and (code := _HEX_ESCAPE.match(source, i)):
                out.append(_folded(chr(int(code.group(1) or code.group(2), 16)), in_class, source, i, code.end()))
                i = code.end()
                continue
            else:
                out.append(source[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
            out.append(_folded(c, True, source, i, i + 1) if fold and in_class else c)
        elif source.startswith(("[\\s\\S]", "[\\S\\s]"), i):
            out.append("[\\s\\S]")
            i += 6
            continue
        elif source.startswith("[^]", i):
            out.append("[\\s\\S]")
            i += 3
            continue
        elif source.startswith("[]", i):
            out.append("(?!)")
            i += 2
            continue
        elif c == "[":
            in_class = True
            out.append(c)
            if source.startswith("^", i + 1):
                out.append("^")
                i += 1
        elif c == "(" and source.startswith("(?<", i) and not source.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        elif c == "$":
            out.append(f"(?=[{_JS_LINE_END}]|\\Z)" if multiline else "\\Z")
        elif c == "^" and multiline:
            out.append(f"(?:(?<=[{_JS_LINE_END}])|\\A)")
        elif c == "." and "s" not in flags:
            out.append(f"[^{_JS_LINE_END}]")
        else:
            out.append(_folded(c, False, source, i, i + 1) if fold else c)
        i += 1
    value = re.ASCII | (re.IGNORECASE if "i" in flags else 0) | (re.DOTALL if "s" in flags else 0)
    return re.compile("".join(out), value)


_HEX_ESCAPE = re.compile(r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4}))")


def _js_canonical(c: str) -> str:
    """ECMA-262 Canonicalize without ``u``: the upper case of a character, unless that is not one
    character or would turn a non-ASCII character into an ASCII one (``ſ`` stays ``ſ``)."""
    upper = c.upper()
    if len(upper) != 1 or (ord(c) >= 128 and ord(upper) < 128):
        return c
    return upper


@lru_cache(maxsize=1)
def _js_folds() -> dict[str, str]:
    """Every non-ASCII BMP character ECMA's ``i`` folds with another, to all its fold mates."""
    groups: dict[str, list[str]] = {}
    for code in range(128, 0x10000):
        if not 0xD800 <= code <= 0xDFFF:
            c = chr(code)
            groups.setdefault(_js_canonical(c), []).append(c)
    return {c: "".join(group) for group in groups.values() if len(group) > 1 for c in group}


def _folded(c: str, in_class: bool, source: str, start: int, end: int) -> str:
    """A literal character of an ``i`` pattern as Python must write it to match what ECMA matches:
    a non-ASCII letter with all the letters ECMA folds it with (a class, or inside one its members).
    A character at either end of a class range stays as written."""
    mates = _js_folds().get(c) if ord(c) >= 128 else None
    if mates is None or (in_class and (source[end:end + 1] == "-" or source[start - 1:start] == "-")):
        return source[start:end]
    return mates if in_class else f"[{mates}]"


@lru_cache(maxsize=512)
def js_pattern(pattern: str) -> JsPattern:
    """A Python ``re`` pattern as JavaScript runs it, checked by an ECMA-262 engine before it is returned.

    Raises:
        NotForJs: the pattern uses what JavaScript has not (``(?x)``, ``\\Z``, ...), or
            does not compile as ECMA-262.
    """
    source, flags = pattern, ""
    inline = _INLINE_FLAGS.match(source)
    if inline:
        unknown = set(inline.group(1)) - set(_PY_FLAGS)
        if unknown:
            raise NotForJs(f"the flag(s) {''.join(sorted(unknown))} of {pattern!r} have no JavaScript equal")
        flags = "".join(f for f in "ims" if f in inline.group(1))
        source = source[inline.end():]
    if re.search(r"\\[AZ]|\(\?#|\(\?[aiLmsux-]+[:)]", source):
        raise NotForJs(f"{pattern!r} uses a construct JavaScript does not have (\\A, \\Z, comments, inline flags)")
    source = re.sub(r"\(\?P<", "(?<", source)
    source = re.sub(r"\(\?P=(\w+)\)", r"\\k<\1>", source)
    compiled = JsPattern(source, flags)
    check(compiled)
    return compiled


def check(pattern: JsPattern) -> None:
    """Raise :class:`NotForJs` when an ECMA-262 engine refuses ``pattern``."""
    try:
        regress.Regex(pattern.source, pattern.flags)
    except Exception as exc:  # regress raises its own error type for a bad pattern
        raise NotForJs(f"{pattern.source!r} is not an ECMA-262 regular expression: {exc}") from None
    try:
        pattern.python()
    except re.error as exc:
        raise NotForJs(f"{pattern.source!r} has no equal in Python's re: {exc}") from None


@lru_cache(maxsize=512)
def glob_to_js(glob: str) -> JsPattern:
    """An ``fnmatch`` glob (``*``, ``?``, ``[set]``, ``[!set]``, matched whole and case-sensitively,
    as :func:`fnmatch.fnmatchcase`) as an ECMA-262 pattern."""
    out = ["^"]
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        i += 1
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            j = i
            if j < n and glob[j] == "!":
                j += 1
            if j < n and glob[j] == "]":
                j += 1
            while j < n and glob[j] != "]":
                j += 1
            if j >= n:
                out.append("\\[")
                continue
            body = glob[i:j]
            i = j + 1
            negated = body.startswith("!")
            if negated:
                body = body[1:]
            out.append(_glob_set(body, negated))
        else:
            out.append(_escape(c))
    out.append("$")
    compiled = JsPattern("".join(out), "s")
    check(compiled)
    return compiled


def _glob_set(body: str, negated: bool) -> str:
    """One ``[...]`` of a glob as a character class (ranges kept, reversed ranges empty as in Python)."""
    parts: list[str] = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            lo, hi = body[k], body[k + 2]
            if lo <= hi:
                parts.append(f"{_class_char(lo)}-{_class_char(hi)}")
            k += 3
        else:
            parts.append(_class_char(body[k]))
            k += 1
    if not parts:
        return "." if negated else "(?!)"
    return f"[{'^' if negated else ''}{''.join(parts)}]"


def _class_char(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c


def _escape(c: str) -> str:
    return "\\" + c if c in r"\^$.|?*+()[]{}/" else c
