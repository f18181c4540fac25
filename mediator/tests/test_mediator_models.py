from __future__ import annotations

import pytest
from pydantic import ValidationError
from tabmcp_mediator import (
    EnhancedTool,
    EnhancementResult,
    FilterCriteria,
    RawTool,
    ToolContext,
    ToolMediator,
)
from tabmcp_mediator.models import Category


def tool(name: str, **kw: object) -> EnhancedTool:
    return EnhancedTool(name=name, original_name=kw.pop("original_name", name), **kw)  # type: ignore[arg-type]


def test_raw_tool_reads_the_mcp_json_shape_and_drops_a_non_object_schema() -> None:
    raw = RawTool.model_validate(
        {"name": "gt_usr", "description": "gets user", "inputSchema": {"type": "object"}}
    )
    assert raw.input_schema == {"type": "object"}
    assert RawTool.model_validate({"name": "x", "inputSchema": "nonsense"}).input_schema is None
    with pytest.raises(ValidationError):
        RawTool.model_validate({"name": ""})


def test_enhanced_tool_enforces_legal_names_and_dumps_camel_case() -> None:
    enhanced = tool("get_user", original_name="gt_usr", enhanced_by="rules", confidence=0.6)
    dumped = enhanced.model_dump(mode="json")
    assert dumped["originalName"] == "gt_usr" and dumped["enhancedBy"] == "rules"
    assert dumped["inputSchema"] == {"type": "object", "properties": {}}
    for bad in ["get user", "x" * 129, "", "ü"]:
        with pytest.raises(ValidationError):
            tool(bad, original_name="gt_usr")
    with pytest.raises(ValidationError):
        tool("t", confidence=1.5)


def test_argument_map_must_be_one_to_one() -> None:
    assert tool("t", argument_map={"user_id": "uid"}).argument_map == {"user_id": "uid"}
    with pytest.raises(ValidationError):
        tool("t", argument_map={"a": "uid", "b": "uid"})


def test_tool_context_defaults() -> None:
    ctx = ToolContext(source="example.com")
    assert ctx.source_type == "web" and ctx.timestamp > 0
    with pytest.raises(ValidationError):
        ToolContext(source="example.com", source_type="carrier-pigeon")  # type: ignore[arg-type]


TOOLS = [
    tool("get_user", category="account", confidence=0.6),
    tool("delete_item", original_name="del", confidence=0.3),
    tool("search", confidence=0.0),
]


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        (FilterCriteria(), ["get_user", "delete_item", "search"]),
        (FilterCriteria(min_confidence=0.5), ["get_user"]),
        (FilterCriteria(categories=["account"]), ["get_user"]),
        (FilterCriteria(categories=["uncategorized"]), ["delete_item", "search"]),
        (FilterCriteria(exclude=["del"]), ["get_user", "search"]),
        (FilterCriteria(exclude=["search"]), ["get_user", "delete_item"]),
        (FilterCriteria(name_pattern="^(get|search)"), ["get_user", "search"]),
        (FilterCriteria(min_confidence=0.1, name_pattern="e"), ["get_user", "delete_item"]),
    ],
)
def test_filter(criteria: FilterCriteria, expected: list[str]) -> None:
    assert [t.name for t in ToolMediator().filter(TOOLS, criteria)] == expected


def test_categorize_buckets_in_first_appearance_order() -> None:
    buckets = ToolMediator().categorize([*TOOLS, tool("login", category="account")])
    assert list(buckets) == ["account", "uncategorized"]
    assert [t.name for t in buckets["account"]] == ["get_user", "login"]
    assert [t.name for t in buckets["uncategorized"]] == ["delete_item", "search"]


def test_enhancement_result_lookups() -> None:
    result = EnhancementResult(
        tools=TOOLS, categories=[Category(name="account", description="d", tools=["get_user"])]
    )
    assert [t.name for t in result.flat_tools] == ["delete_item", "search"]
    assert result.tool("delete_item") is TOOLS[1]
    assert result.tool("nope") is None
