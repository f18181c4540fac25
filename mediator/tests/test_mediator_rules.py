"""The rule-based transformer on the cryptic fixture: names, descriptions, schemas, categories."""

from __future__ import annotations

from typing import Any

import pytest
from tabmcp_mediator import RawTool, RuleBasedTransformer, ToolContext, ToolMediator
from tabmcp_mediator.naming import is_valid_name

RULES = RuleBasedTransformer()


def enhance(name: str, description: str | None = None, schema: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    return RULES.enhance_one(RawTool(name=name, description=description, input_schema=schema))


async def test_every_fixture_tool_is_enhanced_legally_and_uniquely(
    raw_tools: list[RawTool], tool_context: ToolContext
) -> None:
    tools = await RULES.transform(raw_tools, tool_context)
    assert len(tools) == len(raw_tools) >= 30
    names = [t.name for t in tools]
    assert len(set(names)) == len(names)
    assert all(is_valid_name(n) for n in names)
    assert [t.original_name for t in tools] == [t.name for t in raw_tools]
    assert all(t.enhanced_by == "rules" and 0 < t.confidence <= 0.6 for t in tools)
    assert all(t.description for t in tools)
    assert sum(1 for t, raw in zip(tools, raw_tools, strict=True) if t.name != raw.name) >= 28


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("gt_usr", "get_user"),
        ("del", "delete"),
        ("upd_prf", "update_profile"),
        ("lst_ord", "list_orders"),
        ("srch", "search"),
        ("srch_prod", "search_products"),
        ("crt_ord", "create_order"),
        ("add_crt", "add_to_cart"),
        ("rm_crt", "remove_from_cart"),
        ("lgn", "login"),
        ("rst_pwd", "reset_password"),
        ("getUsrProf", "get_user_profile"),
        ("cartAdd", "add_to_cart"),
        ("usrDel", "delete_user"),
        ("adm_del_usr", "admin_delete_user"),
    ],
)
def test_abbreviations_are_expanded(raw: str, expected: str) -> None:
    assert enhance(raw).name == expected


def test_a_name_with_no_known_word_is_kept() -> None:
    tool = enhance("xyzzy_frob", "does a thing")
    assert tool.name == "xyzzy_frob"
    assert tool.confidence == 0.2
    assert tool.category is None
    assert '"does a thing"' in tool.description


def test_a_name_that_is_already_clear_is_not_rewritten() -> None:
    assert enhance("getUserById").name == "getUserById"
    assert enhance("get_user").name == "get_user"


def test_descriptions_are_inferred_from_the_name() -> None:
    assert enhance("gt_usr", "gets user").description == "Get the user."
    assert enhance("del", "").description.startswith("Delete an item")
    assert "cannot be undone" in enhance("del_msg").description
    assert enhance("lst_ord").description == "List orders."
    assert enhance("srch").description == "Search the site by a text query."
    assert enhance("add_crt").description == "Add an item to the cart."


def test_a_real_description_is_kept_and_a_telling_short_one_is_quoted() -> None:
    real = "Returns the current user's profile with avatar and bio"
    assert enhance("gt_prf", real).description == real
    quoted = enhance("gt_usr", "gets user, admins only").description
    assert quoted.startswith("Get the user.") and '"gets user, admins only"' in quoted


def test_search_gets_query_and_limit() -> None:
    schema = enhance("srch", "", {}).input_schema
    assert schema["properties"]["query"]["type"] == "string"
    assert schema["properties"]["limit"]["type"] == "integer"
    assert schema["required"] == ["query"]


def test_schemas_are_inferred_from_verbs_objects_and_context() -> None:
    assert enhance("gt_usr").input_schema["required"] == ["id"]
    assert set(enhance("lst_evt").input_schema["properties"]) == {"limit", "offset"}
    assert enhance("upd_prf").input_schema == {
        "type": "object",
        "properties": {},
        "additionalProperties": True,
    }
    assert enhance("crt_ord").input_schema["additionalProperties"] is True
    by_email = enhance("gt_usr_eml", "gets user by email").input_schema
    assert by_email["required"] == ["email"] and by_email["properties"]["email"]["format"] == "email"
    assert enhance("lgn").input_schema["required"] == ["username", "password"]


def test_declared_arguments_are_kept_with_expanded_names_and_an_argument_map() -> None:
    schema = {
        "type": "object",
        "properties": {"pid": {"type": "string"}, "qty": {"type": "integer"}, "note": {}},
        "required": ["pid"],
    }
    tool = enhance("add_crt", "add to cart", schema)
    assert list(tool.input_schema["properties"]) == ["product_id", "quantity", "note"]
    assert tool.input_schema["required"] == ["product_id"]
    assert tool.input_schema["properties"]["quantity"] == {"type": "integer", "description": "Quantity."}
    assert tool.argument_map == {"product_id": "pid", "quantity": "qty"}
    assert schema["properties"]["pid"] == {"type": "string"}  # the raw schema is not mutated


def test_an_expanded_argument_name_never_shadows_a_declared_one() -> None:
    tool = enhance("gt_ord", None, {"type": "object", "properties": {"oid": {}, "order_id": {}}})
    assert set(tool.input_schema["properties"]) == {"oid", "order_id"}
    assert tool.argument_map == {}


@pytest.mark.parametrize(
    ("raw", "category"),
    [
        ("gt_usr", "account"),
        ("lgn", "account"),
        ("lst_ord", "orders"),
        ("add_crt", "orders"),
        ("srch", "search"),
        ("srch_prod", "catalog"),
        ("snd_msg", "messages"),
        ("upld_img", "files"),
        ("exp_csv", "reports"),
        ("bk_appt", "calendar"),
        ("adm_del_usr", "admin"),
        ("gt_widget", "widgets"),
        ("del", None),
    ],
)
def test_categories_from_prefixes_objects_and_verbs(raw: str, category: str | None) -> None:
    assert enhance(raw).category == category


async def test_the_fixture_is_grouped_past_the_threshold(
    cryptic_tools: list[dict[str, Any]], tool_context: ToolContext
) -> None:
    result = await ToolMediator(grouping_threshold=10).use(RULES).process(cryptic_tools, tool_context)
    by_name = {c.name: c for c in result.categories}
    assert {"account", "orders", "messages", "catalog"} <= set(by_name)
    assert "get_user" in by_name["account"].tools and "add_to_cart" in by_name["orders"].tools
    assert by_name["account"].description.startswith("Sign-in, users, profiles")
    grouped = sum(len(c.tools) for c in result.categories)
    assert grouped + len(result.flat_tools) == len(result.tools)
    assert len(result.flat_tools) < 6
