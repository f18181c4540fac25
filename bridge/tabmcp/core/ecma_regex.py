"""JSON Schema's regular expressions evaluated as ECMA-262, as the browser evaluates them, in
bounded time.

A page chooses these patterns, so none runs on an engine whose time the page can choose:
``regress`` parses, :func:`translate` rewrites into RE2 (linear time), and lookaround or
backreferences go to ``regex`` under the check's deadline; anything else is skipped and named,
never the tool (docs/security.md, "Regular expressions", has the translation table).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import re2
import regex
import regress
from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend

from .budget import TEXT_STEP_CHARS, OverBudget, backtrack_deadline, counting, keep_on_evolve, spend
from .budget import check_schema as bounded_check_schema

__all__ = ["NOT_BOUNDED", "NOT_ECMA", "compile_ecma", "ecma_search", "ecma_validator_class", "pattern_problem"]

log = logging.getLogger(__name__)

NOT_ECMA = "not an ECMA-262 regular expression"
NOT_BOUNDED = "uses a construct the bridge cannot run in bounded time"
"""Why a pattern is not evaluated (the tool's ``unchecked`` notes say which pattern)."""

MAX_REPEAT = 1000
"""RE2's largest counted repeat; a bigger one is not evaluated."""

_WHITESPACE = (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, *range(0x2000, 0x200B),
               0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF)
"""ECMA-262's ``\\s``: WhiteSpace and LineTerminator (RE2's ``\\s`` is only ``[\\t\\n\\f\\r ]``)."""
_LINE_TERMINATORS = (0x0A, 0x0D, 0x2028, 0x2029)
"""What ECMA-262's ``.`` does not match (RE2's and Python's: only ``\\n``)."""
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_QUANTIFIER = re.compile(r"\{(\d+)(?:(,)(\d*))?\}")
_GROUP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_CATEGORY = re.compile(r"[A-Z][a-z]?")


class _Untranslatable(Exception):
    """The pattern holds a construct with no bounded equal."""


def _re2_cp(cp: int) -> str:
    return f"\\x{{{cp:X}}}"


def _bt_cp(cp: int) -> str:
    return f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}"


@dataclass(slots=True)
class _Out:
    """The pattern being written for both engines at once."""

    re2: list[str]
    bt: list[str]
    backtrack: bool = False

    def both(self, text: str) -> None:
        self.re2.append(text)
        self.bt.append(text)

    def cp(self, cp: int) -> None:
        self.re2.append(_re2_cp(cp))
        self.bt.append(_bt_cp(cp))

    def set_items(self, cps: tuple[int, ...]) -> None:
        self.re2.extend(_re2_cp(c) for c in cps)
        self.bt.extend(_bt_cp(c) for c in cps)


@dataclass(frozen=True, slots=True)
class _Atom:
    """One escape: a code point (a literal, a range's end) or a class escape (``\\d`` ...)."""

    cp: int | None = None
    re2: str = ""
    bt: str = ""
    whitespace: bool = False


def _groups(pattern: str) -> tuple[int, frozenset[str]]:
    """Capturing groups and group names (for backreferences, which may come before the group)."""
    count, names, i, in_class = 0, set(), 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            if not pattern.startswith("(?", i):
                count += 1
            elif pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
                count += 1
                end = pattern.find(">", i)
                if end > 0:
                    names.add(pattern[i + 3:end])
        i += 1
    return count, frozenset(names)


def _hex(pattern: str, at: int, digits: int) -> int:
    text = pattern[at:at + digits]
    if len(text) != digits or not all(c in "0123456789abcdefABCDEF" for c in text):
        raise _Untranslatable
    return int(text, 16)


