// tabmcp background script (Chromium: the service worker; Firefox: a module background script):
// one router between the pages' agents and the bridge; its jobs live in background/, one module
// each (docs/architecture.md). Listeners are registered synchronously at the top (MV3 may start
// the script for any of them); work that needs settings waits on `ready`. A keepalive alarm
// brings the script back to reconnect if the browser stopped it.
import { ERROR, IN, OUT, PAGE_PORT, RUNTIME, STORAGE } from './protocol.js';
import { fromOwnPage } from './panel.js';
import { ready, setReady, state } from './background/state.js';
import { connect, onBridgeMessages, onWelcome, reconnectNow, send } from './background/link.js';
import { onChunkRead } from './background/tab_lane.js';
import { onPairCode, onPairDone, onPairRequired, requestPairingCode } from './background/pairing.js';
import { loadSettings } from './background/settings.js';
import { onPageConnect } from './background/pages.js';
import { onTabChanged, onTabRemoved, scheduleTabUpdate, sendFullSync } from './background/tabs.js';
import { cancelCall, startCall } from './background/calls.js';
import { startPageQuery } from './background/queries.js';
import { setTelemetryConfig } from './background/telemetry_relay.js';
import { noteRefused } from './background/tab_limits.js';
import { formsStatus, setFormsPolicy, setFormsSwitch } from './background/forms_switch.js';
import { agentTabs, onSitesMessage } from './background/sites.js';
import { approvalWindow, panel, withdrawApproval } from './background/ui.js';
import { heldTabs, statusReport } from './background/status.js';
import { injectIntoOpenTabs } from './background/inject.js';

const KEEPALIVE_ALARM = 'tabmcp-keepalive';
const startedAt = Date.now();

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

onBridgeMessages(onBridgeMessage);
init().then(setReady);

// ---- setup --------------------------------------------------------------------------------

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

// ---- the bridge's messages ----------------------------------------------------------------

/** The router of the bridge's messages (link.js hands each one here). */
async function onBridgeMessage(msg) {
  switch (msg && msg.type) {
    case IN.pairRequired:
      onPairRequired(msg);
      break;
    case IN.pairCode:
      onPairCode(msg);
      break;
    case IN.pairDone:
      await onPairDone(msg);
      break;
    case IN.welcome: {
      onWelcome(msg);
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
      withdrawApproval(msg.approvalId, msg.reason);
      break;
    case IN.telemetryConfig:
      setTelemetryConfig(msg.config);
      break;
    case IN.formsPolicy:
      setFormsPolicy(msg.rules, msg.secretSites);
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
    case IN.chunkRead:
      onChunkRead();
      break;
    case IN.ping:
      send({ type: OUT.pong, ts: msg.ts });
      break;
    case IN.pong:
      break;
    case IN.error: {
      if (msg.code === ERROR.UNKNOWN_REVISION) {
        // The bridge no longer holds a tab this sync kept by its revision: it refused the sync whole
        // and kept its tabs as they were; every tab goes again, whole.
        console.warn('[tabmcp] the bridge refused a kept tab:', msg.message);
        await sendFullSync({ whole: true });
        break;
      }
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
      send({ type: OUT.error, code: ERROR.UNKNOWN_TYPE, message: `unknown message type ${msg && msg.type}` });
  }
}

// For tests and debugging from the worker's console: the popup's report, and the tabs each per-tab map holds.
globalThis.tabmcpStatus = statusReport;
globalThis.tabmcpHeld = heldTabs;
