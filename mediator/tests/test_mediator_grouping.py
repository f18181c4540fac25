from __future__ import annotations

from tabmcp_mediator import EnhancedTool, EnhancementResult
from tabmcp_mediator.grouping import group_tools


def tool(name: str, category: str | None = None, description: str | None = None) -> EnhancedTool:
    return EnhancedTool(name=name, original_name=name, category=category, category_description=description)


TOOLS = [
    tool("get_user", "account"),
    tool("list_orders", "orders", "Orders and the cart"),
    tool("update_profile", "account"),
    tool("create_order", "orders"),
    tool("search", "search"),
    tool("del"),
]


def test_no_categories_up_to_the_threshold() -> None:
    assert group_tools(TOOLS, threshold=len(TOOLS)) == []


def test_more_tools_than_the_threshold_get_categories() -> None:
    categories = group_tools(TOOLS, threshold=len(TOOLS) - 1)
    assert [(c.name, c.tools) for c in categories] == [
        ("account", ["get_user", "update_profile"]),
        ("orders", ["list_orders", "create_order"]),
    ]
    result = EnhancementResult(tools=TOOLS, categories=categories)
    assert [t.name for t in result.flat_tools] == ["search", "del"]  # singletons and uncategorised stay flat


def test_descriptions_prefer_the_transformers_then_list_members() -> None:
    account, orders = group_tools(TOOLS, threshold=0)
    assert orders.description.startswith("Orders and the cart. 2 tools: list_orders, create_order")
    assert account.description == "Account tools. 2 tools: get_user, update_profile."
    many = [tool(f"t{i}", "big") for i in range(7)]
    assert group_tools(many, 0)[0].description.endswith("t0, t1, t2, t3, t4 and 2 more.")


def test_a_category_never_shares_a_name_with_a_tool() -> None:
    tools = [tool("orders", "orders"), tool("list_orders", "orders")]
    (category,) = group_tools(tools, threshold=0)
    assert category.name == "orders_2"
    assert category.tools == ["orders", "list_orders"]
