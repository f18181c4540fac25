// tabmcp service worker: one router between the pages' agents and the bridge.
//
// Listeners are registered synchronously at the top (MV3 may start this worker for any of
// them); work that needs settings waits on `ready`. One WebSocket to the bridge: hello →
// welcome → full tabs.sync, a 20 s heartbeat (which also keeps the worker alive while
// connected), reconnect with backoff capped at 2 s, and a keepalive alarm that brings the
// worker back to reconnect if the browser stopped it.
import {
  CALL_ERRORS,
  DEFAULT_BRIDGE_URL,
  ERROR,
  IN,
  OUT,
  PAGE,
  PAGE_PORT,
  PROTOCOL_VERSION,
  RUNTIME,
  STORAGE,
  normalizeBridgeUrl,
} from './protocol.js';
import { createApprovals } from './approval/approvals.js';
import { createBadges } from './badge.js';
import { createPanel, fromOwnPage } from './panel.js';
import { KIND, RULE, RULE_ERRORS, bridgeWaits, createPendingTable } from './pending.js';
import { createAgentTabs } from './agent_tabs.js';
import { cleanRules, formsEnabled } from './forms-policy.js';
import { originOf } from './origin.js';
import './limits.js';

/** Per-tab rates and sizes (limits.js): no page can affect another tab or the link. */
const { SIZE, RATE, VERDICT, bytesOver, countLost, jsonOf, showBytes, createFloodRule, fitDefinitions, pageFields, refusalText } =
  /** @type {any} */ (globalThis)[Symbol.for('tabmcp.limits')];

const HEARTBEAT_MS = 20_000;
const BACKOFF_START_MS = 250;
const BACKOFF_MAX_MS = 2_000;
const UPDATE_DEBOUNCE_MS = 30;
const KEEPALIVE_ALARM = 'tabmcp-keepalive';
const startedAt = Date.now();

/**
 * @typedef {{port: chrome.runtime.Port, documentId?: string, frameId: number, origin: string}} PagePort
 * @typedef {{url:string, title:string, native:boolean, tools:object[], categories:object[], states:string[],
 *   frameTools?: string[]}} PageState
 * @typedef {{port: chrome.runtime.Port, documentId?: string, origin: string, page: PageState | null}} FramePort
 */

/** At most this many child frames per tab are reported (the bridge ignores more). */
const MAX_FRAMES_PER_TAB = 16;

const state = {
  /** @type {WebSocket | null} */ ws: null,
  /** 'pairing': the bridge answered our hello with pair.required (not paired: nothing but the ceremony).
   * @type {'disconnected'|'connecting'|'open'|'pairing'|'ready'} */ status: 'disconnected',
  /** The bridge reads frames of several messages (its welcome said `batch`). */ batch: false,
  url: DEFAULT_BRIDGE_URL,
  /** @type {string | null} */ token: null,
  /** The pairing the person confirmed (tabmcp pair) with the bridge at `url`, presented in every
   * hello to that bridge and to no other. Only here and in chrome.storage.local (by bridge URL): no
   * page, content script or other extension can read either.
   * @type {{id: string, secret: string} | null} */ pairing: null,
  /** Why the bridge would not take us (pair.required's reason), and the code it gave us to show.
   * @type {{reason: string, message: string} | null} */ pairRequired: null,
  /** @type {{code: string, expiresAt: number} | null} */ pairCode: null,
  backoffMs: BACKOFF_START_MS,
  /** @type {ReturnType<typeof setTimeout> | null} */ reconnectTimer: null,
  /** @type {ReturnType<typeof setInterval> | null} */ heartbeat: null,
  instanceId: crypto.randomUUID(),
  /** This browser profile's id (STORAGE.profileId), sent in hello. @type {string | null} */ profileId: null,
  /** @type {string | null} */ sessionId: null,
  /** @type {string | null} */ lastError: null,
  connects: 0,
  /** @type {Map<number, PagePort>} */ ports: new Map(),
  /** @type {Map<number, PageState>} */ pages: new Map(),
  /** Child frames with our scripts, by tab and frame id. @type {Map<number, Map<number, FramePort>>} */ frames: new Map(),
  /** @type {Map<number, chrome.tabs.Tab>} */ tabs: new Map(),
  /** @type {Map<number, ReturnType<typeof setTimeout>>} */ updateTimers: new Map(),
  /** @type {number | null} */ focusedWindowId: null,
  /** @type {Map<number, Record<string, number>>} */ telemetryDropped: new Map(),
  /**
   * Top documents that were already running when this worker injected the content script (after
   * an install or reload), by tab: their capture's line went to the old content script, so the
   * page is not asked live questions (only the audit, which runs in our own world) until it reloads.
   * @type {Map<number, string>}
   */
  lateDocuments: new Map(),
  /** The bridge's capture settings for pages (telemetry.config), latest first. @type {object | null} */
  telemetryConfig: null,
  /** Why the bridge refused some of a tab's definitions (its INVALID_TOOL answer). @type {Map<number, string>} */
  refused: new Map(),
  /** The reachable sites and their stored tools, as the bridge last sent them (sites.list). @type {object[]} */
  sites: [],
  /** Forms-as-tools: the bridge's rules (forms-policy.js); empty (all off) until it speaks. @type {import('./forms-policy.js').FormsRule[]} */
  formsRules: [],
  /** Each tab's ordinary forms as tools (page/forms.js), kept only while its origin's switch is on. @type {Map<number, object[]>} */
  forms: new Map(),
  /** Popup requests waiting for the bridge's next forms.policy. @type {Array<() => void>} */
  formsWaiters: [],
  /** Each tab's telemetry rate rule (all its frames together), per document. @type {Map<number, ReturnType<typeof createFloodRule>>} */
  telemetryRules: new Map(),
  /**
   * What the per-tab limits did to a tab, for the person: the tab cut off for flooding, and the
   * definitions refused for their size, by frame. @type {Map<number, TabLimits>}
   */
  limited: new Map(),
  /** Messages this worker got from each tab's documents (the popup's report: a flood stops before it). @type {Map<number, number>} */
  received: new Map(),
};

/**
 * @typedef {{code: string, message: string}} Limit
 * @typedef {{flood: Limit | null, refused: Map<number, Limit[]>, tab: Limit | null}} TabLimits
 */

/**
 * Every request waiting for an answer (calls, page queries, approvals), with its deadline; they
 * all end by the same rules (pending.js): tab closed, page gone, bridge link dropped, timeout, cancel.
 */
const pending = createPendingTable();

/**
 * Tabs the agent opened for reachable sites: background, grouped, kept on their origin, closed when
 * idle (agent_tabs.js). One that leaves its origin ends its pending calls with SITE_REDIRECTED.
 */
const agentTabs = createAgentTabs({
  send: (m) => send(m),
  statusType: OUT.siteStatus,
  left: (tabId, url, origin) =>
    pending.endTab(tabId, RULE.leftOrigin, `agent tab ${tabId}, opened for ${origin || 'a site'}, went to ${originOf(url) || url}: it was closed`),
});

/** Add two drop-count maps ({kind: n}). */
function mergeDropped(a, b) {
  const out = { ...a };
  for (const [kind, n] of Object.entries(b || {})) out[kind] = (out[kind] || 0) + n;
  return out;
}

