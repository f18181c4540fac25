/**
 * Native layering: where the browser has WebMCP, our tools are registered with the browser (which
 * decides), the page's execute is wrapped to record what it really did, the browser's own tools we
 * did not register are tracked, and `augmentNative` adds only what the browser lacks.
 */

import { FOREIGN_REFRESH_MAX_MS, FOREIGN_REFRESH_MS, NATIVE_HINT_KEYS, NAV_ORIGINAL, NAV_RELAY } from './constants.js';
import { arity, isObjectLike, promiseFrom } from './util.js';
import { nat } from './mode.js';
import { defineEventHandler } from './events.js';
import { checkTool, convertTool } from './convert.js';
import { addClientMethods, addTool, beginFetch, endFetch, foreign, notify, removedSince, removeTool, tools } from './registry.js';
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
  if (prep.outputJSON !== undefined) def.outputSchema = JSON.parse(prep.outputJSON);
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
  try { key = JSON.stringify(input); } catch { return null; }
  const cap = captures.find((c) => c.name === name && c.key === key && !c.taken);
  if (cap) cap.taken = true;
  return cap || null;
}

/**
 * Whether a tool of Chromium's getTools() (which lists same-origin frames' tools too) is this
 * window's: `window` up to Chrome 159, `source` from 160, where a `Tool` is opaque (read its
 * properties one by one, never spread).
 * @param {any} t
 */
const ownTool = (t) => {
  const from = 'source' in t ? t.source : 'window' in t ? t.window : null;
  return from === null || from === undefined || from === globalThis.window;
};

/**
 * Native mode: the browser's tools we did not register ourselves. A tool we removed while the
 * browser answered is left out, not mistaken for a foreign one (refetching until stable was quadratic).
 * @returns {Promise<Map<string, any>|null>} null when the browser's list is unavailable
 */
async function fetchForeign() {
  if (!nat) return new Map();
  const gen = beginFetch();
  try {
    const list = await nat.getTools.call(nat.mc);
    if (!Array.isArray(list)) return null;
    const found = new Map();
    for (const t of list) {
      if (!t || typeof t.name !== 'string' || !ownTool(t) || tools.has(t.name)) continue;
      if (removedSince(t.name, gen)) continue; // ours until after the browser answered
      found.set(t.name, t);
    }
    return found;
  } catch {
    return null;
  } finally {
    endFetch();
  }
}

let refreshing = false;
let refreshAgain = false;
/** Native mode: a refresh is due (its timer set after a toolchange). */
let refreshTimer = 0;
/** Native mode: toolchanges seen, and whether one came after the last refresh of `foreign`. */
let toolchanges = 0;
let foreignStale = true;
/**
 * Native mode: updates the cached foreign tools. One refresh at a time (toolchanges meanwhile ask
 * for one more), so registering n tools costs about n getTools() calls, not more.
 */
async function refreshForeign() {
  if (!nat) return;
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = true;
  try {
    do {
      refreshAgain = false;
      const changes = toolchanges;
      const next = await fetchForeign();
      if (!next) continue;
      if (changes === toolchanges) foreignStale = false;
      // Any other Tool (a name, or a new object for one: its fields may differ) makes a new snapshot.
      const changed = next.size !== foreign.size || Array.from(next).some(([k, v]) => foreign.get(k) !== v);
      foreign.clear();
      for (const [k, v] of next) foreign.set(k, v);
      if (changed) notify();
    } while (refreshAgain);
  } finally {
    refreshing = false;
  }
}

/** When the first toolchange the due refresh waits for came, and the last since. */
let firstToolchange = 0;
let lastToolchange = 0;
/** The due refresh's timer: refreshes when the toolchanges were quiet or it waited long enough, else waits on. */
function refreshWhenQuiet() {
  const now = performance.now();
  const latest = firstToolchange + FOREIGN_REFRESH_MAX_MS;
  if (now - lastToolchange >= FOREIGN_REFRESH_MS || now >= latest) {
    refreshTimer = 0;
    refreshForeign();
    return;
  }
  refreshTimer = setTimeout(refreshWhenQuiet, Math.min(FOREIGN_REFRESH_MS - (now - lastToolchange), latest - now));
}

