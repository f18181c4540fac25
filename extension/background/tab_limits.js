// @ts-check
// Per-tab limits (limits.js): a page that floods or sends too much affects itself only. What the
// limits did to each tab is told to the bridge's log, the page's console and the popup; the
// bridge's own refusals (INVALID_TOOL) are told the same way.
import { ERROR, OUT, PAGE } from '../protocol.js';
import { LIMITS, state } from './state.js';
import { send } from './link.js';
import { trustedLocation } from './location.js';

const { SIZE, RATE, jsonOf, showBytes, utf8Bytes, createFloodRule, fitDefinitions, refusalText } = LIMITS;

/**
 * The bridge refused some of a tab's tools or categories: never silently. The page's console
 * says which and why (where its author looks), and the popup shows it to the person.
 */
export function noteRefused(tabId, message) {
  if (state.refused.get(tabId) === message) return;
  state.refused.set(tabId, message);
  const entry = state.ports.get(tabId);
  try {
    entry?.port.postMessage({ type: PAGE.refused, message });
  } catch {
    /* the page is gone */
  }
}

/** The tab's telemetry rate rule, its frames together, for its current document. */
export function telemetryRule(tabId) {
  let rule = state.telemetryRules.get(tabId);
  if (!rule) {
    rule = createFloodRule(RATE.telemetry, {
      onCut: () => noteFlood(tabId, { rate: RATE.telemetry.rate, dropped: rule.refused }),
    });
    state.telemetryRules.set(tabId, rule);
  }
  return rule;
}

/** @returns {TabLimits} */
function limitsOf(tabId) {
  let limits = state.limited.get(tabId);
  if (!limits) state.limited.set(tabId, (limits = { flood: null, refused: new Map(), tab: null }));
  return limits;
}

/** Everything the limits did to a tab, for the popup. @returns {Limit[]} */
export function limitsList(tabId) {
  const limits = state.limited.get(tabId);
  if (!limits) return [];
  return [limits.flood, limits.tab, ...[...limits.refused.values()].flat()].filter(Boolean);
}

/**
 * Tell what a limit did: the bridge's log (an `error` naming the tab), the page's console (where
 * its author looks; `frameId` -2: the bridge only); the popup reads `state.limited`.
 */
export function tell(tabId, frameId, code, message) {
  const origin = trustedLocation(tabId).origin || 'no origin';
  if (state.status === 'ready') send({ type: OUT.error, code, message: `tab ${tabId} (${origin}): ${message}`, ref: `tab:${tabId}` });
  if (frameId === -2) return;
  const entry = frameId > 0 ? state.frames.get(tabId)?.get(frameId) : state.ports.get(tabId);
  try {
    entry?.port.postMessage({ type: PAGE.refused, message: `${code}: ${message}` });
  } catch {
    /* the page is gone */
  }
}

/** A tab (one of its frames) kept on past its telemetry rate: cut off, named, alone. */
export function noteFlood(tabId, info) {
  const limits = limitsOf(tabId);
  if (limits.flood) return;
  telemetryRule(tabId).cutOff(); // nothing more of this document's telemetry is relayed
  const rate = Number(info && info.rate) || RATE.telemetry.rate;
  limits.flood = {
    code: ERROR.TAB_FLOODED,
    message: `the page kept sending telemetry past ${rate} batches a second: ` +
      'its telemetry is cut off (dropped and counted) until it navigates; its tools are kept, other tabs are not affected',
  };
  tell(tabId, 0, ERROR.TAB_FLOODED, limits.flood.message);
}

/**
 * Each list of definitions admitted here (a document's tools or categories, a page's form tools) → its JSON text,
 * joined from the texts `fitDefinitions` measured it by, and its UTF-8 bytes once counted. A tab's snapshot is
 * written with them (`snapshotText`): its megabytes were serialized again at every update and every sync, and
 * scanned to count their bytes. The lists are replaced, never changed in place, so a list's text stays true.
 * @type {WeakMap<any[], {text: string, bytes: number}>}
 */
const listTexts = new WeakMap();

/** Remember an admitted list's text (`texts`: its definitions' JSON texts, from fitDefinitions, and `bytes`
 * their UTF-8 bytes together if fitDefinitions counted them, else -1: counted here when first asked for). */
export function rememberTexts(list, texts, bytes = -1) {
  listTexts.set(list, { text: `[${texts.join(',')}]`, bytes: bytes < 0 ? -1 : bytes + Math.max(texts.length - 1, 0) + 2 });
}

/** A list's remembered UTF-8 bytes, counted the first time they are asked for. */
function listBytes(entry) {
  if (entry.bytes < 0) entry.bytes = utf8Bytes(entry.text);
  return entry.bytes;
}

