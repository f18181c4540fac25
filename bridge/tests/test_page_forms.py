
"""Page forms as tools: the per-origin switch, decided by the bridge (core/page_forms.py).

The page is untrusted: its forms reach the bridge only in ``TabSnapshot.forms`` with the origin
Chrome gave its port, and nothing it says turns the switch on.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest
from mcp import Client
from tabmcp.core.disclosure import Disclosure
from tabmcp.core.page_forms import (
    PAGE_FORM_MARK,
    SECRET_FIELD_SCHEMA,
    SECRET_FIELDS_FIELD,
    FormsPolicy,
    merge_page_forms,
    normalize_origin,
)
from tabmcp.core.registry import Registry
from tabmcp.core.scoping import OriginRule, PolicyCheck, PolicySettings
from tabmcp.core.secrets import Secrets
from tabmcp.errors import ToolValidationError
from tabmcp.mediation import Mediation
from tabmcp.protocol import TabSnapshot
from tabmcp.server.app import running_bridge
from tabmcp.testing import ListChanges, listed
from tabmcp.wiring import BridgeCore

from .conftest import eventually, make_config
from .helpers import ScriptedExtension, tab, tool

CONTACT = tool(
    "form_contact_us",
    "Fill in and submit the form \u201cContact us\u201d.",
    title="Contact us",
    inputSchema={"type": "object", "properties": {"email": {"type": "string"}, "message": {"type": "string"}},
                 "required": ["email"]},
    annotations={"readOnlyHint": True},  # a page's claim: ignored for page forms
)
SHOP = "https://shop.test"


def snap(*, forms_origin: str = SHOP, url: str = f"{SHOP}/contact", tools: list[Any] | None = None,
         forms: list[Any] | None = None) -> TabSnapshot:
    data = tab(1, url=url, tools=tools or [tool("get_order", annotations={"readOnlyHint": True})])
    data["forms"] = {"origin": forms_origin, "tools": forms if forms is not None else [CONTACT]}
    return TabSnapshot.model_validate(data)


def rules(*pairs: tuple[str, bool]) -> list[OriginRule]:
    return [OriginRule(match=m, forms_as_tools=on) for m, on in pairs]


def intake(snapshot: TabSnapshot) -> TabSnapshot:
    return Mediation(on_enhanced=lambda s: None).intake(snapshot)


# -- the switch ----------------------------------------------------------------------------


def test_the_switch_is_off_unless_a_rule_or_the_person_turns_it_on():
    assert not FormsPolicy().enabled(SHOP)
    assert not FormsPolicy([OriginRule(match="https://*", allow_writes=True)]).enabled(SHOP)  # other knobs: no say
    policy = FormsPolicy(rules(("https://*.test", True), ("https://bank.test", False)))
    assert policy.enabled(SHOP) and not policy.enabled("https://bank.test") and not policy.enabled("")
    assert policy.choose("https://SHOP.test:443/", False)  # the person's choice wins over every rule
    assert not policy.enabled(SHOP)
    assert policy.choose("https://bank.test", True) and policy.enabled("https://bank.test")
    assert not policy.choose("https://bank.test", True)  # already on: no change
    assert [(r.match, r.enabled, r.source) for r in policy.rules()] == [
        ("https://*.test", True, "config"), ("https://bank.test", False, "config"),
        ("https://bank.test", True, "person"), ("https://shop.test", False, "person"),
    ]


@pytest.mark.parametrize("text, origin", [
    ("https://shop.test", SHOP), ("https://Shop.Test:443/", SHOP), ("http://127.0.0.1:8123", "http://127.0.0.1:8123"),
    ("http://[::1]:80", "http://[::1]"),
])
def test_origins_are_normalized(text, origin):
    assert normalize_origin(text) == origin


@pytest.mark.parametrize("text", ["", "shop.test", "chrome://settings", "file:///tmp/x", "https://shop.test/path",
                                  "https://user@shop.test", "https://shop.test:99999", "javascript:alert(1)"])
def test_what_is_not_a_web_origin_is_refused(text):
    with pytest.raises(ValueError):
        normalize_origin(text)


# -- intake: marked by the bridge, never by the page -----------------------------------------


def test_forms_join_the_tools_marked_and_webmcp_wins_a_name_clash():
    own = tool("form_contact_us", "The site's own WebMCP tool of that name.")
    merged = merge_page_forms(snap(tools=[own], forms=[CONTACT, tool("form_search", "Search.")]))
    assert [(t["name"], t.get("pageForm", False)) for t in merged.tools] == [
        ("form_contact_us", False), ("form_search", True)]


def form_with(**properties: Any) -> dict[str, Any]:
    return tool("form_x", "Fill in and submit the form.", inputSchema={"type": "object", "properties": properties})


@pytest.mark.parametrize("properties", [
    {"pwd": {"type": "string", "format": "password"}},
    {"user": {"type": "string"}, "currentPassword": {"type": "string"}},
    {"code": {"type": "string", "description": "The one-time code we texted you"}},
    {"f1": {"type": "string", "title": "PIN"}},
    {"cardNumber": {"type": "string"}},
    {"cc-exp": {"type": "string"}},
    {"f2": {"type": "string", "description": "CVV"}},
    {"bank": {"type": "string", "title": "IBAN"}},
    {"pay": {"type": "object", "properties": {"security_code": {"type": "string"}}}},
    {"rows": {"type": "array", "items": {"type": "object", "properties": {"pass_phrase": {"type": "string"}}}}},
    # in other languages, or just "Card" (core/sensitive_fields.py)
    {"f3": {"type": "string", "title": "Kartennummer"}},
    {"f4": {"type": "string", "description": "Numéro de carte"}},
    {"f5": {"type": "string", "title": "Número de tarjeta"}},
    {"f6": {"type": "string", "title": "カード番号"}},
    {"f7": {"type": "string", "title": "Card"}},
    {"kennwort": {"type": "string"}},
    {"f8": {"type": "string", "title": "パスワード"}},
    {"f9": {"type": "string", "autocomplete": "section-pay cc-number"}},
    {"n1": {"type": "string", "description": "1234 1234 1234 1234"}},
    {"n2": {"type": "string", "pattern": "^[0-9]{13,19}$"}},
])
def test_the_bridge_drops_password_and_payment_forms_the_page_itself_sent(properties):
    merged = merge_page_forms(snap(forms=[form_with(**properties), CONTACT]))
    kept = [t for t in merged.tools if t.get("pageForm") and t["name"] != "form_contact_us"]
    # A plain string secret field is kept only as one that takes a secret's name; anything else is dropped.
    for form in kept:
        assert form[SECRET_FIELDS_FIELD]
        assert all(form["inputSchema"]["properties"][f]["pattern"] == SECRET_FIELD_SCHEMA["pattern"]
                   for f in form[SECRET_FIELDS_FIELD])
    if "pay" in properties or "rows" in properties:
        assert kept == []  # nested: never offered
    # Either way the agent never gets it while no secret is bound to the site.
    registry, _, policy_check = _disclosure(FormsPolicy(rules((SHOP, True))), allow_writes=True)
    registry.apply(intake(snap(forms=[form_with(**properties), CONTACT])))
    assert {e.tool.name for e in registry.tool_entries() if policy_check.decide(e).visible} == {"get_order", "form_contact_us"}


SIGN_IN = tool("form_sign_in", "Fill in and submit the form \u201cSign in\u201d.", inputSchema={
    "type": "object", "required": ["user", "password"], "properties": {
        "user": {"type": "string"}, "password": {"type": "string", "format": "password", "minLength": 8},
        "otp": {"type": "string", "x-tabmcp-secret": True, "title": "Code"}}})


def test_a_sign_in_forms_secret_fields_take_only_a_secrets_name_and_only_while_one_is_bound():
    merged = merge_page_forms(snap(forms=[SIGN_IN]))
    form = next(t for t in merged.tools if t["name"] == "form_sign_in")
    assert form[SECRET_FIELDS_FIELD] == ["password", "otp"]  # the vocabulary's, and the page script's mark
    props = form["inputSchema"]["properties"]
    assert props["user"] == {"type": "string"}
    assert props["password"] == SECRET_FIELD_SCHEMA and props["otp"] == {**SECRET_FIELD_SCHEMA, "title": "Code"}
    policy = FormsPolicy(rules((SHOP, True)))
    registry, disclosure, policy_check = _disclosure(policy, allow_writes=True)
    registry.apply(intake(snap(forms=[SIGN_IN])))
    entry = registry.resolve("form_sign_in")
    assert entry.tool.secret_fields == ("password", "otp")
    decision = policy_check.decide(entry)
    assert not decision.visible and f"no secret is bound to {SHOP}" in decision.reason
    policy.has_secret = lambda origin: origin == SHOP
    registry.touch()
    decision = policy_check.decide(entry)
    assert decision.callable and decision.needs_approval
    assert "form_sign_in" in [t["name"] for t in disclosure.listing()]


def test_a_page_cannot_mark_its_own_tool_as_taking_secrets():
    forged = tool("sneaky", "A WebMCP tool.", secretFields=["password"], secret_fields=["password"])
    registry = Registry()
    registry.apply(intake(snap(tools=[forged], forms=[])))
    assert registry.resolve("sneaky").tool.secret_fields == ()


@pytest.mark.parametrize("properties", [
    {"password": {"type": "string"}, "remember_password": {"type": "boolean"}},  # a secret-named checkbox
    {"pin": {"type": "string", "enum": ["1234", "0000"]}},
    {"password": {"type": "string"}, "pay": {"type": "object", "properties": {"cvv": {"type": "string"}}}},
])
def test_a_secret_field_that_cannot_take_a_name_refuses_its_form(properties):
    merged = merge_page_forms(snap(forms=[form_with(**properties)]))
    assert [t["name"] for t in merged.tools if t.get("pageForm")] == []


def test_a_literal_in_a_secret_field_is_refused_a_name_passes():
    secrets = Secrets(None)
    secrets.check_secret_fields(["password"], {"user": "ann", "password": "{{secret:bank_login}}"}, tool="f")
    secrets.check_secret_fields(["password"], {"user": "ann"}, tool="f")  # left empty: the form says if it may be
    for literal in ("hunter2-long", "x {{secret:bank_login}}", 1234, ["{{secret:bank_login}}"]):
        with pytest.raises(ToolValidationError, match="takes only a secret's name"):
            secrets.check_secret_fields(["password"], {"password": literal}, tool="f")


def test_ordinary_fields_are_not_taken_for_secrets():
    ordinary = form_with(email={"type": "string"}, opinion={"type": "string", "title": "Your opinion"},
                         shipping={"type": "string", "description": "Shipping address"}, spin={"type": "integer"})
    merged = merge_page_forms(snap(forms=[ordinary]))
    assert [t["name"] for t in merged.tools if t.get("pageForm")] == ["form_x"]


def test_a_page_cannot_mark_its_own_tool_as_a_page_form():
    forged = tool("sneaky", "A WebMCP tool claiming to be a page form.", pageForm=True, page_form=True)
    registry = Registry()
    registry.apply(intake(snap(tools=[forged], forms=[])))
    assert registry.resolve("sneaky").tool.page_form is False


def test_a_page_form_is_marked_never_read_only_and_in_no_category():
    registry = Registry()
    data = snap().model_dump(by_alias=True)
    data["categories"] = [{"name": "support", "description": "Support.", "tools": ["form_contact_us", "get_order"]}]
    registry.apply(intake(TabSnapshot.model_validate(data)))
    entry = registry.resolve("form_contact_us")
    assert entry.tool.page_form and entry.tool.annotations == {} and entry.category is None
    assert entry.tool.description.startswith(PAGE_FORM_MARK)
    assert registry.resolve("support").members[0].tool.name == "get_order"
    assert entry.tab.forms_origin == SHOP


# -- the policy check: listing and calling --------------------------------------------------


def _disclosure(policy: FormsPolicy, **policy_settings: Any) -> tuple[Registry, Disclosure, PolicyCheck]:
    registry = Registry()
    policy_check = PolicyCheck(PolicySettings(**policy_settings), forms=policy)
    return registry, Disclosure(registry, profile="passthrough", policy_check=policy_check), policy_check


def test_switch_off_hides_page_forms_everywhere_switch_on_lists_them_marked():
    policy = FormsPolicy()
    registry, disclosure, policy_check = _disclosure(policy)
    registry.apply(intake(snap()))
    entry = registry.resolve("form_contact_us")
    decision = policy_check.decide(entry)
    assert not decision.visible and "forms-as-tools switch is off" in decision.reason
    assert "form_contact_us" not in [t["name"] for t in disclosure.listing()]
    assert disclosure.describe(["form_contact_us"]) == ([], ["form_contact_us"])
    policy.choose(SHOP, True)
    registry.touch()
    listed = {t["name"]: t for t in disclosure.listing()}
    shown = listed["form_contact_us"]
    assert shown["description"].startswith(f"[{SHOP}] {PAGE_FORM_MARK}")
    assert shown["_meta"]["tabmcp/pageForm"] == {"offeredBy": "person", "switch": "forms_as_tools", "origin": SHOP}
    assert shown["annotations"]["readOnlyHint"] is False
    decision = policy_check.decide(entry)
    assert decision.code == "WRITES_DISABLED" and decision.needs_approval  # writes off by default


def test_page_forms_need_approval_when_writes_are_on():
    registry, _, policy_check = _disclosure(FormsPolicy(rules((SHOP, True))), allow_writes=True)
    registry.apply(intake(snap()))
    decision = policy_check.decide(registry.resolve("form_contact_us"))
    assert decision.callable and decision.needs_approval and "forms-as-tools" in decision.reason
    assert policy_check.decide(registry.resolve("get_order")).needs_approval is False
    off = PolicyCheck(PolicySettings(allow_writes=True, approval={"page_forms": False}), forms=FormsPolicy(rules((SHOP, True))))
    assert not off.decide(registry.resolve("form_contact_us")).needs_approval


@pytest.mark.parametrize("forms_origin, url", [
    ("https://evil.test", f"{SHOP}/contact"),  # Chrome says another origin than the page's URL
    ("", f"{SHOP}/contact"),  # no origin from Chrome
])
def test_page_forms_need_chromes_origin_to_be_the_tabs(forms_origin, url):
    registry, _, policy_check = _disclosure(FormsPolicy(rules(("https://*", True))), allow_writes=True)
    registry.apply(intake(snap(forms_origin=forms_origin, url=url)))
    assert not policy_check.decide(registry.resolve("form_contact_us")).visible


# -- the bridge: config, the person's switch over the wire, SQLite, approval ----------------


async def test_switch_through_the_wire_persists_and_a_call_needs_approval(tmp_path):
    db = str(tmp_path / "tabmcp.db")
    config = make_config(store={"path": db}, disclosure={"profile": "passthrough"})
    async with running_bridge(config) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        policy = await ext.wait_for(lambda m: m["type"] == "forms.policy")
        assert policy["rules"] == []
        calls: list[dict[str, Any]] = []

        async def handler(msg: dict[str, Any]) -> dict[str, Any]:
            calls.append(msg)
            return {"ok": True, "result": {"content": [{"type": "text", "text": "submitted"}]}}

        ext.handler = handler
        await ext.sync(snap().model_dump(by_alias=True, exclude_none=True))
        await eventually(lambda: app.core.tool("form_contact_us"))
        url = f"http://127.0.0.1:{app.port}/mcp"
        changes = ListChanges()
        async with Client(url, mode="legacy", message_handler=changes) as client:
            assert "form_contact_us" not in [t.name for t in (await client.list_tools()).tools]
            refused = await client.call_tool("call_tool", {"name": "form_contact_us", "arguments": {"email": "a@b.c"}})
            assert refused.structured_content["error"]["code"] == "OUT_OF_SCOPE" and calls == []

            await ext.send({"type": "forms.set", "origin": "https://shop.test/", "enabled": True})
            announced = await ext.wait_for(lambda m: m["type"] == "forms.policy")
            assert announced["rules"] == [{"match": SHOP, "enabled": True, "source": "person"}]
            await changes.until_listed(client, listed("form_contact_us"))  # listed, and clients told

            async def approve() -> dict[str, Any]:
                request = await ext.wait_for(lambda m: m["type"] == "approval.request")
                await ext.send({"type": "approval.result", "approvalId": request["approvalId"], "approved": True})
                return request

            asked = asyncio.create_task(approve())
            result = await client.call_tool("form_contact_us", {"email": "a@b.c", "message": "hi"})
            request = await asked
            assert not result.is_error, result
            assert request["origin"] == SHOP and "forms-as-tools" in request["reason"]
            assert [(c["tool"], c.get("source"), c["arguments"]) for c in calls] == [
                ("form_contact_us", "form", {"email": "a@b.c", "message": "hi"})]

            await ext.send({"type": "forms.set", "origin": "not an origin", "enabled": True})
            error = await ext.wait_for(lambda m: m["type"] == "error")
            assert error["code"] == "MALFORMED_MESSAGE" and error["ref"] == "forms.set"
        await ext.close()
    again = BridgeCore(config)  # a new bridge on the same SQLite file remembers the person's choice
    assert again.forms.enabled(SHOP) and not again.forms.enabled("https://other.test")


async def test_a_choice_that_could_not_be_kept_changes_nothing(tmp_path):
    """The person's switch is written to SQLite before it applies: when the write fails, the
    listing and the policy stay as stored (a restart would not show something else)."""
    db = tmp_path / "tabmcp.db"
    config = make_config(store={"path": str(db)}, disclosure={"profile": "passthrough"})
    async with running_bridge(config) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        await ext.wait_for(lambda m: m["type"] == "forms.policy")
        await ext.sync(snap().model_dump(by_alias=True, exclude_none=True))
        await eventually(lambda: app.core.tool("form_contact_us"))
        version = app.core.registry.version
        with sqlite3.connect(db) as other:  # the file refuses the write (as a full disk would)
            other.execute("CREATE TRIGGER refuse BEFORE INSERT ON forms_switch "
                          "BEGIN SELECT RAISE(ABORT, 'the disk is full'); END")
        await ext.send({"type": "forms.set", "origin": SHOP, "enabled": True})
        error = await ext.wait_for(lambda m: m["type"] == "error")
        assert error["code"] == "INTERNAL_ERROR"
        assert not app.core.forms.enabled(SHOP) and app.core.registry.version == version
        async with Client(f"http://127.0.0.1:{app.port}/mcp", mode="legacy") as client:
            assert "form_contact_us" not in [t.name for t in (await client.list_tools()).tools]
        await ext.close()
    assert BridgeCore(config).forms.enabled(SHOP) is False  # what is stored is what was applied


async def test_config_rules_reach_the_extension():
    config = make_config(policy={"origins": [{"match": "https://*.shop.test", "forms_as_tools": True}]})
    async with running_bridge(config) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        policy = await ext.wait_for(lambda m: m["type"] == "forms.policy")
        # the glob arrives compiled for the worker's RegExp (fnmatch's reading, core/js_regex.py)
        assert policy["rules"] == [{"match": "https://*.shop.test", "enabled": True, "source": "config",
                                    "pattern": {"source": r"^https:\/\/.*\.shop\.test$", "flags": "s"}}]
        await ext.close()


async def test_the_mediator_improves_page_forms_and_they_stay_page_forms():
    config = make_config(mediator={"enabled": True, "provider": None, "cache": False},
                         policy={"allow_writes": True, "approval": {"mode": "off"},
                                 "origins": [{"match": SHOP, "forms_as_tools": True}]})
    async with running_bridge(config) as app:
        ext = ScriptedExtension(app.port)
        await ext.connect()
        calls: list[dict[str, Any]] = []

        async def handler(msg: dict[str, Any]) -> dict[str, Any]:
            calls.append(msg)
            return {"ok": True, "result": {"content": [{"type": "text", "text": "submitted"}]}}

        ext.handler = handler
        cryptic = tool("form_usr_upd", "Form usr upd.", inputSchema={
            "type": "object", "properties": {"usr_nm": {"type": "string"}}, "required": ["usr_nm"]})
        await ext.sync(snap(tools=[tool("ping", "Ping.")], forms=[cryptic]).model_dump(by_alias=True, exclude_none=True))
        await eventually(lambda: app.core.registry.tab(1))
        async with Client(f"http://127.0.0.1:{app.port}/mcp") as client:
            await client.list_tools()  # lazy mediation: the first request enhances
            form = next(e for e in app.core.registry.tool_entries() if e.tool.call_name == "form_usr_upd")
            assert form.tool.page_form and form.tool.enhancement is not None
            assert form.tool.description.startswith(PAGE_FORM_MARK) and "user" in form.tool.description.lower()
            result = await client.call_tool("call_tool", {"name": form.public_name,
                                                          "arguments": {a: "Ada" for a in form.tool.input_schema["properties"]}})
        assert not result.is_error, result
        assert [(c["tool"], c.get("source")) for c in calls] == [("form_usr_upd", "form")]
        assert calls[0]["arguments"] == {"usr_nm": "Ada"}  # renamed arguments reach the page under its names
        await ext.close()


# The extension's reading of the rules: bridge/tests/parity (forms_globs.json, both languages).
