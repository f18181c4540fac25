// @ts-check
// The pages' telemetry to the bridge: the bridge's capture settings handed to every page, and each
// tab's batches relayed within the tab's rate (dropped and counted past it, never silently).
import { OUT, PAGE, STORAGE } from '../protocol.js';
import { originOf } from '../origin.js';
import { LIMITS, state } from './state.js';
import { send } from './link.js';
import { trustedLocation } from './location.js';
import { telemetryRule } from './tab_limits.js';

const { VERDICT, countLost } = LIMITS;

/** Add two drop-count maps ({kind: n}). */
function mergeDropped(a, b) {
  const out = { ...a };
  for (const [kind, n] of Object.entries(b || {})) out[kind] = (out[kind] || 0) + n;
  return out;
}

/** The page's own message for a config from the bridge. */
export function telemetryConfigMessage(config) {
  return { ...config, type: PAGE.telemetryConfig };
}

/** Keep the bridge's capture settings and hand them to every page now (and to each new one). */
export function setTelemetryConfig(config) {
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

/**
 * A batch of a top document's telemetry: relayed as the browser says where it comes from, within
 * the tab's rate. @param {number} tabId @param {import('./state.js').PagePort} current the document's port
 */
export function relayTelemetry(tabId, current, msg) {
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
}
