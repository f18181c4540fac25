// tabmcp telemetry, 11 of 11: start (the last capture script). Records this document's load,
// sends what is held when the page is hidden or left, opens the public hook
// (Symbol.for('tabmcp.telemetry'), for diagnostics) and closes the shared namespace, so the page
// can reach none of the capture's internals.
(() => {
  'use strict';

  const W = /** @type {any} */ (window);
  const NS = Symbol.for('tabmcp.telemetry.loading');
  const T = W[NS];
  if (!T) return;
  delete W[NS];
  const { listen, stats, load, install, cfg, queue } = T;

  install(() => {
    listen(document, 'visibilitychange', () => {
      if (document.visibilityState === 'hidden') queue.flush();
    });
    listen(W, 'pagehide', () => queue.flush());
  });

  Object.defineProperty(W, T.HOOK, {
    value: Object.freeze({
      version: T.VERSION,
      /** Send what is queued now (nothing before the redaction rules are known). */
      flush: () => queue.flush(),
      /** Counters for diagnostics: internal errors, batches and events sent, drops by kind. */
      stats: () => ({ ...stats, dropped: { ...stats.dropped }, queued: queue.size(), enabled: cfg.enabled,
        rulesKnown: T.redact.known(), loadId: load.id }),
    }),
  });

  install(() => T.loads.start());
})();
