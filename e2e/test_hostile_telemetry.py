"""Issue 30, item 2 (the page side): telemetry a hostile page cannot forge.

Each test is the attack, with a real page in real Chromium, the real extension and the official
MCP client: a page that answers accessibility audits itself (defines ``window.axe`` before any
audit, or rewrites ours as it loads), and a page that posts telemetry events claiming another
site's URL.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.async_api import Page
from tabmcp.packaging.assets import axe_path, extension_dir

from .conftest import Env, eventually


def tab_of(env: Env, page: Page) -> int:
    return next(t.tab_id for t in env.bridge.core.registry.tabs.values() if t.url == page.url)


async def audit(env: Env, page: Page) -> dict[str, Any]:
    async with env.client() as client:
        result = await client.call_tool(
            "analyze", {"target": "accessibility", "tab_id": tab_of(env, page)}
        )
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content or {}
    return data


@pytest.mark.parametrize("path", ["axe-fake.html", "axe-hijack.html"])
async def test_a_page_cannot_answer_the_accessibility_audit_itself(env: Env, page_closer, path: str):
    """The page defines ``axe`` before load (unreplaceable), or rewrites the ``axe`` we load to hide
    every violation: the audit is still our axe-core's, and reports the image without alt text and
    the button without a name the fake would hide."""
    if env.flavour != "polyfill":
        pytest.skip("the audit does not depend on the WebMCP flavour")
    if axe_path() is None:
        pytest.fail("axe-core is not installed (run ./dev setup)")
    tool = {"axe-fake.html": "axe_forger", "axe-hijack.html": "axe_hijacker"}[path]
    page = await env.open(path, wait_for_tool=tool)
    page_closer.append(page)
    data = await audit(env, page)
    found = {v["id"] for v in data["violations"]}
    assert {"image-alt", "button-name"} <= found, data
    assert data["engine"].startswith("axe-core 4.") and "4.99" not in data["engine"]
    assert data["url"] == page.url
    # Our axe-core never loaded into the page's world: the page's `axe` is its own fake, or none.
    assert await page.evaluate("() => window.axe === undefined || window.axe.version === '4.99.0'")


async def observed(env: Env, page: Page, what: str, needle: str) -> Any:
    """``observe(what)`` of the page's tab once its text holds ``needle``."""
    tab_id = tab_of(env, page)
    async with env.client() as client:

        async def seen() -> Any:
            result = await client.call_tool("observe", {"what": what, "tab_id": tab_id, "scope": "tab"})
            assert not result.is_error, result.content
            return result if needle in result.content[0].text else None

        return await eventually(seen, timeout=15)


async def test_telemetry_a_page_posts_claiming_another_site_is_marked_and_placed_where_it_is(
    env: Env, page_closer
):
    """The page posts batches as the capture would, claiming ``https://bank.example``: observe names
    the page's real URL, the events are marked page-reported, and the forged navigation moves
    nothing; what the capture itself saw is not marked."""
    if env.flavour != "polyfill":
        pytest.skip("telemetry capture does not depend on the WebMCP flavour")
    page = await env.open("forged-telemetry.html", wait_for_tool="telemetry_forger")
    page_closer.append(page)
    await page.evaluate("() => window.speak()")
    await observed(env, page, "logs", "the forger itself says hello")
    await page.evaluate("() => window.forge()")  # the tab's latest batch: it would set the tab's URL
    logs = await observed(env, page, "logs", "transfer approved")
    text = logs.content[0].text
    assert "bank.example/accounts" not in text and page.url in text, text
    items = {i["args"][0]: i for i in logs.structured_content["items"]}
    assert items["bank.example says: transfer approved"].get("pageReported") is True
    assert "pageReported" not in items["the forger itself says hello"]
    forged_line = next(line for line in text.splitlines() if "transfer approved" in line)
    assert "[page-reported]" in forged_line
    own_line = next(line for line in text.splitlines() if "says hello" in line)
    assert "[page-reported]" not in own_line
    state = env.bridge.core.telemetry.tab(tab_of(env, page))
    assert state is not None and state.url == page.url and state.load_id != "forged-load"
    actions = await observed(env, page, "actions", "confirm-transfer")
    forged = next(i for i in actions.structured_content["items"] if "confirm-transfer" in json.dumps(i))
    assert forged.get("pageReported") is True


