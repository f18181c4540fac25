// tabmcp content script (isolated world): a tiny relay between the page-world agent and the
// service worker. Page → worker over one long-lived port (about twice as fast per message as
// sendMessage); content script ⇄ page scripts over synchronous window events of our own whose
// detail is JSON text (PAGE_EVENT; calls, cancels and the agent's results on CALL_EVENT), never
// window.postMessage: the page's own `message` listeners hear nothing of ours. Safe to inject
// twice; reconnects when the service worker restarts and asks the page for a fresh snapshot. The
// telemetry capture has its own line (a MessageChannel whose port it hands over at document_start
// on an event of its own, CAPTURE_EVENT, page/natives.js): its batches and query answers come
// there, settings and queries go there; telemetry sent on a page event is the page's own and is
// relayed as page-reported. Message names come from messages.js, which manifest.json loads before
// this script.
//
// The first of the per-page limits (limits.js, loaded before this script): a page may post only
// what a page sends (snapshots, forms, telemetry, and answers to the calls it was given, once
// each); its telemetry is rate-limited here (past the rate dropped and counted; a page that keeps
// on is cut off, alone, and the worker told), its snapshots coalesced, and a definition over its
// size refused by name before it crosses to the worker.
(() => {
  const previous = globalThis.__tabmcpContent;
  if (previous && previous.alive()) return;
  const { PAGE, PAGE_EVENT, CALL_EVENT, CAPTURE_EVENT, PAGE_PORT } = globalThis[Symbol.for('tabmcp.messages')];
  const { SIZE, RATE, VERDICT, bytesOver, countLost, jsonOf, createFloodRule, fitDefinitions, pageFields } =
    globalThis[Symbol.for('tabmcp.limits')];
  /**
   * Set by the worker when it injects this script into a page that was already running (after
   * an install or reload): the page's scripts ran first, so any capture port is theirs.
   */
  const LATE = Symbol.for('tabmcp.content.late');

  /** @type {chrome.runtime.Port | null} */
  let port = null;
  let dead = false;
  /** @type {object[]} */
  const backlog = [];
  /** Telemetry events dropped from a full backlog, reported with the next batch. @type {Record<string, number>} */
  let lostTelemetry = {};
  /** The telemetry capture's own line (page/natives.js), once it handed it over. @type {MessagePort | null} */
  let capture = null;
  const late = globalThis[LATE] === true;
  /** Settings and queries for the capture that came before its line: the latest config, a few queries. @type {object[]} */
  let forCapture = [];
  /** The calls and queries the worker gave this page, not yet answered: a page answers only these, once. */
  const asked = new Set();
  /** The page's telemetry rate: past it, dropped and counted; a page that keeps on is cut off. */
  const telemetryRule = createFloodRule(RATE.telemetry, {
    onCut: () => send({ type: PAGE.limited, reason: 'flood', rate: RATE.telemetry.rate, dropped: telemetryRule.refused }),
  });
  /** Snapshots and form lists past their rate wait here, the latest of each kind, for the rate to allow them. */
  const snapshotRule = createFloodRule(RATE.snapshot);
  /** @type {Map<string, object>} */
  const held = new Map();
  let heldTimer = 0;

  /** To the page scripts (agent, forms), at once: their listeners run before this returns. */
  const toPage = (msg) => window.dispatchEvent(new CustomEvent(PAGE_EVENT.toPage, { detail: JSON.stringify(msg) }));
  /** A call or a cancel, to the page agent at once (its listener runs before this returns). */
  const toAgent = (msg) => window.dispatchEvent(new CustomEvent(CALL_EVENT.toPage, { detail: JSON.stringify(msg) }));
  /** Traced calls in the page (debug mode only): callId → the stamps so far. @type {Map<string, any[]>} */
  const traced = new Map();
  const stamp = (name) => [name, performance.timeOrigin + performance.now()];

  // Approvals are never asked here: the extension asks in its own window (approval/approvals.js).
  function fromWorker(msg) {
    if (msg && (msg.type === PAGE.call || msg.type === PAGE.formCall) && typeof msg.callId === 'string') asked.add(msg.callId);
    if (msg && msg.type === PAGE.pageQuery && typeof msg.requestId === 'string') asked.add(msg.requestId);
    if (msg && msg.type === PAGE.call && Array.isArray(msg.trace)) {
      traced.set(msg.callId, [...msg.trace, stamp('content.in')]);
      const { trace, ...call } = msg; // the page gets the call as ever
      toAgent(call);
      return;
    }
    if (msg && msg.type === PAGE.call) {
      toAgent(msg);
      return;
    }
    if (msg && msg.type === PAGE.cancel) {
      traced.delete(msg.callId);
      asked.delete(msg.callId); // nobody waits for its answer any more
      toAgent(msg);
      return;
    }
    if (msg && (msg.type === PAGE.telemetryConfig || msg.type === PAGE.pageQuery)) {
      toCapture(msg);
      return;
    }
    toPage(msg);
  }

  /** Settings and queries go on the capture's own line, never on the window (the page would read and answer them). */
  function toCapture(msg) {
    if (capture) {
      capture.postMessage(msg);
      return;
    }
    if (msg.type === PAGE.telemetryConfig) forCapture = forCapture.filter((m) => m.type !== PAGE.telemetryConfig);
    forCapture.push(msg);
    if (forCapture.length > 50) forCapture.splice(forCapture.findIndex((m) => m.type === PAGE.pageQuery), 1);
  }

  /** The capture handed over its line: take it (once) and send it what waited. */
  function takeCapture(port) {
    capture = port;
    capture.onmessage = (event) => {
      const msg = event.data;
      if (dead || !msg || typeof msg.type !== 'string') return;
      if (msg.type === PAGE.telemetry) relayTelemetry({ ...msg, pageReported: false });
      else if (msg.type === PAGE.pageResult && typeof msg.requestId === 'string' && asked.delete(msg.requestId)) send(msg);
    };
    for (const msg of forCapture.splice(0)) capture.postMessage(msg);
  }

  /** Count a telemetry batch's events as dropped (reported with the next batch that is sent). */
  function loseTelemetry(msg) {
    countLost(lostTelemetry, msg.events);
  }

  /** A telemetry batch (from the capture's line or the page's window): within the page's rate and
   * size, with the counts of what was lost before. */
  function relayTelemetry(msg) {
    if (telemetryRule.admit() !== VERDICT.pass) {
      loseTelemetry(msg);
      return;
    }
    const text = jsonOf(msg);
    if (text === null || bytesOver(text, SIZE.telemetry)) {
      loseTelemetry(msg);
      return;
    }
    if (Object.keys(lostTelemetry).length) {
      const dropped = { ...(msg.dropped || {}) };
      for (const [kind, n] of Object.entries(lostTelemetry)) dropped[kind] = (dropped[kind] || 0) + n;
      msg = { ...msg, dropped };
      lostTelemetry = {};
    }
    send(msg);
  }

  function send(msg) {
    if (!port) {
      queue(msg);
      return;
    }
    try {
      port.postMessage(msg);
    } catch {
      port = null;
      queue(msg);
    }
  }

  /** Held while the worker is away; past 200, the oldest goes (lost telemetry is counted). */
  function queue(msg) {
    backlog.push(msg);
    if (backlog.length <= 200) return;
    const lost = backlog.shift();
    if (lost && lost.type === PAGE.telemetry) countLost(lostTelemetry, lost.events);
  }

  function connect() {
    if (!chrome.runtime?.id) {
      dead = true; // the extension was reloaded or removed: this copy is orphaned
      return;
    }
    try {
      port = chrome.runtime.connect({ name: PAGE_PORT });
    } catch {
      dead = true;
      return;
    }
    port.onMessage.addListener(fromWorker);
    port.onDisconnect.addListener(() => {
      port = null;
      if (!chrome.runtime?.id) {
        dead = true;
        return;
      }
      // The service worker went away (stopped or restarted): come back and resync.
      setTimeout(() => {
        connect();
        toPage({ type: PAGE.resync });
      }, 50);
    });
    for (const msg of backlog.splice(0)) port.postMessage(msg);
  }

  /** A result on its way to the worker: a traced call's stamps go along (debug mode only). */
  function relayResult(msg) {
    if (traced.size && traced.has(msg.callId)) {
      const out = { ...msg, trace: [...traced.get(msg.callId), stamp('content.out')] };
      traced.delete(msg.callId);
      return out;
    }
    return msg;
  }

  /**
   * Listen for one of the page scripts' window events (PAGE_EVENT, CALL_EVENT): `onMessage` gets
   * its JSON text parsed, while this relay lives; anything else on it is dropped.
   * @param {string} type @param {(msg: any) => void} onMessage
   */
  function onPageEvent(type, onMessage) {
    window.addEventListener(type, (event) => {
      if (dead || typeof event.detail !== 'string') return;
      let msg;
      try {
        msg = JSON.parse(event.detail);
      } catch {
        return;
      }
      onMessage(msg);
    });
  }

  // The agent's results come back as events, like the calls went (CALL_EVENT).
  onPageEvent(CALL_EVENT.toContent, (msg) => {
    if (msg && msg.type === PAGE.result && typeof msg.callId === 'string' && asked.delete(msg.callId)) send(relayResult(msg));
  });

  /** A snapshot or form list: held (the latest of each kind) until the page's rate allows it. */
  function relayDefinitions(msg) {
    held.set(msg.type, msg);
    sendHeld();
  }

  /** A held snapshot or form list as it is sent: its definitions within their sizes (the others refused by name). */
  function fitted(msg) {
    const fit = fitDefinitions(msg.tools, msg.type === PAGE.snapshot ? msg.categories : []);
    // Rebuilt from the fields a page sends, bounded: a page's own `refused`, if any, is not relayed.
    return msg.type === PAGE.snapshot
      ? { type: msg.type, ...pageFields(msg), tools: fit.tools, categories: fit.categories, refused: fit.refused }
      : { type: msg.type, tools: fit.tools, refused: fit.refused };
  }

  /** Send the held snapshot and form list as the rate allows (each fitted then, once: one replaced
   * while it waited costs nothing); what must wait waits for a timer. */
  function sendHeld() {
    for (const [type, msg] of held) {
      if (snapshotRule.admit() !== VERDICT.pass) break;
      held.delete(type);
      send(fitted(msg));
    }
    if (held.size && !heldTimer) {
      heldTimer = setTimeout(() => {
        heldTimer = 0;
        sendHeld();
      }, Math.ceil(1000 / RATE.snapshot.rate));
    }
  }

  // What the page scripts send (PAGE_EVENT): anything on it may be the page's own (a page can
  // dispatch the same event; a frame of another origin cannot reach this window), so only what a
  // page sends is taken, checked as ever.
  onPageEvent(PAGE_EVENT.toContent, (msg) => {
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
    // Only what a page sends: approvals are answered by the person, in the extension's window,
    // only; query answers come on the capture's line only; the capture's port is taken below.
    if (msg.type === PAGE.telemetry) {
      // Not from the capture's line: events the page wrote itself, relayed as such.
      relayTelemetry({ ...msg, pageReported: true });
    } else if (msg.type === PAGE.snapshot || msg.type === PAGE.forms) {
      relayDefinitions(msg);
    } else if (msg.type === PAGE.result) {
      // page/forms.js answers form calls here
      if (typeof msg.callId === 'string' && asked.delete(msg.callId)) send(relayResult(msg));
    }
  });

  // The capture's line (CAPTURE_EVENT): offered at document_start before any page script ran, so
  // the first offer is the capture's; taking it cancels the offer (the capture then knows). Any
  // other (or any after a late injection, when the page's scripts ran first) is the page's. The
  // capture runs in the top frame only (manifest: all_frames false): a child frame's is its page's.
  window.addEventListener(CAPTURE_EVENT.offer, (event) => {
    if (dead || window !== window.top || capture || late) return;
    const line = event.ports && event.ports[0];
    if (!line) return;
    event.preventDefault();
    takeCapture(line);
  });
  // A capture that ran before this script offered to nobody: ask it again (it answers once).
  if (!late && window === window.top) window.dispatchEvent(new Event(CAPTURE_EVENT.ask));

  globalThis.__tabmcpContent = { alive: () => !dead && !!chrome.runtime?.id };
  connect();
  toPage({ type: PAGE.resync }); // the agent may have spoken before this relay existed
})();
