/**
 * Polyfill mode: our own `ModelContext` (registerTool, getTools, executeTool, the event handler
 * attributes and our extension methods), installed on `document.modelContext` where the browser has
 * none.
 */

import { G, MSG_TRANSIENT } from './constants.js';
import {
  arity, domError, domString, errorMessage, isObjectLike, macrotask, prefix, promiseFrom,
} from './util.js';
import { inputError } from './schema.js';
import { defineEventHandler } from './events.js';
import { checkTool, convertGetToolsOptions, convertOptions, convertTool } from './convert.js';
import { addTool, tools } from './registry.js';
import { runTool, settleForPage } from './run.js';
import { extensionMethods } from './extensions.js';
import { collectTools, frameContext } from './frames.js';

const CONSTRUCT = Symbol('construct');

class ModelContext extends EventTarget {
  /** @param {symbol} [token] */
  constructor(token) {
    if (token !== CONSTRUCT) throw new TypeError("Failed to construct 'ModelContext': Illegal constructor");
    super();
  }

  /** @param {any} tool @param {any} [options] @returns {Promise<undefined>} */
  registerTool(tool, options = undefined) {
    const argc = arguments.length;
    return promiseFrom(() => {
      arity('registerTool', argc);
      const prep = convertTool(tool, 'registerTool', options);
      checkTool(prep);
      if (prep.signal && prep.signal.aborted) throw prep.signal.reason;
      const { signal } = prep;
      return addTool(prep).then(() => {
        // Aborted before the registration completed (React StrictMode's effect cleanup does so):
        // the browser rejects with the signal's reason, and so do we.
        if (signal && signal.aborted) throw signal.reason;
        return undefined;
      });
    });
  }

  /** @param {any} [options] @returns {Promise<any[]>} */
  getTools(options = undefined) {
    return promiseFrom(() => convertGetToolsOptions(options)).then(() => new Promise((resolve) => {
      // Answered in a later task, like the browser (which asks another process).
      macrotask(() => resolve(collectTools()));
    }));
  }


  /** @param {any} tool @param {any} [input] @param {any} [options] @returns {Promise<string>} */
  executeTool(tool, input = undefined, options = undefined) {
    const argc = arguments.length;
    return promiseFrom(() => {
      const method = 'executeTool';
      const p = prefix(method);
      arity(method, argc);
      const dict = 'RegisteredTool';
      if (!isObjectLike(tool)) throw new TypeError(`${p}The provided value is not of type '${dict}'.`);
      /** @type {Record<string, any>} */
      const read = {};
      for (const key of ['description', 'name', 'origin', 'window']) {
        const v = tool[key];
        if (v === undefined) {
          throw new TypeError(`${p}Failed to read the '${key}' property from '${dict}': Required member is undefined.`);
        }
        read[key] = v;
      }
      const name = domString(read.name);
      const opts = convertOptions(options, method, 'ExecuteToolOptions');
      if (input === undefined) input = {};
      if (!isObjectLike(input)) throw new TypeError(`${p}invalid input object: value is not an object`);
      let json;
      try {
        json = JSON.stringify(input);
      } catch (e) {
        throw new TypeError(p + errorMessage(e));
      }
      if (json === undefined) throw new TypeError(`${p}invalid input object: toJSON() returns undefined`);
      const copy = JSON.parse(json);
      if (!isObjectLike(copy)) throw domError('Failed to parse input arguments', 'UnknownError');
      if (opts.signal && opts.signal.aborted) throw opts.signal.reason;
      if (read.window !== window) {
        // A tool of another document of this origin (a frame, or the parent): run it there,
        // so its events fire at that document's ModelContext.
        const other = frameContext(read.window);
        if (!other) throw domError(MSG_TRANSIENT, 'UnknownError');
        return other.executeTool(tool, copy, options);
      }
      const rec = tools.get(name);
      if (!rec) throw domError(MSG_TRANSIENT, 'UnknownError');
      const invalid = inputError(rec.schemaJSON, copy);
      if (invalid) throw invalid;
      return runTool(rec, copy, opts.signal).then(settleForPage);
    });
  }
}
Object.defineProperty(ModelContext.prototype, Symbol.toStringTag, { value: 'ModelContext', configurable: true });
for (const type of ['toolchange', 'toolactivated', 'toolcancel', 'statechange']) {
  defineEventHandler(ModelContext.prototype, type);
}
for (const [key, fn] of Object.entries(extensionMethods)) {
  Object.defineProperty(ModelContext.prototype, key, { value: fn, writable: true, configurable: true, enumerable: false });
}

/** @param {string} name @param {any} value */
function defineGlobal(name, value) {
  if (name in G) return;
  Object.defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });
}

export { CONSTRUCT, ModelContext, defineGlobal };