def _escape(pattern: str, i: int, unicode: bool, in_class: bool,
            groups: tuple[int, frozenset[str]], out: _Out) -> tuple[int, _Atom]:
    """The escape at ``pattern[i]`` (a backslash): where it ends and what it is."""
    if i + 1 >= len(pattern):
        raise _Untranslatable
    c, j = pattern[i + 1], i + 2
    if c in "dDwW":
        return j, _Atom(re2="\\" + c, bt="\\" + c)
    if c == "s":
        return j, _Atom(whitespace=True)
    if c == "S" and not in_class:
        return j, _Atom(re2="[^" + "".join(map(_re2_cp, _WHITESPACE)) + "]",
                        bt="[^" + "".join(map(_bt_cp, _WHITESPACE)) + "]")
    if c == "b":
        return j, (_Atom(cp=8) if in_class else _Atom(re2="\\b", bt="\\b"))
    if c == "B" and not in_class:
        return j, _Atom(re2="\\B", bt="\\B")
    controls = {"n": 10, "r": 13, "t": 9, "f": 12, "v": 11}
    if c in controls:
        return j, _Atom(cp=controls[c])
    if c == "0" and not (j < len(pattern) and pattern[j].isdigit()):
        return j, _Atom(cp=0)
    if c == "x":
        return j + 2, _Atom(cp=_hex(pattern, j, 2))
    if c == "u":
        if unicode and pattern.startswith("{", j):
            end = pattern.find("}", j)
            if end < 0 or end - j > 7:
                raise _Untranslatable
            return end + 1, _Atom(cp=_hex(pattern, j + 1, end - j - 1))
        cp = _hex(pattern, j, 4)
        if 0xD800 <= cp <= 0xDBFF and pattern.startswith("\\u", j + 4):
            low = _hex(pattern, j + 6, 4)
            if 0xDC00 <= low <= 0xDFFF:
                return j + 10, _Atom(cp=0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00))
        if 0xD800 <= cp <= 0xDFFF:
            raise _Untranslatable  # a lone surrogate: no UTF-8 engine has it
        return j + 4, _Atom(cp=cp)
    if c == "c" and j < len(pattern) and pattern[j].isascii() and pattern[j].isalpha():
        return j + 1, _Atom(cp=ord(pattern[j]) % 32)
    if c in "123456789" and not in_class:
        end = j
        while end < len(pattern) and pattern[end].isdigit():
            end += 1
        number = int(pattern[i + 1:end])
        if number > groups[0]:
            raise _Untranslatable  # a legacy octal escape, not a backreference
        out.backtrack = True
        return end, _Atom(re2="", bt=f"(?:\\{number})")
    if c == "k" and groups[1] and not in_class and pattern.startswith("<", j):
        end = pattern.find(">", j)
        name = pattern[j + 1:end] if end > 0 else ""
        if name not in groups[1] or not _GROUP_NAME.fullmatch(name):
            raise _Untranslatable
        out.backtrack = True
        return end + 1, _Atom(re2="", bt=f"(?P={name})")
    if c in "pP" and unicode and pattern.startswith("{", j):
        end = pattern.find("}", j)
        name = pattern[j + 1:end] if end > 0 else ""
        if not _CATEGORY.fullmatch(name):
            raise _Untranslatable  # scripts and binary properties: Unicode versions differ
        return end + 1, _Atom(re2=f"\\{c}{{{name}}}", bt=f"\\{c}{{{name}}}")
    if c in _SYNTAX or c == "-" or (not unicode and not c.isalnum() and c != "_"):
        return j, _Atom(cp=ord(c))
    raise _Untranslatable


def _emit(atom: _Atom, out: _Out, in_class: bool) -> None:
    if atom.cp is not None:
        out.cp(atom.cp)
    elif atom.whitespace:
        if in_class:
            out.set_items(_WHITESPACE)
        else:
            out.both("[")
            out.set_items(_WHITESPACE)
            out.both("]")
    else:
        out.re2.append(atom.re2)
        out.bt.append(atom.bt)


def _class(pattern: str, i: int, unicode: bool, groups: tuple[int, frozenset[str]], out: _Out) -> int:
    """The character class at ``pattern[i]`` (``[``); returns where it ends."""
    i += 1
    negate = pattern.startswith("^", i)
    i += negate
    if pattern.startswith("]", i):  # ECMA's [] matches nothing, [^] anything
        out.both("[" + ("" if negate else "^"))
        out.re2.append(f"{_re2_cp(0)}-{_re2_cp(0x10FFFF)}]")
        out.bt.append(f"{_bt_cp(0)}-{_bt_cp(0x10FFFF)}]")
        return i + 1
    out.both("[^" if negate else "[")

    def atom_at(k: int) -> tuple[int, _Atom]:
        if k >= len(pattern):
            raise _Untranslatable
        if pattern[k] == "\\":
            return _escape(pattern, k, unicode, True, groups, out)
        return k + 1, _Atom(cp=ord(pattern[k]))

    while True:
        if i >= len(pattern):
            raise _Untranslatable
        if pattern[i] == "]":
            out.both("]")
            return i + 1
        i, first = atom_at(i)
        if pattern.startswith("-", i) and not pattern.startswith("-]", i):
            k, second = atom_at(i + 1)
            if first.cp is not None and second.cp is not None:
                if first.cp > second.cp:
                    raise _Untranslatable
                out.cp(first.cp)
                out.both("-")
                out.cp(second.cp)
                i = k
                continue
            # a class escape at either end: the legacy grammar reads the "-" as itself
            _emit(first, out, True)
            out.cp(ord("-"))
            _emit(second, out, True)
            i = k
            continue
        _emit(first, out, True)


