// @ts-check
// The bridge's view of the tabs: each tab's snapshot (its page's and allowed frames' tools, its
// trusted location), the full sync in parts after a welcome, debounced updates, and closing.
import { OUT } from '../protocol.js';
import { RULE } from '../pending.js';
import { formsEnabled } from '../forms-policy.js';
import { LIMITS, pending, state } from './state.js';
import { send } from './link.js';
import { agentTabOnOrigin, allowedFrames, trustedLocation } from './location.js';
import { fitTab, limitsList, tell } from './tab_limits.js';
import { updateBadge, updateBadges } from './ui.js';

const { SIZE } = LIMITS;
const UPDATE_DEBOUNCE_MS = 30;

/** @returns {import('./protocol.js').TabSnapshot | null} */
export function snapshotOf(tabId) {
  const tab = state.tabs.get(tabId);
  if (!tab) return null;
  const page = state.pages.get(tabId);
  const port = state.ports.get(tabId);
  const { origin, url } = trustedLocation(tabId);
  if (!agentTabOnOrigin(tabId, origin)) {
    // An agent tab off its origin (being closed): it offers nothing, not for an instant.
    return {
      tabId, windowId: tab.windowId, origin, url, title: tab.title || '', documentId: port ? port.documentId : undefined,
      active: !!tab.active, focused: false, native: false, tools: [], categories: [], states: [], frames: [],
    };
  }
  return {
    tabId,
    windowId: tab.windowId,
    origin,
    url,
    title: (page && page.title) || tab.title || '',
    documentId: port ? port.documentId : undefined,
    active: !!tab.active,
    focused: !!tab.active && (state.focusedWindowId === null || tab.windowId === state.focusedWindowId),
    native: !!(page && page.native),
    tools: page ? page.tools : [],
    categories: page ? page.categories : [],
    states: page ? page.states : [],
    forms: port && state.forms.has(tabId) && formsEnabled(state.formsRules, port.origin)
      ? { origin: port.origin, tools: state.forms.get(tabId) }
      : undefined,
    frames: allowedFrames(tabId).map(([frameId, f]) => ({
      frameId,
      documentId: f.documentId,
      origin: f.origin,
      url: f.page.url,
      title: f.page.title,
      tools: f.page.tools,
      categories: f.page.categories,
      states: f.page.states,
    })),
  };
}

/**
 * The same snapshot as `b`, by what it is built from: its scalars equal, its lists and objects the
 * same ones (the page's tools are replaced, never changed in place, when it sends new ones) down
 * to `depth` levels. No serialization: asking costs a heavy tab nothing.
 */
function sameSnapshot(a, b, depth = 3) {
  if (a === b) return true;
  if (depth === 0 || !a || !b || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameSnapshot(a[k], b[k], depth - 1));
}

/**
 * A new revision of a tab's state: this worker instance's id and a counter, so a restarted worker
 * (its counter from 0 again) never names a state the bridge holds from an earlier one.
 */
function newRevision() {
  state.revisionCount += 1;
  return `${state.instanceId}.${state.revisionCount}`;
}

/** A snapshot as it goes to the bridge: with its revision when the bridge keeps them (welcome.revisions). */
function onWire(snap, revision) {
  return snap && state.revisions ? { ...snap, revision } : snap;
}

/**
 * The full sync after a welcome. To a bridge run that still holds this worker's tabs (the reconnect
 * grace: welcome.held), a tab unchanged since it was sent in the revision the bridge holds is kept
 * by reference (`kept`) instead of sent again: a reconnect costs the heavy tabs nothing. `whole`:
 * every tab again (the bridge refused a kept tab, UNKNOWN_REVISION).
 * @param {{whole?: boolean}} [options]
 */
