# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""The native API as Chrome 160 ships it, layered under our polyfill (issue 29, "track the API").

Chromium here is older, so a stand-in native ``document.modelContext`` is installed before the
polyfill loads, shaped as Chrome's "WebMCP API updates" page says: ``getTools()`` returns opaque
``Tool`` objects addressed by an internal id (``JSON.stringify(tool)`` is ``"{}"``, a spread
copies nothing, ``structuredClone`` throws), the registering ``window`` is called ``source``, empty
fields are ``null``; ``executeTool`` takes the input as an object (Chrome 155); ``registerTool``
returns a promise. The polyfill must read each property, never serialise or spread a ``Tool``.
"""

from __future__ import annotations

from typing import Any

STAND_IN = """() => {
  const data = new WeakMap();   // Tool (and its opaque handle) -> what the page registered
  const registry = new Map();
  class Tool {
    get name() { return data.get(this).name; }
    get title() { return data.get(this).title ?? null; }
    get description() { return data.get(this).description; }
    get inputSchema() { return data.get(this).inputSchema ?? null; }
    get annotations() { return data.get(this).annotations ?? null; }
    get source() { return data.get(this).source; }
  }
  // opaque: no own keys (JSON "{}", spread copies nothing); a Proxy cannot be structured-cloned
  const opaque = (d) => {
    const t = new Tool();
    data.set(t, d);
    const handle = new Proxy(t, { ownKeys: () => [], getOwnPropertyDescriptor: () => undefined,
                                  get: (target, key) => Reflect.get(target, key, target) });
    data.set(handle, d);
    return handle;
  };
  class ModelContext extends EventTarget {
    registerTool(dict, options = {}) {
      if (registry.has(dict.name)) return Promise.reject(new DOMException('Duplicate tool name', 'InvalidStateError'));
      const d = { name: String(dict.name), title: dict.title || null, description: String(dict.description),
                  inputSchema: dict.inputSchema === undefined ? null : JSON.stringify(dict.inputSchema),
                  annotations: dict.annotations || null, execute: dict.execute, source: options.__source || window };
      registry.set(d.name, d);
      if (options.signal) options.signal.addEventListener('abort', () => registry.delete(d.name), { once: true });
      return Promise.resolve(undefined);
    }
    async getTools() { return Array.from(registry.values(), opaque); }
    async executeTool(tool, input, options = {}) {
      const d = data.get(tool);
      if (!d || registry.get(d.name) !== d) throw new DOMException('No such tool', 'NotFoundError');
      if (input === null || typeof input !== 'object') throw new TypeError('executeTool takes the input as an object (Chrome 155)');
      const value = await d.execute(input, {});
      return value === undefined ? null : JSON.stringify(value);
    }
  }
  const mc = new ModelContext();
  Object.defineProperty(Document.prototype, 'modelContext', { configurable: true, get: () => mc });
  // registered before the polyfill loads: one by this window, one by another frame's window
  mc.registerTool({ name: 'early', description: 'Registered natively before the polyfill.',
                    inputSchema: { type: 'object', properties: { when: { type: 'string' } } }, execute: () => 'early ok' });
  mc.registerTool({ name: 'framed', description: 'A same-origin frame\\'s tool.', execute: () => 'framed' },
                  { __source: { fake: 'another window' } });
  return true;
}"""


async def test_the_160_shaped_native_api_under_the_polyfill(open_page: Any) -> None:
    tab = await open_page("polyfill", "/blank.html")
    assert await tab.js(STAND_IN)
    await tab.load_polyfill()
    out = await tab.js("""async () => {
      const mc = document.modelContext;
      const hook = globalThis[Symbol.for('tabmcp.webmcp')];
      const probe = (await mc.getTools())[0];
      const shape = { json: JSON.stringify(probe), spread: Object.keys({ ...probe }).length,
                      clone: (() => { try { structuredClone(probe); return 'cloned'; } catch (e) { return e.name; } })() };
      await mc.registerTool({ name: 'late', description: 'Registered through the polyfill.',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        execute: ({ q }) => 'late ' + q });
      const snap = await hook.snapshot();
      return {
        native: hook.native, shape,
        snapshot: snap.tools.map((t) => [t.name, t.description, t.title, JSON.stringify(t.inputSchema), JSON.stringify(t.annotations)]),
        late: await hook.call('late', { q: 'x' }),
        early: await hook.call('early', {}),
        framed: await hook.call('framed', {}),
      };
    }""")
    assert out["native"] is True
    assert out["shape"] == {"json": "{}", "spread": 0, "clone": "DataCloneError"}  # the stand-in is as opaque as 160's
    # the frame's tool is not this document's; every other tool is read property by property
    assert out["snapshot"] == [
        ["early", "Registered natively before the polyfill.", "", '{"type":"object","properties":{"when":{"type":"string"}}}', "{}"],
        ["late", "Registered through the polyfill.", "",
         '{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}', "{}"],
    ]
    assert out["late"]["ok"] is True and out["late"]["result"]["content"][0]["text"] == "late x"
    assert out["early"]["ok"] is True and "early ok" in out["early"]["result"]["content"][0]["text"]
    assert out["framed"]["ok"] is False and out["framed"]["error"]["code"] == "TOOL_NOT_FOUND"
    assert tab.page_errors == []
