// tabmcp telemetry, 1 of 11: the natives (main world, document_start, first of the capture
// scripts; docs/telemetry.md). Keeps the browser functions the capture uses in ONE frozen object
// before any page script can patch them, and opens the namespace `T` the next scripts share
// (start.js removes it, so the page never reaches their internals). Never breaks the page: the
// capture keeps wrapped functions' behaviour and counts its own failures. Safe to load twice.
(() => {
  'use strict';

  if (typeof window === 'undefined' || typeof document === 'undefined') return;
  const W = /** @type {any} */ (window);
  const HOOK = Symbol.for('tabmcp.telemetry');
  const NS = Symbol.for('tabmcp.telemetry.loading');
  if (W[HOOK] || W[NS]) return;

  /** The page's natives, as they were before any page script ran. */
  const N = Object.freeze({
    setTimeout: W.setTimeout.bind(W),
    clearTimeout: W.clearTimeout.bind(W),
    dispatch: EventTarget.prototype.dispatchEvent,
    MessageEvent,
    on: EventTarget.prototype.addEventListener,
    off: EventTarget.prototype.removeEventListener,
    stringify: JSON.stringify,
    parse: JSON.parse,
    Promise,
    then: Promise.prototype.then,
    perfNow: performance.now.bind(performance),
    keys: Object.keys,
    getOwn: Object.getOwnPropertyDescriptor,
    isArray: Array.isArray,
    qsa: Document.prototype.querySelectorAll,
    randomValues: crypto.getRandomValues.bind(crypto),
    portPost: MessagePort.prototype.postMessage,
    encode: TextEncoder.prototype.encode,
    encoder: new TextEncoder(),
    /** A typed array's length, read by the getter itself: a page may redefine %TypedArray%.prototype.length. */
    bytesLength: /** @type {(this: Uint8Array) => number} */ (
      Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'length')?.get),
  });

  const timeOrigin = performance.timeOrigin || Date.now() - N.perfNow();
  /** Epoch milliseconds, 0.1 ms resolution, immune to a page that fakes Date. */
  const now = () => Math.round((timeOrigin + N.perfNow()) * 10) / 10;
  const noop = () => {};

  /** @param {EventTarget} target @param {string} type @param {(e: any) => void} fn @param {any} [opts] */
  const listen = (target, type, fn, opts) => N.on.call(target, type, fn, opts);

  const stats = { internalErrors: 0, batches: 0, events: 0, configs: 0, dropped: /** @type {Record<string, number>} */ ({}) };
  /** Count one of our own failures (never surfaced to the page). */
  const oops = () => {
    stats.internalErrors++;
  };

  /** @param {string} s @param {number} n */
  const cap = (s, n) => (s.length > n ? `${s.slice(0, n)}…` : s);
  /** @param {unknown} s */
  const collapse = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();

  const newId = () => {
    const bytes = new Uint8Array(8);
    N.randomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  };
  /** This page load (a new one when the page comes back from the back/forward cache). */
  const load = { id: newId(), seq: 0 };
  /** A page-unique id for requests and sockets. @param {string} prefix */
  const nextId = (prefix) => `${prefix}-${load.id.slice(0, 6)}-${++load.seq}`;

  /** Give a wrapper the wrapped function's name and length. @param {Function} wrapper @param {Function} original */
  function likeOriginal(wrapper, original) {
    try {
      Object.defineProperty(wrapper, 'name', { value: original.name, configurable: true });
      Object.defineProperty(wrapper, 'length', { value: original.length, configurable: true });
    } catch {
      oops();
    }
    return wrapper;
  }

  /** Run one install step: a step that fails is counted, the others still run. @param {() => void} step */
  const install = (step) => {
    try {
      step();
    } catch {
      oops();
    }
  };

  /** Set while our own code runs: what it triggers in the page (a console call, a fetch) is not captured. */
  const guard = { busy: false };

  const T = {
    VERSION: '0.1.0',
    HOOK,
    NS,
    W,
    N,
    timeOrigin,
    now,
    noop,
    listen,
    stats,
    oops,
    cap,
    collapse,
    likeOriginal,
    install,
    load,
    newId,
    nextId,
    guard,
    /** Message names and error codes (messages.js and protocol.generated.js load first). */
    MSG: W[Symbol.for('tabmcp.messages')],
    WIRE: W[Symbol.for('tabmcp.protocol')],
  };
  if (!T.MSG || !T.WIRE) return; // loaded without its shared names: capture nothing

  // The capture's own line to the content script: a MessageChannel whose far end is offered now,
  // before any page script runs, on an event of its own type (never a window `message`, which the
  // page's listeners would see). The page holds neither end, so what it sends on a page event is
  // marked page-reported (content.js).
  const channel = new MessageChannel();
  const port = channel.port1;
  /** Handlers of messages from the content script, by type (config.js, query.js add theirs). @type {Record<string, (msg: any) => void>} */
  const handlers = Object.create(null);
  port.onmessage = (event) => {
    const msg = event.data;
    const handle = msg && typeof msg === 'object' && typeof msg.type === 'string' ? handlers[msg.type] : undefined;
    if (!handle) return;
    try {
      handle(msg);
    } catch {
      oops();
    }
  };
  T.channel = Object.freeze({
    /** Send to the content script (structured-cloned; throws when a value cannot be). @param {object} msg */
    send: (msg) => N.portPost.call(port, msg),
    /** Take messages of one type from the content script. @param {string} type @param {(msg: any) => void} fn */
    on: (type, fn) => {
      handlers[type] = fn;
    },
  });
  const { CAPTURE_EVENT } = T.MSG;
  /** Offer the line; true when the content script took it. */
  const offer = () => !N.dispatch.call(W, new N.MessageEvent(CAPTURE_EVENT.offer, { ports: [channel.port2], cancelable: true }));
  if (!offer()) {
    const again = () => {
      N.off.call(W, CAPTURE_EVENT.ask, again);
      offer();
    };
    listen(W, CAPTURE_EVENT.ask, again);
  }
  Object.defineProperty(W, NS, { value: T, configurable: true });
})();
