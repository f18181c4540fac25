"""Who may answer an approval, pause agents, flip switches or make a site reachable: the
extension's own pages only, never any other sender of the extension's runtime messages.

Every content script in every tab is a sender of the extension (``sender.id`` is the
extension's id), so a check that only compares ids lets any tab answer. These tests speak as a
content script does: they run code in the extension's isolated world of a hostile tab (through
the DevTools protocol, as a compromised relay or a page that found a way into that world would),
send the popup's and the approval window's messages with the extension's own ``chrome.runtime``,
and check that nothing happened: the approval still waits for the person (who denies it in the
window), the bridge is not paused, no switch moved, the site is not reachable.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import Page
from tabmcp.packaging.assets import EXTENSION_ID
from tabmcp.storage.secret_store import SecretStore

from .conftest import Env, eventually, other_bridge
from .test_untrusted import APPROVAL, answer_in_window, client

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"


async def as_content_script(page: Page, script: str) -> Any:
    """Run ``script`` (an async function body) in the extension's isolated world of ``page``'s
    tab, where its content script runs and ``chrome.runtime`` is the extension's; its value."""
    cdp = await page.context.new_cdp_session(page)
    contexts: list[dict[str, Any]] = []
    cdp.on("Runtime.executionContextCreated", lambda event: contexts.append(event["context"]))
    await cdp.send("Runtime.enable")

    def isolated() -> dict[str, Any] | None:
        return next((c for c in contexts if (c.get("auxData") or {}).get("type") == "isolated"
                     and EXTENSION_ID in str(c.get("origin", "")) + str(c.get("name", ""))), None)

    world = await eventually(isolated, timeout=10)
    done = await cdp.send("Runtime.evaluate", {
        "expression": f"(async () => {{ {script} }})()", "contextId": world["id"],
        "awaitPromise": True, "returnByValue": True,
    })
    await cdp.detach()
    assert "exceptionDetails" not in done, done
    return done["result"].get("value")


ASK = """
const ask = async (msg) => {
  try { return { answer: (await chrome.runtime.sendMessage(msg)) ?? null }; }
  catch (e) { return { threw: String((e && e.message) || e) }; }
};
"""


def _no_answer(reply: dict[str, Any]) -> bool:
    """The worker ignored the message: no listener answered it (or it said no)."""
    answer = reply.get("answer")
    return "threw" in reply or answer is None or (isinstance(answer, dict) and answer.get("ok") is False)


async def test_a_content_script_cannot_list_or_answer_an_approval(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("the approval window does not depend on the WebMCP flavour")
    async with other_bridge(env, policy={"allow_writes": True, "approval": {"timeout_s": 60}}) as bridge:
        # clear_notes is destructive: it asks (a tool no other test lets the window remember)
        page = await env.open("basic.html")
        page_closer.append(page)
        await eventually(lambda: bridge.core.tool("clear_notes"))
        await page.evaluate("() => document.querySelector('#notes').append(Object.assign("
                            "document.createElement('li'), {textContent: 'keep me'}))")
        async with client(bridge) as agent:
            call = asyncio.create_task(agent.call_tool("clear_notes", {}))
            win = await eventually(
                lambda: next((p for p in env.browser.context.pages if APPROVAL in p.url), None), 20)
            approval_id = parse_qs(urlsplit(win.url).query)["id"][0]
            # The tab's content-script world lists the questions, then answers yes to each (and
            # to the one it was told of), asking to remember it.
            forged = await as_content_script(page, ASK + f"""
              const listed = await ask({{ type: 'tabmcp.approval.list' }});
              const ids = [...(Array.isArray(listed.answer) ? listed.answer.map((q) => q.approvalId) : []),
                           {json.dumps(approval_id)}];
              const got = await ask({{ type: 'tabmcp.approval.get', approvalId: {json.dumps(approval_id)} }});
              const answers = [];
              for (const id of ids) {{
                answers.push(await ask({{ type: 'tabmcp.approval.answer', approvalId: id, approved: true,
                                         remember: true }}));
              }}
              await ask({{ type: 'tabmcp.approval.focus', approvalId: {json.dumps(approval_id)} }});
              return {{ listed, got, answers }};
            """)
            assert _no_answer(forged["listed"]), forged
            assert _no_answer(forged["got"]), forged
            assert all(_no_answer(a) for a in forged["answers"]), forged
            assert not call.done() and not win.is_closed()  # the question still waits for the person
            await answer_in_window(env, call, allow=False)
            result = await call
            assert result.structured_content["error"]["code"] == "APPROVAL_DENIED"
            assert "denied by the user" in result.structured_content["error"]["message"]
            assert await page.evaluate("document.querySelector('#notes').children.length") == 1


async def _barrier(env: Env) -> dict[str, Any]:
    """The popup asks the bridge for its panel: answered after every message the worker sent
    before it (one WebSocket, in order); the panel's state."""
    popup = await env.browser.context.new_page()
    try:
        await popup.goto(POPUP)
        reply = await popup.evaluate("() => chrome.runtime.sendMessage({type: 'tabmcp.panel.query', limit: 1})")
    finally:
        await popup.close()
    assert reply and reply.get("ok"), reply
    return reply["state"]


async def test_a_content_script_cannot_pause_switch_or_make_its_site_reachable(env: Env, page_closer):
    if env.flavour != "polyfill":
        pytest.skip("the popup's messages do not depend on the WebMCP flavour")
    async with other_bridge(env) as bridge:
        page = await env.open("basic.html")
        page_closer.append(page)
        await eventually(lambda: bridge.core.tool("page_title"))
        origin = env.pages_url.rstrip("/")
        vault = bridge.core.secrets.vault
        assert isinstance(vault, SecretStore)
        vault.set("site_login", "hunter2-Correct/Horse+9", [origin])
        forged = await as_content_script(page, ASK + f"""
          const origin = {json.dumps(origin)};
          return {{
            query: await ask({{ type: 'tabmcp.panel.query', limit: 5 }}),
            pause: await ask({{ type: 'tabmcp.control.set', action: 'pause', enabled: true }}),
            writes: await ask({{ type: 'tabmcp.control.set', action: 'writes', enabled: false }}),
            origin: await ask({{ type: 'tabmcp.control.set', action: 'origin', origin, enabled: false }}),
            clear: await ask({{ type: 'tabmcp.control.set', action: 'clear' }}),
            unbind: await ask({{ type: 'tabmcp.control.set', action: 'unbind', origin, secret: 'site_login' }}),
            sites: await ask({{ type: 'tabmcp.sites' }}),
            reachable: await ask({{ type: 'tabmcp.site.permission', origin, reachable: true }}),
            forget: await ask({{ type: 'tabmcp.site.forget', origin }}),
            forms: await ask({{ type: 'tabmcp.forms.set', origin, enabled: true }}),
            formsStatus: await ask({{ type: 'tabmcp.forms.status', origin }}),
          }};
        """)
        for what, reply in forged.items():
            assert _no_answer(reply), (what, reply)
        state = await _barrier(env)  # everything the worker sent before is in the bridge now
        assert {k: state["controls"][k] for k in ("paused", "writes", "originsOff")} == {
            "paused": False, "writes": None, "originsOff": []}
        assert not bridge.core.controls.paused and bridge.core.controls.writes is None
        assert bridge.core.controls.origin_enabled(origin)
        assert bridge.core.secrets.names_for(origin) == ["site_login"]  # still bound
        assert not bridge.core.sites.reachable(origin)
        assert origin not in bridge.core.forms_switches.all()