// ---- listeners (synchronous, top level) -------------------------------------------------

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== PAGE_PORT) return;
  // Listen at once: a port drops messages that arrive before a listener exists, and a page
  // that woke this worker speaks right away. Handle them in order once setup is done.
  const early = [];
  let disconnected = false;
  const onEarly = (msg) => early.push(msg);
  const onEarlyDisconnect = () => (disconnected = true);
  port.onMessage.addListener(onEarly);
  port.onDisconnect.addListener(onEarlyDisconnect);
  ready.then(() => {
    port.onMessage.removeListener(onEarly);
    port.onDisconnect.removeListener(onEarlyDisconnect);
    if (disconnected) return;
    onPageConnect(port, early);
  });
});
chrome.tabs.onCreated.addListener((tab) => ready.then(() => onTabChanged(tab)));
chrome.tabs.onUpdated.addListener((id, change, tab) => agentTabs.onUpdated(id, change, tab));
chrome.tabs.onActivated.addListener(({ tabId }) => agentTabs.onActivated(tabId));
chrome.tabs.onRemoved.addListener((tabId) => agentTabs.onRemoved(tabId));
chrome.tabs.onUpdated.addListener((_id, change, tab) => {
  if (change.url !== undefined || change.title !== undefined || change.status !== undefined) {
    ready.then(() => onTabChanged(tab));
  }
});
chrome.tabs.onActivated.addListener(({ tabId }) =>
  ready.then(async () => {
    try {
      const tabs = await chrome.tabs.query({ windowId: (await chrome.tabs.get(tabId)).windowId });
      for (const tab of tabs) onTabChanged(tab);
    } catch {
      /* the tab vanished meanwhile */
    }
  }),
);
chrome.tabs.onRemoved.addListener((tabId) => ready.then(() => onTabRemoved(tabId)));
chrome.windows.onFocusChanged.addListener((windowId) =>
  ready.then(() => {
    if (windowId === chrome.windows.WINDOW_ID_NONE) return; // keep the last real window
    state.focusedWindowId = windowId;
    for (const tab of state.tabs.values()) if (tab.id !== undefined) scheduleTabUpdate(tab.id);
  }),
);
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && (STORAGE.bridgeUrl in changes || STORAGE.bridgeToken in changes || STORAGE.bridgePairings in changes)) {
    ready.then(async () => {
      await loadSettings();
      reconnectNow('settings changed');
    });
  }
});
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === KEEPALIVE_ALARM) ready.then(() => {
    if (state.status === 'disconnected' && !state.reconnectTimer) connect();
  });
});
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (approvalWindow.onMessage(msg, sender, sendResponse)) return true;
  if (panel.onMessage(msg, sender, sendResponse)) return true;
  if (msg && msg.type === RUNTIME.status) {
    ready.then(() => sendResponse(statusReport({ code: fromOwnPage(sender) })));
    return true;
  }
  if (onSitesMessage(msg, sender, sendResponse)) return true;
  // The person's forms-as-tools switch: the popup's (or options') only, never a content script's.
  if (msg && (msg.type === RUNTIME.formsStatus || msg.type === RUNTIME.formsSet) && !fromOwnPage(sender)) {
    sendResponse({ ok: false, error: 'only the extension\'s own pages may read or set the forms-as-tools switch' });
    return false;
  }
  if (msg && msg.type === RUNTIME.formsStatus) {
    ready.then(() => sendResponse(formsStatus(msg.origin)));
    return true;
  }
  if (msg && msg.type === RUNTIME.formsSet) {
    ready.then(() => setFormsSwitch(msg.origin, msg.enabled)).then(sendResponse);
    return true;
  }
  // The pairing ceremony: the popup (or options) asks the bridge for a code to show the person.
  if (msg && msg.type === RUNTIME.pairRequest) {
    if (!fromOwnPage(sender)) {
      sendResponse({ ok: false, error: 'only the extension\'s own pages may ask to pair' });
      return false;
    }
    ready.then(() => sendResponse(requestPairingCode()));
    return true;
  }
  if (msg && msg.type === RUNTIME.reconnect) {
    ready.then(() => {
      reconnectNow('asked by the popup');
      sendResponse({ ok: true });
    });
    return true;
  }
  return false;
});
chrome.runtime.onInstalled.addListener(() => ready.then(injectIntoOpenTabs));

const ready = init();

// ---- setup --------------------------------------------------------------------------------

async function loadSettings() {
  const stored = await chrome.storage.local.get([STORAGE.bridgeUrl, STORAGE.bridgeToken, STORAGE.bridgePairings, STORAGE.telemetryConfig, STORAGE.profileId]);
  state.profileId = stored[STORAGE.profileId] || crypto.randomUUID();
  if (!stored[STORAGE.profileId]) await chrome.storage.local.set({ [STORAGE.profileId]: state.profileId });
  if (stored[STORAGE.telemetryConfig] && typeof stored[STORAGE.telemetryConfig] === 'object') {
    state.telemetryConfig = stored[STORAGE.telemetryConfig];
  }
  try {
    state.url = normalizeBridgeUrl(stored[STORAGE.bridgeUrl] || DEFAULT_BRIDGE_URL);
  } catch (err) {
    state.lastError = `invalid bridge URL in settings: ${err.message}`;
    state.url = DEFAULT_BRIDGE_URL;
  }
  state.token = stored[STORAGE.bridgeToken] || null;
  const pairings = stored[STORAGE.bridgePairings];
  const pairing = pairings && typeof pairings === 'object' ? pairings[state.url] : null;
  state.pairing = pairing && typeof pairing.id === 'string' && typeof pairing.secret === 'string'
    ? { id: pairing.id, secret: pairing.secret } : null;
}

async function init() {
  await loadSettings();
  await agentTabs.restored; // which tabs are agent tabs (and their origins) before any snapshot
  await chrome.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 0.5 });
  for (const tab of await chrome.tabs.query({})) {
    if (tab.id !== undefined) state.tabs.set(tab.id, tab);
  }
  try {
    state.focusedWindowId = (await chrome.windows.getLastFocused()).id ?? null;
  } catch {
    state.focusedWindowId = null;
  }
  connect();
}

/** The scripts manifest.json injects with `file`, in their order (shared names first). @param {string} file */
const scriptsWith = (file) => (chrome.runtime.getManifest().content_scripts || []).find((c) => c.js?.includes(file))?.js || [file];

/** After an install or reload, pages opened earlier have no (live) content scripts: add them. */
async function injectIntoOpenTabs() {
  const tabs = await chrome.tabs.query({ url: ['http://*/*', 'https://*/*', 'file://*/*'] });
  await Promise.all(
    tabs.map(async (tab) => {
      if (tab.id === undefined || state.ports.has(tab.id)) return;
      try {
        await chrome.scripting.executeScript({
          target: { tabId: tab.id, allFrames: true },
          files: scriptsWith('page/agent.js'),
          world: 'MAIN',
          injectImmediately: true,
        });
        // Its page scripts ran first: the content script takes no capture port from them (content.js).
        await chrome.scripting.executeScript({
          target: { tabId: tab.id, allFrames: true },
          func: () => {
            globalThis[Symbol.for('tabmcp.content.late')] = true;
          },
        });
        const injected = await chrome.scripting.executeScript({ target: { tabId: tab.id, allFrames: true }, files: scriptsWith('content.js') });
        const top = injected.find((r) => r.frameId === 0);
        if (top && top.documentId) state.lateDocuments.set(tab.id, top.documentId);
      } catch {
        /* pages the extension may not touch (the web store, chrome://) */
      }
    }),
  );
}

