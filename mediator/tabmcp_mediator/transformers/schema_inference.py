"""Input schemas for tools that declare none, and clearer argument names for those that do."""

from __future__ import annotations

import copy
from typing import Any

from tabmcp_mediator.naming import is_valid_name, split_words
from tabmcp_mediator.transformers import vocabulary as v
from tabmcp_mediator.transformers.name_reading import ParsedName, as_nouns, by_hints


def infer_schema(
    parsed: ParsedName, name: str, raw_schema: dict[str, Any] | None, raw_description: str | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """An input schema and the argument renames it implies.

    A declared schema is the page's contract (only abbreviated names are expanded); an empty one is
    inferred from the verb (search, list, one thing, create or update).

    Returns:
        ``(schema, argument_map)`` with the map keyed by new argument name.
    """
    if raw_schema and isinstance(raw_schema.get("properties"), dict) and raw_schema["properties"]:
        return _expand_properties(raw_schema)
    if name in v.SPECIAL_SCHEMAS:
        return copy.deepcopy(v.SPECIAL_SCHEMAS[name]), {}
    return _inferred(parsed, raw_description), {}


def _inferred(parsed: ParsedName, raw_description: str | None) -> dict[str, Any]:
    verb, obj = parsed.verb, parsed.obj or "item"
    head = parsed.nouns[-1] if parsed.nouns else ""
    if verb in v.SEARCH_VERBS:
        return {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Text to search for."},
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "default": 10,
                    "description": "Maximum number of results.",
                },
            },
            "required": ["query"],
        }
    if verb in v.LIST_VERBS:
        return {
            "type": "object",
            "properties": {
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "default": 20,
                    "description": "Maximum number of items.",
                },
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "default": 0,
                    "description": "Items to skip (paging).",
                },
            },
        }
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    keys = by_hints(raw_description)
    if keys:
        schema["properties"] = {key: copy.deepcopy(v.PROPERTY_HINTS[key]) for key in keys}
        schema["required"] = keys
    elif verb in v.READ_VERBS | v.UPDATE_VERBS | v.DELETE_VERBS and head and head not in v.SINGLETON_NOUNS:
        schema["properties"] = {"id": {"type": "string", "description": f"ID of the {obj}."}}
        schema["required"] = ["id"]
    if verb not in v.READ_VERBS | v.DELETE_VERBS or not schema["properties"]:
        schema["additionalProperties"] = True
    return schema


def _expand_properties(raw_schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    schema = copy.deepcopy(raw_schema)
    schema.setdefault("type", "object")
    properties: dict[str, Any] = {}
    argument_map: dict[str, str] = {}
    for original, spec in raw_schema["properties"].items():
        words = split_words(original)
        expanded = as_nouns(words)
        new = "_".join(expanded) if expanded != words else original
        shadows = new != original and new in raw_schema["properties"]
        if new in properties or shadows or not is_valid_name(new):
            new = original
        prop = copy.deepcopy(spec) if isinstance(spec, dict) else {}
        if "description" not in prop:
            prop["description"] = _label(expanded or [original])
        properties[new] = prop
        if new != original:
            argument_map[new] = original
    schema["properties"] = properties
    if isinstance(schema.get("required"), list):
        renamed = {orig: new for new, orig in argument_map.items()}
        schema["required"] = [renamed.get(r, r) for r in schema["required"]]
    return schema, argument_map


def _label(words: list[str]) -> str:
    text = " ".join("ID" if w == "id" else w for w in words)
    return text[:1].upper() + text[1:] + "."