export async function sendFullSync({ whole = false } = {}) {
  // The sync answers this link's welcome and names its bridge run in the next hello: a link that
  // dropped or changed meanwhile (while the tabs were asked for, or a fresh worker's pause) has its
  // own welcome and sync, and a run that was never synced must never be named.
  const { ws, sessionId } = state;
  if (!ws || !sessionId || state.status !== 'ready') return;
  try {
    const tabs = await chrome.tabs.query({});
    state.tabs.clear();
    for (const tab of tabs) if (tab.id !== undefined) state.tabs.set(tab.id, tab);
  } catch {
    /* keep what we know */
  }
  if (state.ws !== ws || state.sessionId !== sessionId || state.status !== 'ready') return;
  const held = whole || !state.revisions ? new Map() : state.held;
  const lastSent = state.sentSnapshots;
  const lastRevisions = state.sentRevisions;
  state.sentSnapshots = new Map(); // a new link: every tab goes again, or is kept by its revision
  state.sentRevisions = new Map();
  state.held = new Map();
  state.syncedSessionId = sessionId;
  /** @type {Array<{tabId: number, revision: string}>} */
  const kept = [];
  // One sync in parts that each fit a frame (`more` on all but the last): however many tabs and
  // tools there are, never a frame the bridge must refuse.
  /** @type {Array<Array<[object, string]>>} each part's snapshots with their JSON texts (sent as they were measured) */
  const parts = [[]];
  let size = 0;
  for (const tabId of state.tabs.keys()) {
    const current = snapshotOf(tabId);
    const revision = lastRevisions.get(tabId);
    if (current && revision !== undefined && held.get(tabId) === revision && sameSnapshot(current, lastSent.get(tabId))) {
      state.sentSnapshots.set(tabId, lastSent.get(tabId));
      state.sentRevisions.set(tabId, revision);
      kept.push({ tabId, revision });
      continue;
    }
    const fresh = newRevision();
    const fitted = fitTab(onWire(current, fresh));
    if (!fitted) continue;
    const [snap, bytes, text] = fitted;
    state.sentSnapshots.set(tabId, current);
    state.sentRevisions.set(tabId, fresh);
    if (parts[parts.length - 1].length && size + bytes > SIZE.syncPart) {
      parts.push([]);
      size = 0;
    }
    parts[parts.length - 1].push([snap, text]);
    size += bytes;
  }
  parts.forEach((tabs, i) => {
    const last = i === parts.length - 1;
    const message = {
      type: OUT.tabsSync, tabs: tabs.map(([snap]) => snap), ...(last ? {} : { more: true }),
      ...(last && kept.length ? { kept } : {}),
    };
    const more = message.more ? ',"more":true' : '';
    const refs = message.kept ? `,"kept":${JSON.stringify(kept)}` : '';
    send(message, `{"type":${JSON.stringify(OUT.tabsSync)},"tabs":[${tabs.map(([, text]) => text).join(',')}]${more}${refs}}`);
  });
  // A new bridge run hears what the limits did, for its log.
  for (const tabId of state.limited.keys()) {
    for (const limit of limitsList(tabId)) tell(tabId, -2, limit.code, limit.message);
  }
  updateBadges();
}

export function scheduleTabUpdate(tabId) {
  if (state.updateTimers.has(tabId)) return;
  state.updateTimers.set(
    tabId,
    setTimeout(() => {
      state.updateTimers.delete(tabId);
      const snap = snapshotOf(tabId);
      // A tab's megabytes are sent again only when something in them changed (a tab event that
      // changes none of it, a title the page set to the same, is no news to the bridge), and the
      // bridge answers again if the new definitions still have refused ones.
      if (snap && state.status === 'ready' && !sameSnapshot(snap, state.sentSnapshots.get(tabId))) {
        const revision = newRevision(); // a reconnect's sync may keep the tab by it, while unchanged
        state.sentSnapshots.set(tabId, snap);
        state.sentRevisions.set(tabId, revision);
        state.refused.delete(tabId);
        const wire = onWire(snap, revision);
        send({ type: OUT.tabUpdate, tab: wire }, () => {
          const [, , text] = fitTab(wire); // when its turn comes (tab_lane.js): measured and serialized once
          return `{"type":${JSON.stringify(OUT.tabUpdate)},"tab":${text}}`;
        });
      }
      updateBadge(tabId);
    }, UPDATE_DEBOUNCE_MS),
  );
}

export function onTabChanged(tab) {
  if (tab.id === undefined) return;
  state.tabs.set(tab.id, tab);
  scheduleTabUpdate(tab.id);
}

export function onTabRemoved(tabId) {
  state.telemetryDropped.delete(tabId);
  state.lateDocuments.delete(tabId);
  state.received.delete(tabId);
  state.telemetryRules.delete(tabId);
  state.limited.delete(tabId);
  state.refused.delete(tabId);
  state.tabs.delete(tabId);
  state.sentSnapshots.delete(tabId);
  state.sentRevisions.delete(tabId);
  state.pages.delete(tabId);
  state.forms.delete(tabId);
  state.frames.delete(tabId);
  state.ports.delete(tabId);
  clearTimeout(state.updateTimers.get(tabId));
  state.updateTimers.delete(tabId);
  pending.endTab(tabId, RULE.tabClosed, `tab ${tabId} was closed`);
  if (state.status === 'ready') send({ type: OUT.tabClosed, tabId });
}
