/**
 * The deprecated alias on `navigator.modelContext` (older drafts: registerTool returning
 * `{unregister}`, unregisterTool, list, executeTool by name, provideContext, clearContext).
 */

import { arity, domError, domString, isObjectLike, prefix } from './util.js';
import { defineEventHandler } from './events.js';
import { checkName, checkTool, convertTool } from './convert.js';
import { addTool, categories, nameTaken, tools } from './registry.js';
import { invoke } from './invoke.js';
import { list } from './views.js';
import { extensionMethods } from './extensions.js';

let deprecationWarned = false;
function deprecated() {
  if (deprecationWarned) return;
  deprecationWarned = true;
  console.warn('[tabmcp] navigator.modelContext is deprecated: use document.modelContext ' +
    '(registerTool(tool, {signal}), getTools(), executeTool()) instead.');
}

/** @type {Set<ToolRecord>} tools that came from provideContext() */
const provided = new Set();

/** Synchronous registration for the legacy shapes. @param {any} tool @param {string} method */
function legacyRegister(tool, method) {
  const prep = convertTool(tool, method, undefined, false);
  checkTool(prep);
  const promise = addTool(prep);
  promise.then(undefined, (e) => console.error(`[tabmcp] ${method}(${JSON.stringify(prep.dict.name)}) failed:`, e));
  return /** @type {ToolRecord} */ (tools.get(prep.dict.name));
}

class ModelContextLegacy extends EventTarget {
  /** @param {any} tool @returns {{unregister(): void}} */
  registerTool(tool) {
    deprecated();
    arity('registerTool', arguments.length);
    const rec = legacyRegister(tool, 'registerTool');
    return { unregister: () => rec.controller.abort() };
  }

  /** @param {any} name */
  unregisterTool(name) {
    deprecated();
    arity('unregisterTool', arguments.length);
    const rec = tools.get(domString(name));
    if (rec) rec.controller.abort();
  }

  list() {
    deprecated();
    return list();
  }

  /** @param {any} name @param {any} [args] @param {any} [options] @returns {Promise<CallToolResult>} */
  async executeTool(name, args = undefined, options = undefined) {
    deprecated();
    arity('executeTool', arguments.length);
    const out = await invoke(name, args, options);
    if (out.ok) return out.result;
    switch (out.error.code) {
      case 'TOOL_NOT_FOUND':
        throw domError(out.error.message, 'NotFoundError');
      case 'INVALID_ARGUMENTS':
        throw new TypeError(out.error.message);
      case 'ABORTED':
        throw out.reason !== undefined ? out.reason : domError(out.error.message, 'AbortError');
      case 'BAD_RESULT':
        return { ...(out.result || { content: [] }), isError: true };
      default:
        return { isError: true, content: [{ type: 'text', text: out.error.message }] };
    }
  }

  /** Older drafts: replaces the tools given by the previous provideContext(). @param {any} context */
  provideContext(context = undefined) {
    deprecated();
    const given = context == null ? undefined : context.tools;
    const list = given === undefined ? [] : given;
    if (!isObjectLike(list) || typeof list[Symbol.iterator] !== 'function') {
      throw new TypeError(`${prefix('provideContext')}tools must be an array of tools.`);
    }
    const preps = Array.from(list, (t) => convertTool(t, 'provideContext', undefined, false));
    const replaced = new Set(Array.from(provided, (r) => r.name));
    const seen = new Set();
    for (const prep of preps) {
      checkName(prep.dict.name);
      if (seen.has(prep.dict.name) || (nameTaken(prep.dict.name) && !replaced.has(prep.dict.name))) {
        throw domError('Duplicate tool name', 'InvalidStateError');
      }
      if (prep.dict.description === '') throw domError('Description is required', 'InvalidStateError');
      seen.add(prep.dict.name);
    }
    for (const rec of provided) rec.controller.abort();
    provided.clear();
    for (const prep of preps) {
      addTool(prep).then(undefined, (e) => console.error('[tabmcp] provideContext() failed:', e));
      provided.add(/** @type {ToolRecord} */ (tools.get(prep.dict.name)));
    }
  }

  /** Older drafts: removes every tool and category registered through this page's polyfill. */
  clearContext() {
    deprecated();
    provided.clear();
    for (const cat of Array.from(categories.values())) cat.controller.abort();
    for (const rec of Array.from(tools.values())) rec.controller.abort();
  }
}
Object.defineProperty(ModelContextLegacy.prototype, Symbol.toStringTag, {
  value: 'ModelContextLegacy', configurable: true,
});
for (const [key, fn] of Object.entries(extensionMethods)) {
  if (key === 'list') continue;
  Object.defineProperty(ModelContextLegacy.prototype, key, {
    value: /** @this {any} */ function (/** @type {any[]} */ ...args) {
      deprecated();
      return fn.apply(this, args);
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
}
for (const type of ['toolchange', 'statechange']) defineEventHandler(ModelContextLegacy.prototype, type);

export { ModelContextLegacy };