/**
 * Native mode: the browser's tools that are not ours: the cached list when no toolchange came
 * since, or when a refresh is due or under way (it notifies if the list changed); read from the
 * browser otherwise.
 */
async function foreignTools() {
  if (!foreignStale || refreshTimer || refreshing) return foreign;
  return (await fetchForeign()) || foreign;
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
  // A burst of registrations refreshes once after it (each refresh has the browser build every
  // tool, schema and all): when the toolchanges were quiet for FOREIGN_REFRESH_MS, or at the latest
  // FOREIGN_REFRESH_MAX_MS after the first.
  mc.addEventListener('toolchange', () => {
    toolchanges++;
    foreignStale = true;
    lastToolchange = performance.now();
    if (refreshTimer) return;
    firstToolchange = lastToolchange;
    refreshTimer = setTimeout(refreshWhenQuiet, FOREIGN_REFRESH_MS);
  });
  refreshForeign();
}

/**
 * Firefox (dom.modelcontext.enabled): no events, `registerTool` returns undefined and no list of
 * tools to read, so what the browser takes is recorded as it takes it: `ModelContext.prototype`'s
 * methods are wrapped (page/realm.js wraps other same-origin windows'), the browser decides first.
 * @param {{mc: any, registerTool: Function, unregisterTool: Function}} n
 */
function layerOnNavigator(n) {
  Object.defineProperty(n.mc, NAV_RELAY, {
    value: Object.freeze({
      /** @param {any} tool */
      registered(tool) {
        try {
          const prep = convertTool(tool, 'registerTool', undefined, false);
          checkTool(prep);
          addTool(prep, { fromNavigator: true });
        } catch (e) { console.warn('[tabmcp] a tool the browser took is not relayed:', e); }
      },
      /** @param {any} name */
      unregistered(name) {
        const rec = typeof name === 'string' || typeof name === 'number' ? tools.get(String(name)) : undefined;
        if (rec && rec.fromNavigator) rec.controller.abort();
      },
    }),
  });
  wrapNavigatorMethods(Object.getPrototypeOf(n.mc));
}

/**
 * Wraps a realm's native `registerTool`/`unregisterTool` once (the same wrapper as page/realm.js,
 * which may come first): the browser's method runs and answers as it would, then the object it ran
 * on records the change if it has a NAV_RELAY.
 * @param {any} proto
 */
function wrapNavigatorMethods(proto) {
  if (!proto) return;
  /** @param {any} on */
  const relayOf = (on) => {
    try { return on !== null && typeof on === 'object' && on[NAV_RELAY] || null; } catch { return null; }
  };
  /** @type {Record<string, (original: Function) => Function>} */
  const wrappers = {
    registerTool: (original) => function registerTool(/** @type {any} */ tool) {
      const relay = relayOf(this);
      if (relay && relay.polyfill) return relay.polyfill.apply(this, arguments);
      const returned = original.apply(this, arguments);
      if (relay && relay.registered) relay.registered(tool);
      return returned;
    },
    unregisterTool: (original) => function unregisterTool(/** @type {any} */ name) {
      const returned = original.apply(this, arguments);
      const relay = relayOf(this);
      if (relay && relay.unregistered) relay.unregistered(name);
      return returned;
    },
  };
  for (const [key, wrap] of Object.entries(wrappers)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (!d || typeof d.value !== 'function' || d.value[NAV_ORIGINAL]) continue;
    const wrapped = wrap(d.value);
    Object.defineProperty(wrapped, NAV_ORIGINAL, { value: d.value });
    Object.defineProperty(proto, key, { ...d, value: wrapped });
  }
}

export { augmentNative, captures, fetchForeign, foreignTools, layerOnNavigator, ownTool, registerWithBrowser };
