/**
 * Which mode this document runs in, decided once when the script runs: `native` when the browser
 * has its own `document.modelContext` (the polyfill layers on it), else polyfill mode; and the
 * browser's own methods, captured before the page (or we) change anything.
 */

import { G } from './constants.js';

const secure = G.isSecureContext !== false;
/** @type {any} */
let existing = null;
try { existing = /** @type {any} */ (document).modelContext || null; } catch (_) { existing = null; }
const native = !!existing;
/** The browser's originals, captured before the page (or we) change anything. */
const nat = native ? {
  mc: existing,
  registerTool: existing.registerTool,
  getTools: existing.getTools,
  executeTool: existing.executeTool,
} : null;

export { nat, native, secure };
