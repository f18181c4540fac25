# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""The standard WebMCP surface on document.modelContext, with and without the browser's own.

Most tests run twice (``mode``): in plain Chromium, where the polyfill provides everything, and in
Chromium with ``--enable-features=WebMCP``, where the polyfill layers on the native object. The
``*_match_native`` tests run one script in three configurations (native alone, native + polyfill,
polyfill alone) and require identical results: that is how "a page behaves the same with and
without native" is checked.
"""

from __future__ import annotations

import asyncio
from typing import Any

from webmcp_testlib import script

INVALID_STATE = "InvalidStateError"
UNKNOWN_INVOCATION = (
    "Tool was executed but the invocation failed. For example, the script function threw an error"
)
UNKNOWN_TRANSIENT = "The operation failed for an unknown transient reason (e.g. out of memory)."
REG = "Failed to execute 'registerTool' on 'ModelContext': "
EXE = "Failed to execute 'executeTool' on 'ModelContext': "


async def run_in_three_configurations(open_page: Any, body: str) -> dict[tuple[str, bool], Any]:
    """Runs body natively without the polyfill, natively with it, and with the polyfill alone."""
    configs = (("native", False), ("native", True), ("polyfill", True))

    # Open every page first: opening a page pauses the other pages of its browser for a moment.
    tabs = [await open_page(mode) for mode, _load in configs]
    for tab, (_mode, load) in zip(tabs, configs, strict=True):
        if load:
            await tab.load_polyfill()
    values = await asyncio.gather(*(tab.js(script(body)) for tab in tabs))
    return dict(zip(configs, values, strict=True))


async def test_installs_standard_surface(tab: Any) -> None:
    info = await tab.js(script("""
        const proto = Object.getPrototypeOf(mc);
        return {
          isModelContext: mc instanceof ModelContext,
          isEventTarget: mc instanceof EventTarget,
          tag: Object.prototype.toString.call(mc),
          same: document.modelContext === document.modelContext,
          methods: ['registerTool', 'getTools', 'executeTool'].map((m) => typeof mc[m]),
          handlers: ['ontoolchange', 'ontoolactivated', 'ontoolcancel'].map((k) => k in mc && mc[k] === null),
          globals: ['ModelContext', 'ToolActivatedEvent', 'ToolCancelEvent'].map((g) => typeof globalThis[g]),
          enumerableGlobal: Object.keys(window).includes('ModelContext'),
          illegal: attemptSync(() => new ModelContext()),
          lengths: [mc.registerTool.length, mc.getTools.length, mc.executeTool.length],
          protoIsNative: /\\[native code\\]/.test(Function.prototype.toString.call(proto.constructor)),
          ownRegister: Object.prototype.hasOwnProperty.call(mc, 'registerTool'),
          event: (() => { const e = new ToolActivatedEvent('toolactivated', {toolName: 'x'});
                          return [e instanceof Event, e.type, e.toolName, new ToolCancelEvent('toolcancel').toolName]; })(),
        };
    """))
    assert info["isModelContext"] and info["isEventTarget"] and info["same"]
    assert info["tag"] == "[object ModelContext]"
    assert info["methods"] == ["function"] * 3
    assert info["handlers"] == [True] * 3
    assert info["globals"] == ["function"] * 3
    assert info["enumerableGlobal"] is False
    assert info["illegal"][0] == "TypeError" and "Illegal constructor" in info["illegal"][2]
    assert info["lengths"] == [1, 0, 1]
    assert info["event"] == [True, "toolactivated", "x", ""]
    # Native present: the browser's object is kept (not replaced); only registerTool is wrapped.
    assert info["protoIsNative"] is tab.native
    assert info["ownRegister"] is tab.native


async def test_register_and_unregister_by_signal(tab: Any) -> None:
    out = await tab.js(script("""
        let changes = 0;
        mc.addEventListener('toolchange', () => changes++);
        const ac = new AbortController();
        const result = await mc.registerTool(tool('alpha'), { signal: ac.signal });
        const afterRegister = await names();
        await settle();
        const changesAfterRegister = changes;
        ac.abort();
        const afterAbort = await names();
        await settle();
        const changesAfterAbort = changes;
        const again = await attempt(() => mc.registerTool(tool('alpha')));
        const shared = new AbortController();
        await mc.registerTool(tool('s1'), { signal: shared.signal });
        await mc.registerTool(tool('s2'), { signal: shared.signal });
        const beforeShared = await names();
        shared.abort();
        const afterShared = await names();
        shared.abort(); // aborting again changes nothing
        await settle();
        return { result: result === undefined, afterRegister, changesAfterRegister, afterAbort, changesAfterAbort,
                 again, beforeShared, afterShared, total: changes, native: await nativeGetTools() };
    """))
    assert out["result"] is True
    assert out["afterRegister"] == ["alpha"]
    assert out["changesAfterRegister"] == 1
    assert out["afterAbort"] == []  # unregistered synchronously by abort()
    assert out["changesAfterAbort"] == 2
    assert out["again"] == ["ok", None]  # the name is free again
    assert out["beforeShared"] == ["alpha", "s1", "s2"]
    assert out["afterShared"] == ["alpha"]
    assert out["total"] == 7  # 4 registrations + 3 removals, one event each
    if tab.native:  # really registered with the browser
        assert out["native"] == ["alpha"]
    # The deprecated alias was never used, so it did not warn.
    assert not [text for _kind, text in tab.console if "deprecated" in text]


async def test_get_tools_shape(tab: Any) -> None:
    out = await tab.js(script("""
        await mc.registerTool({ name: 'zeta', description: 'Last', execute() {} });
        await mc.registerTool({
          name: 'Alpha', title: 'The alpha', description: 'First',
          inputSchema: { type: 'object', properties: { q: { type: 'string', default: undefined } }, required: ['q'] },
          annotations: { readOnlyHint: 1, untrustedContentHint: true, destructiveHint: true, openWorldHint: false },
          execute() {},
        });
        await mc.registerTool({ name: 'mid_1.x-y', description: 'Mid', annotations: null, execute() {} });
        const a = await mc.getTools();
        const b = await mc.getTools();
        return {
          list: a.map((t) => ({ ...t, window: t.window === window, origin: t.origin === location.origin })),
          keys: a.map((t) => Object.keys(t)),
          plain: a.every((t) => Object.getPrototypeOf(t) === Object.prototype),
          fresh: a[0] !== b[0] && a[0].inputSchema !== b[0].inputSchema,
        };
    """))
    assert out["list"] == [
        {
            "annotations": {"consequentialHint": False, "debugging": False, "readOnlyHint": True,
                            "untrustedContentHint": True},
            "description": "First",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
            "name": "Alpha",
            "origin": True,
            "title": "The alpha",
            "window": True,
        },
        {
            "annotations": {"consequentialHint": False, "debugging": False, "readOnlyHint": False,
                            "untrustedContentHint": False},
            "description": "Mid", "name": "mid_1.x-y", "origin": True, "title": "", "window": True,
        },
        {"description": "Last", "name": "zeta", "origin": True, "title": "", "window": True},
    ]
    # Sorted by name; optional members are absent (not undefined) when not given.
    assert out["keys"][2] == ["description", "name", "origin", "title", "window"]
    assert out["plain"] is True
    assert out["fresh"] is True


async def test_execute_tool_result_strings(tab: Any) -> None:
    out = await tab.js(script("""
        const returns = {
          str: () => 'plain text', obj: () => ({ a: [1, 2], b: 'x' }), arr: () => [1, 'two'],
          num: () => 42, nan: () => NaN, bool: () => true, nul: () => null, undef: () => undefined,
          big: () => 10n, fn: () => () => 1, date: () => new Date(0), asyncObj: async () => ({ ok: true }),
          thenable: () => ({ then(resolve) { resolve('from thenable'); } }), map: () => new Map([[1, 2]]),
        };
        for (const [name, execute] of Object.entries(returns)) await mc.registerTool(tool(name, execute));
        const results = {};
        for (const name of Object.keys(returns)) results[name] = await mc.executeTool(await find(name), {});
        return results;
    """))
    assert out == {
        "str": "plain text", "obj": '{"a":[1,2],"b":"x"}', "arr": '[1,"two"]', "num": "42", "nan": "NaN",
        "bool": "true", "nul": "null", "undef": "undefined", "big": "10", "fn": "undefined",
        "date": '"1970-01-01T00:00:00.000Z"', "asyncObj": '{"ok":true}', "thenable": "from thenable",
        "map": "{}",
    }


async def test_execute_input_and_client(tab: Any) -> None:
    out = await tab.js(script("""
        const seen = [];
        await mc.registerTool(tool('probe', function (input, client) {
          'use strict';
          seen.push({ input: JSON.parse(JSON.stringify(input)), raw: input, thisUndefined: this === undefined, keys: Object.keys(client),
                      signal: client.signal instanceof AbortSignal && !client.signal.aborted,
                      rui: typeof client.requestUserInteraction, argc: arguments.length });
          if (input.interact) {
            return client.requestUserInteraction(async () => 'user said ' + input.interact);
          }
          return 'done';
        }));
        const t = await find('probe');
        const original = { nested: { n: 1 }, list: [1, 2] };
        await mc.executeTool(t, original);
        const mutatedIsolated = (seen[0].raw.nested.n = 5, original.nested.n === 1);
        seen.forEach((s) => delete s.raw);
        await mc.executeTool(t);
        await mc.executeTool(t, [1, 2]);
        const interaction = await mc.executeTool(t, { interact: 'yes' });
        const rui = await attempt(() => {
          let client; mc.registerTool(tool('grab', (i, c) => { client = c; return 'x'; }));
          return find('grab').then((g) => mc.executeTool(g, {})).then(() => client.requestUserInteraction('nope'));
        });
        return { seen, mutatedIsolated, interaction, rui };
    """))
    assert out["seen"][0] == {
        "input": {"nested": {"n": 1}, "list": [1, 2]}, "thisUndefined": True, "keys": ["signal"],
        "signal": True, "rui": "function", "argc": 2,
    }
    assert out["mutatedIsolated"] is True  # execute gets a copy of the input
    assert out["seen"][1]["input"] == {}  # no input -> {}
    assert out["seen"][2]["input"] == [1, 2]
    assert out["interaction"] == "user said yes"  # requestUserInteraction runs the callback
    assert out["rui"][0] == "TypeError"


async def test_events_order_and_tool_name(tab: Any) -> None:
    out = await tab.js(script("""
        const log = [];
        const fromHandler = [];
        mc.addEventListener('toolchange', (e) => log.push('toolchange:' + e.constructor.name));
        mc.addEventListener('toolactivated', (e) =>
          log.push(['toolactivated', e.toolName, e instanceof ToolActivatedEvent, e.bubbles, e.cancelable].join(':')));
        mc.ontoolactivated = (e) => fromHandler.push(e.toolName);
        mc.ontoolchange = () => fromHandler.push('change');
        log.push('register');
        const p = mc.registerTool(tool('ordered', (input) => { log.push('execute'); return 'r'; }));
        log.push('registerTool returned');
        await p;
        log.push('registered');
        const t = await find('ordered');
        const e = mc.executeTool(t, {});
        log.push('executeTool returned');
        await e;
        log.push('executed');
        await settle();
        mc.ontoolactivated = null;
        await mc.executeTool(t, {});
        return { log, fromHandler };
    """))
    assert out["log"] == [
        "register", "registerTool returned", "toolchange:Event", "registered",
        "executeTool returned", "execute", "toolactivated:ordered:true:false:false", "executed",
        "execute", "toolactivated:ordered:true:false:false",
    ]
    assert out["fromHandler"] == ["change", "ordered"]  # the handler was removed by setting null


async def test_error_cases(tab: Any) -> None:
    out = await tab.js(script(ERROR_SCRIPT))
    assert out == EXPECTED_ERRORS


async def test_errors_match_native(open_page: Any) -> None:
    """The same error script gives the same results natively, native + polyfill, and polyfill alone."""
    results = await run_in_three_configurations(open_page, ERROR_SCRIPT)
    truth = results[("native", False)]
    assert truth == EXPECTED_ERRORS  # this Chromium still behaves as the polyfill assumes
    assert results[("native", True)] == truth
    assert results[("polyfill", True)] == truth


async def test_behaviour_matches_native(open_page: Any) -> None:
    results = await run_in_three_configurations(open_page, BEHAVIOUR_SCRIPT)
    truth = results[("native", False)]
    assert "toolcancel:slow:ToolCancelEvent" in truth["log"], truth["log"]  # the scenario really cancelled
    assert results[("native", True)] == truth
    assert results[("polyfill", True)] == truth


async def test_toolcancel_on_abort(tab: Any) -> None:
    out = await tab.js(script("""
        const log = [];
        let clientSignal;
        mc.addEventListener('toolactivated', (e) => log.push('activated:' + e.toolName));
        mc.addEventListener('toolcancel', (e) => log.push(['cancel', e.toolName, e instanceof ToolCancelEvent].join(':')));
        await mc.registerTool(tool('slow', (i, c) => {
          clientSignal = c.signal;
          return new Promise((r) => setTimeout(() => r('late'), 150));
        }));
        const t = await find('slow');
        const ac = new AbortController();
        const running = mc.executeTool(t, {}, { signal: ac.signal });
        await until(() => log.includes('activated:slow'));
        ac.abort();
        log.push('aborted');
        const result = await attempt(() => running);
        log.push('rejected');
        await until(() => log.length >= 4);
        const clientAborted = await until(() => clientSignal.aborted);
        const ac2 = new AbortController();
        const reason = new RangeError('stop now');
        const second = mc.executeTool(t, {}, { signal: ac2.signal });
        await until(() => log.filter((x) => x === 'activated:slow').length === 2);
        ac2.abort(reason);
        const withReason = await attempt(() => second);
        await until(() => log.length >= 6);
        const before = log.length;
        const pre = await attempt(() => mc.executeTool(t, {}, { signal: AbortSignal.abort() }));
        await settle(20);
        const afterPre = log.slice(before);
        const ac3 = new AbortController();
        await mc.registerTool(tool('quick', () => 'fast'));
        await mc.executeTool(await find('quick'), {}, { signal: ac3.signal });
        ac3.abort(); // after completion: no toolcancel
        await settle(20);
        return { log, result, clientAborted, withReason, pre, afterPre, final: log.slice(-1)[0] };
    """))
    assert out["result"] == ["DOMException", "AbortError", "signal is aborted without reason"]
    assert out["log"][:4] == ["activated:slow", "aborted", "rejected", "cancel:slow:true"]
    assert out["clientAborted"] is True  # the client's signal follows
    assert out["withReason"] == ["RangeError", "RangeError", "stop now"]
    assert out["pre"] == ["DOMException", "AbortError", "signal is aborted without reason"]
    assert out["afterPre"] == []  # an already-aborted call neither starts nor cancels
    assert out["final"] == "activated:quick"


# ------------------------------------------------------------------------------------------------
# Shared scripts
# ------------------------------------------------------------------------------------------------

ERROR_SCRIPT = r"""
const out = {};
const ok = () => 'ok';
await mc.registerTool(tool('taken'));
out.duplicate = await attempt(() => mc.registerTool(tool('taken')));
out.badName = await attempt(() => mc.registerTool(tool('has space')));
out.emptyName = await attempt(() => mc.registerTool(tool('')));
out.longName = await attempt(() => mc.registerTool(tool('x'.repeat(129))));
out.maxName = await attempt(() => mc.registerTool(tool('m'.repeat(128))));
out.emptyDescription = await attempt(() => mc.registerTool({ name: 'e', description: '', execute: ok }));
out.missingDescription = await attempt(() => mc.registerTool({ name: 'e', execute: ok }));
out.missingExecute = await attempt(() => mc.registerTool({ name: 'e', description: 'd' }));
out.executeNotFunction = await attempt(() => mc.registerTool({ name: 'e', description: 'd', execute: 5 }));
out.missingName = await attempt(() => mc.registerTool({ description: 'd', execute: ok }));
out.schemaString = await attempt(() => mc.registerTool(tool('e', ok, { inputSchema: 'x' })));
out.schemaNull = await attempt(() => mc.registerTool(tool('e', ok, { inputSchema: null })));
out.schemaFunction = await attempt(() => mc.registerTool(tool('e', ok, { inputSchema() {} })));
out.schemaCycle = await attempt(() => { const s = { type: 'object' }; s.self = s;
                                        return mc.registerTool(tool('e', ok, { inputSchema: s })); });
