// @ts-check
/**
 * The extension icon's badge, per tab: "?" while an approval waits, "▶" once an agent's call has
 * run RUNNING_AFTER_MS (a fast call never touches it), else the page's tool count (grey when the
 * bridge is not connected). Follows the worker's pending table (pending.js `watch`).
 */

import { KIND } from './pending.js';

/** A call shorter than this never shows on the badge. */
export const RUNNING_AFTER_MS = 150;

export const BADGE = Object.freeze({
  approval: { text: '?', color: '#b91c1c', title: 'tabmcp: an agent waits for your approval (see the approval window, or open this popup)' },
  running: { text: '▶', color: '#15803d', title: 'tabmcp: an agent is running a tool in this tab' },
});

/**
 * @param {{table: import('./pending.js').PendingTable, toolCount: (tabId: number) => number,
 *   connected: () => boolean}} deps
 */
export function createBadges({ table, toolCount, connected }) {
  /** Tabs whose badge shows a running call now. @type {Set<number>} */
  const running = new Set();
  /** @type {Map<number, ReturnType<typeof setTimeout>>} */
  const timers = new Map();

  /** @param {number} tabId */
  function update(tabId) {
    if (tabId < 0) return;
    /** @type {{text: string, color: string, title: string}} */
    let look;
    if (table.inTab(KIND.approval, tabId)) {
      look = BADGE.approval;
    } else if (running.has(tabId)) {
      look = BADGE.running;
    } else {
      const count = toolCount(tabId);
      look = { text: count ? String(count) : '', color: connected() ? '#2563eb' : '#9ca3af', title: 'tabmcp' };
    }
    chrome.action.setBadgeText({ tabId, text: look.text }).catch(() => {});
    chrome.action.setBadgeBackgroundColor({ tabId, color: look.color }).catch(() => {});
    chrome.action.setTitle({ tabId, title: look.title }).catch(() => {});
  }

  /** @param {number} tabId */
  function callsChanged(tabId) {
    const busy = table.inTab(KIND.call, tabId);
    if (busy && !running.has(tabId) && !timers.has(tabId)) {
      timers.set(tabId, setTimeout(() => {
        timers.delete(tabId);
        if (!table.inTab(KIND.call, tabId)) return;
        running.add(tabId);
        update(tabId);
      }, RUNNING_AFTER_MS));
    } else if (!busy) {
      clearTimeout(timers.get(tabId));
      timers.delete(tabId);
      if (running.delete(tabId)) update(tabId);
    }
  }

  table.watch((entry) => {
    if (entry.kind === KIND.call) callsChanged(entry.tabId);
    else if (entry.kind === KIND.approval) update(entry.tabId);
  });

  /** Whether the badge shows a running call in `tabId` now (tests and the popup). @param {number} tabId */
  const isRunning = (tabId) => running.has(tabId);

  return { update, isRunning };
}