async def test_a_page_logging_each_secret_shape_shows_none_to_the_agent(env: Env, page_closer):
    """Issue 30, item 11, through the whole chain: a page logs and sends each shape that used to
    reach observe unredacted; observe shows every one redacted."""
    if env.flavour != "polyfill":
        pytest.skip("telemetry capture does not depend on the WebMCP flavour")
    from .test_telemetry_capture import SECRET_SHAPES, SECRET_VALUES

    page = await env.open("forged-telemetry.html", wait_for_tool="telemetry_forger")
    page_closer.append(page)
    await page.evaluate(
        """async (shapes) => {
          for (const [name, text] of Object.entries(shapes)) console.log(`shape ${name}:`, text);
          console.log('shapes done');
          await fetch('/basic.html?X-Amz-Signature=0f1e2d3c4b5a6978aa', {headers: {
            'Ocp-Apim-Subscription-Key': '3f2a9c1d8e7b4a60b5c4'}}).catch(() => {});
        }""",
        SECRET_SHAPES,
    )
    logs = await observed(env, page, "logs", "shapes done")
    network = await observed(env, page, "network", "X-Amz-Signature")
    shown = json.dumps([logs.structured_content, network.structured_content], ensure_ascii=False)
    shown += logs.content[0].text + network.content[0].text
    for secret in SECRET_VALUES:
        assert secret not in shown, secret
    assert shown.count("[REDACTED]") >= len(SECRET_SHAPES)


async def test_a_page_listening_first_never_gets_the_captures_line(env: Env, page_closer):
    """A capturing listener the page adds in its <head> never sees the capture's port, and the
    capture still works. (A regression guard: in Chromium the port's message is dispatched before
    a head script runs; content.js also listens in the capture phase, first, and keeps it.)"""
    if env.flavour != "polyfill":
        pytest.skip("telemetry capture does not depend on the WebMCP flavour")
    page = await env.open("capture-thief.html", wait_for_tool="capture_thief")
    page_closer.append(page)
    await page.evaluate("() => console.log('the thief logs')")
    logs = await observed(env, page, "logs", "the thief logs")
    item = next(i for i in logs.structured_content["items"] if i["args"] == ["the thief logs"])
    assert "pageReported" not in item
    assert await page.evaluate("() => window.stolen") == []


async def test_a_page_open_before_a_reload_hands_its_relay_no_line(env: Env, page_closer):
    """After the extension is reloaded, the content script injected into a running page takes no
    capture line (the page's scripts ran first, so any line is theirs): one the page hands over
    carries nothing to the bridge, a batch it sends on the page event is marked page-reported, and a
    live query fails at once with a reason instead of waiting for a capture that cannot answer."""
    if env.flavour != "polyfill":
        pytest.skip("telemetry capture does not depend on the WebMCP flavour")
    page = await env.open("forged-telemetry.html", wait_for_tool="telemetry_forger")
    page_closer.append(page)
    link = env.bridge.core.link
    before = link.hello.instance_id if link and link.hello else None
    browser = env.browser.context.browser
    assert browser is not None
    cdp = await browser.new_browser_cdp_session()
    await cdp.send("Extensions.loadUnpacked", {"path": str(extension_dir())})  # chrome://extensions "Reload"
    env.browser.service_worker = None  # the old worker object is gone

    def reattached() -> bool:
        now = env.bridge.core.link
        return bool(now and now.hello and now.hello.instance_id != before and env.bridge.core.connected)

    await eventually(reattached, timeout=20)
    await env.wait_tool("telemetry_forger", page, timeout=20)
    await page.evaluate(
        """() => {
          const line = new MessageChannel();
          dispatchEvent(new MessageEvent('tabmcp-capture-port', {ports: [line.port2], cancelable: true}));
          line.port1.postMessage({type: 'telemetry', url: location.href, dropped: {}, events: [
            {kind: 'console', ts: Date.now(), level: 'log', args: ['through a line of its own']}]});
          const batch = {type: 'telemetry', url: location.href, dropped: {},
            events: [{kind: 'console', ts: Date.now(), level: 'log', args: ['on the window']}]};
          setTimeout(() => dispatchEvent(new CustomEvent('tabmcp-page', {detail: JSON.stringify(batch)})), 200);
        }"""
    )
    logs = await observed(env, page, "logs", "on the window")
    assert "through a line of its own" not in logs.content[0].text
    item = next(i for i in logs.structured_content["items"] if i["args"] == ["on the window"])
    assert item.get("pageReported") is True
    async with env.client() as client:
        result = await client.call_tool("query_dom", {"selector": "body", "tab_id": tab_of(env, page)})
    # The worker's answer, not the query's deadline (TIMEOUT, 15 s later).
    assert result.is_error and "reload it to query it" in result.content[0].text, result.content
