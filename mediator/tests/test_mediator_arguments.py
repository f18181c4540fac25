from __future__ import annotations

from typing import Any

import pytest
from tabmcp_mediator import (
    ArgumentMappingError,
    EnhancedTool,
    RuleBasedTransformer,
    ToolContext,
    ToolMediator,
    map_arguments,
)

TOOL = EnhancedTool(
    name="add_to_cart", original_name="add_crt", argument_map={"product_id": "pid", "quantity": "qty"}
)


def test_new_names_are_translated_back_and_others_pass_through() -> None:
    assert map_arguments(TOOL, {"product_id": "p1", "quantity": 2, "gift": True}) == {
        "pid": "p1",
        "qty": 2,
        "gift": True,
    }


def test_no_arguments_and_no_map() -> None:
    assert map_arguments(TOOL, None) == {}
    plain = EnhancedTool(name="search", original_name="srch")
    assert map_arguments(plain, {"query": "x"}) == {"query": "x"}


def test_two_arguments_landing_on_one_page_name_is_an_error() -> None:
    with pytest.raises(ArgumentMappingError):
        map_arguments(TOOL, {"product_id": "p1", "pid": "p2"})


def test_the_input_is_not_mutated() -> None:
    args = {"product_id": "p1"}
    map_arguments(TOOL, args)
    assert args == {"product_id": "p1"}


async def test_a_call_on_an_enhanced_fixture_tool_reaches_the_page_with_its_names(
    cryptic_tools: list[dict[str, Any]], tool_context: ToolContext
) -> None:
    result = await ToolMediator().use(RuleBasedTransformer()).process(cryptic_tools, tool_context)
    tool = result.tool("add_to_cart")
    assert tool is not None and tool.original_name == "add_crt"
    assert set(tool.input_schema["properties"]) == {"product_id", "quantity"}
    assert map_arguments(tool, {"product_id": "sku-1", "quantity": 3}) == {"pid": "sku-1", "qty": 3}
