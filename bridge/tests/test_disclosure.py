from tabmcp.core.disclosure import (
    META_CATEGORY,
    META_SOURCE,
    ClientView,
    Disclosure,
    category_marker,
    read_category_marker,
)
from tabmcp.core.registry import Registry
from tabmcp.core.tools import RESERVED_NAMES as BUILTIN_NAMES
from tabmcp.protocol import TabSnapshot

from .helpers import tab, tool

SCHEMA = {"type": "object", "properties": {"id": {"type": "integer"}, "note": {"type": "string"}}, "required": ["id"]}


def setup():
    reg = Registry(reserved_names=BUILTIN_NAMES)
    reg.apply(
        TabSnapshot.model_validate(
            tab(1, url="https://shop.test/admin", tools=[
                tool("get_user", inputSchema=SCHEMA, annotations={"readOnlyHint": True}),
                tool("delete_user", annotations={"destructiveHint": True}),
                tool("ping"),
            ], categories=[{"name": "users", "description": "User management.", "tools": ["get_user", "delete_user"]}])
        )
    )
    return reg, Disclosure(reg)


def names(tools):
    return [t["name"] for t in tools]


def test_categories_profile_collapses_categories():
    _, disc = setup()
    listed = disc.list_tools(ClientView())
    assert names(listed) == ["search_tools", "describe_tools", "call_tool", "users", "ping"]
    # The listed entry says the site, that it is a category and its size, then the page's purpose;
    # member names and the source are one call away (see test_describe_gives_a_category_in_full).
    assert listed[3] == {
        "name": "users",
        "description": "[https://shop.test; category, 2 tools] User management.",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    }


def test_describe_gives_a_category_in_full():
    _, disc = setup()
    (users,), missing = disc.describe(["users"])
    assert not missing
    assert users["description"] == (
        "[https://shop.test; category, 2 tools] User management. Tools: get_user, delete_user.")
    # The _meta earlier listings carried (a client reading it finds it here).
    assert users["_meta"][META_CATEGORY] == {"isCategory": True, "toolCount": 2, "tools": ["get_user", "delete_user"]}
    assert users["_meta"][META_SOURCE]["url"] == "https://shop.test/admin"
    assert users["title"] == "users (category)" and users["annotations"] == {"readOnlyHint": True}


def test_category_marker_is_read_back_and_cannot_come_from_page_text():
    _, disc = setup()
    listed = {t["name"]: t for t in disc.list_tools()}
    assert read_category_marker(listed["users"]["description"]) == ("https://shop.test", 2)
    # A page tool's description opens with "[origin] ": page text never starts the bracket.
    assert read_category_marker(listed["ping"]["description"]) is None
    assert category_marker("https://a.test", 1) == "[https://a.test; category, 1 tool]"
    assert read_category_marker(category_marker("", 7) + " x") == ("", 7)
    assert read_category_marker(category_marker("http://[::1]:8080", 3)) == ("http://[::1]:8080", 3)


def test_a_long_category_description_is_cut_in_the_listing_and_whole_in_describe():
    long = "Orders of the shop. " + "Every order can be refunded or shipped. " * 20 + "Last sentence."
    reg = Registry(reserved_names=BUILTIN_NAMES)
    orders = {"name": "orders", "description": long, "tools": ["refund"]}
    snapshot = tab(1, url="https://shop.test/", tools=[tool("refund")], categories=[orders])
    reg.apply(TabSnapshot.model_validate(snapshot))
    disc = Disclosure(reg)
    listed = {t["name"]: t for t in disc.list_tools()}["orders"]["description"]
    assert listed.startswith("[https://shop.test; category, 1 tool] Orders of the shop. Every order")
    assert len(listed) <= len("[https://shop.test; category, 1 tool] ") + 300 and listed.endswith(".")
    assert "Last sentence." not in listed
    (full,), _ = disc.describe(["orders"])
    assert "Last sentence. Tools: refund." in full["description"]


