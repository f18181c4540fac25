// tabmcp telemetry, 3 of 11: capture settings, the bounded queue and its batches (after redact.js).
// Events are built with the redaction rules applied, so nothing is posted before the rules arrive;
// past each kind's cap they are counted as dropped, never lost silently. Batches go on the
// capture's own MessageChannel, never on the window, where the page could read them and forge some.
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { N, stats, oops, MSG } = T;
  const { redactUrl, known, whenKnown } = T.redact;

  /** The bridge's capture switches (telemetry.config); config.js changes them. */
  const cfg = {
    enabled: true,
    /** Characters of a request / response body kept (then `bodyTruncated`). */
    bodyLimit: 32 * 1024,
    /** WebSocket messages per second and direction above which a socket is sampled. */
    wsSampleThreshold: 20,
  };
  const LIMITS = Object.freeze({
    arg: 2000, // characters per console argument
    args: 20, // console arguments kept
    eventArgs: 16000, // characters of arguments per console event
    message: 4000,
    stack: 8000,
    wsData: 4096, // characters of a WebSocket frame
    value: 1000, // characters of an input value
    name: 120, // accessible names, labels, texts in selectors
    text: 300, // element text in query results
    html: 4000,
    batchEvents: 200,
    batchBytes: 512 * 1024, // bytes of its events' JSON in UTF-8 (sizeOf)
  });
  /** Events of each kind the page holds between two batches; beyond, they are counted as dropped
   * (each kind's `pageCap`, from its record in tabmcp/capture/kinds.py, through protocol.generated.js). */
  const CAPS = /** @type {Record<string, number>} */ ({});
  for (const kind of N.keys(T.WIRE.KINDS)) CAPS[kind] = T.WIRE.KINDS[kind].pageCap;
  Object.freeze(CAPS);
  const BATCH_DELAY = 250;
  const ERROR_DELAY = 50;

  /** @typedef {Record<string, any> & {kind: string, ts: number}} TelemetryEvent */
  /** An event captured before the rules were known: built when they arrive. @typedef {{kind: string, build: () => TelemetryEvent}} Held */
  /** @type {Array<TelemetryEvent | Held>} */
  let queue = [];
  /** @type {Record<string, number>} */
  const pending = {};
  for (const kind of N.keys(CAPS)) pending[kind] = 0;
  /** @type {Record<string, number>} */
  let dropped = {};
  /** @type {WeakMap<object, number>} */
  const sizes = new WeakMap();
  let timer = 0;
  let timerDue = 0;

  /** @param {string} kind @param {number} [n] */
  function drop(kind, n = 1) {
    dropped[kind] = (dropped[kind] || 0) + n;
    stats.dropped[kind] = (stats.dropped[kind] || 0) + n;
    schedule(BATCH_DELAY);
  }
  /** Is there room for one more event of this kind? Counts a drop when there is not. @param {string} kind */
  function room(kind) {
    if (!cfg.enabled) return false;
    if (pending[kind] < CAPS[kind]) return true;
    drop(kind);
    return false;
  }
  /** Queue an event whose room was checked. @param {TelemetryEvent} ev */
  function push(ev) {
    pending[ev.kind]++;
    queue.push(ev);
    schedule(ev.kind === 'error' ? ERROR_DELAY : BATCH_DELAY);
  }
  /**
   * Queue the event `build` makes (its room already checked): now if the redaction rules are
   * known, else when they arrive. `build` reads only what the capture copied, never the live page.
   * @param {string} kind @param {() => TelemetryEvent} build
   */
  function record(kind, build) {
    if (known()) push(build());
    else push(/** @type {any} */ ({ kind, build }));
  }
  /** Room check, then `record`. @param {string} kind @param {() => TelemetryEvent} build */
  function capture(kind, build) {
    if (!room(kind)) return false;
    record(kind, build);
    return true;
  }
  /** Queue an event with nothing to redact (its room not yet checked). @param {TelemetryEvent} ev */
  function emit(ev) {
    if (!room(ev.kind)) return false;
    push(ev);
    return true;
  }
  /** @param {number} delay */
  function schedule(delay) {
    if (!known()) return; // sent once the rules arrive (see below)
    const due = N.perfNow() + delay;
    if (timer) {
      if (due >= timerDue) return;
      N.clearTimeout(timer);
    }
    timerDue = due;
    timer = N.setTimeout(flush, delay);
  }
  /** An event's bytes of JSON in UTF-8, as the content script counts a batch (limits.js SIZE.telemetry):
   * counted in UTF-16 units, a batch of 3-byte characters (CJK logs) was up to 1.5 MiB, and dropped whole
   * there. Encoded (the isolated world's utf8Bytes is out of this world's reach), its length read by the saved
   * getter (natives.js: a page may redefine the prototype's): an event is small
   * (LIMITS and cfg.bodyLimit bound its texts), measured once, when a batch is made. @param {TelemetryEvent} ev */
  function sizeOf(ev) {
    let n = sizes.get(ev);
    if (n === undefined) {
      try {
        n = N.bytesLength.call(N.encode.call(N.encoder, N.stringify(ev)));
      } catch {
        n = Infinity;
      }
      sizes.set(ev, n);
    }
    return n;
  }

  /** The rules arrived: build every held event with them, then send. */
  function buildHeld() {
    /** @type {TelemetryEvent[]} */
    const built = [];
    for (const item of queue) {
      if (typeof item.build !== 'function') {
        built.push(/** @type {TelemetryEvent} */ (item));
        continue;
      }
      try {
        built.push(item.build());
      } catch {
        oops();
        pending[item.kind]--;
        drop(item.kind); // never lost silently
      }
    }
    queue = built;
    schedule(ERROR_DELAY);
  }
  whenKnown(buildHeld);

  /** Up to LIMITS.batchEvents events / LIMITS.batchBytes from the queue; errors and the rest before logs. */
  function takeBatch() {
    const events = /** @type {TelemetryEvent[]} */ (queue);
    let total = 0;
    let fits = events.length <= LIMITS.batchEvents;
    if (fits) {
      for (const ev of events) {
        total += sizeOf(ev);
        if (total > LIMITS.batchBytes) {
          fits = false;
          break;
        }
      }
    }
    if (fits) {
      queue = [];
      for (const ev of events) pending[ev.kind]--;
      return events;
    }
    const chosen = new Uint8Array(events.length); // 0 keep, 1 send, 2 gone
    let count = 0;
    let bytes = 0;
    /** @param {boolean} logs */
    const pick = (logs) => {
      for (let i = 0; i < events.length && count < LIMITS.batchEvents; i++) {
        const ev = events[i];
        if (chosen[i] || (ev.kind === 'console') !== logs) continue;
        const size = sizeOf(ev);
        if (size > LIMITS.batchBytes) {
          chosen[i] = 2;
          pending[ev.kind]--;
          drop(ev.kind);
          continue;
        }
        if (bytes + size > LIMITS.batchBytes) continue;
        chosen[i] = 1;
        count++;
        bytes += size;
      }
    };
    pick(false);
    pick(true);
    /** @type {TelemetryEvent[]} */
    const out = [];
    /** @type {TelemetryEvent[]} */
    const rest = [];
    events.forEach((ev, i) => {
      if (chosen[i] === 1) {
        out.push(ev);
        pending[ev.kind]--;
      } else if (chosen[i] === 0) {
        rest.push(ev);
      }
    });
    queue = rest;
    return out;
  }

  /** Send what is queued (one batch), unless the rules are not known yet. */
  function flush() {
    if (timer) N.clearTimeout(timer);
    timer = 0;
    if (!known()) return;
    const hasDrops = N.keys(dropped).length > 0;
    if (!queue.length && !hasDrops) return;
    /** @type {TelemetryEvent[]} */
    let events = [];
    const sentDrops = dropped;
    dropped = {};
    try {
      events = takeBatch();
      const msg = { type: MSG.PAGE.telemetry, url: redactUrl(location.href), events, dropped: sentDrops };
      T.channel.send(msg); // the capture's own line (natives.js), never the window
      stats.batches++;
      stats.events += events.length;
    } catch {
      // Not sent (a value the structured clone refused?): counted, never lost silently.
      oops();
      for (const kind of N.keys(sentDrops)) dropped[kind] = (dropped[kind] || 0) + sentDrops[kind];
      for (const ev of events) drop(ev.kind);
    }
    if (queue.length) schedule(BATCH_DELAY);
  }

  /** Capture was switched off: nothing held is sent later. */
  function clear() {
    queue = [];
    for (const kind of N.keys(pending)) pending[kind] = 0;
    dropped = {};
  }

  T.cfg = cfg;
  T.queue = Object.freeze({
    LIMITS,
    ERROR_DELAY,
    room,
    record,
    capture,
    emit,
    schedule,
    flush,
    clear,
    drop,
    /** Events held in the page now (sent, or waiting for the rules). */
    size: () => queue.length,
  });
})();
