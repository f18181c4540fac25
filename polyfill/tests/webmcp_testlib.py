# ruff: noqa: E501  (the test bodies are JavaScript, kept dense on purpose)
"""JavaScript helpers shared by the polyfill tests.

``script(body)`` wraps a test body in an async arrow function with a few helpers in scope:

* ``mc``: ``document.modelContext``; ``legacy``: ``navigator.modelContext``;
  ``hook``: ``globalThis[Symbol.for('tabmcp.webmcp')]``
* ``settle(ms)``: wait a task (lets the browser's asynchronous events arrive);
  ``until(cond, ms)``: poll cond() until it is true (or ms pass)
* ``attempt(fn)`` / ``attemptSync(fn)``: ``['ok', value]`` or ``[constructorName, name, message]``
* ``tool(name, execute?, extra?)``: a tool definition; ``find(name)``, ``names()``: via getTools()
* ``nativeGetTools()``: the browser's own getTools (bypasses anything on the instance), or null
"""

from __future__ import annotations

from pathlib import Path

POLYFILL = Path(__file__).resolve().parents[2] / "polyfill" / "webmcp-polyfill.js"

PRELUDE = r"""
const mc = document.modelContext;
const legacy = navigator.modelContext;
const hook = globalThis[Symbol.for('tabmcp.webmcp')];
const settle = (ms = 0) => new Promise((r) => setTimeout(r, ms));
const until = async (cond, ms = 3000) => {  // polls cond() until true or ms pass; returns its last value
  const end = performance.now() + ms;
  while (!cond() && performance.now() < end) await settle(5);
  return cond();
};
const describe = (e) => [e && e.constructor ? e.constructor.name : typeof e, e && e.name, e && e.message];
const attempt = async (f) => {
  try { const v = await f(); return ['ok', v === undefined ? null : v]; } catch (e) { return describe(e); }
};
const attemptSync = (f) => {
  try { const v = f(); return ['ok', v === undefined ? null : v]; } catch (e) { return describe(e); }
};
const tool = (name, execute = () => 'ok', extra = {}) => ({ name, description: 'Tool ' + name, execute, ...extra });
const find = async (name) => (await mc.getTools()).find((t) => t.name === name);
const names = async () => (await mc.getTools()).map((t) => t.name);
const nativeProto = typeof ModelContext === 'function'
  && /\[native code\]/.test(Function.prototype.toString.call(ModelContext)) ? ModelContext.prototype : null;
const nativeGetTools = async () => nativeProto ? (await nativeProto.getTools.call(mc)).map((t) => t.name) : null;
"""


def script(body: str) -> str:
    """An async function expression for ``page.evaluate`` running body after the prelude."""
    return "async (arg) => {\n" + PRELUDE + "\n" + body + "\n}"
