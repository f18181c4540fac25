// @ts-check
// The one WebSocket to the bridge: hello → welcome (or pair.required) → the router's messages; a
// heartbeat while the bridge holds the link, reconnect with backoff capped at 2 s. Messages from
// the bridge go to the handler background.js sets (`onBridgeMessages`); nothing else lives here.
import { ERROR, OUT, PROTOCOL_VERSION } from '../protocol.js';
import { BACKOFF_START_MS, LIMITS, pending, state } from './state.js';
import { TAB_DATA, sendTabData } from './tab_lane.js';

const { SIZE, bytesOver, showBytes } = LIMITS;

const HEARTBEAT_MS = 20_000;
const BACKOFF_MAX_MS = 2_000;

/** The router of the bridge's messages (background.js). @type {(msg: any) => void} */
let onBridgeMessage = () => {};

/** Where each message from the bridge goes: set once, before the first connect. @param {(msg: any) => void} handler */
export function onBridgeMessages(handler) {
  onBridgeMessage = handler;
}

/**
 * The bridge holds the link (welcome, or pair.required for the ceremony): ping it every `ms`, and
 * a later drop reconnects without backing off. @param {number} [ms]
 */
export function keepAlive(ms = HEARTBEAT_MS) {
  state.lastError = null;
  state.backoffMs = BACKOFF_START_MS;
  clearInterval(state.heartbeat);
  state.heartbeat = setInterval(() => send({ type: OUT.ping, ts: Date.now() }), ms || HEARTBEAT_MS);
}

/**
 * Send a message to the bridge; false when there is no open link (nothing is queued for later).
 * Once the bridge said it reads batched frames (welcome.batch), what one task sends — the answers
 * to a batched frame from the bridge, a failed burst of calls — leaves in one frame, one a line,
 * when the task ends (a microtask: nothing waits). Results of calls that end in tasks of their
 * own are not held for each other: under load they come about 1.04 to a task, and a task hop to
 * gather them (a message-channel post) cost more than the frames it saved. The tabs' data
 * (tab_lane.js) goes in a lane of its own, behind everything else and in chunks: an answer never
 * waits behind a heavy tab's megabytes. `json`: the message's JSON text when the caller has it
 * already (a sync's parts, serialized once to be measured), or what makes it (a tab's update: made
 * when its turn comes, so an update replaced while it waited is never serialized).
 * @param {any} message @param {string | (() => string)} [json]
 */
export function send(message, json) {
  const ws = state.ws;
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  if (TAB_DATA.has(message.type)) {
    sendTabData(ws, message, json);
    return true;
  }
  let text = typeof json === 'function' ? json() : json ?? JSON.stringify(message);
  const over = bytesOver(text, SIZE.frame);
  if (over) {
    // Never a frame the bridge must refuse (that would close the link for every tab).
    const instead = tooLarge(message, over);
    if (!instead) return false;
    text = JSON.stringify(instead);
  }
  if (!state.batch) {
    ws.send(text);
    return true;
  }
  if (outbox.ws !== ws) outbox = { ws, lines: [] };
  outbox.lines.push(text);
  if (outbox.lines.length === 1) queueMicrotask(flushOutbox);
  return true;
}

/** Messages waiting for the end of the task, and the link they were meant for. */
let outbox = { ws: /** @type {WebSocket | null} */ (null), lines: /** @type {string[]} */ ([]) };

/** The brands that name a browser, in the order they are preferred over the engine's own ("Chromium"). */
const BRANDS = ['Google Chrome', 'Microsoft Edge', 'Opera', 'Brave', 'Vivaldi', 'Chromium'];

/**
 * The browser's brand and major version ("Chromium 156", "Google Chrome 156") from
 * `navigator.userAgentData`: every Chromium-based browser's user agent says "Chrome". Firefox has
 * no userAgentData (its user agent names it).
 * @returns {string | undefined}
 */
function browserBrand() {
  const brands = navigator.userAgentData?.brands;
  if (!Array.isArray(brands)) return undefined;
  for (const name of BRANDS) {
    const found = brands.find((b) => b && b.brand === name);
    if (found) return `${name} ${found.version}`.slice(0, 64);
  }
  return undefined;
}

/** Send what waits for the end of the task now (the tabs' lane calls it first: answers go ahead). */
export function flushOutbox() {
  const { ws, lines } = outbox;
  if (!lines.length) return;
  outbox = { ws, lines: [] };
  if (!ws || ws !== state.ws || ws.readyState !== WebSocket.OPEN) return;
  // Joined while they surely fit one frame (a UTF-16 unit is at most 3 bytes); a longer one goes alone.
  let frame = [];
  let units = 0;
  for (const line of lines) {
    if (frame.length && (units + line.length + 1) * 3 > SIZE.frame) {
      ws.send(frame.join('\n'));
      frame = [];
      units = 0;
    }
    frame.push(line);
    units += line.length + 1;
  }
  ws.send(frame.length === 1 ? frame[0] : frame.join('\n'));
}