def test_every_page_tool_carries_its_source():
    _, disc = setup()
    ping = disc.list_tools()[4]
    # not the tab's title: the page's text, not a definition (introspect shows it through the gate)
    assert ping["_meta"][META_SOURCE] == {"tabId": 1, "origin": "https://shop.test", "url": "https://shop.test/admin"}
    assert ping["description"].startswith("[https://shop.test] ")


def test_passthrough_flattens():
    reg, _ = setup()
    disc = Disclosure(reg, profile="passthrough")
    assert names(disc.list_tools()) == ["search_tools", "call_tool", "get_user", "delete_user", "ping"]


def test_expansion_joins_the_listing_only_on_dynamic_connections():
    reg, disc = setup()
    entry = reg.resolve("users")
    static = ClientView(dynamic=False)
    text, _structured, changed = disc.expand(entry, static)
    assert not changed and "call_tool" in text
    assert names(disc.list_tools(static)) == ["search_tools", "describe_tools", "call_tool", "users", "ping"]

    dynamic = ClientView(dynamic=True)
    _, _, changed = disc.expand(entry, dynamic)
    assert changed
    assert names(disc.list_tools(dynamic)) == [
        "search_tools", "describe_tools", "call_tool", "users", "get_user", "delete_user", "ping"]
    _, _, changed_again = disc.expand(entry, dynamic)
    assert not changed_again


def test_expand_returns_members_with_schemas():
    reg, disc = setup()
    text, structured, _ = disc.expand(reg.resolve("users"))
    assert structured["category"] == "users"
    assert [t["name"] for t in structured["tools"]] == ["get_user", "delete_user"]
    assert structured["tools"][0]["inputSchema"] == SCHEMA
    assert structured["tools"][1]["annotations"] == {"destructiveHint": True}
    assert "- get_user(id: integer, note?: string):" in text


def test_describe_reports_missing_names():
    _, disc = setup()
    found, missing = disc.describe(["get_user", "nope", "users"])
    assert names(found) == ["get_user", "users"]
    assert missing == ["nope"]


def test_annotations_are_filtered_to_mcp_hints():
    reg = Registry()
    reg.apply(TabSnapshot.model_validate(tab(1, tools=[
        tool("x", annotations={"readOnlyHint": True, "untrustedContentHint": True, "weird": "y"},
             scope={"dangerLevel": "destructive"})])))
    listed = {t["name"]: t for t in Disclosure(reg).list_tools()}
    # untrustedContentHint (WebMCP) maps to MCP's openWorldHint; it also stays in _meta as it is
    assert listed["x"]["annotations"] == {"readOnlyHint": True, "destructiveHint": True, "openWorldHint": True}
    assert listed["x"]["_meta"]["tabmcp/annotations"] == {"untrustedContentHint": True}


def test_members_hidden_by_policy_never_leak_through_their_category():
    from tabmcp.config import Config
    from tabmcp.core.scoping import PolicyCheck

    reg, _ = setup()
    policy_check = PolicyCheck(Config().with_overrides({"policy": {"focus": "read-only"}}).policy)
    disc = Disclosure(reg, policy_check=policy_check)
    entry = reg.resolve("users")
    listed = {t["name"]: t for t in disc.list_tools(ClientView())}
    assert read_category_marker(listed["users"]["description"]) == ("https://shop.test", 1)
    (described,), _ = disc.describe(["users"])
    assert described["_meta"][META_CATEGORY]["tools"] == ["get_user"]
    assert "delete_user" not in described["description"]
    dynamic = ClientView(dynamic=True)
    text, structured, _ = disc.expand(entry, dynamic)
    assert [t["name"] for t in structured["tools"]] == ["get_user"] and "delete_user" not in text
    assert "delete_user" not in names(disc.list_tools(dynamic))
    found, missing = disc.describe(["delete_user"])
    assert found == [] and missing == ["delete_user"]