// ---- bridge connection --------------------------------------------------------------------

/**
 * Send a message to the bridge; false when there is no open link (nothing is queued for later).
 * Once the bridge said it reads batched frames (welcome.batch), what one task sends — the answers
 * to a batched frame from the bridge, a failed burst of calls — leaves in one frame, one a line,
 * when the task ends (a microtask: nothing waits). Results of calls that end in tasks of their
 * own are not held for each other: under load they come about 1.04 to a task, and a task hop to
 * gather them (a message-channel post) cost more than the frames it saved.
 */
function send(message) {
  const ws = state.ws;
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  let text = JSON.stringify(message);
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

function flushOutbox() {
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

function connect() {
  if (state.ws && state.status !== 'disconnected') return;
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = null;
  state.status = 'connecting';
  state.batch = false;
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
      browserName: typeof browser !== 'undefined' && browser.runtime?.getBrowserInfo ? 'firefox' : 'chromium',
      profileId: state.profileId || undefined,
      instanceId: state.instanceId,
      token: state.token || undefined,
      pairing: state.pairing || undefined,
      batch: true,
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
        send({ type: OUT.error, code: CALL_ERRORS.malformed, message: 'frame is not valid JSON' });
        continue;
      }
      onBridgeMessage(msg);
    }
  };
  ws.onclose = (event) => {
    if (state.ws !== ws) return;
    state.ws = null;
    state.batch = false;
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

function reconnectNow(reason) {
  state.backoffMs = BACKOFF_START_MS;
  const ws = state.ws;
  state.ws = null;
  state.batch = false;
  state.status = 'disconnected';
  clearInterval(state.heartbeat);
  state.heartbeat = null;
  pending.endAll(`the link to the bridge was closed (${reason})`);
  if (ws) ws.close(1000, reason);
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = null;
  connect();
}

async function onBridgeMessage(msg) {
  switch (msg && msg.type) {
    case IN.pairRequired:
      // Not paired (or the bridge forgot us): the link stays open for the ceremony only. The
      // popup shows it and asks for a code; the worker keeps the link alive meanwhile.
      state.status = 'pairing';
      state.pairRequired = { reason: String(msg.reason || 'unpaired'), message: String(msg.message || '') };
      state.pairCode = null;
      state.lastError = null;
      state.backoffMs = BACKOFF_START_MS;
      clearInterval(state.heartbeat);
      state.heartbeat = setInterval(() => send({ type: OUT.ping, ts: Date.now() }), HEARTBEAT_MS);
      break;
    case IN.pairCode:
      if (state.status === 'pairing') {
        state.pairCode = { code: String(msg.code), expiresAt: Date.now() + (Number(msg.expiresMs) || 0) };
      }
      break;
    case IN.pairDone:
      // The person typed our code into `tabmcp pair`: keep the secret (storage.onChanged reconnects
      // with it in the hello).
      if (state.status === 'pairing' && typeof msg.pairingId === 'string' && typeof msg.secret === 'string') {
        state.pairCode = null;
        const stored = (await chrome.storage.local.get(STORAGE.bridgePairings))[STORAGE.bridgePairings] || {};
        await chrome.storage.local.set({
          [STORAGE.bridgePairings]: { ...stored, [state.url]: { id: msg.pairingId, secret: msg.secret } },
        });
      }
      break;
    case IN.welcome: {
      state.status = 'ready';
      state.pairRequired = null;
      state.pairCode = null;
      state.batch = msg.batch === true;
      state.sessionId = msg.sessionId;
      state.lastError = null;
      state.backoffMs = BACKOFF_START_MS;
      clearInterval(state.heartbeat);
      state.heartbeat = setInterval(() => send({ type: OUT.ping, ts: Date.now() }), msg.heartbeatMs || HEARTBEAT_MS);
      // A freshly started worker gives the pages' relays a moment to reconnect first.
      const age = Date.now() - startedAt;
      if (age < 1000) await new Promise((r) => setTimeout(r, 1000 - age));
      await sendFullSync();
      break;
    }
    case IN.callStart:
      startCall(msg);
      break;
    case IN.callCancel:
      cancelCall(msg.callId, msg.reason);
      break;
    case IN.approvalRequest:
      approvalWindow.start(msg);
      break;
    case IN.approvalWithdraw:
      withdrawApproval(msg.approvalId);
      break;
    case IN.telemetryConfig:
      setTelemetryConfig(msg.config);
      break;
    case IN.formsPolicy:
      setFormsPolicy(msg.rules);
      break;
    case IN.pageQuery:
      startPageQuery(msg);
      break;
    case IN.siteOpen:
      agentTabs.open(msg);
      break;
    case IN.sitesList:
      state.sites = Array.isArray(msg.sites) ? msg.sites : [];
      break;
    case IN.panelState:
      panel.onState(msg);
      break;
    case IN.ping:
      send({ type: OUT.pong, ts: msg.ts });
      break;
    case IN.pong:
      break;
    case IN.error: {
      const refusedTab = msg.code === ERROR.INVALID_TOOL && /^tab:\d+$/.test(msg.ref || '') ? Number(msg.ref.slice(4)) : null;
      if (refusedTab !== null) {
        noteRefused(refusedTab, msg.message);
        break;
      }
      state.lastError = `${msg.code}: ${msg.message}`;
      console.warn('[tabmcp] bridge error', msg.code, msg.message);
      break;
    }
    default:
      send({ type: OUT.error, code: CALL_ERRORS.unknownType, message: `unknown message type ${msg && msg.type}` });
  }
}

// ---- reachable sites (the popup's section) ------------------------------------------------

/**
 * The popup lists reachable sites, lets the person allow the active tab's site and forget one.
 * Only the extension's own popup may: a content script (a web page's relay) sends from the
 * page's URL, never from this extension's popup/ pages, so a page can never make its site reachable.
 */
function onSitesMessage(msg, sender, sendResponse) {
  if (!msg || ![RUNTIME.sites, RUNTIME.sitePermission, RUNTIME.siteForget].includes(msg.type)) return false;
  if (sender.id !== chrome.runtime.id || !String(sender.url || '').startsWith(chrome.runtime.getURL('popup/'))) {
    sendResponse({ ok: false, error: 'only the tabmcp popup can change reachable sites' });
    return false;
  }
  ready.then(async () => {
    if (msg.type === RUNTIME.sites) {
      const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true }).catch(() => []);
      let origin = '';
      try {
        const u = new URL((tab && tab.url) || '');
        if (u.protocol === 'http:' || u.protocol === 'https:') origin = u.origin;
      } catch {
        /* not a web page */
      }
      const page = tab && tab.id !== undefined ? state.pages.get(tab.id) : null;
      sendResponse({ sites: state.sites, connected: state.status === 'ready', active: { origin, tools: page ? page.tools.length : 0 } });
      return;
    }
    if (state.status !== 'ready') {
      sendResponse({ ok: false, error: 'the bridge is not connected' });
      return;
    }
    if (msg.type === RUNTIME.sitePermission) send({ type: OUT.sitePermission, origin: String(msg.origin), reachable: !!msg.reachable });
    else send({ type: OUT.siteForget, origin: String(msg.origin) });
    sendResponse({ ok: true });
  });
  return true;
}

