"""What of a tool's input schema the bridge cannot evaluate: skipped when arguments are checked,
never a reason to drop the tool, and said so.

The browser registers a tool whatever its schema holds, so the bridge keeps it too: a pattern no
bounded engine runs, a check over budget, or a ``$ref`` that never resolves is named in
:attr:`PageTool.unchecked` (shown by ``describe_tools`` and ``introspect``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema.protocols import Validator
from referencing.exceptions import Unresolvable

from .budget import COMPILE_STEPS, OVER_BUDGET_NOTE, TEXT_STEP_CHARS, OverBudget, budget, spend
from .ecma_regex import pattern_problem

__all__ = ["MAX_NOTES", "pointer_refs", "probe_schema", "unchecked_parts"]

MAX_NOTES = 20


def _patterns(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every ``pattern`` and ``patternProperties`` key in a schema, with its JSON Pointer."""
    stack: list[tuple[Any, str]] = [(node, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, list):
            stack.extend((sub, f"{at}/{i}") for i, sub in enumerate(item))
            continue
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("pattern"), str):
            yield f"{at}/pattern", item["pattern"]
        if isinstance(item.get("patternProperties"), dict):
            yield from ((f"{at}/patternProperties", key) for key in item["patternProperties"])
        for key, sub in item.items():
            if key in ("enum", "const", "default", "examples"):
                continue  # values, not schemas
            stack.append((sub, f"{at}/{key}"))


def pointer_refs(schema: dict[str, Any]) -> list[str]:
    """Every ``$ref`` of ``schema`` that is a JSON Pointer into it (``#/…``), when no ``$id``
    moves what a pointer is relative to (then none: the probes alone judge)."""
    refs: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            if "$id" in item or "id" in item:
                return []
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                refs.add(ref)
            stack.extend(v for k, v in item.items() if k not in ("enum", "const", "default", "examples"))
    return sorted(refs)


def probe_schema(validator: Validator, schema: dict[str, Any]) -> None:
    """Run ``validator`` (of ``schema``) as a check would, on two probes and on every pointer
    ``$ref`` the probes never reach (one under a property): a ``$ref`` that never resolves, or work
    over budget, raises here, once, not at every call."""
    for probe in ({}, {"x": 1}):
        for _ in validator.iter_errors(probe):  # all of them, as a call's check reads them
            pass
    for ref in pointer_refs(schema):
        for _ in validator.evolve(schema={"$ref": ref}).iter_errors(None):
            pass


def unchecked_parts(schema: dict[str, Any], validator_class: type[Validator]) -> tuple[str, ...]:
    """What of ``schema`` arguments cannot be checked against, one short sentence each.

    Each names a place and a rule, never the page's text, since these notes reach the agent."""
    notes: list[str] = []
    try:
        with budget():
            for at, pattern in _patterns(schema):
                spend(COMPILE_STEPS + len(pattern) // TEXT_STEP_CHARS)  # reading a pattern costs too
                if (problem := pattern_problem(pattern)) is not None:
                    notes.append(f"pattern at {at}: {problem}, not checked")
            probe_schema(validator_class(schema), schema)
    except OverBudget:
        notes.append(f"the input schema: {OVER_BUDGET_NOTE}")
    except (Unresolvable, ReferenceError):
        notes.append("a $ref cannot be resolved: arguments are not checked against the input schema")
    except RecursionError:
        notes.append("a $ref loops forever: arguments are not checked against the input schema")
    return tuple(notes[:MAX_NOTES])
