/**
 * The entry: installs the polyfill once per document (another copy, maybe another version, may
 * already have) on the shape the mode calls for, the legacy alias where the page has none, and
 * the hook.
 */

// Modules are strict already; the bundle is a classic script, where only this directive (esbuild
// keeps the entry's) makes it strict.
'use strict';

import { G, HOOK_KEY, NAV_RELAY } from './constants.js';
import { nat, navNative, secure } from './mode.js';
import { ToolActivatedEvent, ToolCancelEvent } from './events.js';
import { setTarget, target } from './registry.js';
import { augmentNative, layerOnNavigator } from './native.js';
import { OWN_TOOLS, ownRegisteredTools } from './frames.js';
import { CONSTRUCT, ModelContext, defineGlobal } from './model-context.js';
import { ModelContextLegacy } from './legacy.js';
import { startDeclarative } from './declarative.js';
import { createHook } from './hook.js';

function install() {
  if (secure) {
    if (nat) {
      setTarget(nat.mc);
      augmentNative(nat.mc);
    } else {
      const mc = new ModelContext(CONSTRUCT);
      setTarget(mc);
      Object.defineProperty(mc, OWN_TOOLS, { value: ownRegisteredTools });
      Object.defineProperty(Document.prototype, 'modelContext', {
        configurable: true,
        enumerable: true,
        get() { return this === document ? mc : undefined; },
      });
      defineGlobal('ModelContext', ModelContext);
      startDeclarative();
      if (navNative) {
        // Firefox's own `ModelContext.prototype.registerTool` called on our document.modelContext
        // (the page's code for Chromium, where both are the browser's): ours takes it.
        Object.defineProperty(mc, NAV_RELAY, { value: Object.freeze({ polyfill: ModelContext.prototype.registerTool }) });
        layerOnNavigator(navNative);
      }
    }
    defineGlobal('ToolActivatedEvent', ToolActivatedEvent);
    defineGlobal('ToolCancelEvent', ToolCancelEvent);

    let hasAlias = false;
    try { hasAlias = /** @type {any} */ (navigator).modelContext !== undefined; } catch { hasAlias = true; }
    if (!hasAlias) {
      const legacy = new ModelContextLegacy();
      for (const type of ['toolchange', 'statechange']) {
        target.addEventListener(type, () => legacy.dispatchEvent(new Event(type)));
      }
      Object.defineProperty(Navigator.prototype, 'modelContext', {
        configurable: true,
        enumerable: true,
        get() { return this === navigator ? legacy : undefined; },
      });
    }
  } else {
    setTarget(new EventTarget()); // inert: nothing is installed on insecure pages, like the browser
  }
  Object.defineProperty(G, HOOK_KEY, { value: createHook(), writable: false, enumerable: false, configurable: false });
}

// Once per document: another copy (maybe another version) may already be installed; windows only.
if (!G[HOOK_KEY] && typeof document !== 'undefined' && typeof EventTarget === 'function') install();

export {};
