"""The extension's Firefox build in real Firefox ESR, driven over WebDriver BiDi (puppeteer-core).

Two flavours, like Chromium's: ``polyfill`` (Firefox's native WebMCP off: our polyfill provides
``document.modelContext``) and ``native`` (``dom.modelcontext.enabled``: Firefox's own
``navigator.modelContext``, which the polyfill layers on and puts on ``document`` too). A page's
tools reach the official MCP SDK client through the bridge and calls return the page's results;
an approval is answered in the extension's Firefox window; a hostile page can neither answer it
nor connect to the bridge as the extension; a secret goes in by name on its own site only and
comes back masked; the popup, the approval window and the options page pass axe-core.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shutil
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from mcp import Client
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.firefox_launcher import FirefoxBrowser, FirefoxDriverError, FirefoxPage, launch_firefox
from tabmcp.packaging.firefox import FirefoxNotFound, find_firefox
from tabmcp.server.app import BridgeApp, running_bridge
from tabmcp.testing import missing_from_setup

from .conftest import PAGES, e2e_config, eventually

ROOT = Path(__file__).resolve().parent.parent
APPROVAL = "approval/approval.html"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


@dataclass
class FirefoxEnv:
    bridge: BridgeApp
    browser: FirefoxBrowser
    pages_url: str
    demo_url: str
    flavour: str

    def client(self) -> Client:
        return Client(f"http://127.0.0.1:{self.bridge.port}/mcp")  # no elicitation: the extension asks

    async def open(self, path: str) -> FirefoxPage:
        page = await self.browser.new_page(self.pages_url + path)
        await page.evaluate("() => window.ready")
        return page


def _firefox_or_skip() -> None:
    try:
        find_firefox()
    except FirefoxNotFound:
        missing_from_setup("Firefox (Debian's firefox-esr) is not installed")
    if shutil.which("node") is None or not (ROOT / "node_modules" / "puppeteer-core").exists():
        missing_from_setup("node and the npm package puppeteer-core are not installed")


@pytest.fixture(scope="module", params=["polyfill", "native"])
async def ff(request: pytest.FixtureRequest) -> AsyncIterator[FirefoxEnv]:
    _firefox_or_skip()
    config = e2e_config(policy={"allow_writes": True, "approval": {"timeout_s": 60}})
    async with (
        serve_demo_site(site_dir=PAGES) as pages_url,
        serve_demo_site() as demo_url,
        running_bridge(config) as bridge,
    ):
        url = f"ws://127.0.0.1:{bridge.port}/extension"
        async with launch_firefox(bridge_url=url, webmcp=request.param == "native") as browser:
            assert await bridge.core.wait_connected(30), "the Firefox extension did not connect to the bridge"
            yield FirefoxEnv(bridge, browser, pages_url, demo_url, request.param)


@pytest.fixture
async def closer(ff: FirefoxEnv) -> AsyncIterator[list[FirefoxPage]]:
    pages: list[FirefoxPage] = []
    yield pages
    for page in pages:
        with contextlib.suppress(FirefoxDriverError):
            await page.close()


async def listed(client: Client, name: str, timeout: float = 20) -> None:
    """Wait until the MCP client's tools/list has ``name``."""

    async def has() -> bool:
        return any(t.name == name for t in (await client.list_tools()).tools)

    await eventually(has, timeout=timeout, interval=0.2)


