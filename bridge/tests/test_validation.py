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
