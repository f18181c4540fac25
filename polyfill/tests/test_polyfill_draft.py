# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""The imperative API as the WebMCP draft defines it, where it goes beyond Chromium 156.

Schema subset at registration, input validation before ``execute``, events on the window too,
abort right after ``executeTool()``, a tool unregistering itself, same-origin frames in
``getTools()``, ``exposedTo``, the ``tools`` Permissions Policy.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from webmcp_testlib import script

EXCLUDED = {
    "ref": {"type": "object", "properties": {"x": {"$ref": "#/foo"}}},
    "defs": {"type": "object", "$defs": {}},
    "format": {"type": "object", "properties": {"x": {"type": "string", "format": "email"}}},
    "additionalTrue": {"type": "object", "additionalProperties": True},
    "additionalSchema": {"type": "object", "additionalProperties": {"type": "string"}},
    "unevaluated": {"type": "object", "unevaluatedProperties": False},
    "dependentRequired": {"type": "object", "dependentRequired": {"x": ["y"]}},
    "contentEncoding": {"type": "object", "properties": {"x": {"type": "string", "contentEncoding": "base64"}}},
    "badPattern": {"type": "string", "pattern": "["},
    "nestedInAnyOf": {"anyOf": [{"type": "string"}, {"$ref": "#"}]},
}


async def test_by_default_schemas_are_accepted_as_chromium_accepts_them(tab: Any) -> None:
    """Both modes: keywords outside the draft's subset register as the shipping browser registers
    them (with the extension on a native page, a tool never disappears because of our polyfill);
    the browser's own getTools lists every one. In polyfill mode one console warning per keyword;
    natively none (the browser accepts them silently, and so does the page's console with us)."""
    out = await tab.js(script("""
        const out = {};
        for (const [key, inputSchema] of Object.entries(arg)) {
          out[key] = await attempt(() => mc.registerTool(tool('t_' + key, () => 'x', { inputSchema })));
        }
        // checked where the polyfill can: a JS-only pattern, and additionalProperties as a schema
        await mc.registerTool(tool('mail', (i) => 'sent ' + i.to, { inputSchema: { type: 'object',
          properties: { to: { type: 'string', format: 'email', pattern: '^[\\\\w-\\\\.]+@([\\\\w-]+\\\\.)+[\\\\w-]{2,4}$' } },
          additionalProperties: { type: 'string' } } }));
        const mail = await find('mail');
        const err = async (input) => { try { return await mc.executeTool(mail, input); } catch (e) { return [e.name, JSON.parse(e.message).reason]; } };
        out.mailOk = await err({ to: 'ada.l@example.org', note: 'hi' });
        out.mailBadPattern = await err({ to: 'nope' });
        out.mailBadExtra = await err({ to: 'ada@example.org', note: 3 });
        out.registered = await names();
        out.native = await nativeGetTools();
        return out;
    """), EXCLUDED)
    for key in EXCLUDED:
        assert out[key] == ["ok", None], (key, out[key])
    assert sorted(out["registered"]) == sorted(["mail", *("t_" + k for k in EXCLUDED)])
    if tab.native:
        assert sorted(out["native"]) == sorted(out["registered"])
    assert out["mailOk"] == "sent ada.l@example.org"
    if not tab.native:  # natively, executeTool is the browser's own (Chromium 156 checks no pattern)
        assert out["mailBadPattern"] == ["DataError", "pattern"]
        assert out["mailBadExtra"] == ["DataError", "type"]
    warnings = [text for kind, text in tab.console if kind == "warning" and "input schema" in text]
    if tab.native:
        assert warnings == []
        return
    for keyword in ("'$ref'", "'$defs'", "'format'", "'additionalProperties'", "'unevaluatedProperties'",
                    "'dependentRequired'", "'contentEncoding'", "'pattern'"):
        assert sum(keyword in w for w in warnings) == 1, (keyword, warnings)
    assert all("strictSchemas" in w for w in warnings)


async def test_strict_schemas_refuse_the_excluded_keywords(tab: Any) -> None:
    """Both modes, strict schemas on (the draft's rules, opt-in): registerTool checks the subset
    before the browser sees the tool."""
    out = await tab.js(script("""
        globalThis.webmcpPolyfillOptions = { strictSchemas: true };
        const out = {};
        for (const [key, inputSchema] of Object.entries(arg)) {
          out[key] = await attempt(() => mc.registerTool(tool('t_' + key, () => 'x', { inputSchema })));
        }
        out.registered = await names();
        // Draft-04 forms real servers still send register fine.
        out.draft04 = await attempt(() => mc.registerTool(tool('pay', () => 'paid', { inputSchema: {
          $schema: 'http://json-schema.org/draft-04/schema#', type: 'object',
          properties: { amount: { type: 'number', minimum: 0, exclusiveMinimum: true }, note: { type: 'string' } },
          required: ['amount'], additionalProperties: false } })));
        return out;
    """), EXCLUDED)
    for key in EXCLUDED:
        assert out[key][:2] == ["TypeError", "TypeError"], (key, out[key])
        assert "invalid input schema" in out[key][2], (key, out[key])
    assert out["registered"] == []
    assert out["draft04"] == ["ok", None]


