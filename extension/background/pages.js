// @ts-check
// The ports of the tabs' documents (content.js): a top document's snapshot, forms, telemetry and
// answers; a child frame's snapshot and answers to its own calls only. A document that goes ends
// its pending requests; a tab that closes is forgotten.
import { PAGE } from '../protocol.js';
import { KIND, RULE } from '../pending.js';
import { formsEnabled } from '../forms-policy.js';
import { originOf } from '../origin.js';
import { LIMITS, pending, state } from './state.js';
import { agentTabs } from './sites.js';
import { admitDefinitions, noteFlood, noteRefusals, rememberTexts } from './tab_limits.js';
import { onTabRemoved, scheduleTabUpdate } from './tabs.js';
import { finishCall, pageError, pageOutcome } from './calls.js';
import { finishPageQuery } from './queries.js';
import { relayTelemetry, telemetryConfigMessage } from './telemetry_relay.js';
import { tellFormsPolicy } from './forms_switch.js';

const { fitDefinitions, pageFields } = LIMITS;

export function onPageConnect(port, early = []) {
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
  state.ports.set(tabId, { port, documentId: sender.documentId, frameId: sender.frameId, origin: senderOrigin });
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
    const { tools, refused, texts, bytes } = fitDefinitions(msg.tools, []);
    rememberTexts(tools, texts.tools, bytes.tools);
    if (refused.length) noteRefusals(tabId, -1, refused);
    state.forms.set(tabId, tools);
    scheduleTabUpdate(tabId);
  } else if (msg.type === PAGE.limited) {
    noteFlood(tabId, msg);
  } else if (msg.type === PAGE.telemetry) {
    relayTelemetry(tabId, current, msg);
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
