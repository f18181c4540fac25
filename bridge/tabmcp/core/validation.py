"""Check tool arguments against the tool's inputSchema before anything reaches the page."""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from typing import Any

from jsonschema.exceptions import SchemaError, best_match
from jsonschema.protocols import Validator
from referencing.exceptions import Unresolvable

from ..errors import ToolValidationError
from .budget import OverBudget, budget
from .lru import IdentityMemo
from .models import schema_validator_class, verified_dialect

__all__ = ["LOOP_STEPS", "validate_arguments"]

log = logging.getLogger(__name__)


@lru_cache(maxsize=4096)
def _validator(schema_json: str) -> Validator | None:
    """None for a schema whose meta-schema check ran over budget (never known valid: unread)."""
    schema = json.loads(schema_json)
    try:
        if verified_dialect(schema) is None:
            return None
    except SchemaError:
        return None  # not a page's: a page's schema was checked when its tool was read
    return schema_validator_class(schema)(schema)


_BY_IDENTITY: IdentityMemo[dict[str, Any], Validator | None] = IdentityMemo(
    lambda schema: _validator(json.dumps(schema, sort_keys=True)), max_entries=4096)
"""Validators by the schema object they were built for: a tool's schema is checked per call
without re-encoding it (tool definitions are replaced, never edited, when a page changes them,
so a new schema is a new object; equal schemas of different objects share ``_validator``)."""


LOOP_STEPS = 1_000
"""The steps an argument check may take on the event loop (about 3 ms on the costliest shape; the
public catalogs' checks take at most about a hundred): a check that needs more runs again on a
worker thread with the full :data:`tabmcp.core.budget.SCHEMA_STEPS` (``core/tools/call.py``)."""


def validate_arguments(tool_name: str, schema: dict[str, Any], arguments: Any, *,
                       steps: int | None = None) -> dict[str, Any]:
    """Return ``arguments`` if they satisfy ``schema``.

    ``steps``: a smaller budget for a first try on the event loop; past it :class:`OverBudget` is
    raised so the caller checks again off the loop.

    Raises:
        ToolValidationError: with the failing field, what the schema expected, and the
            schema's ``required`` list so the agent can fix the call in one go.
        OverBudget: only with ``steps``, when they ran out.
    """
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolValidationError(
            f"{tool_name}: arguments must be a JSON object, got {type(arguments).__name__}", tool=tool_name
        )
    validator = _BY_IDENTITY.get(schema)
    if validator is None:
        log.warning("%s: its arguments were not checked, its input schema could not be read within budget", tool_name)
        return arguments
    try:
        with budget() if steps is None else budget(steps):
            error = best_match(validator.iter_errors(arguments))
    except OverBudget:
        if steps is not None:
            raise
        # The page's schema costs more to check than any check may: the arguments go on
        # unchecked, as the browser runs them (the tool's `unchecked` notes say so), counted.
        log.warning("%s: its arguments were not checked, the input schema's check ran over budget", tool_name)
        return arguments
    except (RecursionError, Unresolvable, ReferenceError):
        # A $ref that does not resolve or loops: the browser runs the tool, so the arguments go on
        # unchecked (the tool's `unchecked` notes say so in describe_tools and introspect).
        return arguments
    if error is None:
        return arguments
    field = "/".join(str(p) for p in error.absolute_path) or None
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [r for r in error.validator_value if isinstance(error.instance, dict) and r not in error.instance]
        field = field + "/" + missing[0] if field and missing else (missing[0] if missing else field)
    rule = str(error.validator)
    expected = _expected(rule, error.validator_value)
    raise ToolValidationError(
        f"{tool_name}: {'argument ' + repr(field) + ': ' if field else ''}{_rule_message(rule, expected, error.message)}",
        tool=tool_name,
        field=field,
        rule=rule,
        expected=expected,
        required=schema.get("required"),
    )


_JSON_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})


def _expected(rule: str, value: Any) -> Any:
    """What the rule expected, when it is one of the rule's own words or a number: never a
    page's string (an ``enum`` member, a ``pattern``, a ``format`` or a bad ``type`` value)."""
    if rule == "type":
        names = value if isinstance(value, list) else [value]
        return value if all(isinstance(n, str) and n in _JSON_TYPES for n in names) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _rule_message(rule: str, expected: Any, message: str) -> str:
    """The message names the place (above) and the rule, never the page's text (it reaches the
    agent unframed, and jsonschema's own messages quote the schema's values)."""
    if rule == "required":
        return "is required"
    if rule == "additionalProperties":
        return message  # core/ecma_regex.py's own words: the agent's extra keys, not the schema's
    if expected is not None:
        return f"breaks the input schema's rule {rule!r} (expected {expected!r})"
    return f"breaks the input schema's rule {rule!r}"