out.annotationsNumber = await attempt(() => mc.registerTool(tool('e', ok, { annotations: 5 })));
out.notAnObject = await attempt(() => mc.registerTool('x'));
out.nullTool = await attempt(() => mc.registerTool(null));
out.noArguments = await attempt(() => mc.registerTool());
out.optionsNumber = await attempt(() => mc.registerTool(tool('e'), 5));
out.signalNotSignal = await attempt(() => mc.registerTool(tool('e'), { signal: 'no' }));
out.preAborted = await attempt(() => mc.registerTool(tool('e'), { signal: AbortSignal.abort() }));
out.preAbortedReason = await attempt(() => mc.registerTool(tool('e'), { signal: AbortSignal.abort(new RangeError('why')) }));
out.typeBeatsName = await attempt(() => mc.registerTool({ name: 'a b', description: '' }));
out.nameBeatsDuplicate = await attempt(() => mc.registerTool({ name: 'a b', description: '', execute: ok }));
out.duplicateBeatsDescription = await attempt(() => mc.registerTool({ name: 'taken', description: '', execute: ok }));
out.descriptionBeatsAbort = await attempt(() => mc.registerTool({ name: 'e', description: '', execute: ok },
                                                                 { signal: AbortSignal.abort() }));
out.rejectsNotThrows = (() => { try { const p = mc.registerTool('x'); p.catch(() => {}); return p instanceof Promise; }
                                catch (e) { return 'threw'; } })();
