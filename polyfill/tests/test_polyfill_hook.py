# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""The internal hook for the extension: globalThis[Symbol.for('tabmcp.webmcp')]."""

from __future__ import annotations

import json
from typing import Any

from webmcp_testlib import script

LIMIT = 1024 * 1024


async def test_hook_shape(tab: Any) -> None:
    out = await tab.js(script("""
        const key = Symbol.for('tabmcp.webmcp');
        const desc = Object.getOwnPropertyDescriptor(globalThis, key);
        const replaced = attemptSync(() => { 'use strict'; globalThis[key] = {}; });
        return {
          keys: Object.keys(hook), frozen: Object.isFrozen(hook),
          types: Object.fromEntries(Object.entries(hook).map(([k, v]) => [k, typeof v])),
          writable: desc.writable, configurable: desc.configurable, enumerable: desc.enumerable,
          replaced: replaced[0], still: globalThis[key] === hook,
          subscribeBad: attemptSync(() => hook.subscribe('nope'))[0],
          forms: Object.keys(hook.forms), formsFrozen: Object.isFrozen(hook.forms),
        };
    """))
    assert out["keys"] == ["version", "native", "snapshot", "call", "subscribe", "forms"]
    assert out["frozen"] is True
    assert out["types"] == {"version": "string", "native": "boolean", "snapshot": "function", "call": "function",
                            "subscribe": "function", "forms": "object"}
    assert out["forms"] == ["schema", "fill", "defaultButton", "isParam"] and out["formsFrozen"] is True
    assert [out["writable"], out["configurable"], out["enumerable"]] == [False, False, False]
    assert out["replaced"] == "TypeError" and out["still"] is True
    assert out["subscribeBad"] == "TypeError"


async def test_snapshot(tab: Any) -> None:
    out = await tab.js(script("""
        await mc.registerTool(tool('search', () => 's', {
          title: 'Search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
          annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: false },
          scope: { routes: ['/shop/*'], dangerLevel: 'safe' } }));
        await mc.registerCategory({ name: 'cart', description: 'Cart', scope: { states: ['logged-in'] },
                                    tools: [tool('cart.add'), tool('cart.clear', () => 1, { annotations: { destructiveHint: true } })] });
        mc.setStates(['logged-in']);
        const snap = await hook.snapshot();
        let cloneable = true;
        try { structuredClone(snap); } catch (e) { cloneable = false; }
        return { snap, cloneable, jsonStable: JSON.stringify(JSON.parse(JSON.stringify(snap))) === JSON.stringify(snap),
                 shared: (await hook.snapshot()).tools[0] === snap.tools[0],
                 frozen: Object.isFrozen(snap.tools[0]) && Object.isFrozen(snap.tools[0].inputSchema) };
    """))
    # an unchanged tool's entry is the same frozen object in every snapshot (built once)
    assert out["cloneable"] and out["jsonStable"] and out["shared"] and out["frozen"]
    empty = {"type": "object", "properties": {}}
    assert out["snap"] == {
        "tools": [
            {"name": "cart.add", "title": "", "description": "Tool cart.add", "inputSchema": empty,
             "annotations": {}, "category": "cart", "scope": None},
            {"name": "cart.clear", "title": "", "description": "Tool cart.clear", "inputSchema": empty,
             "annotations": {"destructiveHint": True}, "category": "cart", "scope": None},
            {"name": "search", "title": "Search", "description": "Tool search",
             "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
             "annotations": {"idempotentHint": False, "openWorldHint": True, "readOnlyHint": True},
             "category": None, "scope": {"routes": ["/shop/*"], "dangerLevel": "safe"}},
        ],
        "categories": [{"name": "cart", "description": "Cart", "tools": ["cart.add", "cart.clear"],
                        "scope": {"states": ["logged-in"]}}],
        "states": ["logged-in"],
    }