def translate(pattern: str, unicode: bool) -> tuple[str, str, bool]:
    """``pattern`` (ECMA-262, as ``regress`` accepted it) for RE2 and for the ``regex`` module, and
    whether it needs the backtracking engine.

    Raises:
        _Untranslatable: a construct with no equal this function knows.
    """
    if not unicode and any(ord(c) > 0xFFFF for c in pattern):
        raise _Untranslatable  # the legacy grammar reads it as two UTF-16 code units
    groups = _groups(pattern)
    out = _Out([], [])
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i, atom = _escape(pattern, i, unicode, False, groups, out)
            _emit(atom, out, False)
        elif c == "[":
            i = _class(pattern, i, unicode, groups, out)
        elif c == "(":
            if pattern.startswith(("(?=", "(?!"), i):
                out.backtrack = True
                out.both(pattern[i:i + 3])
                i += 3
            elif pattern.startswith(("(?<=", "(?<!"), i):
                out.backtrack = True
                out.both(pattern[i:i + 4])
                i += 4
            elif pattern.startswith("(?<", i):
                end = pattern.find(">", i)
                name = pattern[i + 3:end] if end > 0 else ""
                if not _GROUP_NAME.fullmatch(name):
                    raise _Untranslatable
                out.both(f"(?P<{name}>")
                i = end + 1
            elif pattern.startswith("(?:", i):
                out.both("(?:")
                i += 3
            elif pattern.startswith("(?", i):
                raise _Untranslatable
            else:
                out.both("(")
                i += 1
        elif c in ")|^":
            out.both(c)
            i += 1
        elif c == "$":
            out.re2.append("\\z")  # ECMA's $ (no m flag) is the end of the text only
            out.bt.append("\\Z")
            i += 1
        elif c == ".":
            out.both("[^")
            out.set_items(_LINE_TERMINATORS)
            out.both("]")
            i += 1
        elif c in "*+?":
            out.both(c)
            i += 1
            if pattern.startswith("?", i):
                out.both("?")
                i += 1
        elif c == "{" and (quantifier := _QUANTIFIER.match(pattern, i)):
            low, _comma, high = quantifier.groups()
            if int(low) > MAX_REPEAT or (high and (int(high) > MAX_REPEAT or int(high) < int(low))):
                raise _Untranslatable
            out.both(quantifier.group(0))
            i = quantifier.end()
            if pattern.startswith("?", i):
                out.both("?")
                i += 1
        elif c.isascii() and c.isalnum():
            out.both(c)
            i += 1
        else:  # anything else is itself (a legacy "{", "}" or "]" among them)
            out.cp(ord(c))
            i += 1
    return "".join(out.re2), "".join(out.bt), out.backtrack


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


