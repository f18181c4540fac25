"""A page tool's ``outputSchema`` (WebMCP, Chrome 159), relayed as the MCP tool's ``outputSchema``.

MCP clients reject a result that does not match a listed ``outputSchema``, compiling it with
jsonschema and Python's ``re``. So a schema such a client cannot use is dropped with its reason
(the tool is kept, :func:`check_output_schema`), and every result is checked after the gate on
bounded engines (:func:`structured_result`): a mismatch is ``BAD_RESULT``, never a result the client rejects.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import SchemaError, best_match
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry
from referencing.exceptions import Unresolvable

from ..errors import BadResult
from .budget import OVER_BUDGET_NOTE, OVER_BUDGET_RULE, RESULT_STEPS, OverBudget, budget, check_schema
from .ecma_regex import ecma_validator_class
from .lru import IdentityMemo
from .unchecked import probe_schema

__all__ = ["MAX_OUTPUT_SCHEMA_BYTES", "check_output_schema", "check_structured", "structured_from_text"]

MAX_OUTPUT_SCHEMA_BYTES = 64 * 1024
MAX_OUTPUT_SCHEMA_DEPTH = 64


def _depth(value: Any, limit: int) -> int:
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack and deepest < limit:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _build(schema: dict[str, Any]) -> Validator:
    """The validator an MCP client builds for this schema (the SDK's own recipe).

    Raises:
        SchemaError: the schema is not one the client can compile.
    """
    cls = validator_for(schema)
    check_schema(cls, schema)  # the client's check, counted (core/budget.py): OverBudget past it
    # The bridge's own check is the same dialect with patterns on bounded engines and every
    # keyword counted (core/budget.py): a page's schema cannot make it cost more than its budget.
    return ecma_validator_class(cls)(schema, registry=Registry())


_VALIDATORS: IdentityMemo[dict[str, Any], Validator] = IdentityMemo(_build, max_entries=1024)
"""Each relayed schema's validator, built once when :func:`check_output_schema` reads the
definition and found again by the schema object the tool keeps (``PageTool.output_schema``): a
call neither rebuilds nor re-encodes it; a changed definition is a new schema object."""


def check_output_schema(given: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The output schema to relay, or ``(None, why)`` when MCP clients could not use it.

    A schema without ``type`` is read as an object schema (MCP's ``structuredContent`` is an
    object); any other ``type`` cannot describe it.
    """
    if not isinstance(given, dict):
        return None, "outputSchema must be a JSON object"
    try:
        size = len(json.dumps(given))
    except (TypeError, ValueError, RecursionError):
        return None, "outputSchema is not JSON"
    if size > MAX_OUTPUT_SCHEMA_BYTES:
        return None, f"outputSchema is {size} bytes, more than {MAX_OUTPUT_SCHEMA_BYTES}"
    if _depth(given, MAX_OUTPUT_SCHEMA_DEPTH + 1) > MAX_OUTPUT_SCHEMA_DEPTH:
        return None, f"outputSchema is nested more than {MAX_OUTPUT_SCHEMA_DEPTH} levels deep"
    kind = given.get("type", "object")
    if kind != "object":
        return None, f"outputSchema must describe an object (MCP's structuredContent), not type {json.dumps(kind)[:40]}"
    schema = given if "type" in given else {"type": "object", **given}
    try:
        validator = _VALIDATORS.get(schema)
        with budget():  # a $ref that never resolves fails here, not at every call
            probe_schema(validator, schema)
    except SchemaError as exc:  # the place and the rule; the validator's message quotes the page
        where = "/".join(str(p) for p in exc.path) or "(root)"
        return None, f"outputSchema is not a JSON Schema MCP clients can read at {where} (rule {str(exc.validator)!r})"
    except OverBudget:
        # An MCP client would spend as much on every result: not relayed, the tool kept.
        return None, f"outputSchema: {OVER_BUDGET_NOTE}"
    except (Unresolvable, ReferenceError):
        return None, "outputSchema has a $ref that cannot be resolved"
    except RecursionError:
        return None, "outputSchema is nested too deeply, or its $ref loops"
    return schema, None


def structured_from_text(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with ``structuredContent`` taken from its one text part when the page gave
    none and that text is a JSON object (the browser's ``executeTool`` string of an object)."""
    if "structuredContent" in result or result.get("isError"):
        return result
    content = result.get("content")
    if not (isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)
            and content[0].get("type") == "text" and isinstance(content[0].get("text"), str)):
        return result
    try:
        value = json.loads(content[0]["text"])
    except (ValueError, RecursionError):
        return result
    return {**result, "structuredContent": value} if isinstance(value, dict) else result


def check_structured(tool: str, schema: dict[str, Any], result: Mapping[str, Any]) -> Mapping[str, Any]:
    """``result`` when it keeps the tool's ``outputSchema`` promise (an error result always does).

    Raises:
        BadResult: the result has no ``structuredContent``, or it does not match the schema;
            the message names the place and the rule, never the page's values.
    """
    if result.get("isError"):
        return result
    if "structuredContent" not in result:
        raise BadResult(
            f"{tool} declares an outputSchema but its result has no structured content "
            "(the page returned no JSON object, or it was too large and dropped)",
            tool=tool, rule="outputSchema",
        )
    try:
        with budget(RESULT_STEPS):
            error = best_match(_VALIDATORS.get(schema).iter_errors(result["structuredContent"]))
    except OverBudget:
        raise BadResult(
            f"{tool}: its result was not checked against its outputSchema: the check takes more work "
            "than the bridge gives one check (a client would spend as much), so it is not relayed",
            tool=tool, rule=OVER_BUDGET_RULE,
        ) from None
    except (RecursionError, Unresolvable, ReferenceError):
        error = None  # checked at registration; nothing left the client could not read either
    if error is None:
        return result
    field = _schema_path(schema, error.absolute_path)
    raise BadResult(
        f"{tool}: its result does not match its outputSchema at {('/' + field) if field else 'the top level'} "
        f"(rule {error.validator!r})",
        tool=tool, field=field or None, rule=str(error.validator),
    )


def _declared_names(schema: Any, into: set[str]) -> set[str]:
    """Every property name the schema declares, at any depth (names the page's author wrote in the
    schema the client was given, not keys the page's result made up)."""
    if isinstance(schema, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            into.update(k for k in props if isinstance(k, str))
        for value in schema.values():
            _declared_names(value, into)
    elif isinstance(schema, list):
        for value in schema:
            _declared_names(value, into)
    return into


def _schema_path(schema: dict[str, Any], path: Any) -> str:
    """Where a result broke its schema, in the schema's own words: an array index, or a property
    name the schema declares; any other key of the page's result is ``*`` (a key is page data, and
    this message reaches the agent unframed)."""
    declared = _declared_names(schema, set())
    return "/".join(str(p) if isinstance(p, int) or p in declared else "*" for p in path)
