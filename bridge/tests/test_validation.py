import pytest
from tabmcp.core.models import PageTool, parse_tool
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


# Patterns are ECMA-262 (JSON Schema's word), evaluated as the browser evaluates them.
JS_EMAIL = r"^[\w-\.]+@([\w-]+\.)+[\w-]{2,4}$"  # a class escape in a range: JavaScript, not Python's re


def test_a_pattern_python_refuses_but_the_browser_accepts_keeps_its_tool_and_is_checked():
    tool = parse_tool({
        "name": "createEvent", "description": "Create a calendar event and invite someone.",
        "inputSchema": {"type": "object", "properties": {"email": {"type": "string", "pattern": JS_EMAIL}},
                        "required": ["email"]},
    })
    assert isinstance(tool, PageTool), tool
    assert validate_arguments("createEvent", tool.input_schema, {"email": "ada.l@example.org"})
    with pytest.raises(ToolValidationError) as err:
        validate_arguments("createEvent", tool.input_schema, {"email": "not an address"})
    assert err.value.details["rule"] == "pattern" and err.value.details["field"] == "email"


def test_unicode_property_escapes_and_pattern_properties_are_ecma():
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "pattern": r"^\p{Lu}\p{Ll}+$"}},
        "patternProperties": {r"^x-[\w-\.]+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    tool = parse_tool({"name": "t", "description": "A tool.", "inputSchema": schema})
    assert isinstance(tool, PageTool), tool
    assert validate_arguments("t", tool.input_schema, {"name": "Ödön", "x-a.b": 3})
    for bad, rule in (({"name": "ödön"}, "pattern"), ({"x-a.b": "3"}, "type"), ({"y": 1}, "additionalProperties")):
        with pytest.raises(ToolValidationError) as err:
            validate_arguments("t", tool.input_schema, bad)
        assert err.value.details["rule"] == rule, bad


def test_a_pattern_no_ecma_engine_reads_is_skipped_never_a_reason_to_drop_the_tool():
    tool = parse_tool({"name": "t", "description": "A tool.", "inputSchema": {
        "type": "object", "properties": {"code": {"type": "string", "pattern": "(?<"}},
        "patternProperties": {"[": {"type": "string"}, "^ok$": {"type": "string", "enum": ["(?<"]}}}})
    assert isinstance(tool, PageTool), tool
    assert validate_arguments("t", tool.input_schema, {"code": "anything"}) == {"code": "anything"}
    # ... and said so (describe_tools' _meta, introspect): only the two the bridge cannot read
    assert sorted(tool.unchecked) == [
        "pattern at /patternProperties: not an ECMA-262 regular expression, not checked",
        "pattern at /properties/code/pattern: not an ECMA-262 regular expression, not checked",
    ]
    fine = parse_tool({"name": "t", "description": "A tool.", "inputSchema": {
        "type": "object", "properties": {"mail": {"type": "string", "pattern": JS_EMAIL}}}})
    assert isinstance(fine, PageTool) and fine.unchecked == ()
    sly = parse_tool({"name": "t", "description": "A tool.", "unchecked": ["pages cannot say this"]})
    assert isinstance(sly, PageTool) and sly.unchecked == ()


def test_unknown_formats_are_annotations_and_refs_resolve():
    schema = {
        "type": "object",
        "$defs": {"when": {"type": "string", "format": "x-calendar-day"}},
        "properties": {"day": {"$ref": "#/$defs/when"}, "mail": {"type": "string", "format": "email"}},
        "required": ["day"],
    }
    tool = parse_tool({"name": "t", "description": "A tool.", "inputSchema": schema})
    assert isinstance(tool, PageTool), tool
    assert validate_arguments("t", tool.input_schema, {"day": "next friday", "mail": "not checked"})
    with pytest.raises(ToolValidationError) as err:
        validate_arguments("t", tool.input_schema, {"day": 5})
    assert err.value.details["rule"] == "type"


def test_a_new_tool_is_checked_against_the_meta_schema_once(monkeypatch: pytest.MonkeyPatch):
    """Telling a schema's dialect and checking it are one meta-schema pass for a 2020-12 schema
    (three before: a page registering the 682-tool catalog waited seconds more for the bridge),
    and a schema that is not 2020-12 is still read as Draft 7 or refused."""
    from jsonschema import Draft202012Validator
    from tabmcp.core.budget import counted

    meta = counted(Draft202012Validator)  # the meta-schema check runs counted (core/budget.py)
    passes = []
    original = meta.iter_errors

    def counting(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.schema is Draft202012Validator.META_SCHEMA:
            passes.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(meta, "iter_errors", counting)
    tool = parse_tool({"name": "once_checked", "description": "d", "inputSchema": {
        "type": "object", "properties": {"when": {"type": "string", "description": "a unique schema 7f3a"}}}})
    assert isinstance(tool, PageTool)
    assert len(passes) == 1
    draft7 = parse_tool({"name": "old_items", "description": "d", "inputSchema": {
        "type": "object", "properties": {"pair": {"type": "array", "items": [{"type": "string"}], "additionalItems": False}}}})
    assert isinstance(draft7, PageTool)
    bad = parse_tool({"name": "bad", "description": "d", "inputSchema": {"type": "object", "properties": {"x": {"type": 3}}}})
    assert not isinstance(bad, PageTool)
