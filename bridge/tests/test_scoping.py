import pytest
from pydantic import ValidationError
from tabmcp.core.registry import Registry
from tabmcp.core.scoping import PolicyCheck, PolicySettings, route_matches
from tabmcp.protocol import TabSnapshot

from .helpers import tab, tool


def entry_for(name="t", *, url="https://shop.test/admin/users", states=(), categories=(), **tool_fields):
    reg = Registry()
    tools = [tool(name, **tool_fields)]
    for cat in categories:
        for member in cat["tools"]:
            if member != name:
                tools.append(tool(member))
    reg.apply(TabSnapshot.model_validate(tab(1, url=url, tools=tools, states=list(states), categories=list(categories))))
    return reg.resolve(name)


def policy(**kw):
    return PolicySettings.model_validate({"allow_writes": True, **kw})


@pytest.mark.parametrize(
    ("patterns", "url", "expected"),
    [
        (["/admin/*"], "https://a.test/admin/users", True),
        (["/admin/*"], "https://a.test/shop", False),
        (["#/users*"], "https://a.test/app#/users/4", True),
        (["#/users*"], "https://a.test/app#/orders", False),
        (["/search?q=*"], "https://a.test/search?q=shoes", True),
        (["https://a.test/*"], "https://a.test/x", True),
        (["https://a.test/*"], "https://b.test/x", False),
    ],
)
def test_route_matches(patterns, url, expected):
    assert route_matches(patterns, url) is expected


def test_read_only_tool_is_visible_and_callable_by_default():
    decision = PolicyCheck().decide(entry_for(annotations={"readOnlyHint": True}))
    assert decision.visible and decision.callable


def test_writes_are_disabled_by_default_and_say_how_to_enable():
    decision = PolicyCheck().decide(entry_for())
    assert decision.visible and decision.code == "WRITES_DISABLED"
    assert "policy.allow_writes" in decision.setting


def test_routes_and_states_from_the_page():
    policy_check = PolicyCheck(policy())
    assert policy_check.visible(entry_for(scope={"routes": ["/admin/*"]}))
    hidden = policy_check.decide(entry_for(scope={"routes": ["/shop/*"]}))
    assert not hidden.visible and hidden.code == "OUT_OF_SCOPE" and "/shop/*" in hidden.reason
    needs = policy_check.decide(entry_for(scope={"states": ["authenticated", "admin-mode"]}, states=["authenticated"]))
    assert not needs.visible and "admin-mode" in needs.reason
    assert policy_check.visible(entry_for(scope={"states": ["admin-mode"]}, states=["admin-mode", "x"]))
    assert not policy_check.visible(entry_for(scope={"aiEnabled": False}))


def test_category_scope_applies_to_members():
    cats = [{"name": "admin", "description": "Admin", "tools": ["t"], "scope": {"states": ["admin-mode"]}}]
    assert not PolicyCheck(policy()).visible(entry_for(categories=cats))
    assert PolicyCheck(policy()).visible(entry_for(categories=cats, states=["admin-mode"]))


def test_allow_then_block_globs():
    policy_check = PolicyCheck(policy(allow=["get_*", "list_*"], block=["get_secret*"]))
    assert policy_check.visible(entry_for("get_user"))
    assert not policy_check.visible(entry_for("delete_user"))
    assert not policy_check.visible(entry_for("get_secret_key"))


def test_origin_rules():
    policy_check = PolicyCheck(policy(origins=[{"match": "https://*.bank.test", "enabled": False},
                                {"match": "https://shop.test", "block": ["refund_*"], "allow_writes": False}]))
    assert not policy_check.visible(entry_for(url="https://www.bank.test/"))
    assert not policy_check.visible(entry_for("refund_order"))
    assert policy_check.decide(entry_for("add_to_cart")).code == "WRITES_DISABLED"


def test_focus_modes():
    ro = PolicyCheck(policy(focus="read-only"))
    assert ro.visible(entry_for(annotations={"readOnlyHint": True}))
    assert not ro.visible(entry_for())
    custom = PolicyCheck(policy(focus="content", focus_modes={"content": {"allow": ["*post*", "content/*"]}}))
    assert custom.visible(entry_for("create_post"))
    assert not custom.visible(entry_for("create_user"))
    cats = [{"name": "content", "description": "Content", "tools": ["publish"]}]
    assert custom.visible(entry_for("publish", categories=cats))


def test_roles_filter_destructive_tools():
    destructive = {"annotations": {"destructiveHint": True}}
    assert PolicyCheck(policy(role="admin")).visible(entry_for(**destructive))
    assert not PolicyCheck(policy(role="editor")).visible(entry_for(**destructive))
    assert not PolicyCheck(policy(role="editor")).visible(entry_for(scope={"dangerLevel": "destructive"}))
    viewer = PolicyCheck(policy(role="viewer")).decide(entry_for())
    assert viewer.code == "WRITES_DISABLED"


def test_approval_for_destructive_and_page_marked_tools():
    policy_check = PolicyCheck(policy())
    assert policy_check.decide(entry_for(annotations={"destructiveHint": True})).needs_approval
    assert policy_check.decide(entry_for(scope={"requiresApproval": True})).needs_approval
    assert not policy_check.decide(entry_for()).needs_approval
    off = PolicyCheck(policy(approval={"mode": "off"}))
    assert not off.decide(entry_for(annotations={"destructiveHint": True})).needs_approval


def test_unknown_focus_or_role_is_a_config_error():
    with pytest.raises(ValidationError, match="focus"):
        PolicySettings(focus="nope")
    with pytest.raises(ValidationError, match="role"):
        PolicySettings(role="nope")