/**
 * What to send instead of a message too large for a frame: a call's or a query's answer becomes
 * a TOO_LARGE error (the bridge still gets an answer); anything else is not sent.
 */
function tooLarge(message, bytes) {
  const error = {
    code: ERROR.TOO_LARGE,
    message: `the page's answer is ${showBytes(bytes)}, over the ${showBytes(SIZE.frame)} one message to the bridge may be`,
  };
  if (message.type === OUT.callResult) return { type: OUT.callResult, callId: message.callId, ok: false, error };
  if (message.type === OUT.pageResult) return { type: OUT.pageResult, requestId: message.requestId, ok: false, error };
  console.warn('[tabmcp] not sent, too large for one frame:', message.type, showBytes(bytes));
  return null;
}

export function connect() {
  if (state.ws && state.status !== 'disconnected') return;
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = null;
  state.status = 'connecting';
  state.batch = false;
  state.chunks = false;
  state.revisions = false;
  state.connects += 1;
  let ws;
  try {
    ws = new WebSocket(state.url);
  } catch (err) {
    state.lastError = `cannot open ${state.url}: ${err.message}`;
    state.status = 'disconnected';
    scheduleReconnect();
    return;
  }
  state.ws = ws;
  ws.onopen = () => {
    if (state.ws !== ws) return;
    state.status = 'open';
    send({
      type: OUT.hello,
      protocol: PROTOCOL_VERSION,
      extensionVersion: chrome.runtime.getManifest().version,
      extensionId: chrome.runtime.id,
      browser: navigator.userAgent,
      brand: browserBrand(),
      browserName: typeof browser !== 'undefined' && browser.runtime?.getBrowserInfo ? 'firefox' : 'chromium',
      profileId: state.profileId || undefined,
      instanceId: state.instanceId,
      token: state.token || undefined,
      pairing: state.pairing || undefined,
      batch: true,
      revisions: true,
      sessionId: state.syncedSessionId || undefined,
    });
  };
  ws.onmessage = (event) => {
    if (state.ws !== ws) return;
    // This worker said `batch` in its hello: a frame may hold several messages, one a line.
    const text = String(event.data);
    for (const line of text.includes('\n') ? text.split('\n') : [text]) {
      if (!line || state.ws !== ws) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        send({ type: OUT.error, code: ERROR.MALFORMED_MESSAGE, message: 'frame is not valid JSON' });
        continue;
      }
      onBridgeMessage(msg);
    }
  };
  ws.onclose = (event) => {
    if (state.ws !== ws) return;
    state.ws = null;
    state.batch = false;
    state.chunks = false;
    state.revisions = false;
    state.status = 'disconnected';
    state.sessionId = null;
    state.pairCode = null;
    clearInterval(state.heartbeat);
    state.heartbeat = null;
    pending.endAll('the link to the bridge dropped');
    if (event.code !== 1000 && event.code !== 1005) {
      state.lastError = `connection closed (${event.code}${event.reason ? `: ${event.reason}` : ''})`;
    }
    scheduleReconnect();
  };
  ws.onerror = () => {
    if (state.ws === ws) state.lastError = `cannot reach the bridge at ${state.url}`;
  };
}

function scheduleReconnect() {
  if (state.reconnectTimer) return;
  const delay = state.backoffMs + Math.floor(Math.random() * 100);
  state.backoffMs = Math.min(state.backoffMs * 2, BACKOFF_MAX_MS);
  state.reconnectTimer = setTimeout(() => {
    state.reconnectTimer = null;
    connect();
  }, delay);
}

export function reconnectNow(reason) {
  state.backoffMs = BACKOFF_START_MS;
  const ws = state.ws;
  state.ws = null;
  state.batch = false;
  state.chunks = false;
  state.revisions = false;
  state.status = 'disconnected';
  clearInterval(state.heartbeat);
  state.heartbeat = null;
  pending.endAll(`the link to the bridge was closed (${reason})`);
  if (ws) ws.close(1000, reason);
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = null;
  connect();
}

/** The bridge took our hello: the link is ready for the tabs' sync. */
export function onWelcome(msg) {
  state.status = 'ready';
  state.pairRequired = null;
  state.pairCode = null;
  state.batch = msg.batch === true;
  state.chunks = msg.chunks === true;
  state.revisions = msg.revisions === true;
  // The tabs this run holds from this worker (the reconnect grace): its sync keeps the unchanged ones.
  state.held = new Map(state.revisions && Array.isArray(msg.held)
    ? msg.held.filter((r) => r && typeof r.revision === 'string').map((r) => [r.tabId, r.revision])
    : []);
  state.sessionId = msg.sessionId;
  keepAlive(msg.heartbeatMs);
}
