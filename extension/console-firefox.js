// tabmcp console location, Firefox build only (content script world, top frame, document_start,
// after the capture's page scripts). Firefox's console shows a message at the first frame of the
// page's principal, which would be the capture's wrapper; a wrapper made in this world (another
// principal) records, then calls the browser's method, so the console shows the page's own line.
/* global exportFunction */
(() => {
  'use strict';
  const SPLIT = Symbol.for('tabmcp.console.split');
  // @ts-ignore: Firefox's content scripts have exportFunction and wrappedJSObject
  if (typeof exportFunction !== 'function' || window !== window.top) return;
  // @ts-ignore
  const W = window.wrappedJSObject;
  const c = W.console;
  const apply = W.Reflect.apply; // kept: the page's later changes to Reflect do not reach us
  const PageArray = W.Array;
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'assert']) {
    const wrapper = c[method];
    const halves = typeof wrapper === 'function' ? wrapper[SPLIT] : undefined;
    if (!halves) continue; // no capture here (or a page's own console): leave it
    const { record, original } = halves;
    const fn = {
      /** @this {any} */
      [method]() {
        const args = new PageArray();
        for (let i = 0; i < arguments.length; i++) args.push(arguments[i]);
        try { record(args); } catch { /* the capture counts its own errors */ }
        return apply(original, this, args);
      },
    }[method];
    // @ts-ignore
    exportFunction(fn, c, { defineAs: method });
  }
})();
