"""Regular expressions the bridge hands to the extension, compiled once, here, for JavaScript.

Some rules run on both sides: the telemetry redaction patterns (the page redacts before anything
leaves it, the bridge again on ingest), the shapes of secret fields and card numbers, the origin
globs of forms-as-tools. Their one source is the bridge's (Python's ``re`` syntax, ``fnmatch``
globs); the extension gets them as :class:`JsPattern` (an ECMA-262 ``source`` and its ``flags``)
and only calls ``new RegExp(source, flags)``: it has no translator and no copy of a rule.

Every :class:`JsPattern` is checked by ``regress`` (a Rust implementation of ECMA-262 regular
expressions, the engine family browsers run), so a rule the page could not compile is refused
where it is configured, not skipped in the page. ``bridge/tests/parity/`` runs the shared case
files through both sides.
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
        """The same expression for Python's ``re`` (named groups spelled ``(?P<name>…)``)."""
        return _python(self.source, self.flags)


@lru_cache(maxsize=512)
def _python(source: str, flags: str) -> re.Pattern[str]:
    value = 0
    for flag in flags:
        value |= _PY_FLAGS[flag]
    return re.compile(re.sub(r"\(\?<(?![=!])", "(?P<", source), value)


@lru_cache(maxsize=512)
def js_pattern(pattern: str) -> JsPattern:
    """A Python ``re`` pattern as JavaScript runs it: a leading inline flag group (``(?i)``)
    becomes flags, ``(?P<name>…)`` / ``(?P=name)`` the ECMA spellings; anything else is the
    common syntax. The result is compiled by an ECMA-262 engine before it is returned.

    Raises:
        NotForJs: the pattern uses what JavaScript has not (``(?x)``, ``\\Z``, ``(?#…)``...), or
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
