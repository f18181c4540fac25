"""Strict reading of the LLM's answer: keep what is provably about a real tool, drop the rest.

An entry is all-or-nothing: one bad field (an illegal name, a schema that is not an
object, arguments the page never declared) rejects the whole entry and that tool goes on
to the next transformer with its original definition. Entries about tools that were not
asked about are ignored, so nothing is ever invented.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import BaseModel, Field, ValidationError

from tabmcp_mediator.errors import InvalidLLMResponse
from tabmcp_mediator.models import EnhancedTool, RawTool, ToolName

log = logging.getLogger(__name__)

_FENCE = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL)


class _ToolAnswer(BaseModel):
    original_name: str
    name: ToolName
    description: str = Field(min_length=1)
    input_schema: dict[str, Any]
    argument_map: dict[str, str] = Field(default_factory=dict)


class _CategoryAnswer(BaseModel):
    name: ToolName
    description: str = ""
    tools: list[str]


def parse_answer(
    text: str, tools: Sequence[RawTool], *, enhanced_by: str, confidence: float
) -> list[EnhancedTool]:
    """Turn the reply into enhanced tools, one per usable entry.

    Args:
        text: The model's reply: a JSON object, optionally in one ```json fence.
        tools: The tools that were asked about.
        enhanced_by: Recorded on each tool.
        confidence: Recorded on each tool.

    Returns:
        Enhanced tools in the order of ``tools``, only for usable entries.

    Raises:
        InvalidLLMResponse: The reply is not JSON or has no ``tools`` list.
    """
    data = _load(text)
    entries = data.get("tools")
    if not isinstance(entries, list):
        raise InvalidLLMResponse("the answer has no 'tools' list")
    raw = {tool.name: tool for tool in tools}
    groups = _categories(data.get("categories"), raw)
    usable: dict[str, EnhancedTool] = {}
    for entry in entries:
        answer = _tool_answer(entry, raw, usable)
        if answer is None:
            continue
        category, category_description = groups.get(answer.original_name, (None, None))
        usable[answer.original_name] = EnhancedTool(
            name=answer.name,
            description=answer.description.strip(),
            input_schema=answer.input_schema,
            metadata=raw[answer.original_name].metadata,
            original_name=answer.original_name,
            category=category,
            category_description=category_description,
            confidence=confidence,
            enhanced_by=enhanced_by,
            argument_map=answer.argument_map,
        )
    return [usable[name] for name in raw if name in usable]


def _load(text: str) -> dict[str, Any]:
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    try:
        data = json.loads(fenced.group(1) if fenced else stripped)
    except json.JSONDecodeError as exc:
        raise InvalidLLMResponse(f"the answer is not JSON: {stripped[:120]!r}") from exc
    if not isinstance(data, dict):
        raise InvalidLLMResponse("the answer is not a JSON object")
    return data


def _tool_answer(entry: Any, raw: dict[str, RawTool], done: dict[str, EnhancedTool]) -> _ToolAnswer | None:
    try:
        answer = _ToolAnswer.model_validate(entry)
    except ValidationError as exc:
        log.info("LLM entry rejected (%s): %s", _label(entry), exc.errors()[0]["msg"])
        return None
    if answer.original_name not in raw or answer.original_name in done:
        log.info("LLM entry rejected: %r was not asked about, or twice", answer.original_name)
        return None
    problem = _schema_problem(answer, raw[answer.original_name])
    if problem:
        log.info("LLM entry for %r rejected: %s", answer.original_name, problem)
        return None
    return answer


def _label(entry: Any) -> str:
    return repr(entry.get("original_name")) if isinstance(entry, dict) else type(entry).__name__


def _schema_problem(answer: _ToolAnswer, tool: RawTool) -> str | None:
    """Check the schema is a valid object schema that keeps the page's argument contract.

    Required arguments the page declared are re-added if the answer dropped them.
    """
    schema = answer.input_schema
    if schema.setdefault("type", "object") != "object":
        return "input_schema is not an object schema"
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return f"invalid JSON Schema: {exc.message}"
    new_props = set(schema.get("properties") or {})
    declared = (tool.input_schema or {}).get("properties")
    original = set(declared) if isinstance(declared, dict) else set()
    if not original:
        answer.argument_map = {}
        return None
    if not set(answer.argument_map) <= new_props:
        return "argument_map names arguments the schema does not have"
    if sorted(answer.argument_map.get(p, p) for p in new_props) != sorted(original):
        return "arguments do not map one-to-one onto the page's declared arguments"
    renamed = {orig: new for new, orig in answer.argument_map.items()}
    required = (tool.input_schema or {}).get("required") or []
    wanted = [renamed.get(r, r) for r in required if isinstance(r, str)]
    if wanted:
        schema["required"] = list(dict.fromkeys([*(schema.get("required") or []), *wanted]))
    return None


def _categories(value: Any, raw: dict[str, RawTool]) -> dict[str, tuple[str, str | None]]:
    """Original tool name -> (category, description); unknown tools and bad groups dropped."""
    groups: dict[str, tuple[str, str | None]] = {}
    for item in value if isinstance(value, list) else []:
        try:
            category = _CategoryAnswer.model_validate(item)
        except ValidationError:
            continue
        for name in category.tools:
            if name in raw and name not in groups:
                groups[name] = (category.name, category.description or None)
    return groups
