/**
 * Same-origin frames in polyfill mode: getTools() lists the tools of every same-origin document of
 * the frame tree, as Chromium does; each polyfilled document answers for its own.
 */

import { NATIVE_HINT_KEYS } from './constants.js';
import { byName } from './util.js';
import { tools } from './registry.js';

/** The key under which a ModelContext answers other same-origin documents' getTools(). */
const OWN_TOOLS = Symbol.for('tabmcp.webmcp.ownTools');

/** This document's tools as RegisteredTool dictionaries (fresh objects). */
function ownRegisteredTools() {
  const origin = location.origin;
  return Array.from(tools.values()).sort((a, b) => byName(a.name, b.name)).map((rec) => {
    /** @type {any} */
    const o = {};
    if (rec.hints) {
      o.annotations = {};
      for (const k of NATIVE_HINT_KEYS) o.annotations[k] = !!rec.hints[k];
    }
    o.description = rec.description;
    if (rec.schemaJSON !== undefined) o.inputSchema = JSON.parse(rec.schemaJSON);
    o.name = rec.name;
    o.origin = origin;
    if (rec.outputJSON !== undefined) o.outputSchema = JSON.parse(rec.outputJSON);
    o.title = rec.title;
    o.window = window;
    return o;
  });
}

/** Tools of every same-origin document, as getTools() lists them. */
function collectTools() {
  const out = [];
  for (const w of sameOriginWindows()) {
    if (w === window) out.push(...ownRegisteredTools());
    else {
      const mc = frameContext(w);
      if (mc) out.push(...mc[OWN_TOOLS]());
    }
  }
  return out.sort((a, b) => byName(a.name, b.name));
}

/**
 * The ModelContext of another window if it is a same-origin document running this polyfill
 * (any version that answers OWN_TOOLS), else null. @param {any} w
 */
function frameContext(w) {
  try {
    if (!w || w === window) return null;
    const mc = w.document && w.document.modelContext;
    return mc && typeof mc[OWN_TOOLS] === 'function' ? mc : null;
  } catch {
    return null; // another origin
  }
}

/**
 * Every window of this origin in the frame tree, from the topmost same-origin ancestor down,
 * in document order: the documents whose tools getTools() lists by default.
 */
function sameOriginWindows() {
  /** @type {any} */
  let root = window;
  for (;;) {
    let up;
    try {
      up = root.parent;
      if (up === root || !up.document) break; // the top, or throws for another origin
    } catch {
      break;
    }
    root = up;
  }
  /** @type {any[]} */
  const found = [];
  /** @param {any} w */
  const walk = (w) => {
    try {
      if (w !== window && !frameContext(w)) return;
      found.push(w);
      for (let i = 0; i < w.frames.length; i++) walk(w.frames[i]);
    } catch { /* another origin: neither it nor its subtree */ }
  };
  walk(root);
  return found;
}

export { OWN_TOOLS, collectTools, frameContext, ownRegisteredTools };