/**
 * A snapshot's JSON text (the same as `JSON.stringify(snap)`) and its length in UTF-16 units, the lists admitted
 * here written from their remembered texts and the rest serialized; `bytes()` counts its UTF-8 bytes. The lists
 * stand in the serialized rest as strings carrying a nonce made for this call, which no page text can hold.
 * @returns {{text: string, units: number, bytes: () => number}}
 */
export function snapshotText(snap) {
  /** @type {Array<{text: string, bytes: number}>} */
  const lists = [];
  const nonce = crypto.randomUUID();
  let skeleton;
  try {
    skeleton = JSON.stringify(snap, (_key, value) => {
      const entry = Array.isArray(value) ? listTexts.get(value) : undefined;
      if (!entry) return value;
      lists.push(entry);
      return `@tabmcp-list:${nonce}:${lists.length - 1}@`;
    }) ?? '{}';
  } catch {
    skeleton = '{}'; // not JSON (never so from the fields the worker builds a snapshot of)
    lists.length = 0;
  }
  if (!lists.length) return { text: skeleton, units: skeleton.length, bytes: () => utf8Bytes(skeleton) };
  const pieces = skeleton.split(new RegExp(`"@tabmcp-list:${nonce}:(\\d+)@"`));
  let units = 0;
  let text = '';
  for (let i = 0; i < pieces.length; i++) {
    const piece = i % 2 ? lists[Number(pieces[i])].text : pieces[i];
    text += piece;
    units += piece.length;
  }
  const bytes = () => pieces.reduce((n, piece, i) => n + (i % 2 ? listBytes(lists[Number(piece)]) : utf8Bytes(piece)), 0);
  return { text, units, bytes };
}

/** A document's definitions within their sizes: the content script's refusals and this worker's own, noted. */
export function admitDefinitions(tabId, frameId, msg) {
  const fitted = fitDefinitions(msg.tools, msg.categories);
  rememberTexts(fitted.tools, fitted.texts.tools, fitted.bytes.tools);
  rememberTexts(fitted.categories, fitted.texts.categories, fitted.bytes.categories);
  const relayed = Array.isArray(msg.refused) ? msg.refused.slice(0, 100).filter(isRefusal) : [];
  noteRefusals(tabId, frameId, [...relayed, ...fitted.refused]);
  return fitted;
}

/** A refusal as content.js reports it (it never relays a page's own `refused`). */
const isRefusal = (r) => !!r && (r.kind === 'tool' || r.kind === 'category') && typeof r.name === 'string' &&
  Number.isFinite(r.bytes) && Number.isFinite(r.limit);

/** The definitions of one frame (0: the top document, -1: its forms) refused now; new ones are told. */
export function noteRefusals(tabId, frameId, refusals) {
  const limits = limitsOf(tabId);
  const before = new Set((limits.refused.get(frameId) || []).map((l) => l.message));
  const where = frameId > 0 ? `frame ${frameId}: ` : frameId === -1 ? 'forms: ' : '';
  const now = refusals.map((r) => ({ code: ERROR.TOO_LARGE, message: where + refusalText(r) }));
  if (now.length) limits.refused.set(frameId, now);
  else limits.refused.delete(frameId);
  const fresh = now.filter((l) => !before.has(l.message));
  if (fresh.length) tell(tabId, frameId, ERROR.TOO_LARGE, fresh.map((l) => l.message).join('; '));
}

/**
 * A tab's snapshot as it may be sent, with its size and JSON text (written once, its definitions from their
 * admitted texts: `snapshotText`): past SIZE.tab
 * it goes without its definitions, and the person is told why.
 * @returns {[object, number, string] | null}
 */
export function fitTab(snap) {
  if (!snap) return null;
  const written = snapshotText(snap);
  const text = written.text;
  const bytes = written.units * 3 <= Math.min(SIZE.tab, SIZE.syncPart) ? written.units * 3 : written.bytes();
  const over = bytes > SIZE.tab ? bytes : 0;
  const limits = state.limited.get(snap.tabId);
  if (!over) {
    if (limits && limits.tab) limits.tab = null;
    return [snap, bytes, text];
  }
  const bare = { ...snap, tools: [], categories: [], frames: [], forms: undefined };
  const message = `the tab's definitions together are ${showBytes(over)}, over the ${showBytes(SIZE.tab)} one tab may send: ` +
    'it is sent without them';
  // Measured when its turn in the lane comes (tab_lane.js): a tab closed meanwhile keeps no limits (they would stay for good).
  const tabLimits = state.tabs.has(snap.tabId) ? limitsOf(snap.tabId) : null;
  if (tabLimits && (!tabLimits.tab || tabLimits.tab.message !== message)) {
    tabLimits.tab = { code: ERROR.TOO_LARGE, message };
    tell(snap.tabId, 0, ERROR.TOO_LARGE, message);
  }
  const bareText = jsonOf(bare) || '{}';
  return [bare, bareText.length * 3, bareText];
}
