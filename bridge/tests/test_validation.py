import pytest

from tabmcp.core.validation import validate_arguments
from tabmcp.errors import ToolValidationError

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "role": {"type": "string", "enum": ["admin", "editor"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id"],
    "additionalProperties": False,
}


def test_valid_arguments_pass_through():
    assert validate_arguments("t", SCHEMA, {"id": 3, "role": "admin"}) == {"id": 3, "role": "admin"}
    assert validate_arguments("t", {"type": "object"}, None) == {}


@pytest.mark.parametrize(
    ("args", "field", "rule"),
    [
        ({}, "id", "required"),
        ({"id": "3"}, "id", "type"),
        ({"id": 0}, "id", "minimum"),
        ({"id": 1, "role": "king"}, "role", "enum"),
        ({"id": 1, "tags": ["a", 2]}, "tags/1", "type"),
        ({"id": 1, "extra": True}, None, "additionalProperties"),
    ],
)
def test_failures_name_the_field_and_rule(args, field, rule):
    with pytest.raises(ToolValidationError) as info:
        validate_arguments("set_role", SCHEMA, args)
    err = info.value
    assert err.code == "VALIDATION_ERROR"
    assert err.details.get("field") == field
    assert err.details["rule"] == rule
    assert err.details["required"] == ["id"]
    assert err.message.startswith("set_role: ")


def test_non_object_arguments():
    with pytest.raises(ToolValidationError, match="JSON object"):
        validate_arguments("t", SCHEMA, [1, 2])


# -- Draft 4's boolean exclusive bounds (common in real servers' generated schemas) ---------------

DRAFT4 = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "type": "object",
    "properties": {
        "amount": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
        "percent": {"type": "number", "maximum": 100, "exclusiveMaximum": False},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "qty": {"type": "integer", "minimum": 1, "maximum": 10, "exclusiveMaximum": True}}}},
    },
    "required": ["amount"],
}


def test_a_draft4_tool_registers_and_is_listed_in_the_modern_form():
    from tabmcp.core.models import PageTool, parse_tool

    parsed = parse_tool({"name": "pay", "description": "Pay an amount.", "inputSchema": DRAFT4})
    assert isinstance(parsed, PageTool), parsed
    props = parsed.input_schema["properties"]
    assert props["amount"] == {"type": "number", "exclusiveMinimum": 0}
    assert props["percent"] == {"type": "number", "maximum": 100}
    assert props["items"]["items"]["properties"]["qty"] == {"type": "integer", "minimum": 1, "exclusiveMaximum": 10}
    assert "$schema" not in parsed.input_schema


def test_draft4_exclusive_bounds_keep_their_meaning_when_arguments_are_checked():
    from tabmcp.core.models import parse_tool

    schema = parse_tool({"name": "pay", "description": "Pay.", "inputSchema": DRAFT4}).input_schema  # type: ignore[union-attr]
    assert validate_arguments("pay", schema, {"amount": 0.01, "percent": 100}) == {"amount": 0.01, "percent": 100}
    with pytest.raises(ToolValidationError) as bad:
        validate_arguments("pay", schema, {"amount": 0})
    assert bad.value.details["field"] == "amount"
    with pytest.raises(ToolValidationError):
        validate_arguments("pay", schema, {"amount": 1, "items": [{"qty": 10}]})


def test_a_replaced_schema_is_checked_as_it_is_now_never_with_the_validator_of_the_old_one():
    old = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert validate_arguments("t", old, {"n": 1}) == {"n": 1}
    assert validate_arguments("t", old, {"n": 2}) == {"n": 2}  # the kept validator, same answer
    new = {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}
    with pytest.raises(ToolValidationError):
        validate_arguments("t", new, {"n": 1})
    with pytest.raises(ToolValidationError):
        validate_arguments("t", old, {"n": "x"})
