// tabmcp telemetry, 10 of 11: the bridge's settings (after query.js): `telemetry.config` (capture
// switch, body limit, socket sampling, redaction rules), taken on the capture's own line. The
// worker hands the latest to each page as soon as its content script connects.
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { stats, install, cfg } = T;
  const { PAGE } = T.MSG;
  const { setRules } = T.redact;
  const { clear } = T.queue;

  /** @param {Record<string, any>} msg */
  function configure(msg) {
    const c = msg.config && typeof msg.config === 'object' ? msg.config : msg;
    stats.configs++;
    if (typeof c.enabled === 'boolean' && c.enabled !== cfg.enabled) {
      cfg.enabled = c.enabled;
      // Nothing captured while disabled leaves the page, and nothing held is sent later.
      if (!cfg.enabled) clear();
      T.loads.switched(cfg.enabled);
    }
    if (Number.isFinite(c.bodyLimit) && c.bodyLimit >= 0) cfg.bodyLimit = Math.min(Math.floor(c.bodyLimit), 1024 * 1024);
    if (Number.isFinite(c.wsSampleThreshold) && c.wsSampleThreshold >= 1) cfg.wsSampleThreshold = Math.floor(c.wsSampleThreshold);
    if (c.redact && typeof c.redact === 'object') setRules(c.redact); // last: it may release what waited
  }

  // On the capture's own line (natives.js): a page posting a config on the window changes nothing.
  install(() => T.channel.on(PAGE.telemetryConfig, configure));
})();
