// tabmcp realm wrapper (Firefox build only; main world, document_start, every frame, about:blank
// and srcdoc included, where the polyfill does not run). Firefox's WebMCP has no list of tools, so
// a frame's registration on the top window must be seen in the frame's realm: this wraps that
// realm's two methods exactly as the polyfill's `wrapNavigatorMethods` does (a test keeps the two
// equal), so whichever runs first wraps and the browser's method still decides.
(() => {
  'use strict';
  const RELAY = Symbol.for('tabmcp.webmcp.relay');
  const ORIGINAL = Symbol.for('tabmcp.webmcp.original');
  /** @type {any} */
  let proto = null;
  try {
    const n = /** @type {any} */ (navigator).modelContext;
    if (!n || Object.prototype.toString.call(n) !== '[object ModelContext]') return;
    proto = Object.getPrototypeOf(n);
  } catch { return; }
  /** @param {any} on */
  const relayOf = (on) => {
    try { return on !== null && typeof on === 'object' && on[RELAY] || null; } catch { return null; }
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
    if (!d || typeof d.value !== 'function' || d.value[ORIGINAL]) continue;
    if (!Function.prototype.toString.call(d.value).includes('[native code]')) continue; // not the browser's
    const wrapped = wrap(d.value);
    Object.defineProperty(wrapped, ORIGINAL, { value: d.value });
    Object.defineProperty(proto, key, { ...d, value: wrapped });
  }
})();
