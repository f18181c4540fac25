// Tabs the agent opened for reachable sites: opened in the background in a tab group, bound to
// their origin (leaving it closes the tab), at most maxAgentTabs (LRU), closed when idle, the
// person's once brought to the front (docs/security.md, "Reachable sites"). The list lives in
// chrome.storage.session so a restarted worker still knows them. Nothing waits on page timers,
// which hidden tabs throttle (page/agent.js posts snapshots without one).

const STORE_KEY = 'agentTabs';
/**
 * Tab groups (Chromium; Firefox from 139): without them agent tabs are not grouped, every other
 * rule holds.
 */
const HAS_GROUPS = () => !!(chrome.tabGroups && chrome.tabs.group && chrome.tabs.ungroup);
/**
 * How long a new `lastUsed` may wait before it is stored: one storage write a second, not one per
 * call (a worker restarted meanwhile may close the tab that much early).
 */
const SAVE_AFTER_MS = 1000;
const STATUS = Object.freeze({ opened: 'opened', loaded: 'loaded', redirected: 'redirected', failed: 'failed' });

/** @param {string} url @returns {string} */
function originOf(url) {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : '';
  } catch {
    return '';
  }
}

/**
 * @typedef {{tabId: number, origin: string, lastUsed: number, idleCloseMs: number}} AgentTab
 * @typedef {{requestId: string, origin: string, deadline: number}} Opening
 */

/**
 * @param {{send: (msg: object) => void, statusType: string, left: (tabId: number, url: string, origin: string) => void}} io
 *   left: an agent tab left its origin for `url` (told before it closes, so its calls end).
 */
