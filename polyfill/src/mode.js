/**
 * Which mode this document runs in, decided once when the script runs: `native` when the browser
 * has its own `document.modelContext` (the polyfill layers on it), else polyfill mode; and the
 * browser's own methods, captured before the page (or we) change anything.
 */

import { G, NAV_ORIGINAL } from './constants.js';

const secure = G.isSecureContext !== false;
/** @type {any} */
let existing = null;
try { existing = /** @type {any} */ (document).modelContext || null; } catch { existing = null; }
const native = !!existing;
/** The browser's originals, captured before the page (or we) change anything. */
const nat = native ? {
  mc: existing,
  registerTool: existing.registerTool,
  getTools: existing.getTools,
  executeTool: existing.executeTool,
} : null;
/** Firefox's native API (dom.modelcontext.enabled): on `navigator.modelContext` only, no events, a
 * `registerTool` that returns undefined. Kept as it is: tools registered through it or through our
 * `document.modelContext` reach both registries (the browser's, and ours that the extension runs). */
let navNative = null;
try {
  const n = /** @type {any} */ (navigator).modelContext;
  // The methods may already be our wrappers (page/realm.js ran in this window's first about:blank).
  const own = (/** @type {any} */ f) => (typeof f === 'function' && f[NAV_ORIGINAL]) || f;
  if (!native && n && Object.prototype.toString.call(n) === '[object ModelContext]' &&
      Function.prototype.toString.call(own(n.registerTool)).includes('[native code]')) {
    navNative = { mc: n, registerTool: own(n.registerTool), unregisterTool: own(n.unregisterTool) };
  }
} catch { navNative = null; }

export { nat, native, navNative, secure };