await mc.registerTool(tool('throws', () => { throw new Error('page message'); }));
await mc.registerTool(tool('rejects', async () => { throw new TypeError('async page message'); }));
await mc.registerTool(tool('cycle', () => { const o = {}; o.o = o; return o; }));
const t = await find('taken');
out.execByName = await attempt(() => mc.executeTool('taken', {}));
out.execNoArguments = await attempt(() => mc.executeTool());
out.execMissingOrigin = await attempt(() => mc.executeTool({ name: 'taken', description: 'x' }, {}));
out.execMissingWindow = await attempt(() => mc.executeTool({ name: 'taken', description: 'x', origin: 'o' }, {}));
out.execInputNumber = await attempt(() => mc.executeTool(t, 5));
out.execInputNull = await attempt(() => mc.executeTool(t, null));
out.execInputCycle = await attempt(() => { const o = {}; o.o = o; return mc.executeTool(t, o); });
out.execInputFunction = await attempt(() => mc.executeTool(t, () => 1));
out.execInputDate = await attempt(() => mc.executeTool(t, new Date(0)));
out.execOptionsNumber = await attempt(() => mc.executeTool(t, {}, 5));
out.execSignalNotSignal = await attempt(() => mc.executeTool(t, {}, { signal: {} }));
out.execUnknownTool = await attempt(() => mc.executeTool({ ...t, name: 'nope' }, {}));
out.execThrows = await attempt(async () => mc.executeTool(await find('throws'), {}));
out.execRejects = await attempt(async () => mc.executeTool(await find('rejects'), {}));
out.execCycleResult = await attempt(async () => mc.executeTool(await find('cycle'), {}));
out.execPreAborted = await attempt(() => mc.executeTool(t, {}, { signal: AbortSignal.abort() }));
const ac = new AbortController();
await mc.registerTool(tool('gone'), { signal: ac.signal });
const gone = await find('gone');
ac.abort();
out.execUnregistered = await attempt(() => mc.executeTool(gone, {}));
out.registered = await names();
return out;
"""

_CYCLE = ("Converting circular structure to JSON\n    --> starting at object with constructor 'Object'\n"
          "    --- property '{}' closes the circle")

EXPECTED_ERRORS = {
    "duplicate": ["DOMException", INVALID_STATE, "Duplicate tool name"],
    "badName": ["DOMException", INVALID_STATE, "Invalid tool name"],
    "emptyName": ["DOMException", INVALID_STATE, "Invalid tool name"],
    "longName": ["DOMException", INVALID_STATE, "Invalid tool name"],
    "maxName": ["ok", None],
    "emptyDescription": ["DOMException", INVALID_STATE, "Description is required"],
    "missingDescription": ["TypeError", "TypeError", REG + "Failed to read the 'description' property from "
                           "'ModelContextTool': Required member is undefined."],
    "missingExecute": ["TypeError", "TypeError", REG + "Failed to read the 'execute' property from "
                       "'ModelContextTool': Required member is undefined."],
    "executeNotFunction": ["TypeError", "TypeError", REG + "Failed to read the 'execute' property from "
                           "'ModelContextTool': The given value is not a function."],
    "missingName": ["TypeError", "TypeError", REG + "Failed to read the 'name' property from "
                    "'ModelContextTool': Required member is undefined."],
    "schemaString": ["TypeError", "TypeError", REG + "Failed to read the 'inputSchema' property from "
                     "'ModelContextTool': Failed to convert value to 'object'."],
    "schemaNull": ["TypeError", "TypeError", REG + "Failed to read the 'inputSchema' property from "
                   "'ModelContextTool': Failed to convert value to 'object'."],
    "schemaFunction": ["TypeError", "TypeError", REG + "invalid input schema: toJSON() returns undefined"],
    "schemaCycle": ["TypeError", "TypeError", REG + _CYCLE.format("self")],
    "annotationsNumber": ["TypeError", "TypeError", REG + "Failed to read the 'annotations' property from "
                          "'ModelContextTool': The provided value is not of type 'ToolAnnotations'."],
    "notAnObject": ["TypeError", "TypeError", REG + "The provided value is not of type 'ModelContextTool'."],
    "nullTool": ["TypeError", "TypeError", REG + "The provided value is not of type 'ModelContextTool'."],
    "noArguments": ["TypeError", "TypeError", REG + "1 argument required, but only 0 present."],
    "optionsNumber": ["TypeError", "TypeError",
                      REG + "The provided value is not of type 'ModelContextRegisterToolOptions'."],
    "signalNotSignal": ["TypeError", "TypeError", REG + "Failed to read the 'signal' property from "
                        "'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'."],
    "preAborted": ["DOMException", "AbortError", "signal is aborted without reason"],
    "preAbortedReason": ["RangeError", "RangeError", "why"],
    "typeBeatsName": ["TypeError", "TypeError", REG + "Failed to read the 'execute' property from "
                      "'ModelContextTool': Required member is undefined."],
    "nameBeatsDuplicate": ["DOMException", INVALID_STATE, "Invalid tool name"],
    "duplicateBeatsDescription": ["DOMException", INVALID_STATE, "Duplicate tool name"],
    "descriptionBeatsAbort": ["DOMException", INVALID_STATE, "Description is required"],
    "rejectsNotThrows": True,
    "execByName": ["TypeError", "TypeError", EXE + "The provided value is not of type 'RegisteredTool'."],
    "execNoArguments": ["TypeError", "TypeError", EXE + "1 argument required, but only 0 present."],
    "execMissingOrigin": ["TypeError", "TypeError", EXE + "Failed to read the 'origin' property from "
                          "'RegisteredTool': Required member is undefined."],
    "execMissingWindow": ["TypeError", "TypeError", EXE + "Failed to read the 'window' property from "
                          "'RegisteredTool': Required member is undefined."],
    "execInputNumber": ["TypeError", "TypeError", EXE + "invalid input object: value is not an object"],
    "execInputNull": ["TypeError", "TypeError", EXE + "invalid input object: value is not an object"],
    "execInputCycle": ["TypeError", "TypeError", EXE + _CYCLE.format("o")],
    "execInputFunction": ["TypeError", "TypeError", EXE + "invalid input object: toJSON() returns undefined"],
    "execInputDate": ["DOMException", "UnknownError", "Failed to parse input arguments"],
    "execOptionsNumber": ["TypeError", "TypeError", EXE + "The provided value is not of type 'ExecuteToolOptions'."],
    "execSignalNotSignal": ["TypeError", "TypeError", EXE + "Failed to read the 'signal' property from "
                            "'ExecuteToolOptions': Failed to convert value to 'AbortSignal'."],
    "execUnknownTool": ["DOMException", "UnknownError", UNKNOWN_TRANSIENT],
    "execThrows": ["DOMException", "UnknownError", UNKNOWN_INVOCATION],
    "execRejects": ["DOMException", "UnknownError", UNKNOWN_INVOCATION],
    "execCycleResult": ["DOMException", "UnknownError", UNKNOWN_INVOCATION],
    "execPreAborted": ["DOMException", "AbortError", "signal is aborted without reason"],
    "execUnregistered": ["DOMException", "UnknownError", UNKNOWN_TRANSIENT],
    "registered": ["cycle", "m" * 128, "rejects", "taken", "throws"],
}

BEHAVIOUR_SCRIPT = r"""
const log = [];
mc.addEventListener('toolchange', (e) => log.push('toolchange:' + e.constructor.name));
mc.addEventListener('toolactivated', (e) => log.push('toolactivated:' + e.toolName + ':' + e.constructor.name));
mc.addEventListener('toolcancel', (e) => log.push('toolcancel:' + e.toolName + ':' + e.constructor.name));
const seen = {};
const register = async (name, execute, extra) => {
  log.push('register ' + name);
  const p = mc.registerTool(tool(name, execute, extra));
  log.push('returned ' + name);
  const v = await p;
  log.push('resolved ' + name + ' ' + (v === undefined));
};
await register('text', (i, c) => { seen.text = { i, keys: Object.keys(c), t: typeof c.signal }; log.push('execute text'); return 'hello ' + i.who; },
               { title: 'Text', inputSchema: { type: 'object', properties: { who: { type: 'string' } } } });
await register('json', () => ({ list: [1, { deep: true }], n: null }), { annotations: { readOnlyHint: true } });
await register('slow', () => new Promise((r) => setTimeout(() => r('late'), 200)));
await register('sync_throw', () => { throw new Error('x'); });
await settle();
const tools = (await mc.getTools()).map((t) => ({ ...t, origin: typeof t.origin, window: t.window === window }));
const results = {};
for (const name of ['text', 'json', 'sync_throw']) {
  log.push('execute ' + name);
  results[name] = await attempt(async () => mc.executeTool(await find(name), { who: 'web' }));
  log.push('settled ' + name);
}
const ac = new AbortController();
const slow = mc.executeTool(await find('slow'), {}, { signal: ac.signal });
await until(() => log.includes('toolactivated:slow:ToolActivatedEvent'));
ac.abort();
log.push('abort');
results.slow = await attempt(() => slow);
log.push('slow settled');
await until(() => log.includes('toolcancel:slow:ToolCancelEvent'));
const unreg = new AbortController();
await mc.registerTool(tool('temp'), { signal: unreg.signal });
unreg.abort();
log.push('temp aborted');
await settle();
return { log, tools, results, seen, names: await names() };
"""