@dataclass(frozen=True, slots=True)
class EcmaPattern:
    """A page's pattern, ready to run in bounded time."""

    linear: Any | None
    """RE2's compiled pattern, when RE2 means the same."""
    backtracking: Any | None
    """The ``regex`` module's, for lookaround and backreferences (run under a deadline)."""
    legacy: bool
    """Accepted only without the ``u`` flag: its ``.`` and classes read UTF-16 code units, so a
    text beyond the BMP is not evaluated."""

    def search(self, text: str) -> bool | None:
        """Does the pattern match somewhere in ``text``? None when it cannot be told here.

        Raises:
            OverBudget: the running check's steps or backtracking deadline ran out.
        """
        spend(1 + len(text) // TEXT_STEP_CHARS)
        if self.legacy and any(ord(c) > 0xFFFF for c in text):
            return None
        if self.linear is not None:
            try:
                return self.linear.search(text) is not None
            except UnicodeEncodeError:  # a lone surrogate: no UTF-8 engine reads it
                return None
        left = backtrack_deadline()
        assert self.backtracking is not None  # one of the two engines is always set
        try:
            return self.backtracking.search(text, timeout=left if left is not None else BACKTRACK_ALONE) is not None
        except TimeoutError:
            if left is None:
                return None
            raise OverBudget from None


BACKTRACK_ALONE = 0.02
"""The deadline of one backtracking search outside any check's budget (not evaluated past it)."""


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> EcmaPattern | str:
    unicode: bool | None = None
    for flags in ("u", ""):
        try:
            regress.Regex(pattern, flags)
        except Exception:  # regress raises its own error type for a bad pattern
            continue
        unicode = flags == "u"
        break
    if unicode is None:
        log.warning("a tool schema's pattern is not an ECMA-262 regular expression: not checked")
        return NOT_ECMA
    try:
        linear, backtracking, needs_backtracking = translate(pattern, unicode)
        if needs_backtracking:
            return EcmaPattern(None, regex.compile(backtracking, regex.ASCII), not unicode)
        return EcmaPattern(re2.compile(linear, _RE2_OPTIONS), None, not unicode)
    except (_Untranslatable, re2.error, regex.error, ValueError, OverflowError):
        log.warning("a tool schema's pattern uses a construct the bridge cannot run in bounded time: not checked")
        return NOT_BOUNDED


def compile_ecma(pattern: str) -> EcmaPattern | None:
    """``pattern`` ready to run in bounded time; None when it is not evaluated (logged once)."""
    compiled = _compile(pattern)
    return compiled if isinstance(compiled, EcmaPattern) else None


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not evaluated (:data:`NOT_ECMA`, :data:`NOT_BOUNDED`), or None."""
    compiled = _compile(pattern)
    return compiled if isinstance(compiled, str) else None


def ecma_search(pattern: str, text: str) -> bool | None:
    """Does ``pattern`` match somewhere in ``text``? None when the pattern cannot be evaluated.

    Raises:
        OverBudget: the running check's budget ran out.
    """
    regex_ = compile_ecma(pattern)
    if regex_ is None:
        return None
    return regex_.search(text)


def _pattern(validator: Any, patrn: str, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and ecma_search(patrn, instance) is False:
        # names the rule, never the text or the page's pattern (the message reaches the agent)
        yield ValidationError("does not match the schema's pattern")
def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any,
                        schema: dict[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if ecma_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: dict[str, Any], schema: dict[str, Any]) -> Iterator[str]:
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    for key in instance:
        if key in properties:
            continue
        # a pattern that cannot be evaluated counts as a match: never refuse what it may allow
        if any(ecma_search(p, key) is not False for p in patterns):
            continue
        yield key


def _additional_properties(validator: Any, ap: Any, instance: Any,
                           schema: dict[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = set(_additional(instance, schema))
    if validator.is_type(ap, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], ap, path=extra)
    elif not ap and extras:
        joined = ", ".join(repr(each) for each in sorted(extras))
        if "patternProperties" in schema:  # the page's patterns are not quoted back
            does = "does" if len(extras) == 1 else "do"
            yield ValidationError(f"{joined} {does} not match any of the schema's patternProperties")
        else:
            were = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({joined} {were} unexpected)")


def _format_checker(base: FormatChecker) -> FormatChecker:
    """``base`` with ``regex`` accepting every pattern: one the bridge cannot evaluate is skipped
    at validation, never a reason to refuse the schema."""
    checker = FormatChecker(formats=())
    checker.checkers = {**base.checkers}
    checker.checkers.pop("regex", None)
    return checker


@cache
def ecma_validator_class(base: type[Validator]) -> type[Validator]:
    """``base`` (a jsonschema validator class) with ECMA-262 ``pattern``, ``patternProperties``
    and ``additionalProperties``, a schema check that does not judge patterns by Python's ``re``,
    and every keyword spending a step of the running :func:`tabmcp.core.budget.budget`."""
    keywords: dict[str, Any] = {**base.VALIDATORS, "pattern": _pattern, "additionalProperties": _additional_properties}
    if "patternProperties" in base.VALIDATORS:
        keywords["patternProperties"] = _pattern_properties
    cls: type[Validator] = extend(  # type: ignore[no-untyped-call]
        base, validators=counting(keywords), format_checker=_format_checker(base.FORMAT_CHECKER)
    )

    def check_schema(klass: type[Validator], schema: Any, format_checker: FormatChecker | None = None) -> None:
        # jsonschema's own check takes the metaschema's class and its format checker, which
        # judges patterns by Python's re: give it this class's instead; and count its work
        # (a meta-schema check grows with the page's schema: core/budget.py)
        bounded_check_schema(base, schema, format_checker=format_checker or klass.FORMAT_CHECKER)

    cls.check_schema = classmethod(check_schema)  # type: ignore[method-assign,assignment]
    return keep_on_evolve(cls, ecma_validator_class)


ECMA_2020_12 = ecma_validator_class(Draft202012Validator)
ECMA_DRAFT7 = ecma_validator_class(Draft7Validator)
