// @ts-check
// The popup's report: the link, the pairing, each tab with its tools, frames and limits, the
// questions waiting for the person.
import { KIND } from '../pending.js';
import { pending, state } from './state.js';
import { allowedFrames, trustedLocation } from './location.js';
import { limitsList } from './tab_limits.js';
import { approvalWindow, badges } from './ui.js';
import { agentTabs } from './sites.js';

/** What the popup shows: connection, pairing, tabs, counts. `code`: include the pairing code
 * (only for the extension's own pages). @param {{code?: boolean}} [opts] */
export function statusReport({ code = true } = {}) {
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
        /** The revision of the tab's state this worker last sent (tabs.js): what a reconnect's sync may keep. */
        revision: state.sentRevisions.get(t.id) || null,
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
    syncedSessionId: state.syncedSessionId,
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

/** The per-tab maps of `state` (each keyed by tab id), by name. */
const PER_TAB = ['ports', 'pages', 'frames', 'tabs', 'updateTimers', 'telemetryDropped', 'lateDocuments', 'refused',
  'forms', 'telemetryRules', 'limited', 'received', 'sentSnapshots', 'sentRevisions'];

/**
 * Which tabs each per-tab map of this worker holds state for (tests and debugging, from the worker's
 * console): a tab's entries go when it closes, so after closes every list is within the open tabs.
 * @returns {Record<string, number[]>}
 */
export function heldTabs() {
  /** @type {Record<string, number[]>} */
  const held = {};
  for (const name of PER_TAB) held[name] = [.../** @type {Map<number, unknown>} */ (/** @type {any} */ (state)[name]).keys()];
  held.pending = [...new Set(Object.values(KIND).flatMap((kind) => pending.all(kind).map((e) => e.tabId)))];
  return held;
}
