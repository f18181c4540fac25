/**
 * The registry both modes share: the tools and categories registered through this layer, the
 * native tools we did not register (`foreign`), subscribers of the hook, and the one place tools
 * are added and removed (with their AbortSignals) and `toolchange` is fired.
 */

import { anySignal, isObjectLike, macrotask, promiseFrom, reportError } from './util.js';
import { nat, native, navNative } from './mode.js';
import { registerWithBrowser } from './native.js';

/** @type {Map<string, ToolRecord>} tools registered through this layer */
const tools = new Map();
/** @type {Map<string, CategoryRecord>} */
const categories = new Map();
/** @type {Map<string, any>} native tools we did not register (registered before we loaded) */
const foreign = new Map();
/** @type {Set<() => void>} */
const subscribers = new Set();
/** Bumped on every change to `tools`, so a native tool list fetched meanwhile is known to be stale. */
let generation = 0;
/** Native lists being fetched, and the tools removed meanwhile (name → generation of removal). */
let fetching = 0;
/** @type {Map<string, number>} */
const removedAt = new Map();

/** A native tool list is being fetched: removals meanwhile are remembered. @returns {number} the generation now */
function beginFetch() {
  fetching++;
  return generation;
}

/** A fetch ended; the last one to end forgets the removals. */
function endFetch() {
  if (--fetching === 0) removedAt.clear();
}

/**
 * Whether our tool was removed after generation `gen` (so a list the browser gave since still had it).
 * @param {string} name @param {number} gen
 */
function removedSince(name, gen) {
  const removed = removedAt.get(name);
  return removed !== undefined && removed > gen;
}

/** The object events are dispatched on: the native ModelContext, or ours. @type {any} */
let target = null;

/** Install sets it once, before any tool can register. @param {EventTarget} eventTarget */
function setTarget(eventTarget) {
  target = eventTarget;
}

/**
 * Whether a name is used by a tool or category. Native tools we did not register are only
 * consulted for category names: for tools, the browser itself rejects real duplicates with the
 * same error, and our cached list of its tools may be a task behind.
 * @param {string} name @param {boolean} [forCategory]
 */
function nameTaken(name, forCategory = false) {
  return tools.has(name) || categories.has(name) || (forCategory && foreign.has(name));
}

let notifyPending = false;
/** Tells subscribers something changed (coalesced to one call per microtask). */
function notify() {
  if (notifyPending || subscribers.size === 0) return;
  notifyPending = true;
  queueMicrotask(() => {
    notifyPending = false;
    for (const cb of Array.from(subscribers)) {
      try {
        cb();
      } catch (e) {
        reportError(e);
      }
    }
  });
}

function fireToolchange() {
  queueMicrotask(() => target.dispatchEvent(new Event('toolchange')));
}

/** @param {ToolRecord} rec */
function removeTool(rec) {
  if (tools.get(rec.name) !== rec) return;
  tools.delete(rec.name);
  generation++;
  if (fetching) removedAt.set(rec.name, generation);
  if (rec.category) {
    const cat = categories.get(rec.category);
    if (cat) cat.members = cat.members.filter((n) => n !== rec.name);
  }
  rec.controller.abort();
  if (navNative && !rec.fromNavigator) try { navNative.unregisterTool.call(navNative.mc, rec.name); } catch { /* gone */ }
  if (!native) fireToolchange(); // the browser fires its own
  notify();
}

/** @param {CategoryRecord} cat */
function removeCategory(cat) {
  if (categories.get(cat.name) !== cat) return;
  categories.delete(cat.name);
  cat.controller.abort(); // members' signals follow it
  fireToolchange();
  notify();
}

/**
 * Adds a converted, checked tool. Returns what registerTool returns: in native mode the
 * browser's own promise, else a promise resolving after toolchange was dispatched.
 * @param {ReturnType<typeof convertTool>} prep
 * @param {{category?: string|null, categorySignal?: AbortSignal, form?: FormDriver|null, fromNavigator?: boolean}} [where]
 * @returns {Promise<undefined>}
 */
function addTool(prep, where = {}) {
  const { dict } = prep;
  const controller = new AbortController();
  /** @type {AbortSignal[]} */
  const sources = [controller.signal];
  if (prep.signal) sources.push(prep.signal);
  if (where.categorySignal) sources.push(where.categorySignal);
  const signal = anySignal(sources);
  /** @type {ToolRecord} */
  const rec = {
    name: dict.name,
    title: dict.title !== undefined ? dict.title : '',
    description: dict.description,
    schemaJSON: prep.schemaJSON,
    outputJSON: prep.outputJSON,
    hints: dict.annotations,
    execute: dict.execute,
    scope: prep.scope,
    category: where.category || null,
    exposedTo: prep.exposedTo || [],
    form: where.form || null,
    controller,
    signal,
    fromNavigator: !!where.fromNavigator,
  };
  tools.set(rec.name, rec);
  generation++;
  signal.addEventListener('abort', () => removeTool(rec), { once: true });
  notify();
  if (nat) return registerWithBrowser(rec, prep);
  if (navNative && !rec.fromNavigator) {
    // Firefox: a tool registered through our document.modelContext reaches the browser's registry too.
    try {
      navNative.registerTool.call(navNative.mc, { name: rec.name, description: rec.description, execute: rec.execute,
        ...(prep.schemaJSON !== undefined ? { inputSchema: JSON.parse(prep.schemaJSON) } : {}) });
    } catch { /* the browser's registry refused it: ours still has it */ }
  }
  // A form the parser inserts is registered before the page's scripts after it run; the browser fires
  // its toolchange in a later task, so that those scripts can still listen for it.
  const later = where.form && document.readyState === 'loading' ? macrotask : queueMicrotask;
  return new Promise((resolve) => {
    later(() => {
      target.dispatchEvent(new Event('toolchange'));
      resolve(undefined);
    });
  });
}

/** The client object execute() receives. @param {any} client */
function addClientMethods(client) {
  if (!isObjectLike(client) || typeof client.requestUserInteraction === 'function') return client;
  try {
    Object.defineProperty(client, 'requestUserInteraction', {
      configurable: true,
      writable: true,
      enumerable: false,
      /** @param {() => any} callback */
      value: function requestUserInteraction(callback) {
        if (typeof callback !== 'function') {
          return Promise.reject(new TypeError(
            "Failed to execute 'requestUserInteraction' on 'ModelContextClient': parameter 1 is not of type 'Function'."));
        }
        return promiseFrom(() => callback());
      },
    });
  } catch { /* a frozen client: leave it */ }
  return client;
}

export {
  addClientMethods, addTool, beginFetch, categories, endFetch, fireToolchange, foreign, generation, nameTaken,
  notify, removeCategory, removedSince, removeTool, setTarget, subscribers, target, tools,
};
