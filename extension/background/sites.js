// @ts-check
// Reachable sites: the tabs the agent opened for them (agent_tabs.js) and the popup's section
// that lists them, allows the active tab's site and forgets one.
import { OUT, RUNTIME } from '../protocol.js';
import { RULE } from '../pending.js';
import { createAgentTabs } from '../agent_tabs.js';
import { originOf } from '../origin.js';
import { pending, ready, state } from './state.js';
import { send } from './link.js';

/**
 * Tabs the agent opened for reachable sites: background, grouped, kept on their origin, closed when
 * idle (agent_tabs.js). One that leaves its origin ends its pending calls with SITE_REDIRECTED.
 */
export const agentTabs = createAgentTabs({
  send: (m) => send(m),
  statusType: OUT.siteStatus,
  left: (tabId, url, origin) =>
    pending.endTab(tabId, RULE.leftOrigin, `agent tab ${tabId}, opened for ${origin || 'a site'}, went to ${originOf(url) || url}: it was closed`),
});


/**
 * The popup lists reachable sites, allows the active tab's site and forgets one. Only the
 * extension's own popup may: a content script sends from the page's URL, so a page can never make
 * its site reachable.
 */
export function onSitesMessage(msg, sender, sendResponse) {
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