export function createAgentTabs({ send, statusType, left }) {
  /** @type {Map<number, AgentTab>} */
  const tabs = new Map();
  /** @type {Map<number, Opening>} */
  const opening = new Map();
  /** Agent tabs that left their origin and are being closed: they offer nothing until they are gone. */
  const leaving = new Set();
  let settings = { maxAgentTabs: 5, idleCloseMs: 300_000, groupTitle: 'tabmcp agent' };
  /** @type {ReturnType<typeof setTimeout> | null} */
  let idleTimer = null;
  const restored = chrome.storage.session
    .get(STORE_KEY)
    .then((stored) => {
      // A tab stored without its origin (an older version) is bound to none: it offers nothing.
      for (const t of stored[STORE_KEY] || []) if (!tabs.has(t.tabId)) tabs.set(t.tabId, { origin: '', ...t });
      armIdle();
    })
    .catch(() => {});

  function status(requestId, state, extra = {}) {
    send({ type: statusType, requestId, state, ...extra });
  }

  /** @type {ReturnType<typeof setTimeout> | null} */
  let saveTimer = null;

  function save() {
    clearTimeout(saveTimer ?? undefined);
    saveTimer = null;
    chrome.storage.session.set({ [STORE_KEY]: [...tabs.values()] }).catch(() => {});
  }

  /** Store the list within SAVE_AFTER_MS (a call's touch: one write for a burst of calls). */
  function saveSoon() {
    if (saveTimer === null) saveTimer = setTimeout(save, SAVE_AFTER_MS);
  }

  /** One timer for the next idle agent tab (the worker's timers are not throttled like a page's). */
  function armIdle() {
    clearTimeout(idleTimer);
    idleTimer = null;
    if (!tabs.size) return;
    const next = Math.min(...[...tabs.values()].map((t) => t.lastUsed + t.idleCloseMs));
    idleTimer = setTimeout(closeIdle, Math.max(0, next - Date.now()));
  }

  async function closeIdle() {
    const now = Date.now();
    for (const t of [...tabs.values()]) {
      if (t.lastUsed + t.idleCloseMs <= now && !opening.has(t.tabId)) await close(t.tabId);
    }
    armIdle();
  }

  /** Close an agent tab (never one of the person's: only ids in `tabs` get here). */
  async function close(tabId) {
    if (!tabs.has(tabId)) return;
    tabs.delete(tabId);
    save();
    await chrome.tabs.remove(tabId).catch(() => {});
  }

  /** The group agent tabs go in, in the tab's window: the one with our title, or a new one. */
  async function group(tab) {
    if (!HAS_GROUPS()) return;
    try {
      const groups = await chrome.tabGroups.query({ windowId: tab.windowId, title: settings.groupTitle });
      const groupId = await chrome.tabs.group(
        groups.length ? { tabIds: [tab.id], groupId: groups[0].id } : { tabIds: [tab.id], createProperties: { windowId: tab.windowId } },
      );
      if (!groups.length) await chrome.tabGroups.update(groupId, { title: settings.groupTitle, color: 'grey' });
    } catch (err) {
      console.warn('[tabmcp] could not group the agent tab', err);
    }
  }

  /** Focus an open tab of the origin, when open_page asked for it; its id, or null. */
  async function focusExisting(origin) {
    const all = await chrome.tabs.query({});
    const tab = all.find((t) => originOf(t.url || t.pendingUrl || '') === origin);
    if (!tab || tab.id === undefined) return null;
    await chrome.tabs.update(tab.id, { active: true });
    await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
    return tab;
  }

  /** site.open from the bridge. */
  async function open(msg) {
    await restored;
    settings = {
      maxAgentTabs: msg.maxAgentTabs || settings.maxAgentTabs,
      idleCloseMs: msg.idleCloseMs || settings.idleCloseMs,
      groupTitle: msg.groupTitle || settings.groupTitle,
    };
    if (originOf(msg.url) !== msg.origin) {
      status(msg.requestId, STATUS.failed, { message: `not an http(s) URL of ${msg.origin}` });
      return;
    }
    try {
      if (msg.focus) {
        const tab = await focusExisting(msg.origin);
        if (tab) {
          status(msg.requestId, STATUS.opened, { tabId: tab.id, url: tab.url || '' });
          if (tab.status === 'complete') status(msg.requestId, STATUS.loaded, { tabId: tab.id, url: tab.url || '' });
          else opening.set(tab.id, { requestId: msg.requestId, origin: msg.origin, deadline: Date.now() + msg.timeoutMs });
          return;
        }
      }
      while (tabs.size >= settings.maxAgentTabs) {
        const lru = [...tabs.values()].sort((a, b) => a.lastUsed - b.lastUsed)[0];
        await close(lru.tabId);
      }
      const tab = await chrome.tabs.create({ url: msg.url, active: false });
      if (tab.id === undefined) throw new Error('the browser gave the new tab no id');
      tabs.set(tab.id, { tabId: tab.id, origin: msg.origin, lastUsed: Date.now(), idleCloseMs: settings.idleCloseMs });
      opening.set(tab.id, { requestId: msg.requestId, origin: msg.origin, deadline: Date.now() + msg.timeoutMs });
      save();
      armIdle();
      await group(tab); // grouped before the bridge hears of it: a call never runs in an ungrouped agent tab
      status(msg.requestId, STATUS.opened, { tabId: tab.id, url: msg.url });
    } catch (err) {
      status(msg.requestId, STATUS.failed, { message: String((err && err.message) || err) });
    }
  }

  /**
   * The agent tab left its origin for `url`: the opening (if any) ends `redirected`, its calls end
   * (`left`), and it is closed. Only agent tabs get here (the person's tabs go anywhere).
   */
  function leave(tabId, url) {
    const t = tabs.get(tabId);
    if (!t) return;
    const watch = opening.get(tabId);
    opening.delete(tabId);
    if (watch) status(watch.requestId, STATUS.redirected, { tabId, url });
    leaving.add(tabId);
    left(tabId, url, t.origin);
    close(tabId);
  }

  /**
   * May the tab offer and run tools of a document of `origin` (Chrome's word)? Yes, unless it is
   * an agent tab bound to another origin (or to none).
   * @param {number} tabId @param {string} origin
   */
  function allows(tabId, origin) {
    if (leaving.has(tabId)) return false;
    const t = tabs.get(tabId);
    return !t || (!!t.origin && origin === t.origin);
  }

  /**
   * chrome.tabs.onUpdated: an agent tab anywhere but its origin is closed; an opening one that
   * loaded is reported. A URL with no origin (a new tab's about:blank) passes only while opening.
   */
  async function onUpdated(tabId, change, tab) {
    await restored;
    const url = change.url || tab.url || '';
    const t = tabs.get(tabId);
    if (t && url && !allows(tabId, originOf(url)) && !(opening.has(tabId) && url.startsWith('about:'))) {
      leave(tabId, url);
      return;
    }
    const watch = opening.get(tabId);
    if (!watch) return;
    if (Date.now() > watch.deadline) {
      opening.delete(tabId);
      return;
    }
    if (url && originOf(url) !== watch.origin && !url.startsWith('about:')) {
      opening.delete(tabId); // a tab of the person's that open_page(focus) waits for: reported, not closed
      status(watch.requestId, STATUS.redirected, { tabId, url });
      return;
    }
    if (change.status === 'complete') {
      opening.delete(tabId);
      touch(tabId); // idle counts from the page being ready, not from the start of its load
      status(watch.requestId, STATUS.loaded, { tabId, url });
    }
  }

  /** chrome.tabs.onActivated: the person brought an agent tab to the front: it is theirs now. */
  function onActivated(tabId) {
    if (!tabs.has(tabId)) return;
    tabs.delete(tabId);
    save();
    armIdle();
    if (HAS_GROUPS()) chrome.tabs.ungroup(tabId).catch(() => {});
  }

  function onRemoved(tabId) {
    opening.delete(tabId);
    leaving.delete(tabId);
    if (tabs.delete(tabId)) {
      save();
      armIdle();
    }
  }

  /**
   * A call ran in the tab: its idle time starts again. Only a field write: the armed idle timer
   * re-arms from `lastUsed`, and the list is stored within SAVE_AFTER_MS.
   */
  function touch(tabId) {
    const t = tabs.get(tabId);
    if (!t) return;
    t.lastUsed = Date.now();
    saveSoon();
    if (idleTimer === null) armIdle();
  }

  /** For the popup and tests: the agent tabs, least recently used first. */
  function list() {
    return [...tabs.values()].sort((a, b) => a.lastUsed - b.lastUsed);
  }

  return {
    open, onUpdated, onActivated, onRemoved, touch, list, leave, allows, restored,
    isAgentTab: (tabId) => tabs.has(tabId) || leaving.has(tabId),
  };
}
