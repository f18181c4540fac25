// @ts-check
// What the person sees of the background script: the approval window (approval/approvals.js,
// never in the page), the popup's questions to the bridge (panel.js) and the icon's badge per
// tab (badge.js).
import { OUT } from '../protocol.js';
import { KIND, RULE } from '../pending.js';
import { createApprovals } from '../approval/approvals.js';
import { createBadges } from '../badge.js';
import { createPanel } from '../panel.js';
import { pending, state } from './state.js';
import { send } from './link.js';
import { frameOrigin } from './location.js';

export const approvalWindow = createApprovals({
  send: (m) => send(m), resultType: OUT.approvalResult, table: pending, frameOrigin,
});

/**
 * The bridge stopped waiting (timeout, the call was cancelled): the question's window says why, unanswered.
 * @param {string} approvalId @param {string} [reason]
 */
export function withdrawApproval(approvalId, reason) {
  if (pending.get(approvalId, KIND.approval)) pending.end(approvalId, RULE.cancel, reason || 'withdrawn by the bridge');
}

// ---- popup and badge ----------------------------------------------------------------------

/** The popup's questions to the bridge (panel.query, control.set): panel.js. */
export const panel = createPanel({
  send: (m) => send(m),
  types: { query: OUT.panelQuery, control: OUT.controlSet },
  table: pending,
  ready: () => state.status === 'ready',
});

/** The icon's badge per tab: an approval waiting, a call running, else the tool count (badge.js). */
export const badges = createBadges({
  table: pending,
  toolCount: (tabId) => state.pages.get(tabId)?.tools.length ?? 0,
  connected: () => state.status === 'ready',
});


export function updateBadge(tabId) {
  badges.update(tabId);
}

export function updateBadges() {
  for (const tabId of state.tabs.keys()) updateBadge(tabId);
}