// ---- definitions the bridge refused ---------------------------------------------------------

/**
 * The bridge refused some of a tab's tools or categories: never silently. The page's console
 * says which and why (where its author looks), and the popup shows it to the person.
 */
function noteRefused(tabId, message) {
  if (state.refused.get(tabId) === message) return;
  state.refused.set(tabId, message);
  const entry = state.ports.get(tabId);
  try {
    entry?.port.postMessage({ type: PAGE.refused, message });
  } catch {
    /* the page is gone */
  }
}

// ---- capture settings for the pages --------------------------------------------------------

/** The page's own message for a config from the bridge. */
function telemetryConfigMessage(config) {
  return { ...config, type: PAGE.telemetryConfig };
}

/** Keep the bridge's capture settings and hand them to every page now (and to each new one). */
function setTelemetryConfig(config) {
  if (!config || typeof config !== 'object') return;
  state.telemetryConfig = config;
  chrome.storage.local.set({ [STORAGE.telemetryConfig]: config }).catch(() => {});
  for (const entry of state.ports.values()) {
    try {
      entry.port.postMessage(telemetryConfigMessage(config));
    } catch {
      /* the page is gone */
    }
  }
}

// ---- forms as tools: the bridge's switch per origin (forms-policy.js) --------------------------

/** Tell a page whether its forms may be offered (page/forms.js scans only while they may). */
function tellFormsPolicy(entry) {
  try {
    entry.port.postMessage({ type: PAGE.formsPolicy, enabled: formsEnabled(state.formsRules, entry.origin) });
  } catch {
    /* the page is gone */
  }
}

/** The bridge's rules changed: every page hears its switch; forms of origins now off are dropped. */
function setFormsPolicy(rules) {
  state.formsRules = cleanRules(rules);
  for (const [tabId, entry] of state.ports) {
    tellFormsPolicy(entry);
    if (state.forms.has(tabId) && !formsEnabled(state.formsRules, entry.origin)) {
      state.forms.delete(tabId);
      scheduleTabUpdate(tabId);
    }
  }
  for (const wake of state.formsWaiters.splice(0)) wake();
}

/** The popup's view: the rules, and the switch of one origin. */
function formsStatus(origin) {
  return {
    connected: state.status === 'ready',
    rules: state.formsRules,
    origin: String(origin || ''),
    enabled: formsEnabled(state.formsRules, String(origin || '')),
  };
}