def text_of(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_page_tools_reach_the_mcp_client_and_calls_return_the_pages_results(ff: FirefoxEnv, closer):
    page = await ff.open("basic.html")
    closer.append(page)
    seen = await page.evaluate(
        "() => ({doc: String(document.modelContext), nav: String(navigator.modelContext),"
        " native: globalThis[Symbol.for('tabmcp.webmcp')].native})"
    )
    assert seen["doc"] == "[object ModelContext]"
    # Native: Firefox's own object stays on navigator (the polyfill layers on it); else our alias.
    assert seen["nav"] == (
        "[object ModelContext]" if ff.flavour == "native" else "[object ModelContextLegacy]"
    )
    assert seen["native"] is (ff.flavour == "native")
    if ff.flavour == "native":
        # Tools registered on document.modelContext are in Firefox's own registry too (its testing
        # pref lists them), with the page's schema.
        native = await page.evaluate(
            "async () => (await navigator.modelContext.getTools()).map((t) => t.name).sort()"
        )
        assert {"page_title", "add_note", "fail", "wait"} <= set(native), native
    async with ff.client() as client:
        await listed(client, "page_title")
        result = await client.call_tool("add_note", {"text": "from the agent"})
        assert not result.is_error, result.content
        assert json.loads(text_of(result)) == {"added": "from the agent", "count": 1}
        assert await page.evaluate(
            "() => [...document.querySelectorAll('#notes li')].map((li) => li.textContent)"
        ) == ["from the agent"]
        failed = await client.call_tool("fail", {})
        assert failed.is_error and "the database is on fire" in text_of(failed)


async def test_a_heavy_tab_reaches_the_bridge_in_chunks_and_calls_go_on_meanwhile_in_firefox(ff: FirefoxEnv, closer):
    # The tabs' lane (background/tab_lane.js) in Firefox's WebSocket: 3.8 MB of definitions in
    # chunks, paced by its bufferedAmount and the bridge's chunk.read, put back together whole.
    page = await ff.open("basic.html")
    closer.append(page)
    heavy = await ff.open("heavy.html?tab=firefox&together")
    closer.append(heavy)
    async with ff.client() as client:
        await listed(client, "page_title")
        calls = 0
        async with asyncio.timeout(90):  # the heavy tab arrives whole meanwhile
            while not any(len(t.tools) == 60 for t in ff.bridge.core.registry.tabs.values()) or calls < 3:
                result = await client.call_tool("page_title", {})
                assert not result.is_error, result.content
                calls += 1
    assert not ff.bridge.core.session.protocol_errors


@pytest.mark.timeout(240)
async def test_a_document_is_cut_at_its_bytes_in_three_byte_characters_in_firefox(ff: FirefoxEnv, closer):
    # The limits count UTF-8 bytes in Firefox's worker too: 4.3 MB of CJK definitions (1.4 Mi
    # UTF-16 units) are cut where the same bytes in ASCII are (77 of 80 kept, e2e/test_flood.py),
    # and 96 tools of 1- to 4-byte characters 1 KiB under the 4 MiB of one document all pass.
    for text, kept in (("cjk", [f"over_{i:02d}" for i in range(77)]), ("under", None)):
        page = await ff.open(f"over-document.html?text={text}")
        closer.append(page)
        count = await page.evaluate("() => window.toolCount")

        def names(text: str = text) -> list[str]:
            return sorted(e.tool.name for e in ff.bridge.core.registry.tool_entries()
                          if e.tab.url.endswith(f"over-document.html?text={text}"))

        expected = kept if kept is not None else sorted(await page.evaluate("() => window.toolNames"))
        assert len(expected) == (77 if kept else count)
        await eventually(lambda names=names, expected=expected: names() == expected, 90)


async def test_a_tool_registered_on_firefoxs_own_api_reaches_the_client(ff: FirefoxEnv, closer):
    if ff.flavour != "native":
        pytest.skip("the polyfill flavour has no native API to register on")
    page = await ff.open("basic.html")
    closer.append(page)
    # The page speaks Firefox's API as Firefox ships it: registerTool returns undefined (kept), and
    # a JSON Schema `format` is accepted.
    returned = await page.evaluate(
        """() => String(navigator.modelContext.registerTool({
             name: 'ff_native_echo', description: 'Echo a date.',
             inputSchema: {type: 'object', properties: {day: {type: 'string', format: 'date'}},
                           required: ['day']},
             execute: ({day}) => ({echo: day, by: 'firefox'})}))"""
    )
    assert returned == "undefined"
    async with ff.client() as client:
        await listed(client, "ff_native_echo")
        result = await client.call_tool("ff_native_echo", {"day": "2026-11-27"})
        assert not result.is_error, result.content
        assert json.loads(text_of(result)) == {"echo": "2026-11-27", "by": "firefox"}
        # Unregistered on Firefox's object: gone from the client too.
        await page.evaluate("() => navigator.modelContext.unregisterTool('ff_native_echo')")

        async def gone() -> bool:
            return all(t.name != "ff_native_echo" for t in (await client.list_tools()).tools)

        await eventually(gone, timeout=20, interval=0.2)


@pytest.mark.parametrize("on", ["navigator", "document"])
async def test_tools_registered_through_the_prototype_or_another_realm_reach_the_client(
    ff: FirefoxEnv, closer, on: str
):
    """Firefox has no list of tools to read (without its testing pref): a tool registered with
    ``ModelContext.prototype.registerTool.call(target, tool)`` or with an about:blank frame's method
    is seen only because both realms' methods are wrapped (polyfill, page/realm.js). The browser still
    decides: its answer is the page's, and a second registration of a name is refused as before."""
    if ff.flavour != "native":
        pytest.skip("the polyfill flavour has no native API to register on")
    page = await ff.open(f"realms.html?on={on}")
    closer.append(page)
    returned = await page.evaluate("() => [String(registered.proto), String(registered.realm)]")
    # Firefox's registerTool answers undefined; our document.modelContext answers a promise.
    assert returned == (["undefined"] * 2 if on == "navigator" else ["[object Promise]"] * 2)
    # What the browser refuses (no execute) throws the browser's error and is relayed nowhere.
    refused = await page.evaluate(
        """() => { try { ModelContext.prototype.registerTool.call(navigator.modelContext,
             {name: 'refused_tool', description: 'no execute'}); return 'taken'; }
           catch (e) { return [e.name, e.message.includes('execute')]; } }"""
    )
    assert refused == ["TypeError", True]
    async with ff.client() as client:
        for name, by in (("by_prototype", "through the prototype"), ("by_other_realm", "with another realm's method")):
            await listed(client, name)
            result = await client.call_tool(name, {})
            assert not result.is_error, result.content
            assert json.loads(text_of(result)) == {"by": by, "on": on}
        assert all(t.name != "refused_tool" for t in (await client.list_tools()).tools)
        if on == "navigator":
            # Unregistered with the frame's method: gone from the client too.
            await page.evaluate(
                "() => document.querySelector('iframe').contentWindow.ModelContext.prototype.unregisterTool"
                ".call(navigator.modelContext, 'by_other_realm')"
            )

            async def gone() -> bool:
                return all(t.name != "by_other_realm" for t in (await client.list_tools()).tools)

            await eventually(gone, timeout=20, interval=0.2)


async def _approval_window(ff: FirefoxEnv) -> tuple[FirefoxPage, str]:
    window = await ff.browser.wait_page(APPROVAL, timeout=30)
    await eventually(
        lambda: window.evaluate(
            "() => !!document.querySelector('[data-testid=approval-tool]')"
            " && document.querySelector('[data-testid=approval-tool]').textContent !== ''"
        ),
        timeout=20,
        interval=0.2,
    )
    approval_id = parse_qs(urlsplit(await window.url()).query)["id"][0]
    return window, approval_id


async def _click_closing(window: FirefoxPage, selector: str) -> None:
    """Click a button that closes its window: the click may end with the window."""
    with contextlib.suppress(FirefoxDriverError):
        await window.click(selector)


async def test_an_approval_is_answered_in_the_firefox_window(ff: FirefoxEnv, closer):
    page = await ff.open("basic.html")
    closer.append(page)
    async with ff.client() as client:
        await listed(client, "page_title")
        await client.call_tool("add_note", {"text": "one"})
        call = asyncio.create_task(client.call_tool("clear_notes", {}))  # destructive: asked first
        window, _ = await _approval_window(ff)
        shown = await window.evaluate(
            "() => document.querySelector('[data-testid=approval-tool]').textContent"
        )
        assert "clear_notes" in shown
        await _click_closing(window, "[data-testid=approval-allow]")
        result = await asyncio.wait_for(call, 30)
        assert not result.is_error, result.content
        assert await page.evaluate("() => document.querySelectorAll('#notes li').length") == 0


HOSTILE = """async ([approvalId, approvalUrl, bridgeUrl]) => {
  const tried = {};
  // Answer through the relay's channel, as the extension's own messages are named.
  for (const type of ['tabmcp.approval.answer', 'approval']) {
    window.postMessage({ __tabmcp: true, type, approvalId, approved: true, remember: true }, '*');
    const detail = JSON.stringify({ type, approvalId, approved: true, remember: true });
    for (const name of ['tabmcp-page', 'tabmcp-content']) dispatchEvent(new CustomEvent(name, { detail }));
  }
  // Open the approval window's page itself (it is not web-accessible).
  try { tried.opened = !!window.open(approvalUrl + '?id=' + approvalId); }
  catch (e) { tried.opened = String(e); }
  // Connect to the bridge as the extension, with a made-up pairing.
  tried.socket = await new Promise((resolve) => {
    let ws;
    try { ws = new WebSocket(bridgeUrl); } catch (e) { resolve('threw ' + e); return; }
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: 'hello', protocol: 1, pairing: { id: 'x', secret: 'y' } }));
      resolve('open');
    };
    ws.onclose = (e) => resolve('closed ' + e.code);
    setTimeout(() => resolve('no answer'), 10000);
  });
  return tried;
}"""


async def test_a_hostile_page_cannot_answer_the_approval_nor_connect_as_the_extension(ff: FirefoxEnv, closer):
    if ff.flavour != "polyfill":
        pytest.skip("approvals and the bridge's door do not depend on the WebMCP flavour")
    page = await ff.open("basic.html")
    closer.append(page)
    before = await ff.browser.status()
    async with ff.client() as client:
        await listed(client, "page_title")
        await client.call_tool("add_note", {"text": "keep me"})
        call = asyncio.create_task(client.call_tool("clear_notes", {}))
        window, approval_id = await _approval_window(ff)
        tried = await page.evaluate(
            HOSTILE,
            [approval_id, ff.browser.extension_url + APPROVAL, f"ws://127.0.0.1:{ff.bridge.port}/extension"],
        )
        assert tried["socket"] != "open", tried  # the bridge refuses a web page's origin at the handshake
        after = await ff.browser.status()  # the extension's link is the one it was, still ready
        assert (after["status"], after["sessionId"]) == ("ready", before["sessionId"]), after
        assert not call.done()  # the question still waits for the person
        await _click_closing(window, "[data-testid=approval-deny]")
        result = await asyncio.wait_for(call, 30)
        assert result.structured_content is not None
        assert result.structured_content["error"]["code"] == "APPROVAL_DENIED"
        assert await page.evaluate("() => document.querySelectorAll('#notes li').length") == 1


async def _no_axe_violations(page: FirefoxPage) -> None:
    if not AXE.exists():
        missing_from_setup("axe-core (npm) is not installed")
    await page.add_script(AXE.read_text(encoding="utf-8"))
    violations = await page.evaluate(
        "async () => (await axe.run(document, { resultTypes: ['violations'] })).violations"
        ".map(v => ({id: v.id, nodes: v.nodes.map(n => n.html)}))"
    )
    assert violations == [], violations


async def test_the_popup_approval_window_and_options_page_work_and_pass_axe(ff: FirefoxEnv, closer):
    if ff.flavour != "polyfill":
        pytest.skip("the extension's pages do not depend on the WebMCP flavour")
    page = await ff.open("basic.html")
    closer.append(page)
    options = await ff.browser.extension_page("options/options.html")
    closer.append(options)
    assert await options.evaluate("() => document.querySelector('#bridgeUrl').value") == (
        f"ws://127.0.0.1:{ff.bridge.port}/extension"
    )
    await _no_axe_violations(options)
    popup = await ff.browser.extension_page("popup/popup.html")
    closer.append(popup)
    await eventually(
        lambda: popup.evaluate("() => document.body.hasAttribute('data-ready')"), timeout=20, interval=0.2
    )
    # The popup knows the bridge and the page's tools.
    await eventually(
        lambda: popup.evaluate(
            "() => [...document.querySelectorAll('[data-testid=tab]')]"
            ".some((t) => t.textContent.includes('Basic tools'))"
        ),
        timeout=20,
        interval=0.2,
    )
    await _no_axe_violations(popup)
    async with ff.client() as client:
        await listed(client, "page_title")
        call = asyncio.create_task(client.call_tool("clear_notes", {}))
        window, _ = await _approval_window(ff)
        await _no_axe_violations(window)
        # The popup lists the same question; answered there, the window closes and the tool runs.
        await eventually(
            lambda: popup.evaluate("() => !!document.querySelector('[data-testid=approval]')"),
            timeout=20,
            interval=0.2,
        )
        await _no_axe_violations(popup)
        await popup.click("[data-testid=approval] [data-testid=approval-allow]")
        result = await asyncio.wait_for(call, 30)
        assert not result.is_error, result.content


async def _observed(client: Client, what: str, enough: Any) -> list[Any] | None:
    result = await client.call_tool("observe", {"what": what})
    items = (result.structured_content or {}).get("items") or []
    return items if enough(items) else None


async def test_the_capture_reports_errors_and_network_from_firefox(ff: FirefoxEnv, closer):
    if ff.flavour != "polyfill":
        pytest.skip("telemetry capture does not depend on the WebMCP flavour")
    page = await ff.browser.new_page(ff.demo_url + "lab.html")
    closer.append(page)
    async with ff.client() as client:
        await listed(client, "lab_status")
        for button in ("fetch-users", "throw-error", "log-error"):
            await page.click(f"[data-testid={button}]")
        errors = await eventually(
            lambda: _observed(client, "errors", lambda i: len(i) >= 2), timeout=20, interval=0.3
        )
        assert {e["errorType"] for e in errors} == {"uncaught", "console"}
        assert any("uncaught exception from a button" in e["message"] for e in errors)
        assert "[REDACTED]" in next(e["message"] for e in errors if e["errorType"] == "console")
        network = await eventually(
            lambda: _observed(client, "network", lambda i: any("users" in r["url"] for r in i)),
            timeout=20,
            interval=0.3,
        )
        assert any(r["url"].endswith("users") or "users" in r["url"] for r in network)
        # Our own axe-core, run in the extension's isolated world of the tab, and a live DOM query.
        audit = await client.call_tool("analyze", {"target": "accessibility"})
        assert not audit.is_error and "axe-core" in text_of(audit), audit.content
        dom = await client.call_tool("query_dom", {"selector": "h1"})
        assert not dom.is_error and json.loads(text_of(dom))["matches"] >= 1, dom.content


async def test_the_pages_console_messages_keep_the_pages_line_in_firefox(ff: FirefoxEnv, closer):
    """Do no harm to the page's own console: Firefox shows a console message at the first frame of
    the page's principal, reported over BiDi (log.entryAdded). With the capture's wrapper in the
    page's world that frame was ours (`<anonymous code>`); console-firefox.js wraps from the content
    script's world, so the location is the page's line, as in a Firefox without the extension, and
    the capture still records the message."""
    if ff.flavour != "polyfill":
        pytest.skip("the console capture does not depend on the WebMCP flavour")
    page = await ff.open("console-lines.html")
    closer.append(page)
    url = ff.pages_url + "console-lines.html"
    seen = await page.console_trace("() => shout()")
    async with launch_firefox(extension=False) as plain:
        bare = await plain.new_page(url)
        without = await bare.console_trace("() => shout()")
    assert without["stack"][0] == {"url": url, "lineNumber": 7, "columnNumber": 12}
    assert (seen["text"], seen["stack"][0]) == (without["text"], without["stack"][0])
    tab_id = await eventually(
        lambda: next((t.tab_id for t in ff.bridge.core.registry.tabs.values() if t.url == url), None), timeout=20
    )
    async with ff.client() as client:

        async def logged() -> bool:
            got = await client.call_tool("observe", {"what": "logs", "tab_id": tab_id})
            return "logged by the page" in str(got.structured_content or got.content)

        await eventually(logged, timeout=20, interval=0.3)


async def test_the_pages_message_listeners_hear_nothing_of_tabmcp_in_firefox(ff: FirefoxEnv, closer):
    """e2e/test_quiet_page.py in Firefox ESR, where the content script sees the page through Xray
    wrappers: the page scripts' events and the capture's port handover reach the content script
    (the tools reach the bridge, the page's console reaches observe, a live query is answered, the
    page's form is offered as a tool and used), and the page's `message` listeners hear only its
    own two messages, each once per listener (capturing, bubbling, onmessage), as without tabmcp."""
    page = await ff.open("quiet.html")
    closer.append(page)
    origin = ff.pages_url.rstrip("/")

    def entry(name: str | None) -> Any:
        return next((e for e in ff.bridge.core.registry.tool_entries() if "quiet.html" in e.tab.url
                     and (e.tool.page_form if name is None else e.tool.name == name)), None)

    echo = await eventually(lambda: entry("quiet_echo"), timeout=20)
    tab_id = echo.tab.tab_id
    ff.bridge.core.set_forms_as_tools(origin, True)
    try:
        form = await eventually(lambda: entry(None), timeout=20)
        async with ff.client() as client:
            result = await client.call_tool(echo.public_name, {"text": "hi"})
            assert not result.is_error, result.content
            await page.evaluate("() => window.change()")
            await eventually(lambda: entry("quiet_more"), timeout=20)

            async def logged() -> bool:
                got = await client.call_tool("observe", {"what": "logs", "tab_id": tab_id})
                return "the quiet page changed its tools" in str(got.structured_content or got.content)

            await eventually(logged, timeout=20, interval=0.3)
            dom = await client.call_tool("query_dom", {"selector": "h1", "tab_id": tab_id})
            assert not dom.is_error and json.loads(text_of(dom))["matches"] == 1, dom.content
            call = asyncio.create_task(client.call_tool(form.public_name, {"text": "quiet"}))
            window, _ = await _approval_window(ff)
            await _click_closing(window, "[data-testid=approval-allow]")
            assert not (await asyncio.wait_for(call, 30)).is_error
    finally:
        ff.bridge.core.set_forms_as_tools(origin, False)
    assert await page.evaluate("() => document.querySelector('[data-testid=status]').textContent") == "Saved: quiet"
    heard = await page.evaluate("() => window.heard")
    own = [{"phase": p, "data": json.dumps({"own": o}, separators=(",", ":")), "origin": origin, "ports": 0}
           for o in ("hello", "changed") for p in ("capture", "bubble", "onmessage")]
    assert heard == own


async def test_a_chromium_tab_and_a_firefox_tab_are_listed_together_through_one_bridge():
    _firefox_or_skip()
    from tabmcp.launch.launcher import launch_browser

    async with (
        serve_demo_site(site_dir=PAGES) as pages_url,
        running_bridge(e2e_config()) as bridge,
        launch_browser(bridge_url=f"ws://127.0.0.1:{bridge.port}/extension", headless=True) as chromium,
        Client(f"http://127.0.0.1:{bridge.port}/mcp") as client,
    ):
        page = await chromium.context.new_page()
        await page.goto(pages_url + "basic.html")
        await page.evaluate("async () => { await window.ready; document.title = 'In Chromium'; }")
        await listed(client, "page_title")

        async def sources() -> dict[str, str]:
            return {
                (t.meta or {}).get("tabmcp/source", {}).get("browser", ""): t.name
                for t in (await client.list_tools()).tools
                if t.name.rsplit(".", 1)[-1] == "page_title"
            }

        async with launch_firefox(bridge_url=f"ws://127.0.0.1:{bridge.port}/extension") as firefox:
            ff_page = await firefox.new_page(pages_url + "basic.html")
            await ff_page.evaluate("async () => { await window.ready; document.title = 'In Firefox'; }")
            both = await eventually(lambda: _both(sources), timeout=30, interval=0.3)
            assert text_of(await client.call_tool(both["chromium"], {})) == "In Chromium"
            assert text_of(await client.call_tool(both["firefox"], {})) == "In Firefox"
        # Firefox closed: only its tools went.
        left = await eventually(lambda: _only_chromium(sources), timeout=30, interval=0.3)
        assert text_of(await client.call_tool(left["chromium"], {})) == "In Chromium"


async def _both(sources: Any) -> dict[str, str] | None:
    found = await sources()
    return found if {"chromium", "firefox"} <= set(found) else None


async def _only_chromium(sources: Any) -> dict[str, str] | None:
    found = await sources()
    return found if set(found) == {"chromium"} else None


async def test_a_declarative_form_is_a_tool_in_firefox(ff: FirefoxEnv, closer):
    """Firefox has no declarative WebMCP (<form toolname>): the polyfill provides it, with or
    without Firefox's native API."""
    page = await ff.open("declarative.html")
    closer.append(page)
    async with ff.client() as client:
        await listed(client, "book_ferry")
        tool = next(t for t in (await client.list_tools()).tools if t.name == "book_ferry")
        assert tool.input_schema["required"] == ["who", "day"]
        assert tool.input_schema["properties"]["day"]["format"] == "date"
        args = {"who": "Ada Lovelace", "day": "2026-12-01", "seats": 2, "port": "her", "cabin": True}
        result = await client.call_tool("book_ferry", args)
        assert not result.is_error, result.content
        booking = {"booking": "FB-1", "passenger": "Ada Lovelace", "day": "2026-12-01", "port": "her"}
        assert json.loads(text_of(result)) == booking
    assert await page.evaluate("() => document.querySelector('#who').value") == "Ada Lovelace"


async def test_the_person_pairs_firefox_in_the_popup_and_the_terminal(tmp_path: Path):
    """A Firefox extension's origin (moz-extension://<random UUID>) names no extension: the bridge
    admits it only once the person pairs it, as for Chromium: the popup shows a code, ``tabmcp
    pair CODE`` in a terminal confirms it."""
    _firefox_or_skip()
    from .test_pairing import free_port, tabmcp_cli

    port = free_port()
    config = e2e_config(server={"port": port}, store={"path": str(tmp_path / "tabmcp.db")})
    async with (
        serve_demo_site(site_dir=PAGES) as pages_url,
        running_bridge(config) as bridge,
        launch_firefox(bridge_url=f"ws://127.0.0.1:{port}/extension", pair=False) as firefox,
        Client(f"http://127.0.0.1:{port}/mcp") as client,
    ):
        page = await firefox.new_page(pages_url + "basic.html")
        popup = await firefox.extension_page("popup/popup.html")

        async def shown(testid: str) -> str:
            return str(
                await popup.evaluate(
                    "(id) => document.querySelector(`[data-testid=${id}]`)?.textContent ?? ''", testid
                )
            )

        await eventually(lambda: _is(shown("status"), "not paired"), timeout=20, interval=0.2)
        command = await eventually(
            lambda: _matches(shown("pair-command"), r"^tabmcp pair \d{3}-\d{3}$"), timeout=20, interval=0.2
        )
        # Unpaired, the page's tools go nowhere.
        assert all(t.name != "page_title" for t in (await client.list_tools()).tools)
        done = await asyncio.to_thread(tabmcp_cli, "pair", command.split()[-1], "--port", str(port))
        assert done.returncode == 0, done.stderr
        assert await bridge.core.wait_connected(20)
        await eventually(lambda: _is(shown("status"), "connected"), timeout=20, interval=0.2)
        await listed(client, "page_title")
        assert text_of(await client.call_tool("page_title", {})) == "Basic tools"
        await page.close()


async def _is(text: Any, wanted: str) -> bool:
    return (await text).strip() == wanted


async def _matches(text: Any, pattern: str) -> str | None:
    value = (await text).strip()
    return value if re.match(pattern, value) else None


async def test_a_closed_site_is_opened_in_a_grouped_background_tab_in_firefox():
    """Reachable sites in Firefox: a call on a closed site opens it in a background tab, in the
    agent's tab group (Firefox 139+ has tab groups), and the call runs there."""
    _firefox_or_skip()
    from .test_sites import IDLE_S, ferry_site

    async with ferry_site() as site:
        config = e2e_config(
            policy={"allow_writes": True, "origins": [{"match": site, "reachable": True}]},
            sites={"idle_close_s": IDLE_S, "settle_s": 1.0},
        )
        async with (
            running_bridge(config) as bridge,
            launch_firefox(bridge_url=f"ws://127.0.0.1:{bridge.port}/extension") as firefox,
            Client(f"http://127.0.0.1:{bridge.port}/mcp") as client,
        ):
            ferry = await firefox.new_page(f"{site}/ferry.html")
            await listed(client, "book_ferry")
            await ferry.close()

            async def closed_site() -> bool:
                found = await client.call_tool("search_tools", {"query": "book a ferry crossing"})
                top = found.structured_content["tools"][0]
                return top["name"] == "book_ferry" and top.get("open") is False

            await eventually(closed_site, timeout=20, interval=0.3)
            result = await client.call_tool(
                "call_tool", {"name": "book_ferry", "arguments": {"date": "Friday"}}
            )
            assert not result.is_error, result.content
            assert text_of(result) == "booked the Friday crossing"
            tab_id = result.meta["tabmcp/source"]["tabId"]
            control = await firefox.control()
            group = await control.evaluate(
                """async (id) => { const tab = await chrome.tabs.get(id);
                     return { active: tab.active, title: tab.groupId === -1 ? null
                              : (await chrome.tabGroups.get(tab.groupId)).title }; }""",
                tab_id,
            )
            assert group == {"active": False, "title": bridge.config.sites.group_title}
            # Idle for IDLE_S: the extension closes the agent tab.
            await eventually(closed_site, timeout=30, interval=0.5)


async def test_a_secret_goes_in_by_name_and_comes_back_masked_in_firefox(ff: FirefoxEnv, closer):
    from tabmcp.errors import ErrorCode
    from tabmcp.storage.secret_store import SecretStore

    value = "hunter2-Correct/Horse+9"
    store = ff.bridge.core.secrets.vault
    assert isinstance(store, SecretStore)  # the bridge's database is in memory: so are its values
    store.set("site_login", value, [ff.pages_url.rstrip("/")])
    try:
        page = await ff.open("signin.html")
        closer.append(page)
        other = await ff.browser.new_page(ff.pages_url.replace("127.0.0.1", "localhost") + "signin.html")
        closer.append(other)
        await other.evaluate("() => window.ready")
        async with ff.client() as client:
            await listed(client, "sign_in")
            result = await client.call_tool("sign_in", {"user": "ann", "password": "{{secret:site_login}}"})
            assert not result.is_error, result.content
            assert await page.evaluate("() => window.received") == [value]
            assert "{{secret:site_login}}" in text_of(result) and value not in json.dumps(result.model_dump(mode="json"))
            elsewhere = await eventually(lambda: next(
                (e for e in ff.bridge.core.registry.tool_entries()
                 if e.tool.name == "sign_in" and e.tab.origin.startswith("http://localhost")), None), timeout=20)
            refused = await client.call_tool("call_tool", {"name": elsewhere.public_name, "arguments": {
                "user": "ann", "password": "{{secret:site_login}}"}})
            assert refused.structured_content["error"]["code"] == ErrorCode.SECRET_NOT_BOUND, refused.content
            assert await other.evaluate("() => window.received") == []
    finally:
        store.remove("site_login")


async def test_a_sign_in_form_is_filled_by_a_secrets_name_in_firefox(ff: FirefoxEnv, closer):
    """Forms that need a secret (issue 37), in Firefox: with a secret bound to the site, its
    sign-in form is offered; a literal password is refused, the name fills it, the agent sees only
    the name in what the page echoes."""
    from tabmcp.storage.secret_store import SecretStore

    value = "hunter3-Battery/Staple+7"  # not the other test's: a value used this run keeps its first name
    origin = ff.pages_url.rstrip("/")
    store = ff.bridge.core.secrets.vault
    assert isinstance(store, SecretStore)
    store.set("form_login", value, [origin])
    ff.bridge.core.set_forms_as_tools(origin, True)  # tells the extension which sites have a secret, too
    try:
        page = await ff.open("signin-form.html")
        closer.append(page)
        form = await eventually(lambda: next((e for e in ff.bridge.core.registry.tool_entries()
                                              if "signin-form.html" in e.tab.url and e.tool.page_form), None), timeout=20)
        assert form.tool.secret_fields == ("password",)
        async with ff.client() as client:
            literal = await client.call_tool(form.public_name, {"username": "ann", "password": value})
            assert literal.is_error and literal.structured_content["error"]["code"] == "VALIDATION_ERROR"
            call = asyncio.create_task(client.call_tool(form.public_name, {
                "username": "ann", "password": "{{secret:form_login}}"}))
            window, _ = await _approval_window(ff)
            await _click_closing(window, "[data-testid=approval-allow]")
            result = await asyncio.wait_for(call, 30)
            assert not result.is_error, result.content
            assert await page.evaluate("() => window.received") == [{"username": "ann", "password": value}]
            dumped = json.dumps(result.model_dump(mode="json"))
            assert "{{secret:form_login}}" in dumped and value not in dumped
    finally:
        store.remove("form_login")
        ff.bridge.core.set_forms_as_tools(origin, False)


async def test_a_reconnect_to_the_same_bridge_keeps_the_unchanged_heavy_tab_in_firefox(
        ff: FirefoxEnv, closer, monkeypatch: pytest.MonkeyPatch):
    # The background script keeps, by revision, the tabs the bridge still holds (issue 35): the
    # heavy tab unchanged while the link was away is not sent again, the navigated one is, the
    # closed one goes.
    core = ff.bridge.core
    monkeypatch.setattr(core.link_timers.config.server, "reconnect_grace_s", 120)
    closing = await ff.open("basic.html?resync=closing")
    closer.append(closing)
    heavy = await ff.open("heavy.html?tab=firefox-resync&together")
    closer.append(heavy)
    changing = await ff.open("basic.html?resync=before")
    closer.append(changing)

    def tab(url_end: str) -> Any:
        return next((t for t in core.registry.tabs.values() if t.url.endswith(url_end)), None)

    async def bridge_took_all() -> bool:  # every tab's last update in (none left half-sent in the lane)
        link = core.session.current
        held = core.session.revisions.held(link.key) if link is not None else {}
        status = await ff.browser.status()
        # the worker's own sync with this run sent too: only a synced run is named on a reconnect
        return (status["syncedSessionId"] == status["sessionId"] is not None
                and all(held.get(t["tabId"]) == t["revision"] for t in status["tabs"]))

    await eventually(lambda: (h := tab("tab=firefox-resync&together")) is not None and len(h.tools) == 60, 90)
    await eventually(bridge_took_all, 60, interval=0.2)
    heavy_tab = tab("tab=firefox-resync&together").tab_id
    revisions = core.session.revisions
    synced = revisions.synced
    syncs: list[tuple[list[int], list[int]]] = []

    def recorded(key: Any, tabs: Any, kept: Any) -> None:
        tabs, kept = list(tabs), list(kept)
        synced(key, tabs, kept)
        syncs.append(([t.tab_id for t in tabs], [r.tab_id for r in kept]))

    monkeypatch.setattr(revisions, "synced", recorded)
    bridge_url = f"ws://127.0.0.1:{ff.bridge.port}/extension"
    await ff.browser.set_bridge_url(f"ws://127.0.0.1:{_free_port()}/extension", pair=False)  # a dead port
    await eventually(lambda: not core.connected, 10)
    await closing.close()
    await changing.goto(ff.pages_url + "basic.html?resync=after")

    async def background_saw_both() -> bool:
        tabs = (await ff.browser.status())["tabs"]
        return (not any(t["url"].endswith("resync=closing") for t in tabs)
                and any(t["url"].endswith("resync=after") and t["tools"] for t in tabs))

    await eventually(background_saw_both, 20, interval=0.2)
    await ff.browser.set_bridge_url(bridge_url, pair=False)
    await eventually(lambda: tab("resync=after") is not None and tab("resync=before") is None, 30)
    await eventually(lambda: tab("resync=closing") is None, 30)
    assert len(tab("tab=firefox-resync&together").tools) == 60
    [(sent, kept)] = syncs
    assert heavy_tab in kept and heavy_tab not in sent, syncs
    assert tab("resync=after").tab_id in sent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
