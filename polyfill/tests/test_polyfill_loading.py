# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""Loading: idempotency, injection at document_start, globals, insecure pages."""

from __future__ import annotations

from typing import Any

from webmcp_testlib import POLYFILL, script


async def test_loading_twice_changes_nothing(tab: Any) -> None:
    before = await tab.js(script("""
        window.__refs = { mc, legacy, hook, register: mc.registerTool, list: mc.list, proto: Object.getPrototypeOf(mc) };
        await mc.registerTool(tool('first'));
        mc.setStates(['a']);
        return hook.version;
    """))
    # The same file again, then "another copy" (a different version of it).
    await tab.load_polyfill()
    other = POLYFILL.read_text().replace('var VERSION = "', 'var VERSION = "other-copy-')
    assert "other-copy-" in other
    await tab.page.add_script_tag(content=other)
    out = await tab.js(script("""
        const r = window.__refs;
        let changes = 0, navChanges = 0, stateEvents = 0, navStateEvents = 0;
        mc.addEventListener('toolchange', () => changes++);
        legacy.addEventListener('toolchange', () => navChanges++);
        mc.addEventListener('statechange', () => stateEvents++);
        legacy.addEventListener('statechange', () => navStateEvents++);
        await mc.registerTool(tool('second'));
        mc.setStates(['b']);
        await until(() => navChanges >= 1);
        await settle(10);
        return {
          same: [mc === r.mc, legacy === r.legacy, hook === r.hook, mc.registerTool === r.register,
                 mc.list === r.list, Object.getPrototypeOf(mc) === r.proto],
          version: hook.version, names: await names(), states: mc.getStates(),
          changes, navChanges, stateEvents, navStateEvents,
          snapshotTools: (await hook.snapshot()).tools.map((t) => t.name),
        };
    """))
    assert out["same"] == [True] * 6
    assert out["version"] == before and not out["version"].startswith("other-copy-")
    assert out["names"] == ["first", "second"]
    assert out["states"] == ["b"]
    # One registration -> exactly one event on each object: no listener was installed twice.
    assert [out["changes"], out["navChanges"], out["stateEvents"], out["navStateEvents"]] == [1, 1, 1, 1]
    assert out["snapshotTools"] == ["first", "second"]


async def test_injected_at_document_start(bare: Any) -> None:
    """Like the extension's MAIN-world content script: before the DOM exists."""
    await bare.page.add_init_script(path=str(POLYFILL))
    await bare.page.add_init_script(script="""
        window.__early = {
          readyState: document.readyState,
          body: document.body === null,
          hook: !!globalThis[Symbol.for('tabmcp.webmcp')],
          type: typeof document.modelContext.registerTool,
        };
        document.modelContext.registerTool({ name: 'early', description: 'Registered at document_start',
                                             execute: () => 'early result' })
          .then(() => { window.__early.registered = true; }, (e) => { window.__early.error = String(e); });
        document.modelContext.registerCategory({ name: 'early_cat', description: 'c',
                                                 tools: [{ name: 'early.member', description: 'm', execute: () => 'm' }] });
        document.modelContext.setStates(['booting']);
    """)
    await bare.page.goto("/blank.html")
    out = await bare.js(script("""
        await until(() => window.__early.registered);
        return { early: window.__early, native: hook.native, names: await names(), list: mc.list().map((e) => e.name),
                 call: await hook.call('early', {}), states: mc.getStates() };
    """))
    assert out["early"] == {"readyState": "loading", "body": True, "hook": True, "type": "function",
                            "registered": True}
    assert out["native"] is bare.native
    assert out["names"] == ["early", "early.member"]
    assert out["list"] == ["early", "early_cat"]
    assert out["call"] == {"ok": True, "result": {"content": [{"type": "text", "text": "early result"}]}}
    assert out["states"] == ["booting"]


async def test_globals_only_when_absent(bare: Any) -> None:
    out = await bare.js("""async () => {
        const before = { mc: window.ModelContext, activated: window.ToolActivatedEvent };
        class PageOwnCancelEvent extends Event {}
        window.ToolCancelEvent = PageOwnCancelEvent;
        const s = document.createElement('script');
        s.src = '/webmcp-polyfill.js';
        await new Promise((resolve, reject) => { s.onload = resolve; s.onerror = reject; document.head.append(s); });
        const isNative = (f) => /\\[native code\\]/.test(Function.prototype.toString.call(f));
        return {
          cancelKept: window.ToolCancelEvent === PageOwnCancelEvent,
          modelContextKept: before.mc === undefined || window.ModelContext === before.mc,
          activatedKept: before.activated === undefined || window.ToolActivatedEvent === before.activated,
          nativeGlobals: [isNative(window.ModelContext), isNative(window.ToolActivatedEvent)],
          defined: [typeof window.ModelContext, typeof window.ToolActivatedEvent],
        };
    }""")
    assert out["cancelKept"] and out["modelContextKept"] and out["activatedKept"]
    assert out["defined"] == ["function", "function"]
    assert out["nativeGlobals"] == [bare.native, bare.native]


async def test_insecure_page_gets_no_api(bare: Any) -> None:
    """WebMCP is for secure contexts only; the polyfill follows the browser there."""
    await bare.page.route("http://insecure.test/**", lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>insecure</title>"))
    await bare.page.goto("http://insecure.test/page.html")
    await bare.page.add_script_tag(content=POLYFILL.read_text())
    out = await bare.js("""async () => {
        const hook = globalThis[Symbol.for('tabmcp.webmcp')];
        return { secure: isSecureContext, doc: 'modelContext' in document, nav: 'modelContext' in navigator,
                 native: hook.native, snapshot: await hook.snapshot(), call: await hook.call('anything', {}) };
    }""")
    assert out["secure"] is False
    assert out["doc"] is False and out["nav"] is False
    assert out["native"] is False
    assert out["snapshot"] == {"tools": [], "categories": [], "states": []}
    assert out["call"]["ok"] is False and out["call"]["error"]["code"] == "TOOL_NOT_FOUND"