async def test_input_is_validated_against_the_schema_before_execute(open_page: Any) -> None:
    tab = await open_page("polyfill", "/poly.html")
    out = await tab.js(script("""
        let runs = 0;
        await mc.registerTool(tool('order', (input) => { runs++; return JSON.stringify(input); }, { inputSchema: {
          type: 'object',
          properties: { size: { type: 'string', enum: ['S', 'M'] }, code: { type: 'string', pattern: '^[a-z]+$' },
                        qty: { type: 'integer', minimum: 1 }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['size'], additionalProperties: false } }));
        const t = await find('order');
        const err = async (input, target = t) => {
          try { await mc.executeTool(target, input); return 'resolved'; } catch (e) { return [e.name, JSON.parse(e.message)]; }
        };
        const out = {
          missing: await err({}),
          badEnum: await err({ size: 'XL' }),
          badPattern: await err({ size: 'S', code: 'ABC' }),
          badType: await err({ size: 'S', qty: 1.5 }),
          tooSmall: await err({ size: 'S', qty: 0 }),
          nested: await err({ size: 'S', tags: ['a', 3] }),
          extra: await err({ size: 'S', colour: 'red' }),
          runsAfterErrors: runs,
          ok: await mc.executeTool(t, { size: 'M', qty: 2, tags: ['x'] }),
          hook: await hook.call('order', { size: 'XL' }),
        };
        // Draft-04 boolean exclusiveMinimum: minimum becomes exclusive.
        await mc.registerTool(tool('pay', (i) => 'paid ' + i.amount, { inputSchema: {
          type: 'object', properties: { amount: { type: 'number', minimum: 0, exclusiveMinimum: true } }, required: ['amount'] } }));
        const pay = await find('pay');
        out.payZero = await err({ amount: 0 }, pay);
        out.payHalf = await mc.executeTool(pay, { amount: 0.5 });
        await mc.registerTool(tool('pay04false', (i) => 'ok ' + i.n, { inputSchema: {
          type: 'object', properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: false } } } }));
        out.inclusive = await mc.executeTool(await find('pay04false'), { n: 0 });
        return out;
    """))
    assert out["missing"] == ["DataError", {"path": "/size", "reason": "required", "schemaPath": "/required",
                                            "message": 'Missing required property "size".'}]
    assert out["badEnum"][0] == "DataError" and out["badEnum"][1]["path"] == "/size" and out["badEnum"][1]["reason"] == "enum"
    assert out["badPattern"][1]["reason"] == "pattern" and out["badPattern"][1]["schemaPath"] == "/pattern"
    assert out["badType"][1] == {"path": "/qty", "reason": "type", "schemaPath": "/type", "message": "Expected integer, got number."}
    assert out["tooSmall"][1]["reason"] == "minimum"
    assert out["nested"][1]["path"] == "/tags/1" and out["nested"][1]["reason"] == "type"
    assert out["extra"][1]["path"] == "/colour" and out["extra"][1]["reason"] == "additionalProperties"
    assert out["runsAfterErrors"] == 0
    assert json.loads(out["ok"]) == {"size": "M", "qty": 2, "tags": ["x"]}
    assert out["hook"]["ok"] is False and out["hook"]["error"]["code"] == "INVALID_ARGUMENTS"
    assert '"/size" (enum)' in out["hook"]["error"]["message"]
    assert out["payZero"][1]["reason"] == "exclusiveMinimum"
    assert out["payHalf"] == "paid 0.5"
    assert out["inclusive"] == "ok 0"


async def test_events_on_window_and_abort_right_after_execute_tool(open_page: Any) -> None:
    """toolactivated/toolcancel reach the window and the ModelContext; an abort issued right after
    executeTool() still starts the tool, rejects with the reason, then aborts the tool's signal
    (AbortError) and fires toolcancel. Chromium 156 fires neither event at the window."""
    tab = await open_page("polyfill", "/poly.html")
    out = await tab.js(script("""
        const log = [];
        window.addEventListener('toolactivated', (e) => log.push('window:activated:' + e.toolName + ':' + (e instanceof ToolActivatedEvent)));
        mc.addEventListener('toolactivated', (e) => log.push('mc:activated:' + (e.target === mc)));
        window.addEventListener('toolcancel', (e) => log.push('window:cancel:' + e.toolName + ':' + (e instanceof ToolCancelEvent)));
        mc.addEventListener('toolcancel', () => log.push('mc:cancel'));
        let late;
        await mc.registerTool(tool('hang', (input, client) => {
          log.push('started');
          client.signal.onabort = () => { log.push('signal:' + client.signal.reason.name); late('too late'); };
          return new Promise((r) => { late = r; });
        }));
        const t = await find('hang');
        const ac = new AbortController();
        const running = mc.executeTool(t, {}, { signal: ac.signal });
        ac.abort('stop');
        try { await running; log.push('resolved'); } catch (e) { log.push('rejected:' + e); }
        await until(() => log.includes('mc:cancel'));
        return log;
    """))
    assert out == ["started", "window:activated:hang:true", "mc:activated:true", "rejected:stop",
                   "signal:AbortError", "window:cancel:hang:true", "mc:cancel"]


