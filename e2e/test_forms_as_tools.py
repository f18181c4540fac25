
"""Page forms as tools, end to end: a site's ordinary forms, offered when the person says so.

Real Chromium with the real extension, both flavours (polyfill alone, native WebMCP), a bridge
of its own (the person's switch must not leak into other tests), an MCP SDK client without
elicitation (so approvals are asked in the extension's own window, as in test_untrusted.py).
The page (e2e/pages/forms.html) has a contact form (handled by the page's script), a help-center
search (a navigation), a login form with a password and a checkout form with card fields: the
last two are never offered.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import Page
from tabmcp.core.page_forms import PAGE_FORM_MARK
from tabmcp.demo.server import serve_demo_site
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.server.app import BridgeApp

from .conftest import PAGES, Env, eventually, other_bridge
from .test_untrusted import answer_in_window

OFFERED = {"form_contact_us", "form_help_center"}


def forms_bridge(env: Env) -> Any:
    return other_bridge(env, disclosure={"profile": "passthrough"},
                        policy={"allow_writes": True, "approval": {"timeout_s": 60}})


def page_forms(bridge: BridgeApp, page: Page) -> set[str]:
    return {e.tool.name for e in bridge.core.registry.tool_entries() if e.tool.page_form and e.tab.url == page.url}


def tab_of(bridge: BridgeApp, page: Page) -> int | None:
    return next((t.tab_id for t in bridge.core.registry.tabs.values() if t.url == page.url), None)


async def listed(agent: Client) -> set[str]:
    return {t.name for t in (await agent.list_tools(cache_mode="bypass")).tools}


async def flip_in_popup(env: Env, tab_id: int, origin: str, *, on: bool) -> None:
    """The person opens the popup for the tab and flips the forms-as-tools switch."""
    popup = await env.browser.context.new_page()
    try:
        await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab_id}")
        box = popup.get_by_test_id("forms-switch")
        await box.wait_for()
        assert await popup.get_by_test_id("forms-section").get_by_text(origin).count() >= 1
        assert await box.is_checked() is (not on)
        await (box.check() if on else box.uncheck())
        # The section re-renders from the bridge's new rules: the origin is listed as on, or as off.
        entry = popup.locator(f"[data-testid=forms-origin][data-state={'on' if on else 'off'}]", has_text=origin)
        await entry.wait_for()
        assert await popup.get_by_test_id("forms-switch").is_checked() is on
    finally:
        await popup.close()


async def test_forms_as_tools_switch_approval_fill_and_submit(env: Env, page_closer):
    async with forms_bridge(env) as bridge:
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + "forms.html")
        origin = env.pages_url.rstrip("/")
        tab_id = await eventually(lambda: tab_of(bridge, page))

        # What the page script would offer, and what it never offers (and why), in this browser.
        described = await page.evaluate("() => window[Symbol.for('tabmcp.pageForms')].describe()")
        assert {t["name"] for t in described["tools"]} == OFFERED
        assert {s["form"]: s["reason"] for s in described["skipped"]} == {
            "#login": "it has a password field", "#checkout": "it has a payment field"}

        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as agent:
            # Switch off (the default): nothing offered, even when the page claims forms itself.
            await page.evaluate("""() => {
                dispatchEvent(new CustomEvent('tabmcp-page', {detail: JSON.stringify({type: 'forms', tools: [{name: 'form_forged',
                  description: 'A form the page claims', inputSchema: {type: 'object', properties: {}}}]})}));
                document.title = 'Ordinary forms (forged)';
            }""")
            await eventually(lambda: bridge.core.registry.tab(tab_id).title == "Ordinary forms (forged)")
            assert page_forms(bridge, page) == set()
            assert not {n for n in await listed(agent) if n.startswith("form_")}
            refused = await agent.call_tool("form_contact_us", {"name": "Ada", "email": "ada@example.com"})
            assert refused.is_error and refused.structured_content["error"]["code"] == "TOOL_NOT_FOUND"

            # The person turns it on for this origin in the popup: the forms reach the agent, marked.
            await flip_in_popup(env, tab_id, origin, on=True)
            await eventually(lambda: page_forms(bridge, page) == OFFERED)
            tools = {t.name: t for t in (await agent.list_tools(cache_mode="bypass")).tools}
            assert set(tools) >= OFFERED and "form_forged" not in tools
            assert not {n for n in tools if "sign_in" in n or "checkout" in n}
            contact = tools["form_contact_us"]
            assert contact.description.startswith(f"[{origin}] {PAGE_FORM_MARK}")
            assert contact.meta["tabmcp/pageForm"]["offeredBy"] == "person"
            assert contact.annotations.read_only_hint is False
            props = contact.input_schema["properties"]
            assert set(props) == {"name", "email", "topic", "message", "newsletter"}  # no csrf, no spam trap
            assert props["topic"]["enum"] == ["order", "returns", "other"]

            # A call needs the person's approval (in the extension's window), then fills and submits.
            call = asyncio.create_task(agent.call_tool("form_contact_us", {
                "name": "Ada", "email": "ada@example.com", "topic": "returns", "message": "Broken kettle"}))
            shown = await answer_in_window(env, call, allow=True)
            assert shown["tool"] == "form_contact_us" and shown["origin"] == origin
            assert "forms-as-tools" in shown["reason"]
            result = await call
            assert not result.is_error, result
            assert result.structured_content["response"] == "Thanks, Ada! We will answer ada@example.com about returns."
            assert await page.evaluate("window.sent") == [{
                "csrf": "token-123", "name": "Ada", "email": "ada@example.com", "topic": "returns",
                "message": "Broken kettle", "website": ""}]

            # Denied: nothing is filled or sent.
            call = asyncio.create_task(agent.call_tool("form_contact_us", {"name": "Bob", "email": "bob@example.com"}))
            await answer_in_window(env, call, allow=False)
            assert (await call).structured_content["error"]["code"] == "APPROVAL_DENIED"
            assert len(await page.evaluate("window.sent")) == 1
            assert await page.locator("#who").input_value() == "Ada"

            # A form the page does not handle itself navigates: the agent is told where to.
            call = asyncio.create_task(agent.call_tool("form_help_center", {"q": "refund policy"}))
            await answer_in_window(env, call, allow=True)
            result = await call
            assert not result.is_error, result
            assert result.structured_content == {
                "submitted": True, "navigates": True, "action": "/forms-results.html", "method": "GET"}
            await page.wait_for_url("**/forms-results.html?q=refund+policy")
            assert await page.get_by_test_id("query").inner_text() == "Results for: refund policy"

            # Back on the forms page, the person turns it off again: the forms go away.
            await page.goto(env.pages_url + "forms.html")
            await eventually(lambda: page_forms(bridge, page) == OFFERED)
            await flip_in_popup(env, tab_id, origin, on=False)
            await eventually(lambda: not page_forms(bridge, page))
            assert not {n for n in await listed(agent) if n.startswith("form_")}
            refused = await agent.call_tool("form_contact_us", {"name": "Eve", "email": "eve@example.com"})
            assert refused.is_error
        assert not bridge.core.forms.enabled(origin)


async def test_a_config_rule_turns_it_on_and_the_persons_choice_wins(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("where the switch comes from does not depend on the WebMCP flavour")
    rule = {"match": "http://127.0.0.1:*", "forms_as_tools": True}
    async with other_bridge(env, disclosure={"profile": "passthrough"}, policy={"origins": [rule]}) as bridge:
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + "forms.html")
        origin = env.pages_url.rstrip("/")
        # The config's glob reaches the extension, which offers the forms with no click at all.
        await eventually(lambda: page_forms(bridge, page) == OFFERED)
        tab_id = tab_of(bridge, page)
        assert tab_id is not None
        popup = await env.browser.context.new_page()
        try:
            await popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab_id}")
            await popup.get_by_test_id("forms-switch").wait_for()
            assert await popup.get_by_test_id("forms-switch").is_checked()
            assert "http://127.0.0.1:*" in await popup.get_by_test_id("forms-origins").inner_text()
        finally:
            await popup.close()
        # The person turns this origin off in the popup: that wins over the config's rule.
        await flip_in_popup(env, tab_id, origin, on=False)
        await eventually(lambda: not page_forms(bridge, page))
        assert not bridge.core.forms.enabled(origin) and bridge.core.forms.enabled("http://127.0.0.1:1")


async def in_content_script(page: Page, expression: str) -> Any:
    """Evaluate in the extension's content-script world of ``page`` (what a compromised or
    confused content script could send), through the DevTools protocol."""
    cdp = await page.context.new_cdp_session(page)
    contexts: list[dict[str, Any]] = []
    cdp.on("Runtime.executionContextCreated", lambda e: contexts.append(e["context"]))
    await cdp.send("Runtime.enable")  # replays every existing context

    def ours() -> dict[str, Any] | None:
        return next((c for c in contexts if c.get("origin", "").startswith(f"chrome-extension://{EXTENSION_ID}")
                     or (c.get("auxData", {}).get("type") == "isolated" and "tabmcp" in c.get("name", "").lower())), None)

    context = await eventually(ours)
    answer = await cdp.send("Runtime.evaluate", {"expression": expression, "contextId": context["id"],
                                                 "awaitPromise": True, "returnByValue": True})
    await cdp.detach()
    return answer["result"].get("value")


async def test_a_content_script_cannot_read_or_flip_the_switch(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("the switch lives in the worker; one flavour covers it")
    async with forms_bridge(env) as bridge:
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + "forms.html")
        origin = env.pages_url.rstrip("/")
        await eventually(lambda: tab_of(bridge, page))
        answer = await in_content_script(page, f"""chrome.runtime.sendMessage(
            {{type: 'tabmcp.forms.set', origin: {origin!r}, enabled: true}})""")
        assert answer["ok"] is False and "own pages" in answer["error"]
        status = await in_content_script(page, f"chrome.runtime.sendMessage({{type: 'tabmcp.forms.status', origin: {origin!r}}})")
        assert status["ok"] is False and "rules" not in status
        assert not bridge.core.forms.enabled(origin) and not bridge.core.forms.rules()


async def test_forms_hiding_secrets_or_payment_are_never_offered_and_another_site_is_named(env: Env, page_closer):
    """The attack: with the switch on, a checkout whose card field is a provider's frame of another
    origin, card fields labelled in other languages or just "Card", and a login whose password is in
    a shadow root; a feedback form that sends to another origin."""
    async with serve_demo_site(site_dir=PAGES) as other_url, forms_bridge(env) as bridge:
        other = other_url.rstrip("/")
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + f"forms-hidden-secrets.html?other={other}")
        origin = env.pages_url.rstrip("/")
        tab_id = await eventually(lambda: tab_of(bridge, page))
        await flip_in_popup(env, tab_id, origin, on=True)
        await eventually(lambda: {"form_feedback", "form_newsletter"} <= page_forms(bridge, page))
        assert page_forms(bridge, page) == {"form_feedback", "form_newsletter"}
        skipped = {s["form"]: s["reason"] for s in (await page.evaluate(
            "() => window[Symbol.for('tabmcp.pageForms')].describe()"))["skipped"]}
        assert skipped["#checkout"].startswith("it holds a frame of another site")
        assert skipped["#login"] == "it has a password field"
        assert {skipped[f] for f in ("#de", "#fr", "#es", "#ja", "#card")} == {"it has a payment field"}

        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as agent:
            tools = {t.name: t for t in (await agent.list_tools(cache_mode="bypass")).tools}
            assert not {n for n in tools if n.startswith("form_") and n not in ("form_feedback", "form_newsletter")}
            assert f"Sends POST to {other}/collect \u2014 another site." in (tools["form_feedback"].description or "")
            assert "Sends POST to /subscribe." in (tools["form_newsletter"].description or "")
            # The agent tries the checkout anyway: nothing is charged.
            refused = await agent.call_tool("form_checkout", {"email": "ada@example.com"})
            assert refused.is_error
        assert await page.evaluate("window.charged") == []


SECRET_VALUE = "hunter2-Correct/Horse+9"


def signin_bridge(env: Env, db: Any, origin: str) -> Any:
    return other_bridge(env, disclosure={"profile": "passthrough"}, store={"path": str(db), "secrets": "file"},
                        policy={"allow_writes": True, "approval": {"timeout_s": 60},
                                "origins": [{"match": origin, "forms_as_tools": True}]})


async def test_a_sign_in_form_is_filled_by_a_secrets_name_and_never_by_a_literal(env: Env, page_closer, tmp_path):
    """Secrets by name (issue 37): with a secret bound to the site, its sign-in form is offered;
    the password field takes only ``{{secret:NAME}}``, the page receives the value, the agent
    sees only the name (also in what the page echoes back), and a literal password is refused."""
    from tabmcp.storage.secret_store import SecretStore

    db = tmp_path / "tabmcp.db"
    origin = env.pages_url.rstrip("/")
    store = SecretStore(db, kind="file")
    store.set("bank_login", SECRET_VALUE, [origin])
    store.close()
    async with signin_bridge(env, db, origin) as bridge:
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + "signin-form.html")
        await eventually(lambda: page_forms(bridge, page))
        (name,) = page_forms(bridge, page)
        described = await page.evaluate("() => window[Symbol.for('tabmcp.pageForms')].describe()")
        secret_field = described["tools"][0]["inputSchema"]["properties"]["password"]
        assert secret_field["type"] == "string" and secret_field["x-tabmcp-secret"] is True
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as agent:
            tools = {t.name: t for t in (await agent.list_tools(cache_mode="bypass")).tools}
            password = tools[name].input_schema["properties"]["password"]
            assert password["pattern"] == r"^\{\{secret:[A-Za-z][A-Za-z0-9_]{0,63}\}\}$"
            assert "Only a secret's name" in password["description"]
            about = await agent.call_tool("describe_tools", {"tools": [name]})
            assert about.structured_content["secrets"] == {name: ["bank_login"]}

            # A literal password: refused by the bridge, before any approval; nothing reaches the page.
            literal = await agent.call_tool(name, {"username": "ann", "password": SECRET_VALUE})
            assert literal.is_error and literal.structured_content["error"]["code"] == "VALIDATION_ERROR"
            assert "takes only a secret's name" in literal.structured_content["error"]["message"]
            assert await page.evaluate("window.received") == []

            # By name: the person approves (the window names the secret), the page gets the value.
            call = asyncio.create_task(agent.call_tool(name, {"username": "ann", "password": "{{secret:bank_login}}"}))
            shown = await answer_in_window(env, call, allow=True)
            assert "password: secret `bank_login`" in shown["reason"]
            assert SECRET_VALUE not in "".join(shown.values())
            result = await call
            assert not result.is_error, result
            assert await page.evaluate("window.received") == [{"username": "ann", "password": SECRET_VALUE}]
            dumped = json.dumps(result.model_dump(mode="json"))
            assert "{{secret:bank_login}}" in dumped, dumped  # the page's echo, masked
            assert SECRET_VALUE not in dumped and base64.b64encode(SECRET_VALUE.encode()).decode() not in dumped

            # The person unbinds the secret from a terminal (another process): the form goes away.
            store = SecretStore(db, kind="file")
            store.unbind("bank_login", origin)
            store.close()
            await eventually(lambda: not page_forms(bridge, page))  # the page script stopped describing it
            assert name not in await listed(agent)
            gone = await agent.call_tool("call_tool", {"name": name, "arguments": {
                "username": "ann", "password": "{{secret:bank_login}}"}})
            assert gone.is_error and len(await page.evaluate("window.received")) == 1


async def test_without_a_bound_secret_a_sign_in_form_stays_refused(env: Env, page_closer, tmp_path):
    if env.flavour != "polyfill":
        pytest.skip("the refusal does not depend on the WebMCP flavour")
    from tabmcp.storage.secret_store import SecretStore

    db = tmp_path / "tabmcp.db"
    origin = env.pages_url.rstrip("/")
    store = SecretStore(db, kind="file")
    store.set("elsewhere_login", SECRET_VALUE, ["https://bank.example"])  # bound, but to another site
    store.close()
    async with signin_bridge(env, db, origin) as bridge:
        page = await env.browser.context.new_page()
        page_closer.append(page)
        await page.goto(env.pages_url + "signin-form.html")
        await eventually(lambda: tab_of(bridge, page))
        described = await page.evaluate("() => window[Symbol.for('tabmcp.pageForms')].describe()")
        assert described["tools"] == []
        assert described["skipped"] == [{"form": "#signin", "reason": "it has a password field"}]
        # The page claims the form itself, secret field and all: the bridge keeps it from the agent.
        await page.evaluate("""() => dispatchEvent(new CustomEvent('tabmcp-page', {detail: JSON.stringify({type: 'forms',
            tools: [{name: 'form_bank_sign_in', description: 'Sign in', inputSchema: {type: 'object', properties: {
              username: {type: 'string'}, password: {type: 'string', 'x-tabmcp-secret': true}}}}]})}))""")
        await eventually(lambda: page_forms(bridge, page) == {"form_bank_sign_in"})
        async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as agent:
            assert "form_bank_sign_in" not in await listed(agent)
            for password, code in (("{{secret:elsewhere_login}}", "OUT_OF_SCOPE"), (SECRET_VALUE, "VALIDATION_ERROR")):
                refused = await agent.call_tool("call_tool", {"name": "form_bank_sign_in", "arguments": {
                    "username": "ann", "password": password}})
                assert refused.is_error
                error = refused.structured_content["error"]
                assert error["code"] == code, error
                assert SECRET_VALUE not in json.dumps(refused.model_dump(mode="json"))
            named = await agent.call_tool("call_tool", {"name": "form_bank_sign_in", "arguments": {
                "username": "ann", "password": "{{secret:elsewhere_login}}"}})
            assert "no secret is bound to " + origin in named.structured_content["error"]["message"]
        assert await page.evaluate("window.received") == []
