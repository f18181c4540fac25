// @ts-check
// Where a tab's documents are, by the browser's word (the ports' origins, the tab's URL), never
// the page's claim: the tab's trusted origin and URL, and which of its child frames may offer tools.
import { originOf } from '../origin.js';
import { state } from './state.js';
import { agentTabs } from './sites.js';

/** At most this many child frames per tab are reported (the bridge ignores more). */
const MAX_FRAMES_PER_TAB = 16;

/**
 * An agent tab offers tools only while both its document (Chrome's origin of its port) and its URL
 * are on the origin it was opened for; any other tab always may (agent_tabs.js `allows`).
 */
export function agentTabOnOrigin(tabId, origin) {
  if (!agentTabs.isAgentTab(tabId)) return true;
  const tab = state.tabs.get(tabId);
  const tabUrl = (tab && tab.url) || '';
  return agentTabs.allows(tabId, origin) && (!originOf(tabUrl) || agentTabs.allows(tabId, originOf(tabUrl)));
}

/**
 * Where the tab's top document is, by Chrome's word (its port's `sender.origin`, else the tab's
 * URL), with the page's reported URL only when it is of that origin: a page claiming another URL
 * must not get that site's switches, rules, approvals or name.
 * @returns {{origin: string, url: string}}
 */
export function trustedLocation(tabId) {
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
export function allowedFrames(tabId) {
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
    if (!agentTabs.allows(tabId, f.origin)) continue; // an agent tab offers its own origin's tools only (calls.js refuses the rest)
    out.push([frameId, /** @type {FramePort & {page: PageState}} */ (f)]);
    if (out.length >= MAX_FRAMES_PER_TAB) break;
  }
  return out;
}

/** Whether a frame may still offer tools right now (the top page can revoke it). */
export function frameAllowed(tabId, frameId) {
  return allowedFrames(tabId).some(([id]) => id === frameId);
}

/** Chrome's origin for a child frame's document (its port's `sender.origin`), while it may offer tools. */
export function frameOrigin(tabId, frameId) {
  return frameAllowed(tabId, frameId) ? state.frames.get(tabId)?.get(frameId)?.origin || '' : '';
}
