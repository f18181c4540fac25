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
  /** Tabs with a call pending and not yet shown as running: since when (performance.now() ms). @type {Map<number, number>} */
  const busySince = new Map();
  /**
   * One timer for every tab, armed for the first tab due to show "running" and never cleared when
   * a call ends: back-to-back fast calls arm it about once per RUNNING_AFTER_MS, not once each.
   */
  let timer = /** @type {ReturnType<typeof setTimeout> | null} */ (null);

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

  /** @param {number} at when the first busy tab is due (performance.now() ms) */
  function arm(at) {
    if (timer === null) timer = setTimeout(onDue, Math.max(0, Math.ceil(at - performance.now())));
  }

  function onDue() {
    timer = null;
    const now = performance.now() + 1; // a timer's delay is whole ms, the clock coarse: due within 1 ms is due
    let next = Infinity;
    for (const [tabId, since] of busySince) {
      if (since + RUNNING_AFTER_MS > now) {
        next = Math.min(next, since + RUNNING_AFTER_MS);
        continue;
      }
      busySince.delete(tabId);
      if (!table.inTab(KIND.call, tabId)) continue;
      running.add(tabId);
      update(tabId);
    }
    if (next < Infinity) arm(next);
  }

  /** @param {number} tabId */
  function callsChanged(tabId) {
    const busy = table.inTab(KIND.call, tabId);
    if (busy && !running.has(tabId) && !busySince.has(tabId)) {
      const since = performance.now();
      busySince.set(tabId, since);
      arm(since + RUNNING_AFTER_MS);
    } else if (!busy) {
      busySince.delete(tabId);
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
