/**
 * Small helpers with no state of their own: WebIDL-style conversions and errors, error messages as
 * the console shows them, a macrotask queue, AbortSignal.any and byte lengths.
 */

import { G } from './constants.js';

/** @param {string} method @param {string} [iface] */
const prefix = (method, iface = 'ModelContext') => `Failed to execute '${method}' on '${iface}': `;
/** An object or a function (what WebIDL accepts as a dictionary). @param {any} v @returns {boolean} */
const isObjectLike = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function';
/** WebIDL DOMString conversion (throws a TypeError for symbols, like the browser). @param {unknown} v */
const domString = (v) => `${v}`;
/** @param {string} message @param {string} name */
const domError = (message, name) => new DOMException(message, name);
/** @param {string} a @param {string} b */
const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
/** @param {any} v */
const isPlainObject = (v) => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** Runs fn in a later task (not throttled like setTimeout in background tabs). */
const macrotask = (() => {
  /** @type {Array<() => void>} */
  const queue = [];
  let channel = /** @type {MessageChannel|null} */ (null);
  return (/** @type {() => void} */ fn) => {
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const f = queue.shift();
        if (f) f();
      };
    }
    queue.push(fn);
    channel.port2.postMessage(null);
  };
})();

/** AbortSignal.any() (Chromium 116+), with a fallback. @param {AbortSignal[]} signals @returns {AbortSignal} */
function anySignal(signals) {
  if (signals.length === 1) return signals[0];
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener('abort', () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}

/** The page's own message for something it threw. @param {any} e @returns {string} */
function errorMessage(e) {
  if (e && typeof e === 'object' && typeof e.message === 'string') {
    return e.message || (typeof e.name === 'string' && e.name) || 'Error';
  }
  if (typeof e === 'string') return e;
  try {
    const s = JSON.stringify(e);
    if (s !== undefined) return s;
  } catch { /* fall through */ }
  try { return String(e); } catch { return 'Unknown error'; }
}

/** Like the console text of an uncaught exception: "Error: boom". @param {any} e */
function describeError(e) {
  if (e && typeof e === 'object' && typeof e.message === 'string') {
    return `${typeof e.name === 'string' ? e.name : 'Error'}: ${e.message}`;
  }
  return errorMessage(e);
}

/** How Chromium turns a tool's return value into executeTool()'s string. @param {any} v */
function nativeStringify(v) {
  if (typeof v === 'string') return v;
  if (typeof v === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
  if (typeof v === 'function') return 'undefined';
  if (typeof v === 'object' && v !== null) {
    const s = JSON.stringify(v);
    return s === undefined ? 'undefined' : s;
  }
  return String(v);
}

const encoder = new TextEncoder();
/** Bytes of s in UTF-8. @param {string} s */
const utf8Length = (s) => encoder.encode(s).length;

/** Runs fn and turns a synchronous throw into a rejected promise. @param {() => any} fn */
function promiseFrom(fn) {
  try {
    return Promise.resolve(fn());
  } catch (e) {
    return Promise.reject(e);
  }
}

/** @param {string} method @param {number} got @param {number} [need] */
function arity(method, got, need = 1, iface = 'ModelContext') {
  if (got < need) {
    throw new TypeError(`${prefix(method, iface)}${need} argument${need > 1 ? 's' : ''} required, but only ${got} present.`);
  }
}

/** @param {any} e */
function reportError(e) {
  if (typeof G.reportError === 'function') G.reportError(e);
  else console.error(e);
}

export {
  anySignal, arity, byName, describeError, domError, domString, errorMessage, isObjectLike, isPlainObject,
  macrotask, nativeStringify, prefix, promiseFrom, reportError, utf8Length,
};