/** The person flipped the switch in the popup: the bridge keeps it and answers with new rules. */
async function setFormsSwitch(origin, enabled) {
  if (typeof origin !== 'string' || !/^https?:\/\//.test(origin)) return { ok: false, error: 'not a web page origin' };
  const announced = new Promise((resolve) => {
    state.formsWaiters.push(resolve);
    setTimeout(resolve, 5000);
  });
  if (!send({ type: OUT.formsSet, origin, enabled: !!enabled })) {
    return { ok: false, error: 'the bridge is not connected: start tabmcp serve, then try again' };
  }
  await announced;
  return { ok: true, ...formsStatus(origin) };
}

// ---- tabs ---------------------------------------------------------------------------------

/** @returns {import('./protocol.js').TabSnapshot | null} */
function snapshotOf(tabId) {
  const tab = state.tabs.get(tabId);
  if (!tab) return null;
  const page = state.pages.get(tabId);
  const port = state.ports.get(tabId);
  const { origin, url } = trustedLocation(tabId);
  if (!agentTabOnOrigin(tabId, origin)) {
    // An agent tab off its origin (being closed): it offers nothing, not for an instant.
    return {
      tabId, windowId: tab.windowId, origin, url, title: tab.title || '', documentId: port ? port.documentId : undefined,
      active: !!tab.active, focused: false, native: false, tools: [], categories: [], states: [], frames: [],
    };
  }
  return {
    tabId,
    windowId: tab.windowId,
    origin,
    url,
    title: (page && page.title) || tab.title || '',
    documentId: port ? port.documentId : undefined,
    active: !!tab.active,
    focused: !!tab.active && (state.focusedWindowId === null || tab.windowId === state.focusedWindowId),
    native: !!(page && page.native),
    tools: page ? page.tools : [],
    categories: page ? page.categories : [],
    states: page ? page.states : [],
    forms: port && state.forms.has(tabId) && formsEnabled(state.formsRules, port.origin)
      ? { origin: port.origin, tools: state.forms.get(tabId) }
      : undefined,
    frames: allowedFrames(tabId).map(([frameId, f]) => ({
      frameId,
      documentId: f.documentId,
      origin: f.origin,
      url: f.page.url,
      title: f.page.title,
      tools: f.page.tools,
      categories: f.page.categories,
      states: f.page.states,
    })),
  };
}

/**
 * An agent tab offers tools only while both its document (Chrome's origin of its port) and its URL
 * are on the origin it was opened for; any other tab always may (agent_tabs.js `allows`).
 */
function agentTabOnOrigin(tabId, origin) {
  if (!agentTabs.isAgentTab(tabId)) return true;
  const tab = state.tabs.get(tabId);
  const tabUrl = (tab && tab.url) || '';
  return agentTabs.allows(tabId, origin) && (!originOf(tabUrl) || agentTabs.allows(tabId, originOf(tabUrl)));
}

/**
 * Where the tab's top document is, by Chrome's word: its port's `sender.origin` (else the tab's
 * URL's origin), and the URL the page reported only when it is of that origin. A page script
 * can post a snapshot claiming any URL (content.js relays the page's messages); it must not get
 * another site's per-origin switches, rules, remembered approvals or name.
 * @returns {{origin: string, url: string}}
 */
function trustedLocation(tabId) {
  const tab = state.tabs.get(tabId);
  const page = state.pages.get(tabId);
  const port = state.ports.get(tabId);
  const tabUrl = (tab && (tab.url || tab.pendingUrl)) || '';
  const origin = (port && port.origin && port.origin !== 'null' ? port.origin : '') || originOf(tabUrl);
  const claimed = page ? page.url : '';
  const url = claimed && originOf(claimed) === origin ? claimed : (originOf(tabUrl) === origin ? tabUrl : origin);
  return { origin, url };
}

/**
 * The tab's child frames that may offer tools: those with tools whose origin (Chrome's word for
 * it, not the frame's) is the top page's own, or one the top page grants with `allow="tools"`.
 * @returns {Array<[number, FramePort & {page: PageState}]>}
 */
function allowedFrames(tabId) {
  const frames = state.frames.get(tabId);
  const top = state.pages.get(tabId);
  if (!frames || !top) return [];
  const topOrigin = trustedLocation(tabId).origin; // Chrome's, not the page's claim
  if (!topOrigin) return [];
  const granted = new Set(top.frameTools || []);
  const out = [];
  for (const [frameId, f] of frames) {
    if (!f.page || (!f.page.tools.length && !f.page.categories.length)) continue;
    if (!f.origin || f.origin === 'null') continue;
    if (f.origin !== topOrigin && !granted.has(f.origin) && !granted.has('*')) continue;
    out.push([frameId, /** @type {FramePort & {page: PageState}} */ (f)]);
    if (out.length >= MAX_FRAMES_PER_TAB) break;
  }
  return out;
}

/** Whether a frame may still offer tools right now (the top page can revoke it). */
function frameAllowed(tabId, frameId) {
  return allowedFrames(tabId).some(([id]) => id === frameId);
}

async function sendFullSync() {
  try {
    state.tabs.clear();
    for (const tab of await chrome.tabs.query({})) if (tab.id !== undefined) state.tabs.set(tab.id, tab);
  } catch {
    /* keep what we know */
  }
  // One sync in parts that each fit a frame (`more` on all but the last): however many tabs and
  // tools there are, never a frame the bridge must refuse.
  /** @type {object[][]} */
  const parts = [[]];
  let size = 0;
  for (const tabId of state.tabs.keys()) {
    const fitted = fitTab(snapshotOf(tabId));
    if (!fitted) continue;
    const [snap, bytes] = fitted;
    if (parts[parts.length - 1].length && size + bytes > SIZE.syncPart) {
      parts.push([]);
      size = 0;
    }
    parts[parts.length - 1].push(snap);
    size += bytes;
  }
  parts.forEach((tabs, i) => send({ type: OUT.tabsSync, tabs, ...(i < parts.length - 1 ? { more: true } : {}) }));
  // A new bridge run hears what the limits did, for its log.
  for (const tabId of state.limited.keys()) {
    for (const limit of limitsList(tabId)) tell(tabId, -2, limit.code, limit.message);
  }
  updateBadges();
}

function scheduleTabUpdate(tabId) {
  if (state.updateTimers.has(tabId)) return;
  state.updateTimers.set(
    tabId,
    setTimeout(() => {
      state.updateTimers.delete(tabId);
      const snap = snapshotOf(tabId);
      // The bridge answers again if the new definitions still have refused ones.
      if (snap && state.status === 'ready') {
        state.refused.delete(tabId);
        send({ type: OUT.tabUpdate, tab: fitTab(snap)[0] });
      }
      updateBadge(tabId);
    }, UPDATE_DEBOUNCE_MS),
  );
}

function onTabChanged(tab) {
  if (tab.id === undefined) return;
  state.tabs.set(tab.id, tab);
  scheduleTabUpdate(tab.id);
}

function onTabRemoved(tabId) {
  state.telemetryDropped.delete(tabId);
  state.lateDocuments.delete(tabId);
  state.received.delete(tabId);
  state.telemetryRules.delete(tabId);
  state.limited.delete(tabId);
  state.refused.delete(tabId);
  state.tabs.delete(tabId);
  state.pages.delete(tabId);
  state.forms.delete(tabId);
  state.frames.delete(tabId);
  state.ports.delete(tabId);
  clearTimeout(state.updateTimers.get(tabId));
  state.updateTimers.delete(tabId);
  pending.endTab(tabId, RULE.tabClosed, `tab ${tabId} was closed`);
  if (state.status === 'ready') send({ type: OUT.tabClosed, tabId });
}

function onPageConnect(port, early = []) {
  const sender = port.sender || {};
  const tabId = sender.tab && sender.tab.id;
  if (tabId === undefined || typeof sender.frameId !== 'number') {
    port.disconnect();
    return;
  }
  if (sender.frameId !== 0) {
    onFrameConnect(tabId, sender, port, early);
    return;
  }
  state.tabs.set(tabId, sender.tab);
  const senderOrigin = String(sender.origin || originOf(sender.url || ''));
  if (!agentTabs.allows(tabId, senderOrigin)) {
    // A document of another origin in an agent tab: never heard, and the tab goes.
    port.disconnect();
    agentTabs.leave(tabId, sender.url || senderOrigin);
    return;
  }
  const previous = state.ports.get(tabId);
  state.ports.set(tabId, { port, documentId: sender.documentId, frameId: sender.frameId, origin: String(sender.origin || originOf(sender.url || '')) });
  if (previous && previous.documentId !== sender.documentId) {
    state.pages.delete(tabId);
    state.forms.delete(tabId);
    state.telemetryRules.delete(tabId); // a new document starts with its own rate
    state.limited.delete(tabId);
    pending.endTab(tabId, RULE.navigated, `tab ${tabId} navigated to another page`);
  }
  port.onMessage.addListener((msg) => onPageMessage(tabId, port, msg));
  if (state.telemetryConfig) port.postMessage(telemetryConfigMessage(state.telemetryConfig));
  tellFormsPolicy(state.ports.get(tabId));
  for (const msg of early) onPageMessage(tabId, port, msg);
  port.onDisconnect.addListener(async () => {
    const current = state.ports.get(tabId);
    if (!current || current.port !== port) return;
    state.ports.delete(tabId);
    state.pages.delete(tabId);
    state.forms.delete(tabId);
    // Closing a tab also disconnects its port first: tell a close from a navigation.
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    const next = tab ? tab.pendingUrl || tab.url || '' : ''; // where it is going (a navigation's target)
    if (next && !agentTabs.allows(tabId, originOf(next))) {
      agentTabs.leave(tabId, next); // an agent tab goes to another origin: SITE_REDIRECTED, closed
    } else if (tab) {
      pending.endTab(tabId, RULE.navigated, `the page in tab ${tabId} unloaded before it answered`);
      scheduleTabUpdate(tabId);
    } else {
      onTabRemoved(tabId);
    }
  });
  scheduleTabUpdate(tabId);
}

/** A child frame's agent: it may describe and run its own tools, nothing else. */
function onFrameConnect(tabId, sender, port, early) {
  const frameId = sender.frameId;
  let frames = state.frames.get(tabId);
  if (!frames) state.frames.set(tabId, (frames = new Map()));
  const previous = frames.get(frameId);
  /** @type {FramePort} */
  const entry = { port, documentId: sender.documentId, origin: String(sender.origin || ''), page: null };
  frames.set(frameId, entry);
  if (previous) pending.endFrame(tabId, frameId, `frame ${frameId} of tab ${tabId} navigated`);
  const onMessage = (msg) => {
    if (frames.get(frameId) !== entry || !msg) return; // a stale document
    state.received.set(tabId, (state.received.get(tabId) || 0) + 1);
    if (msg.type === PAGE.snapshot) {
      const fitted = admitDefinitions(tabId, frameId, msg);
      const fields = pageFields(msg);
      delete fields.frameTools; // a frame grants no frames
      entry.page = { ...fields, tools: fitted.tools, categories: fitted.categories };
      scheduleTabUpdate(tabId);
    } else if (msg.type === PAGE.limited) {
      noteFlood(tabId, msg);
    } else if (msg.type === PAGE.result) {
      const call = pending.get(msg.callId, KIND.call);
      if (!call || call.tabId !== tabId || call.frameId !== frameId) return; // only its own calls
      finishCall(msg.callId, pageOutcome(msg, 'the frame reported a failure'));
    }
  };
  port.onMessage.addListener(onMessage);
  for (const msg of early) onMessage(msg);
  port.onDisconnect.addListener(() => {
    if (frames.get(frameId) !== entry) return;
    frames.delete(frameId);
    if (!frames.size && state.frames.get(tabId) === frames) state.frames.delete(tabId);
    pending.endFrame(tabId, frameId, `the frame ${frameId} in tab ${tabId} unloaded during the call`);
    scheduleTabUpdate(tabId);
  });
}

function onPageMessage(tabId, port, msg) {
  const current = state.ports.get(tabId);
  if (!current || current.port !== port || !msg) return; // a stale document
  state.received.set(tabId, (state.received.get(tabId) || 0) + 1);
  if (msg.type === PAGE.snapshot) {
    const fitted = admitDefinitions(tabId, 0, msg);
    state.pages.set(tabId, { ...pageFields(msg), tools: fitted.tools, categories: fitted.categories });
    scheduleTabUpdate(tabId);
  } else if (msg.type === PAGE.forms) {
    // Kept only for an origin (Chrome's word for it) whose switch is on; the bridge checks again.
    if (!Array.isArray(msg.tools) || !formsEnabled(state.formsRules, current.origin)) {
      if (state.forms.delete(tabId)) scheduleTabUpdate(tabId);
      return;
    }
    const { tools, refused } = fitDefinitions(msg.tools, []);
    if (refused.length) noteRefusals(tabId, -1, refused);
    state.forms.set(tabId, tools);
    scheduleTabUpdate(tabId);
  } else if (msg.type === PAGE.limited) {
    noteFlood(tabId, msg);
  } else if (msg.type === PAGE.telemetry) {
    if (!Array.isArray(msg.events)) return;
    if (telemetryRule(tabId).admit() !== VERDICT.pass) {
      // Past the tab's rate: dropped, counted, and the count goes with the tab's next batch.
      const lost = { ...(state.telemetryDropped.get(tabId) || {}) };
      countLost(lost, msg.events);
      state.telemetryDropped.set(tabId, lost);
      return;
    }
    const dropped = mergeDropped(msg.dropped && typeof msg.dropped === 'object' ? msg.dropped : {},
      state.telemetryDropped.get(tabId));
    // Where the events come from is Chrome's word (the port's origin), never the page's: a URL
    // of another origin is not passed on, and the bridge checks the events' own URLs against it.
    const claimed = String(msg.url || '');
    const sent = state.status === 'ready' && send({
      type: OUT.telemetry,
      tabId,
      documentId: current.documentId,
      origin: current.origin,
      url: claimed && originOf(claimed) === current.origin ? claimed : trustedLocation(tabId).url,
      pageReported: msg.pageReported !== false,
      events: msg.events,
      dropped,
    });
    if (sent) {
      state.telemetryDropped.delete(tabId);
    } else {
      // No bridge right now: nothing is lost silently, the count goes with the next batch.
      countLost(dropped, msg.events);
      state.telemetryDropped.set(tabId, dropped);
    }
  } else if (msg.type === PAGE.pageResult) {
    const query = pending.get(msg.requestId, KIND.query);
    if (!query || query.tabId !== tabId) return;
    finishPageQuery(msg.requestId, { ok: !!msg.ok, result: msg.result, error: msg.ok ? undefined : pageError(msg.error, 'the page did not answer') });
  } else if (msg.type === PAGE.result) {
    const call = pending.get(msg.callId, KIND.call);
    if (!call || call.tabId !== tabId || call.frameId !== 0) return; // a page answers only its own calls
    finishCall(msg.callId, pageOutcome(msg, 'the page reported a failure'));
  }
}

// ---- per-tab limits (limits.js): a page that floods or sends too much affects itself only ----

/** The tab's telemetry rate rule, its frames together, for its current document. */
function telemetryRule(tabId) {
  let rule = state.telemetryRules.get(tabId);
  if (!rule) {
    rule = createFloodRule(RATE.telemetry, {
      onCut: () => noteFlood(tabId, { rate: RATE.telemetry.rate, dropped: rule.refused }),
    });
    state.telemetryRules.set(tabId, rule);
  }
  return rule;
}

/** @returns {TabLimits} */
function limitsOf(tabId) {
  let limits = state.limited.get(tabId);
  if (!limits) state.limited.set(tabId, (limits = { flood: null, refused: new Map(), tab: null }));
  return limits;
}

/** Everything the limits did to a tab, for the popup. @returns {Limit[]} */
function limitsList(tabId) {
  const limits = state.limited.get(tabId);
  if (!limits) return [];
  return [limits.flood, limits.tab, ...[...limits.refused.values()].flat()].filter(Boolean);
}

/**
 * Tell what a limit did: the bridge's log (an `error` naming the tab), the page's console (where
 * its author looks; `frameId` -2: the bridge only); the popup reads `state.limited`.
 */
function tell(tabId, frameId, code, message) {
  const origin = trustedLocation(tabId).origin || 'no origin';
  if (state.status === 'ready') send({ type: OUT.error, code, message: `tab ${tabId} (${origin}): ${message}`, ref: `tab:${tabId}` });
  if (frameId === -2) return;
  const entry = frameId > 0 ? state.frames.get(tabId)?.get(frameId) : state.ports.get(tabId);
  try {
    entry?.port.postMessage({ type: PAGE.refused, message: `${code}: ${message}` });
  } catch {
    /* the page is gone */
  }
}

/** A tab (one of its frames) kept on past its telemetry rate: cut off, named, alone. */
function noteFlood(tabId, info) {
  const limits = limitsOf(tabId);
  if (limits.flood) return;
  telemetryRule(tabId).cutOff(); // nothing more of this document's telemetry is relayed
  const rate = Number(info && info.rate) || RATE.telemetry.rate;
  limits.flood = {
    code: ERROR.TAB_FLOODED,
    message: `the page kept sending telemetry past ${rate} batches a second: ` +
      'its telemetry is cut off (dropped and counted) until it navigates; its tools are kept, other tabs are not affected',
  };
  tell(tabId, 0, ERROR.TAB_FLOODED, limits.flood.message);
}

/** A document's definitions within their sizes: the content script's refusals and this worker's own, noted. */
function admitDefinitions(tabId, frameId, msg) {
  const fitted = fitDefinitions(msg.tools, msg.categories);
  const relayed = Array.isArray(msg.refused) ? msg.refused.slice(0, 100).filter(isRefusal) : [];
  noteRefusals(tabId, frameId, [...relayed, ...fitted.refused]);
  return fitted;
}

/** A refusal as content.js reports it (it never relays a page's own `refused`). */
const isRefusal = (r) => !!r && (r.kind === 'tool' || r.kind === 'category') && typeof r.name === 'string' &&
  Number.isFinite(r.bytes) && Number.isFinite(r.limit);

/** The definitions of one frame (0: the top document, -1: its forms) refused now; new ones are told. */
function noteRefusals(tabId, frameId, refusals) {
  const limits = limitsOf(tabId);
  const before = new Set((limits.refused.get(frameId) || []).map((l) => l.message));
  const where = frameId > 0 ? `frame ${frameId}: ` : frameId === -1 ? 'forms: ' : '';
  const now = refusals.map((r) => ({ code: ERROR.TOO_LARGE, message: where + refusalText(r) }));
  if (now.length) limits.refused.set(frameId, now);
  else limits.refused.delete(frameId);
  const fresh = now.filter((l) => !before.has(l.message));
  if (fresh.length) tell(tabId, frameId, ERROR.TOO_LARGE, fresh.map((l) => l.message).join('; '));
}

/**
 * A tab's snapshot as it may be sent, with its size in bytes (at most): past SIZE.tab (its
 * frames' definitions add up), it goes without its definitions, and the person is told why.
 * @returns {[object, number] | null}
 */
function fitTab(snap) {
  if (!snap) return null;
  const text = jsonOf(snap) || '{}';
  const over = bytesOver(text, SIZE.tab);
  const limits = state.limited.get(snap.tabId);
  if (!over) {
    if (limits && limits.tab) limits.tab = null;
    return [snap, text.length * 3 <= SIZE.syncPart ? text.length * 3 : new TextEncoder().encode(text).length];
  }
  const bare = { ...snap, tools: [], categories: [], frames: [], forms: undefined };
  const message = `the tab's definitions together are ${showBytes(over)}, over the ${showBytes(SIZE.tab)} one tab may send: ` +
    'it is sent without them';
  const tabLimits = limitsOf(snap.tabId);
  if (!tabLimits.tab || tabLimits.tab.message !== message) {
    tabLimits.tab = { code: ERROR.TOO_LARGE, message };
    tell(snap.tabId, 0, ERROR.TOO_LARGE, message);
  }
  return [bare, (jsonOf(bare) || '').length * 3];
}

// ---- calls --------------------------------------------------------------------------------

function startCall(msg) {
  agentTabs.touch(msg.tabId);
  const reply = (error) =>
    send({ type: OUT.callResult, callId: msg.callId, ok: false, error });
  const frameId = Number.isInteger(msg.frameId) ? msg.frameId : 0;
  if (frameId && !frameAllowed(msg.tabId, frameId)) {
    reply({
      code: state.tabs.has(msg.tabId) ? CALL_ERRORS.tabNavigated : CALL_ERRORS.tabClosed,
      message: `frame ${frameId} of tab ${msg.tabId} is gone or no longer allowed to offer tools`,
    });
    return;
  }
  const entry = frameId ? state.frames.get(msg.tabId).get(frameId) : state.ports.get(msg.tabId);
  if (entry && !agentTabs.allows(msg.tabId, entry.origin)) {
    reply({ code: CALL_ERRORS.siteRedirected, message: `agent tab ${msg.tabId} is no longer on the site it was opened for` });
    return;
  }
  const formCall = msg.source === 'form';
  if (formCall && (frameId || (entry && !formsEnabled(state.formsRules, entry.origin)))) {
    reply({ code: ERROR.OUT_OF_SCOPE, message: `forms-as-tools is off for ${entry ? entry.origin : 'this page'}` });
    return;
  }
  if (!entry) {
    const exists = state.tabs.has(msg.tabId);
    reply({
      code: exists ? CALL_ERRORS.tabNavigated : CALL_ERRORS.tabClosed,
      message: exists ? `the page in tab ${msg.tabId} is not ready (loading or unloaded)` : `tab ${msg.tabId} is closed`,
    });
    return;
  }
  if (msg.documentId && entry.documentId && msg.documentId !== entry.documentId) {
    reply({ code: CALL_ERRORS.tabNavigated, message: `tab ${msg.tabId} navigated to another page` });
    return;
  }
  pending.add(KIND.call, msg.callId, {
    tabId: msg.tabId,
    frameId,
    timeoutMs: (msg.timeoutMs || 30_000) + 500,
    timeoutMessage: `${msg.tool} did not answer within ${msg.timeoutMs} ms`,
    data: { port: entry.port },
  });
  const call = { type: formCall ? PAGE.formCall : PAGE.call, callId: msg.callId, tool: msg.tool, arguments: msg.arguments || {} };
  if (Array.isArray(msg.trace)) call.trace = [...msg.trace, stamp('worker.in')]; // debug mode only
  try {
    entry.port.postMessage(call);
  } catch (err) {
    finishCall(msg.callId, { ok: false, error: { code: CALL_ERRORS.tabNavigated, message: String(err.message) } });
  }
}

/** The page answered (or could not be asked): report it, once. */
function finishCall(callId, outcome) {
  if (!pending.take(callId, KIND.call)) return;
  send({ type: OUT.callResult, callId, ...outcome });
}

/** A hop's timestamp for a traced call (debug mode): [name, epoch ms]. */
const stamp = (name) => [name, performance.timeOrigin + performance.now()];

/** A page's answer to a call, with the trace it carried (debug mode) stamped once more. */
function pageOutcome(msg, failure) {
  const outcome = {
    ok: !!msg.ok,
    result: msg.ok ? msg.result : undefined,
    error: msg.ok ? undefined : pageError(msg.error, failure),
  };
  if (Array.isArray(msg.trace)) outcome.trace = [...msg.trace.slice(0, 30), stamp('worker.out')];
  return outcome;
}

/**
 * A page's error, marked as the page's words (`fromPage`): the bridge reports it as PAGE_ERROR
 * with them as page data, so no page can answer with a code the bridge owns.
 * @param {any} error what the page sent @param {string} failure said when it sent nothing
 */
function pageError(error, failure) {
  const e = error && typeof error === 'object' ? error : {};
  return {
    code: typeof e.code === 'string' && e.code ? e.code : CALL_ERRORS.pageError,
    message: typeof e.message === 'string' ? e.message : failure,
    details: e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? e.details : undefined,
    fromPage: true,
  };
}

/** The bridge gave up on a call: the page stops it; no answer is sent. */
function cancelCall(callId, reason) {
  if (pending.get(callId, KIND.call)) pending.end(callId, RULE.cancel, reason || 'cancelled');
}

/** Why the page is told to stop a call a rule ended (a page that is gone is not told). */
const CANCEL_REASONS = Object.freeze({ [RULE.timeout]: 'timeout', [RULE.bridgeGone]: 'bridge disconnected' });

pending.handle(KIND.call, (call, rule, message) => {
  if (rule === RULE.timeout || rule === RULE.cancel || rule === RULE.bridgeGone) {
    try {
      call.data.port.postMessage({ type: PAGE.cancel, callId: call.id, reason: CANCEL_REASONS[rule] || message });
    } catch {
      /* the page is gone */
    }
  }
  if (bridgeWaits(rule)) send({ type: OUT.callResult, callId: call.id, ok: false, error: { code: RULE_ERRORS[rule], message } });
});

// ---- live page queries (query_dom, page facts, axe-core audits) ----------------------------

async function startPageQuery(msg) {
  const fail = (code, message) =>
    send({ type: OUT.pageResult, requestId: msg.requestId, ok: false, error: { code, message } });
  const entry = state.ports.get(msg.tabId);
  if (!entry) {
    fail(state.tabs.has(msg.tabId) ? CALL_ERRORS.tabNavigated : CALL_ERRORS.tabClosed,
      `no page to ask in tab ${msg.tabId}`);
    return;
  }
  pending.add(KIND.query, msg.requestId, {
    tabId: msg.tabId,
    timeoutMs: (msg.timeoutMs || 15000) + 500,
    timeoutMessage: 'the page did not answer',
  });
  if (msg.kind === 'axe') {
    await auditPage(msg, entry);
    return;
  }
  if (state.lateDocuments.get(msg.tabId) === entry.documentId) {
    finishPageQuery(msg.requestId, {
      ok: false,
      error: { code: ERROR.QUERY_FAILED, message: `the page in tab ${msg.tabId} was open before tabmcp was installed or reloaded: reload it to query it` },
    });
    return;
  }
  try {
    entry.port.postMessage({ type: PAGE.pageQuery, requestId: msg.requestId, kind: msg.kind, args: msg.args || {} });
  } catch (err) {
    finishPageQuery(msg.requestId, { ok: false, error: { code: CALL_ERRORS.tabNavigated, message: String(err.message) } });
  }
}

/**
 * An accessibility audit by our own axe-core, in the extension's isolated world of the tab's top
 * document: the page's globals are not visible there, so a page that defines `window.axe`
 * (before or after we load ours) or patches what axe-core calls cannot answer in its place, and
 * the result comes back to the worker as the script's return value, never through a message the
 * page could post. What it reports about the page (its HTML, its texts) is still the page's.
 * Frames are not audited (`iframes: false`): a frame would answer axe-core's frame messages.
 */
async function auditPage(msg, entry) {
  const target = entry.documentId
    ? { tabId: msg.tabId, documentIds: [entry.documentId] }
    : { tabId: msg.tabId, frameIds: [0] };
  const options = msg.args && msg.args.options && typeof msg.args.options === 'object' ? msg.args.options : {};
  let outcome;
  try {
    await chrome.scripting.executeScript({ target, files: ['vendor/axe.min.js'], world: 'ISOLATED' });
  } catch (err) {
    finishPageQuery(msg.requestId, {
      ok: false,
      error: { code: CALL_ERRORS.axeMissing, message: `could not load axe-core into the page: ${err.message}` },
    });
    return;
  }
  if (!pending.get(msg.requestId, KIND.query)) return; // ended while axe-core loaded
  try {
    const [frame] = await chrome.scripting.executeScript({ target, world: 'ISOLATED', func: runOwnAxe, args: [options, AXE_CODES] });
    outcome = frame && frame.result && typeof frame.result === 'object' ? frame.result : null;
    if (!outcome) throw new Error('the audit returned nothing');
  } catch (err) {
    outcome = { ok: false, error: { code: AXE_CODES.failed, message: `axe-core failed: ${err.message}` } };
  }
  finishPageQuery(msg.requestId, outcome);
}

/**
 * Runs in the isolated world (serialized by chrome.scripting): axe-core as auditPage loaded it.
 * @param {object} options axe.run options from the agent (`iframes` is always off)
 */
async function runOwnAxe(options, codes) {
  const axe = globalThis.axe;
  if (!axe || typeof axe.run !== 'function') return { ok: false, error: { code: codes.missing, message: 'axe-core is not loaded' } };
  try {
    const result = await axe.run(document, { ...options, iframes: false });
    return { ok: true, result: JSON.parse(JSON.stringify(result)) };
  } catch (err) {
    return { ok: false, error: { code: codes.failed, message: `axe-core failed: ${(err && err.message) || err}` } };
  }
}
const AXE_CODES = Object.freeze({ missing: CALL_ERRORS.axeMissing, failed: ERROR.AXE_FAILED });

/** The page answered (or could not be asked): report it, once. */
function finishPageQuery(requestId, outcome) {
  if (!pending.take(requestId, KIND.query)) return;
  send({ type: OUT.pageResult, requestId, ...outcome });
}

pending.handle(KIND.query, (query, rule, message) => {
  if (bridgeWaits(rule)) send({ type: OUT.pageResult, requestId: query.id, ok: false, error: { code: RULE_ERRORS[rule], message } });
});

// ---- approvals: asked in the extension's own window (approval/approvals.js), never in the page ----

/** Chrome's origin for a child frame's document (its port's `sender.origin`), while it may offer tools. */
function frameOrigin(tabId, frameId) {
  return frameAllowed(tabId, frameId) ? state.frames.get(tabId)?.get(frameId)?.origin || '' : '';
}

const approvalWindow = createApprovals({
  send: (m) => send(m), resultType: OUT.approvalResult, table: pending, frameOrigin,
});

/** The bridge stopped waiting (timeout, the call was cancelled): close the question's window unanswered. */
function withdrawApproval(approvalId) {
  if (pending.get(approvalId, KIND.approval)) pending.end(approvalId, RULE.cancel, 'withdrawn by the bridge');
}

// ---- popup and badge ----------------------------------------------------------------------

/** The popup's questions to the bridge (panel.query, control.set): panel.js. */
const panel = createPanel({
  send: (m) => send(m),
  types: { query: OUT.panelQuery, control: OUT.controlSet },
  table: pending,
  ready: () => state.status === 'ready',
});

/** The icon's badge per tab: an approval waiting, a call running, else the tool count (badge.js). */
const badges = createBadges({
  table: pending,
  toolCount: (tabId) => state.pages.get(tabId)?.tools.length ?? 0,
  connected: () => state.status === 'ready',
});

/** Ask the bridge for a pairing code (the popup shows it when pair.code comes back). */
function requestPairingCode() {
  if (state.status !== 'pairing') return { ok: false, error: state.status === 'ready' ? 'already paired' : 'not connected to the bridge' };
  state.pairCode = null;
  return { ok: send({ type: OUT.pairRequest }) };
}

/** What the popup shows: connection, pairing, tabs, counts. `code`: include the pairing code
 * (only for the extension's own pages). @param {{code?: boolean}} [opts] */
function statusReport({ code = true } = {}) {
  const tabs = [...state.tabs.values()]
    .filter((t) => t.id !== undefined)
    .map((t) => {
      const page = state.pages.get(t.id);
      const allowed = new Set(allowedFrames(t.id).map(([frameId]) => frameId));
      return {
        tabId: t.id,
        title: (page && page.title) || t.title || '',
        url: trustedLocation(t.id).url,
        active: !!t.active,
        tools: page ? page.tools.length : 0,
        categories: page ? page.categories.length : 0,
        frames: [...(state.frames.get(t.id) || new Map())]
          .filter(([, f]) => f.page)
          .map(([frameId, f]) => ({ frameId, origin: f.origin, tools: f.page.tools.length, allowed: allowed.has(frameId) })),
        native: !!(page && page.native),
        refused: state.refused.get(t.id) || '',
        /** What the per-tab limits did (limits.js): {code: TAB_FLOODED | TOO_LARGE, message}. */
        limits: limitsList(t.id),
        received: state.received.get(t.id) || 0,
        running: badges.isRunning(t.id),
      };
    });
  return {
    status: state.status,
    url: state.url,
    /** paired: the bridge took our pairing (or token); else why not, and the code to show. */
    pairing: {
      paired: state.status === 'ready',
      stored: !!state.pairing,
      reason: state.pairRequired ? state.pairRequired.reason : null,
      code: code && state.pairCode && state.pairCode.expiresAt > Date.now() ? state.pairCode.code : null,
      expiresAt: code && state.pairCode ? state.pairCode.expiresAt : null,
    },
    sessionId: state.sessionId,
    lastError: state.lastError,
    connects: state.connects,
    instanceId: state.instanceId,
    pendingCalls: pending.size(KIND.call),
    pendingQueries: pending.size(KIND.query),
    pendingApprovals: pending.size(KIND.approval),
    /** The questions waiting for the person (the popup answers them too). */
    approvals: approvalWindow.openQuestions(),
    /** Telemetry events per tab that could not be sent (no bridge) and wait to be reported. */
    telemetryDropped: Object.fromEntries(state.telemetryDropped),
    tabs,
    /** Tabs the agent opened (agent_tabs.js), least recently used first. */
    agentTabs: agentTabs.list().map((t) => t.tabId),
  };
}

function updateBadge(tabId) {
  badges.update(tabId);
}

function updateBadges() {
  for (const tabId of state.tabs.keys()) updateBadge(tabId);
}

// For tests and debugging from the worker's console: the popup's report.
globalThis.tabmcpStatus = statusReport;