async def test_a_tool_s_snapshot_entry_reads_its_schema_once_and_is_not_serialized(tab: Any) -> None:
    # A heavy page's tools (60 of 63 KB each, e2e/pages/heavy.html): building each entry with a JSON
    # round trip cost its schema twice more in the page's renderer (bench hostile --profile-pages).
    out = await tab.js(script("""
        const big = 'Details of what this tool does, at length. '.repeat(1500);
        await mc.registerTool(tool('heavy', () => 1, {
          inputSchema: { type: 'object', properties: { text: { type: 'string', description: big } } },
          scope: { routes: ['/a/*'] } }));
        const { stringify, parse } = JSON;
        const counts = { stringify: 0, parse: 0 };
        JSON.stringify = function (...a) { const t = stringify.apply(this, a); if (typeof t === 'string' && t.length > 50000) counts.stringify++; return t; };
        JSON.parse = function (t, ...a) { if (typeof t === 'string' && t.length > 50000) counts.parse++; return parse.call(this, t, ...a); };
        let snap;
        try { snap = await hook.snapshot(); } finally { Object.assign(JSON, { stringify, parse }); }
        const entry = snap.tools.find((t) => t.name === 'heavy');
        return { counts, frozen: Object.isFrozen(entry.scope) && Object.isFrozen(entry.scope.routes),
                 again: (await hook.snapshot()).tools.find((t) => t.name === 'heavy') === entry,
                 description: entry.inputSchema.properties.text.description === big, scope: entry.scope };
    """))
    assert out["counts"] == {"stringify": 0, "parse": 1}, out["counts"]  # its schema's text, parsed once
    assert out["frozen"] and out["again"] and out["description"] and out["scope"] == {"routes": ["/a/*"]}


async def test_preexisting_native_tools_are_merged(open_page: Any) -> None:
    t = await open_page("native")
    await t.js("""async () => {
        const mc = document.modelContext;
        await mc.registerTool({ name: 'pre', title: 'Before', description: 'Registered before the polyfill',
                                inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
                                annotations: { readOnlyHint: true }, execute: (a) => ({ doubled: a.n * 2 }) });
        await mc.registerTool({ name: 'pre_throw', description: 'Throws', execute: () => { throw new Error('lost'); } });
    }""")
    await t.load_polyfill()
    out = await t.js(script("""
        const snap = await hook.snapshot();
        await until(() => mc.list().some((e) => e.name === 'pre'));
        let notified = 0;
        const off = hook.subscribe(() => notified++);
        // registered behind the polyfill's back, straight on the browser's prototype
        await ModelContext.prototype.registerTool.call(mc, { name: 'late_native', description: 'Late', execute: () => 'late' });
        await until(() => notified > 0);
        off();
        // A foreign tool unregistered by its owner: its name is free at once (no stale cache).
        const owner = new AbortController();
        await ModelContext.prototype.registerTool.call(mc, { name: 'reused', description: 'r', execute: () => 1 },
                                                       { signal: owner.signal });
        await until(() => mc.list().some((e) => e.name === 'reused'));
        owner.abort();
        const reuse = await attempt(() => mc.registerTool(tool('reused')));
        return {
          reuse,
          native: hook.native,
          pre: snap.tools.find((x) => x.name === 'pre'),
          snapNames: snap.tools.map((x) => x.name),
          list: mc.list().map((e) => e.name),
          call: await hook.call('pre', { n: 21 }),
          legacy: await legacy.executeTool('pre', { n: 1 }),
          thrown: await hook.call('pre_throw', {}),
          duplicate: await attempt(() => mc.registerTool(tool('pre'))),
          categoryDuplicate: await attempt(() => mc.registerCategory({ name: 'pre', description: 'd', tools: [] })),
          // the browser rejects the second member; the first must not stay behind
          memberDuplicate: await attempt(() => mc.registerCategory({ name: 'c', description: 'd',
                                                                    tools: [tool('fresh_member'), tool('pre_throw')] })),
          afterRollback: await names(),
          notified,
          lateInSnapshot: (await hook.snapshot()).tools.some((x) => x.name === 'late_native'),
          categories: mc.getCategories(),
        };
    """))
    assert out["native"] is True
    assert out["pre"] == {
        "name": "pre", "title": "Before", "description": "Registered before the polyfill",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "number"}}},
        "annotations": {"consequentialHint": False, "debugging": False, "readOnlyHint": True,
                        "untrustedContentHint": False},
        "category": None, "scope": None,
    }
    assert out["snapNames"] == ["pre", "pre_throw"]
    assert out["list"] == ["late_native", "pre", "pre_throw", "reused"]
    # Native tools run through the browser, which hands back a string.
    assert out["call"] == {"ok": True, "result": {"content": [{"type": "text", "text": '{"doubled":42}'}]}}
    assert out["legacy"] == {"content": [{"type": "text", "text": '{"doubled":2}'}]}
    # For tools the polyfill did not wrap, the page's message cannot be recovered: say so.
    assert out["thrown"]["ok"] is False and out["thrown"]["error"]["code"] == "PAGE_ERROR"
    assert "registered with the browser before the tabmcp polyfill loaded" in out["thrown"]["error"]["message"]
    dup = ["DOMException", "InvalidStateError", "Duplicate tool name"]
    assert out["duplicate"] == dup and out["categoryDuplicate"] == dup and out["memberDuplicate"] == dup
    assert out["categories"] == []
    assert out["afterRollback"] == ["late_native", "pre", "pre_throw", "reused"]  # no "fresh_member"
    assert out["reuse"] == ["ok", None]
    assert out["notified"] >= 1 and out["lateInSnapshot"] is True


