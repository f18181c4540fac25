// tabmcp telemetry, 8 of 11: performance — Web Vitals, navigation timing, long tasks (after network.js).
// The vitals are measured as web-vitals does, and sent a few seconds after load, on hide or leave
// and on a `vitals` query; long tasks as they happen.
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { W, N, now, listen, oops, load, timeOrigin, install, cfg } = T;
  const { emit, schedule, ERROR_DELAY } = T.queue;
  const { navEntry } = T.loads;

  const VITALS_AFTER_LOAD = 3000;

  const V = {
    fcp: /** @type {number | undefined} */ (undefined),
    lcp: /** @type {number | undefined} */ (undefined),
    cls: /** @type {number | undefined} */ (undefined),
    clsSession: 0,
    clsFirst: 0,
    clsLast: 0,
    interactions: 0,
    /** @type {Set<number>} */
    ids: new Set(),
    /** @type {{id: number, d: number}[]} */
    longest: [],
    inp: /** @type {number | undefined} */ (undefined),
    lastSent: '',
  };
  let bfcacheRestore = false;

  const activationStart = () => {
    const e = /** @type {any} */ (navEntry());
    return (e && e.activationStart) || 0;
  };

  /**
   * Drains of entries the browser has queued but not yet delivered. A snapshot taken on hide must
   * include them (the last interaction is often the worst one), as web-vitals does with takeRecords.
   * @type {Array<() => void>}
   */
  const perfObservers = [];

  /** @param {string} type @param {(entry: any) => void} fn @param {Record<string, any>} [extra] */
  function observe(type, fn, extra) {
    try {
      const supported = PerformanceObserver.supportedEntryTypes || [];
      if (!supported.includes(type)) return false;
      /** @param {PerformanceEntryList} entries */
      const take = (entries) => {
        for (const entry of entries) {
          try {
            fn(entry);
          } catch {
            oops();
          }
        }
      };
      const po = new PerformanceObserver((list) => take(list.getEntries()));
      po.observe({ type, buffered: true, ...extra });
      perfObservers.push(() => take(po.takeRecords()));
      return true;
    } catch {
      oops();
      return false;
    }
  }

  /** @param {number} id @param {number} duration */
  function addInteraction(id, duration) {
    if (!V.ids.has(id)) {
      V.ids.add(id);
      V.interactions++;
      if (V.ids.size > 1000) V.ids.clear();
    }
    const known = V.longest.find((x) => x.id === id);
    if (known) known.d = Math.max(known.d, duration);
    else V.longest.push({ id, d: duration });
    V.longest.sort((a, b) => b.d - a.d);
    if (V.longest.length > 10) V.longest.length = 10;
    // The 98th percentile, as web-vitals approximates it: skip one of the worst per 50 interactions.
    V.inp = V.longest[Math.min(V.longest.length - 1, Math.floor(V.interactions / 50))].d;
  }

  function startPerformanceObservers() {
    observe('paint', (e) => {
      if (e.name === 'first-contentful-paint' && !bfcacheRestore) V.fcp = Math.max(0, e.startTime - activationStart());
    });
    observe('largest-contentful-paint', (e) => {
      if (!bfcacheRestore) V.lcp = Math.max(0, e.startTime - activationStart());
    });
    if (
      observe('layout-shift', (e) => {
        if (e.hadRecentInput) return;
        if (V.clsSession && e.startTime - V.clsLast < 1000 && e.startTime - V.clsFirst < 5000) {
          V.clsSession += e.value;
          V.clsLast = e.startTime;
        } else {
          V.clsSession = e.value;
          V.clsFirst = V.clsLast = e.startTime;
        }
        V.cls = Math.max(V.cls || 0, V.clsSession);
      })
    ) {
      V.cls = V.cls || 0;
    }
    observe('event', (e) => {
      if (e.interactionId) addInteraction(e.interactionId, e.duration);
    }, { durationThreshold: 16 });
    observe('first-input', (e) => {
      if (e.interactionId) addInteraction(e.interactionId, e.duration);
    });
    observe('longtask', (e) => {
      if (!cfg.enabled) return;
      emit({ kind: 'longtask', ts: now(), startTime: Math.round((timeOrigin + e.startTime) * 10) / 10, duration: Math.round(e.duration * 10) / 10 });
    });
  }

  /** @param {number} x */
  const ms = (x) => Math.round(x * 10) / 10;

  function navigationTiming() {
    const e = /** @type {any} */ (navEntry());
    if (!e) return undefined;
    /** @type {Record<string, number | string>} */
    const out = { type: e.type };
    const put = (/** @type {string} */ name, /** @type {number} */ value) => {
      if (typeof value === 'number' && Number.isFinite(value) && value > 0) out[name] = ms(value);
    };
    put('domInteractive', e.domInteractive);
    put('domContentLoaded', e.domContentLoadedEventEnd);
    put('load', e.loadEventEnd);
    put('responseStart', e.responseStart);
    put('responseEnd', e.responseEnd);
    put('dns', e.domainLookupEnd - e.domainLookupStart);
    put('connect', e.connectEnd - e.connectStart);
    put('request', e.responseStart - e.requestStart);
    put('response', e.responseEnd - e.responseStart);
    if (typeof e.transferSize === 'number') out.transferSize = e.transferSize;
    if (typeof e.encodedBodySize === 'number') out.encodedBodySize = e.encodedBodySize;
    if (typeof e.decodedBodySize === 'number') out.decodedBodySize = e.decodedBodySize;
    if (e.redirectCount) out.redirectCount = e.redirectCount;
    if (e.nextHopProtocol) out.protocol = e.nextHopProtocol;
    return out;
  }

  function vitalsEvent() {
    for (const drain of perfObservers) drain();
    /** @type {Record<string, number>} */
    const metrics = {};
    if (V.lcp !== undefined) metrics.LCP = ms(V.lcp);
    if (V.cls !== undefined) metrics.CLS = Math.round(V.cls * 10000) / 10000;
    if (V.inp !== undefined) metrics.INP = ms(V.inp);
    if (V.fcp !== undefined) metrics.FCP = ms(V.fcp);
    const e = /** @type {any} */ (navEntry());
    if (!bfcacheRestore && e && e.responseStart > 0) metrics.TTFB = ms(Math.max(0, e.responseStart - activationStart()));
    /** @type {TelemetryEvent} */
    const ev = { kind: 'vitals', ts: now(), loadId: load.id, metrics };
    const navigation = bfcacheRestore ? undefined : navigationTiming();
    if (navigation) ev.navigation = navigation;
    return ev;
  }

  /** Queue a vitals snapshot (unless nothing changed since the last one and `force` is off). @param {boolean} force */
  function reportVitals(force) {
    if (!cfg.enabled) return null;
    const ev = vitalsEvent();
    const key = N.stringify([ev.loadId, ev.metrics, ev.navigation]);
    if (!force && key === V.lastSent) return ev;
    V.lastSent = key;
    emit(ev);
    return ev;
  }

  /** A vitals snapshot for a query: sent as an event too (and soon), unless capture is off. */
  function queryVitals() {
    const ev = vitalsEvent();
    if (cfg.enabled) {
      V.lastSent = N.stringify([ev.loadId, ev.metrics, ev.navigation]);
      emit(ev);
      schedule(ERROR_DELAY);
    }
    return ev;
  }

  install(startPerformanceObservers);
  install(() => {
    listen(W, 'load', () => N.setTimeout(() => reportVitals(false), VITALS_AFTER_LOAD));
    listen(document, 'visibilitychange', () => {
      if (document.visibilityState === 'hidden') reportVitals(false);
    });
    listen(W, 'pagehide', () => reportVitals(false));
    listen(W, 'pageshow', (/** @type {PageTransitionEvent} */ e) => {
      if (!e.persisted) return;
      // Restored from the back/forward cache: the metrics of a new page load start over.
      bfcacheRestore = true;
      Object.assign(V, { fcp: undefined, lcp: undefined, cls: V.cls === undefined ? undefined : 0, clsSession: 0, interactions: 0, longest: [], inp: undefined, lastSent: '' });
      V.ids.clear();
    });
  });

  T.vitals = Object.freeze({ query: queryVitals });
})();
