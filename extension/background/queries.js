// @ts-check
// Live page queries (query_dom, page facts) to the page's capture, and accessibility audits by
// our own axe-core in the extension's isolated world.
import { ERROR, OUT, PAGE } from '../protocol.js';
import { KIND, RULE_ERRORS, bridgeWaits } from '../pending.js';
import { pending, state } from './state.js';
import { send } from './link.js';

export async function startPageQuery(msg) {
  const fail = (code, message) =>
    send({ type: OUT.pageResult, requestId: msg.requestId, ok: false, error: { code, message } });
  const entry = state.ports.get(msg.tabId);
  if (!entry) {
    fail(state.tabs.has(msg.tabId) ? ERROR.TAB_NAVIGATED : ERROR.TAB_CLOSED,
      `no page to ask in tab ${msg.tabId}`);
    return;
  }
  pending.add(KIND.query, msg.requestId, {
    tabId: msg.tabId,
    timeoutMs: (msg.timeoutMs || 15000) + 500,
    timeoutMessage: 'the page did not answer',
  });
  if (msg.kind === 'axe') {
    await auditPage(msg, entry);
    return;
  }
  if (state.lateDocuments.get(msg.tabId) === entry.documentId) {
    finishPageQuery(msg.requestId, {
      ok: false,
      error: { code: ERROR.QUERY_FAILED, message: `the page in tab ${msg.tabId} was open before tabmcp was installed or reloaded: reload it to query it` },
    });
    return;
  }
  try {
    entry.port.postMessage({ type: PAGE.pageQuery, requestId: msg.requestId, kind: msg.kind, args: msg.args || {} });
  } catch (err) {
    finishPageQuery(msg.requestId, { ok: false, error: { code: ERROR.TAB_NAVIGATED, message: String(err.message) } });
  }
}

/**
 * An accessibility audit by our own axe-core in the extension's isolated world, where the page can
 * neither define `axe` nor patch what it calls, and the result returns as the script's value, not
 * a message the page could post. Frames are not audited: a frame would answer axe's messages.
 */
async function auditPage(msg, entry) {
  const target = entry.documentId
    ? { tabId: msg.tabId, documentIds: [entry.documentId] }
    : { tabId: msg.tabId, frameIds: [0] };
  const options = msg.args && msg.args.options && typeof msg.args.options === 'object' ? msg.args.options : {};
  let outcome;
  try {
    await chrome.scripting.executeScript({ target, files: ['vendor/axe.min.js'], world: 'ISOLATED' });
  } catch (err) {
    finishPageQuery(msg.requestId, {
      ok: false,
      error: { code: ERROR.AXE_MISSING, message: `could not load axe-core into the page: ${err.message}` },
    });
    return;
  }
  if (!pending.get(msg.requestId, KIND.query)) return; // ended while axe-core loaded
  try {
    const [frame] = await chrome.scripting.executeScript({ target, world: 'ISOLATED', func: runOwnAxe, args: [options, AXE_CODES] });
    outcome = frame && frame.result && typeof frame.result === 'object' ? frame.result : null;
    if (!outcome) throw new Error('the audit returned nothing');
  } catch (err) {
    outcome = { ok: false, error: { code: AXE_CODES.failed, message: `axe-core failed: ${err.message}` } };
  }
  finishPageQuery(msg.requestId, outcome);
}

/**
 * Runs in the isolated world (serialized by chrome.scripting): axe-core as auditPage loaded it.
 * @param {object} options axe.run options from the agent (`iframes` is always off)
 */
async function runOwnAxe(options, codes) {
  const axe = globalThis.axe;
  if (!axe || typeof axe.run !== 'function') return { ok: false, error: { code: codes.missing, message: 'axe-core is not loaded' } };
  try {
    const result = await axe.run(document, { ...options, iframes: false });
    return { ok: true, result: JSON.parse(JSON.stringify(result)) };
  } catch (err) {
    return { ok: false, error: { code: codes.failed, message: `axe-core failed: ${(err && err.message) || err}` } };
  }
}
const AXE_CODES = Object.freeze({ missing: ERROR.AXE_MISSING, failed: ERROR.AXE_FAILED });

/** The page answered (or could not be asked): report it, once. */
export function finishPageQuery(requestId, outcome) {
  if (!pending.take(requestId, KIND.query)) return;
  send({ type: OUT.pageResult, requestId, ...outcome });
}

pending.handle(KIND.query, (query, rule, message) => {
  if (bridgeWaits(rule)) send({ type: OUT.pageResult, requestId: query.id, ok: false, error: { code: RULE_ERRORS[rule], message } });
});