async def test_call_error_codes(tab: Any) -> None:
    out = await tab.js(script("""
        await mc.registerTool(tool('ok_tool', (a) => 'ok ' + JSON.stringify(a)));
        await mc.registerTool(tool('throws', () => { throw new TypeError('Cannot read properties of undefined (reading \\'cart\\')'); }));
        await mc.registerTool(tool('rejects', async () => { await settle(); throw new Error('payment declined'); }));
        await mc.registerTool(tool('throws_string', () => { throw 'plain string'; }));
        await mc.registerTool(tool('throws_object', () => { throw { code: 42 }; }));
        await mc.registerTool(tool('slow', () => new Promise((r) => setTimeout(() => r('late'), 300))));
        await mc.registerCategory({ name: 'group', description: 'g', tools: [tool('group.member')] });
        const ac = new AbortController();
        const running = hook.call('slow', {}, { signal: ac.signal });
        await settle(20);
        ac.abort();
        const cycleArgs = {}; cycleArgs.self = cycleArgs;
        const r = {
          notFound: await hook.call('nope', {}),
          category: await hook.call('group', {}),
          argsNumber: await hook.call('ok_tool', 5),
          argsNull: await hook.call('ok_tool', null),
          argsArray: await hook.call('ok_tool', [1]),
          argsCycle: await hook.call('ok_tool', cycleArgs),
          badSignal: await hook.call('ok_tool', {}, { signal: 'x' }),
          argsMissing: await hook.call('ok_tool'),
          throws: await hook.call('throws', {}),
          rejects: await hook.call('rejects', {}),
          throwsString: await hook.call('throws_string', {}),
          throwsObject: await hook.call('throws_object', {}),
          preAborted: await hook.call('ok_tool', {}, { signal: AbortSignal.abort() }),
          aborted: await running,
        };
        // What the page itself sees for the same failure (natively the message is lost).
        const pageView = await attempt(async () => mc.executeTool(await find('throws'), {}));
        return { r, pageView, promise: hook.call('nope') instanceof Promise };
    """))
    r = out["r"]

    def code(key: str) -> str:
        assert r[key]["ok"] is False, key
        assert isinstance(r[key]["error"]["message"], str) and r[key]["error"]["message"], key
        return str(r[key]["error"]["code"])

    assert code("notFound") == "TOOL_NOT_FOUND" and "nope" in r["notFound"]["error"]["message"]
    assert code("category") == "TOOL_NOT_FOUND" and "category" in r["category"]["error"]["message"]
    for key in ("argsNumber", "argsNull", "argsArray", "argsCycle", "badSignal"):
        assert code(key) == "INVALID_ARGUMENTS", key
    assert r["argsMissing"] == {"ok": True, "result": {"content": [{"type": "text", "text": "ok {}"}]}}
    # The page's own message, in both modes (natively the browser would only say "UnknownError").
    assert r["throws"]["error"] == {"code": "PAGE_ERROR",
                                    "message": "Cannot read properties of undefined (reading 'cart')"}
    assert r["rejects"]["error"] == {"code": "PAGE_ERROR", "message": "payment declined"}
    assert r["throwsString"]["error"] == {"code": "PAGE_ERROR", "message": "plain string"}
    assert r["throwsObject"]["error"] == {"code": "PAGE_ERROR", "message": '{"code":42}'}
    assert code("preAborted") == "ABORTED"
    assert code("aborted") == "ABORTED"
    assert out["pageView"] == ["DOMException", "UnknownError",
                               "Tool was executed but the invocation failed. For example, the script function "
                               "threw an error"]
    assert out["promise"] is True