async def test_a_tool_unregistering_itself_while_it_runs_still_returns(tab: Any) -> None:
    out = await tab.js(script("""
        const ac = new AbortController();
        await mc.registerTool(tool('once', async () => { ac.abort(); return { done: true }; }), { signal: ac.signal });
        const result = await mc.executeTool(await find('once'));
        return { result, left: await names() };
    """))
    assert out == {"result": '{"done":true}', "left": []}


async def test_get_tools_lists_same_origin_frames_and_runs_them_there(tab: Any) -> None:
    """Both modes: the parent sees its same-origin frame's tool (with the frame's window); running it
    fires toolactivated at the frame's ModelContext only. The hook's snapshot stays the page's own."""
    out = await tab.js(script("""
        const frame = document.createElement('iframe');
        frame.src = '/poly.html';
        const loaded = new Promise((r) => { frame.onload = r; });
        document.body.append(frame);
        await loaded;
        const fmc = frame.contentDocument.modelContext;
        await fmc.registerTool({ name: 'in_frame', description: 'A frame tool', execute: () => 'from the frame' });
        await mc.registerTool(tool('in_page'));
        const seen = [];
        mc.addEventListener('toolactivated', (e) => seen.push('parent:' + e.toolName));
        fmc.addEventListener('toolactivated', (e) => seen.push('frame:' + e.toolName));
        const list = await mc.getTools();
        const t = list.find((x) => x.name === 'in_frame');
        const result = await mc.executeTool(t, {});
        const fromFrame = (await fmc.getTools()).map((x) => x.name);
        const snapshot = (await hook.snapshot()).tools.map((x) => x.name);
        return { names: list.map((x) => x.name), frameWindow: t.window === frame.contentWindow,
                 origin: t.origin === location.origin, result, seen, fromFrame, snapshot };
    """))
    assert out["names"] == ["in_frame", "in_page"]
    assert out["frameWindow"] and out["origin"]
    assert out["result"] == "from the frame"
    assert out["seen"] == ["frame:in_frame"]
    assert out["fromFrame"] == ["in_frame", "in_page"]  # the frame sees its parent's tools too
    assert out["snapshot"] == ["in_page"]


async def test_exposed_to_and_from_origins(open_page: Any) -> None:
    tab = await open_page("polyfill", "/poly.html")
    out = await tab.js(script("""
        return {
          insecure: await attempt(() => mc.registerTool(tool('a'), { exposedTo: ['http://example.com'] })),
          notUrl: await attempt(() => mc.registerTool(tool('b'), { exposedTo: ['not an origin'] })),
          notList: await attempt(() => mc.registerTool(tool('c'), { exposedTo: 5 })),
          fine: await attempt(() => mc.registerTool(tool('d'), { exposedTo: ['https://example.com', 'http://localhost:8080'] })),
          fromBad: await attempt(() => mc.getTools({ fromOrigins: ['http://example.com'] })),
          from: (await mc.getTools({ fromOrigins: ['https://example.com'] })).map((t) => t.name),
          names: await names(),
        };
    """))
    assert out["insecure"][:2] == ["DOMException", "SecurityError"]
    assert out["notUrl"][:2] == ["DOMException", "SyntaxError"]
    assert out["notList"][0] == "TypeError"
    assert out["fine"] == ["ok", None]
    assert out["fromBad"][:2] == ["DOMException", "SecurityError"]
    assert out["from"] == ["d"]
    assert out["names"] == ["d"]


@pytest.mark.parametrize("allow", ["tools 'none'", "camera; tools 'none'"])
async def test_tools_permissions_policy_none_blocks_a_frame(open_page: Any, allow: str) -> None:
    tab = await open_page("polyfill", "/poly.html")
    out = await tab.js(script("""
        const make = async (allow) => {
          const frame = document.createElement('iframe');
          if (allow) frame.setAttribute('allow', allow);
          frame.src = '/poly.html';
          const loaded = new Promise((r) => { frame.onload = r; });
          document.body.append(frame);
          await loaded;
          const fmc = frame.contentDocument.modelContext;
          return attempt(() => fmc.registerTool({ name: 'x', description: 'x', execute: () => 1 }));
        };
        return { blocked: await make(arg), allowed: await make(null), top: await attempt(() => mc.registerTool(tool('top'))) };
    """), allow)
    assert out["blocked"][:2] == ["DOMException", "NotAllowedError"]
    assert out["allowed"] == ["ok", None]
    assert out["top"] == ["ok", None]
