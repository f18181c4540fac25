# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""The deprecated alias on navigator.modelContext (the older WebMCP shape)."""

from __future__ import annotations

from typing import Any

from webmcp_testlib import script


async def test_alias_shares_the_registry(tab: Any) -> None:
    out = await tab.js(script("""
        const handle = legacy.registerTool(tool('old_style', (args) => 'old ' + args.x));
        const keys = Object.keys(handle);
        const visibleOnDocument = await names();
        await mc.registerTool(tool('new_style'));
        const legacyList = legacy.list().map((e) => e.name);
        handle.unregister();
        const afterUnregister = await names();
        legacy.unregisterTool('new_style');  // a tool registered on document.modelContext
        const afterUnregisterTool = await names();
        legacy.unregisterTool('never_registered');  // unknown names are ignored
        await settle();
        return { keys, visibleOnDocument, legacyList, afterUnregister, afterUnregisterTool,
                 native: await nativeGetTools(), stable: legacy === navigator.modelContext };
    """))
    assert out["keys"] == ["unregister"]
    assert out["visibleOnDocument"] == ["old_style"]
    assert out["legacyList"] == ["new_style", "old_style"]
    assert out["afterUnregister"] == ["new_style"]
    assert out["afterUnregisterTool"] == []
    assert out["stable"] is True  # the same alias object every time
    if tab.native:
        assert out["native"] == []


async def test_alias_warns_once(tab: Any) -> None:
    await tab.js(script("""
        legacy.list(); legacy.registerTool(tool('a')); legacy.unregisterTool('a'); legacy.getStates();
        await legacy.executeTool('missing', {}).catch(() => {});
    """))
    warnings = [text for kind, text in tab.console if kind == "warning" and "deprecated" in text]
    assert len(warnings) == 1
    assert "navigator.modelContext is deprecated" in warnings[0]
    assert "document.modelContext" in warnings[0]


async def test_alias_execute_tool_call_tool_result(tab: Any) -> None:
    out = await tab.js(script("""
        const defs = {
          text: () => 'plain text',
          object: (a) => ({ sum: a.x + 1, nested: { ok: true } }),
          array: () => [1, 2, 3],
          number: () => 7,
          nothing: () => undefined,
          passthrough: () => ({ content: [{ type: 'text', text: 'mine' }, { type: 'image', data: 'AA==', mimeType: 'image/png' }],
                                structuredContent: { v: 1 }, isError: false }),
          passthroughError: async () => ({ content: [{ type: 'text', text: 'handled failure' }], isError: true }),
          throws: () => { throw new Error('the real reason'); },
          rejects: async () => { throw new RangeError('async reason'); },
          throwsString: () => { throw 'just a string'; },
        };
        for (const [name, execute] of Object.entries(defs)) legacy.registerTool(tool(name, execute));
        const out = {};
        for (const name of Object.keys(defs)) out[name] = await legacy.executeTool(name, { x: 41 });
        out.missing = await attempt(() => legacy.executeTool('missing', {}));
        out.badArgs = await attempt(() => legacy.executeTool('text', 'not an object'));
        out.aborted = await attempt(() => legacy.executeTool('text', {}, { signal: AbortSignal.abort() }));
        return out;
    """))
    assert out["text"] == {"content": [{"type": "text", "text": "plain text"}]}
    assert out["object"] == {
        "content": [{"type": "text", "text": '{"sum":42,"nested":{"ok":true}}'}],
        "structuredContent": {"sum": 42, "nested": {"ok": True}},
    }
    assert out["array"] == {"content": [{"type": "text", "text": "[1,2,3]"}]}  # no structuredContent
    assert out["number"] == {"content": [{"type": "text", "text": "7"}]}
    assert out["nothing"] == {"content": []}
    assert out["passthrough"] == {
        "content": [{"type": "text", "text": "mine"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}],
        "structuredContent": {"v": 1}, "isError": False,
    }
    assert out["passthroughError"] == {"content": [{"type": "text", "text": "handled failure"}], "isError": True}
    assert out["throws"] == {"isError": True, "content": [{"type": "text", "text": "the real reason"}]}
    assert out["rejects"] == {"isError": True, "content": [{"type": "text", "text": "async reason"}]}
    assert out["throwsString"] == {"isError": True, "content": [{"type": "text", "text": "just a string"}]}
    assert out["missing"][:2] == ["DOMException", "NotFoundError"]
    assert out["badArgs"][0] == "TypeError"
    assert out["aborted"][:2] == ["DOMException", "AbortError"]


async def test_alias_registration_errors_are_synchronous(tab: Any) -> None:
    out = await tab.js(script("""
        legacy.registerTool(tool('taken'));
        return {
          duplicate: attemptSync(() => legacy.registerTool(tool('taken'))),
          badName: attemptSync(() => legacy.registerTool(tool('bad name'))),
          noDescription: attemptSync(() => legacy.registerTool({ name: 'x', execute() {} })),
          badScope: attemptSync(() => legacy.registerTool(tool('x', () => 1, { scope: { dangerLevel: 'huge' } }))),
          names: await names(),
        };
    """))
    assert out["duplicate"] == ["DOMException", "InvalidStateError", "Duplicate tool name"]
    assert out["badName"] == ["DOMException", "InvalidStateError", "Invalid tool name"]
    assert out["noDescription"][0] == "TypeError"
    assert out["badScope"][0] == "TypeError" and "dangerLevel" in out["badScope"][2]
    assert out["names"] == ["taken"]


async def test_alias_provide_and_clear_context(tab: Any) -> None:
    out = await tab.js(script("""
        await mc.registerTool(tool('kept'));
        legacy.provideContext({ tools: [tool('p1'), tool('p2')] });
        const first = await names();
        legacy.provideContext({ tools: [tool('p2'), tool('p3')] });  // replaces the previous set
        const second = await names();
        const clash = attemptSync(() => legacy.provideContext({ tools: [tool('kept')] }));
        const afterClash = await names();
        await mc.registerCategory({ name: 'cat', description: 'c', tools: [tool('member')] });
        legacy.clearContext();
        await settle();
        return { first, second, clash, afterClash, cleared: await names(), categories: mc.getCategories(),
                 native: await nativeGetTools() };
    """))
    assert out["first"] == ["kept", "p1", "p2"]
    assert out["second"] == ["kept", "p2", "p3"]
    assert out["clash"] == ["DOMException", "InvalidStateError", "Duplicate tool name"]
    assert out["afterClash"] == ["kept", "p2", "p3"]  # a failed provideContext changes nothing
    assert out["cleared"] == []
    assert out["categories"] == []
    if tab.native:
        assert out["native"] == []


async def test_alias_left_alone_when_present(bare: Any) -> None:
    out = await bare.js("""async () => {
        const mine = { mine: true };
        Object.defineProperty(Navigator.prototype, 'modelContext', { get: () => mine, configurable: true });
        const s = document.createElement('script');
        s.src = '/webmcp-polyfill.js';
        await new Promise((resolve, reject) => { s.onload = resolve; s.onerror = reject; document.head.append(s); });
        return { same: navigator.modelContext === mine, hook: !!globalThis[Symbol.for('tabmcp.webmcp')],
                 doc: typeof document.modelContext.registerCategory };
    }""")
    assert out == {"same": True, "hook": True, "doc": "function"}