async def test_call_result_conversion(tab: Any) -> None:
    out = await tab.js(script("""
        const defs = {
          text: () => 'hello', object: () => ({ a: 1, b: [true, null] }), array: () => [{ x: 1 }],
          nothing: () => {}, zero: () => 0, date: () => new Date(0),
          passthrough: () => ({ content: [{ type: 'text', text: 'already MCP' }], structuredContent: { k: 'v' } }),
          nan: () => ({ n: NaN }),
        };
        for (const [name, execute] of Object.entries(defs)) await mc.registerTool(tool(name, execute));
        const out = {};
        for (const name of Object.keys(defs)) out[name] = await hook.call(name, {});
        return out;
    """))
    ok = lambda result: {"ok": True, "result": result}  # noqa: E731
    assert out["text"] == ok({"content": [{"type": "text", "text": "hello"}]})
    assert out["object"] == ok({"content": [{"type": "text", "text": '{"a":1,"b":[true,null]}'}],
                                "structuredContent": {"a": 1, "b": [True, None]}})
    assert out["array"] == ok({"content": [{"type": "text", "text": '[{"x":1}]'}]})
    assert out["nothing"] == ok({"content": []})
    assert out["zero"] == ok({"content": [{"type": "text", "text": "0"}]})
    assert out["date"] == ok({"content": [{"type": "text", "text": "1970-01-01T00:00:00.000Z"}]})
    assert out["passthrough"] == ok({"content": [{"type": "text", "text": "already MCP"}],
                                     "structuredContent": {"k": "v"}})
    assert out["nan"] == ok({"content": [{"type": "text", "text": '{"n":null}'}], "structuredContent": {"n": None}})


async def test_call_bad_results(tab: Any) -> None:
    out = await tab.js(script("""
        const defs = {
          cycle: () => { const o = { name: 'root', items: [1] }; o.items.push(o); o.self = o; return o; },
          fn: () => () => 1,
          fnInside: () => ({ keep: 1, callback() {} }),
          big: () => ({ id: 12345678901234567890n }),
          toJSONThrows: () => ({ ok: 1, bad: { toJSON() { throw new Error('no json'); } } }),
          map: () => ({ m: new Map([[1, 2]]) }),
        };
        for (const [name, execute] of Object.entries(defs)) await mc.registerTool(tool(name, execute));
        const out = {};
        for (const name of Object.keys(defs)) out[name] = await hook.call(name, {});
        out.legacyCycle = await legacy.executeTool('cycle', {});
        return out;
    """))
    for name, res in out.items():
        if name == "legacyCycle":
            continue
        assert res["ok"] is False and res["error"]["code"] == "BAD_RESULT", name
        assert res["result"]["content"][-1]["text"].startswith("[tabmcp]"), name  # the note
    cycle = out["cycle"]
    assert "$.items[1] (circular reference)" in cycle["error"]["message"]
    assert "$.self (circular reference)" in cycle["error"]["message"]
    assert cycle["result"]["structuredContent"] == {"name": "root", "items": [1, None]}  # converted what it could
    assert json.loads(cycle["result"]["content"][0]["text"]) == {"name": "root", "items": [1, None]}
    assert "$ (function)" in out["fn"]["error"]["message"]
    assert out["fn"]["result"]["content"][:-1] == []
    assert "$.callback (function)" in out["fnInside"]["error"]["message"]
    assert out["fnInside"]["result"]["structuredContent"] == {"keep": 1}
    assert "$.id (BigInt" in out["big"]["error"]["message"]
    assert out["big"]["result"]["structuredContent"] == {"id": "12345678901234567890"}
    assert "$.bad (toJSON() threw: no json)" in out["toJSONThrows"]["error"]["message"]
    assert "$.m (Map" in out["map"]["error"]["message"]
    legacy = out["legacyCycle"]
    assert legacy["isError"] is True and "circular reference" in legacy["content"][-1]["text"]


