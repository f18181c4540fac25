"""JSON Schema's regular expressions evaluated as ECMA-262, as the browser evaluates them.

JSON Schema says ``pattern``, ``patternProperties`` and the ``regex`` format are ECMA-262
regular expressions. Python's ``re`` is another dialect: it refuses valid JavaScript such as
``[\\w-\\.]`` (a class escape in a range, allowed by the web's legacy grammar) and reads some
constructs differently. A page's schema that Chromium registered must never make the bridge drop
the tool, so the bridge compiles patterns with ``regress`` (a Rust implementation of ECMA-262
regular expressions): with the ``u`` flag first (what JSON Schema 2020-12 recommends), else
without it (the legacy grammar browsers accept). A pattern neither accepts is not evaluated: the
keyword is skipped for validation (logged once), and the tool is kept.

:func:`ecma_validator_class` gives the jsonschema validator classes with those three keywords
replaced; :mod:`tabmcp.core.models` picks the dialect and uses them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import cache, lru_cache
from typing import Any

import regress
from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend

__all__ = ["compile_ecma", "ecma_search", "ecma_validator_class"]

log = logging.getLogger(__name__)


@lru_cache(maxsize=4096)
def compile_ecma(pattern: str) -> regress.Regex | None:
    """``pattern`` compiled as ECMA-262 (unicode mode, else the legacy grammar); None when
    neither accepts it (logged once per pattern)."""
    for flags in ("u", ""):
        try:
            return regress.Regex(pattern, flags)
        except Exception:  # regress raises its own error type for a bad pattern
            continue
    log.warning("a tool schema's pattern %r is not an ECMA-262 regular expression: not checked", pattern[:200])
    return None


def ecma_search(pattern: str, text: str) -> bool | None:
    """Does ``pattern`` match somewhere in ``text``? None when the pattern cannot be evaluated."""
    regex = compile_ecma(pattern)
    if regex is None:
        return None
    return regex.find(text) is not None


def _pattern(validator: Any, patrn: str, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and ecma_search(patrn, instance) is False:
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


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
        if "patternProperties" in schema:
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {'does' if len(extras) == 1 else 'do'} not match any of the regexes: {patterns}")
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
    and ``additionalProperties``, and a schema check that does not judge patterns by Python's ``re``."""
    keywords: dict[str, Any] = {"pattern": _pattern, "additionalProperties": _additional_properties}
    if "patternProperties" in base.VALIDATORS:
        keywords["patternProperties"] = _pattern_properties
    cls: type[Validator] = extend(  # type: ignore[no-untyped-call]
        base, validators=keywords, format_checker=_format_checker(base.FORMAT_CHECKER)
    )

    def check_schema(klass: type[Validator], schema: Any, format_checker: FormatChecker | None = None) -> None:
        # jsonschema's own check takes the metaschema's class and its format checker, which
        # judges patterns by Python's re: give it this class's instead
        base.check_schema(schema, format_checker=format_checker or klass.FORMAT_CHECKER)  # type: ignore[call-arg]

    cls.check_schema = classmethod(check_schema)  # type: ignore[method-assign,assignment]
    return cls


ECMA_2020_12 = ecma_validator_class(Draft202012Validator)
ECMA_DRAFT7 = ecma_validator_class(Draft7Validator)
