/**
 * Native layering: where the browser has WebMCP, our tools are registered with the browser (which
 * decides), the page's execute is wrapped to record what it really did, the browser's own tools we
 * did not register are tracked, and `augmentNative` adds only what the browser lacks.
 */

import { NATIVE_HINT_KEYS } from './constants.js';
import { arity, isObjectLike, promiseFrom } from './util.js';
import { nat } from './mode.js';
import { defineEventHandler } from './events.js';
import { checkTool, convertTool } from './convert.js';
import { addClientMethods, addTool, foreign, generation, notify, removeTool, tools } from './registry.js';
import { extensionMethods } from './extensions.js';

/**
 * Registers one of our records with the browser, as the page gave it (our extra fields left out;
 * the page's execute wrapped). The browser decides: its promise is what registerTool returns, and
 * a refusal takes our record out again.
 * @param {ToolRecord} rec @param {ReturnType<typeof convertTool>} prep @returns {Promise<undefined>}
 */
function registerWithBrowser(rec, prep) {
  const { dict } = prep;
  /** @type {any} */
  const def = {};
  if (dict.annotations) {
    def.annotations = {};
    for (const k of NATIVE_HINT_KEYS) if (k in dict.annotations) def.annotations[k] = dict.annotations[k];
  }
  def.description = dict.description;
  def.execute = wrapExecute(rec);
  if (prep.schemaJSON !== undefined) def.inputSchema = JSON.parse(prep.schemaJSON);
  def.name = dict.name;
  if (dict.title !== undefined) def.title = dict.title;
  /** @type {any} */
  const natOptions = { signal: rec.signal };
  if (rec.exposedTo.length) natOptions.exposedTo = rec.exposedTo.slice();
  const p = promiseFrom(() => nat.registerTool.call(nat.mc, def, natOptions));
  p.then(undefined, () => removeTool(rec));
  return p;
}

/** @type {Array<{name: string, key: string, taken: boolean, outcome: Outcome|null}>} pending hook calls (native mode) */
const captures = [];
/**
 * Native mode: the execute we hand the browser. Adds requestUserInteraction to the client and
 * records what the page's function really did, for the hook (the browser drops the message).
 * @param {ToolRecord} rec
 */
function wrapExecute(rec) {
  const original = rec.execute;
  return /** @this {any} */ function execute(/** @type {any} */ input, /** @type {any} */ client) {
    addClientMethods(client);
    const cap = takeCapture(rec.name, input);
    let result;
    try {
      result = original.call(this, input, client);
    } catch (e) {
      if (cap) cap.outcome = { status: 'threw', error: e };
      throw e;
    }
    if (!cap) return result;
    if (!isObjectLike(result) || typeof (/** @type {any} */ (result)).then !== 'function') {
      cap.outcome = { status: 'ok', value: result };
      return result;
    }
    return Promise.resolve(result).then(
      (value) => {
        cap.outcome = { status: 'ok', value };
        return value;
      },
      (error) => {
        cap.outcome = { status: 'threw', error };
        throw error;
      });
  };
}

/** @param {string} name @param {any} input */
function takeCapture(name, input) {
  if (captures.length === 0) return null;
  let key;
  try { key = JSON.stringify(input); } catch (_) { return null; }
  const cap = captures.find((c) => c.name === name && c.key === key && !c.taken);
  if (cap) cap.taken = true;
  return cap || null;
}

/**
 * Chromium's getTools() also lists the tools of same-origin frames of the page; each carries the
 * window that registered it: `window` up to Chrome 159, `source` from Chrome 160 (where a
 * `Tool` is an opaque object: its properties are read one by one, never spread or serialised).
 * This document answers only for its own.
 * @param {any} t
 */
const ownTool = (t) => {
  const from = 'source' in t ? t.source : 'window' in t ? t.window : null;
  return from === null || from === undefined || from === globalThis.window;
};

/**
 * Native mode: the browser's tools that we did not register ourselves (registered before we
 * loaded, or behind our back). Fetched again if our registry changed while the browser answered,
 * so that a tool we just removed is never mistaken for a foreign one.
 * @returns {Promise<Map<string, any>|null>} null when the browser's list is unavailable
 */
async function fetchForeign() {
  if (!nat) return new Map();
  for (let attempt = 0; attempt < 8; attempt++) {
    const gen = generation;
    let list;
    try {
      list = await nat.getTools.call(nat.mc);
    } catch (_) {
      return null;
    }
    if (!Array.isArray(list)) return null;
    if (gen !== generation) continue;
    const found = new Map();
    for (const t of list) if (t && typeof t.name === 'string' && ownTool(t) && !tools.has(t.name)) found.set(t.name, t);
    return found;
  }
  return null;
}

let foreignTicket = 0;
/** Native mode: updates the cached foreign tools (list() and name checks use it). */
async function refreshForeign() {
  if (!nat) return;
  const ticket = ++foreignTicket;
  const next = await fetchForeign();
  if (!next || ticket !== foreignTicket) return; // a newer refresh will apply its own answer
  const before = Array.from(foreign.keys()).sort().join('\n');
  const after = Array.from(next.keys()).sort().join('\n');
  foreign.clear();
  for (const [k, v] of next) foreign.set(k, v);
  if (before !== after) notify();
}

/** @param {any} mc */
function augmentNative(mc) {
  /** @param {string} key @param {any} value */
  const define = (key, value) =>
    Object.defineProperty(mc, key, { value, writable: true, configurable: true, enumerable: false });
  define('registerTool', function registerTool(/** @type {any} */ tool, options = undefined) {
    const argc = arguments.length;
    return promiseFrom(() => {
      arity('registerTool', argc);
      const prep = convertTool(tool, 'registerTool', options);
      checkTool(prep);
      if (prep.signal && prep.signal.aborted) throw prep.signal.reason;
      return addTool(prep);
    });
  });
  for (const [key, fn] of Object.entries(extensionMethods)) if (!(key in mc)) define(key, fn);
  if (!('onstatechange' in mc)) defineEventHandler(mc, 'statechange');
  mc.addEventListener('toolchange', () => { refreshForeign(); });
  refreshForeign();
}

export { augmentNative, captures, fetchForeign, ownTool, registerWithBrowser };