async def test_call_truncates_large_results(tab: Any) -> None:
    out = await tab.js(script("""
        await mc.registerTool(tool('huge_text', () => 'é'.repeat(3 * 1024 * 1024)));
        await mc.registerTool(tool('huge_object', () => ({ rows: Array.from({ length: 60000 }, (_, i) => ({ i, pad: 'x'.repeat(20) })) })));
        await mc.registerTool(tool('just_fits', () => 'y'.repeat(1000000)));
        // Fewer characters than the cap, more bytes (3 each): counted in bytes all the same.
        await mc.registerTool(tool('wide_text', () => '€'.repeat(400000)));
        const sizes = {};
        const out = {};
        for (const name of ['huge_text', 'huge_object', 'just_fits', 'wide_text']) {
          const r = await hook.call(name, {});
          sizes[name] = new TextEncoder().encode(JSON.stringify(r.result)).length;
          const content = r.result.content;
          out[name] = { ok: r.ok, blocks: content.length, firstLen: content[0].text.length,
                        prefixOk: content[0].text.startsWith({ huge_text: 'éé', just_fits: 'yy', wide_text: '€€' }[name] || '{"rows":[{"i":0'),
                        note: content.length > 1 ? content[content.length - 1].text : null,
                        structured: 'structuredContent' in r.result, meta: r.result._meta || null };
        }
        return { out, sizes };
    """))
    o, sizes = out["out"], out["sizes"]
    for name in ("huge_text", "huge_object", "wide_text"):
        assert o[name]["ok"] is True
        assert sizes[name] <= LIMIT, name
        assert o[name]["blocks"] == 2 and o[name]["prefixOk"], name
        assert o[name]["note"].startswith("[tabmcp] Result truncated"), name
        assert "1 MB" in o[name]["note"]
        assert o[name]["meta"]["tabmcp/truncated"]["originalBytes"] > LIMIT
        assert o[name]["structured"] is False
    assert "structuredContent was dropped" in o["huge_object"]["note"]
    assert o["huge_text"]["firstLen"] > 400_000  # kept as much as fits (2 bytes per character)
    assert o["just_fits"] == {"ok": True, "blocks": 1, "firstLen": 1_000_000, "prefixOk": True, "note": None,
                              "structured": False, "meta": None}


async def test_call_runs_through_the_browser(tab: Any) -> None:
    """Natively, hook.call goes through the browser's executeTool, so the browser's own events fire."""
    out = await tab.js(script("""
        const events = [];
        mc.addEventListener('toolactivated', (e) => events.push([e.toolName, e.isTrusted]));
        await mc.registerTool(tool('evented', () => 'done'));
        const r = await hook.call('evented', {});
        await until(() => events.length > 0);
        return { r, events };
    """))
    assert out["r"]["ok"] is True
    # Events dispatched by the browser itself are trusted; the polyfill's cannot be.
    assert out["events"] == [["evented", tab.native]]


async def test_concurrent_calls_keep_results_apart(tab: Any) -> None:
    out = await tab.js(script("""
        await mc.registerTool(tool('work', async (a) => {
          await settle(a.delay);
          if (a.fail) throw new Error('failed ' + a.id);
          return { id: a.id };
        }));
        const calls = [
          hook.call('work', { id: 1, delay: 60 }),
          hook.call('work', { id: 2, delay: 5, fail: true }),
          hook.call('work', { id: 3, delay: 30 }),
          hook.call('work', { id: 1, delay: 60 }),
        ];
        return await Promise.all(calls);
    """))
    assert out[0]["result"]["structuredContent"] == {"id": 1}
    assert out[1]["error"] == {"code": "PAGE_ERROR", "message": "failed 2"}
    assert out[2]["result"]["structuredContent"] == {"id": 3}
    assert out[3]["result"]["structuredContent"] == {"id": 1}


async def test_subscribe(tab: Any) -> None:
    out = await tab.js(script("""
        let calls = 0;
        const off = hook.subscribe(() => calls++);
        const counts = {};
        // Changes are announced in a microtask: one macrotask turn later every announcement of a
        // step has run, whatever the machine's speed (no time window involved).
        const step = async (label, fn) => { calls = 0; await fn(); await settle(0); counts[label] = calls; };
        const ac = new AbortController();
        await step('threeRegistrations', async () => {
          mc.registerTool(tool('a'), { signal: ac.signal }); mc.registerTool(tool('b')); mc.registerTool(tool('c'));
        });
        await step('unregister', async () => ac.abort());
        await step('category', async () => mc.registerCategory({ name: 'cat', description: 'd', tools: [tool('m')] }));
        await step('removeCategory', async () => mc.unregisterCategory('cat'));
        await step('states', async () => mc.setStates(['x']));
        await step('sameStates', async () => mc.setStates(['x']));
        await step('legacy', async () => legacy.registerTool(tool('d')));
        await step('execute', async () => hook.call('b', {}));
        off();
        await step('afterUnsubscribe', async () => mc.registerTool(tool('e')));
        return counts;
    """))
    assert out["threeRegistrations"] == 1  # coalesced
    assert out["unregister"] == 1
    assert out["category"] >= 1
    assert out["removeCategory"] >= 1
    assert out["states"] == 1
    assert out["sameStates"] == 0
    assert out["legacy"] == 1
    assert out["execute"] == 0  # running a tool is not a change
    assert out["afterUnsubscribe"] == 0
