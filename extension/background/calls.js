// @ts-check
// Tool calls: the bridge's call.start to the page (or frame) that offers the tool, its answer
// back once, cancels, and the rules that end a call early (pending.js).
import { ERROR, OUT, PAGE } from '../protocol.js';
import { KIND, RULE, RULE_ERRORS, bridgeWaits } from '../pending.js';
import { formsEnabled } from '../forms-policy.js';
import { pending, state } from './state.js';
import { send } from './link.js';
import { frameAllowed } from './location.js';
import { agentTabs } from './sites.js';

export function startCall(msg) {
  agentTabs.touch(msg.tabId);
  const reply = (error) =>
    send({ type: OUT.callResult, callId: msg.callId, ok: false, error });
  const frameId = Number.isInteger(msg.frameId) ? msg.frameId : 0;
  if (frameId && !frameAllowed(msg.tabId, frameId)) {
    reply({
      code: state.tabs.has(msg.tabId) ? ERROR.TAB_NAVIGATED : ERROR.TAB_CLOSED,
      message: `frame ${frameId} of tab ${msg.tabId} is gone or no longer allowed to offer tools`,
    });
    return;
  }
  const entry = frameId ? state.frames.get(msg.tabId).get(frameId) : state.ports.get(msg.tabId);
  if (entry && !agentTabs.allows(msg.tabId, entry.origin)) {
    reply({ code: ERROR.SITE_REDIRECTED, message: `agent tab ${msg.tabId} is no longer on the site it was opened for` });
    return;
  }
  const formCall = msg.source === 'form';
  if (formCall && (frameId || (entry && !formsEnabled(state.formsRules, entry.origin)))) {
    reply({ code: ERROR.OUT_OF_SCOPE, message: `forms-as-tools is off for ${entry ? entry.origin : 'this page'}` });
    return;
  }
  if (!entry) {
    const exists = state.tabs.has(msg.tabId);
    reply({
      code: exists ? ERROR.TAB_NAVIGATED : ERROR.TAB_CLOSED,
      message: exists ? `the page in tab ${msg.tabId} is not ready (loading or unloaded)` : `tab ${msg.tabId} is closed`,
    });
    return;
  }
  if (msg.documentId && entry.documentId && msg.documentId !== entry.documentId) {
    reply({ code: ERROR.TAB_NAVIGATED, message: `tab ${msg.tabId} navigated to another page` });
    return;
  }
  pending.add(KIND.call, msg.callId, {
    tabId: msg.tabId,
    frameId,
    timeoutMs: (msg.timeoutMs || 30_000) + 500,
    timeoutMessage: `${msg.tool} did not answer within ${msg.timeoutMs} ms`,
    data: { port: entry.port },
  });
  const call = { type: formCall ? PAGE.formCall : PAGE.call, callId: msg.callId, tool: msg.tool, arguments: msg.arguments || {} };
  if (Array.isArray(msg.trace)) call.trace = [...msg.trace, stamp('worker.in')]; // debug mode only
  try {
    entry.port.postMessage(call);
  } catch (err) {
    finishCall(msg.callId, { ok: false, error: { code: ERROR.TAB_NAVIGATED, message: String(err.message) } });
  }
}

/** The page answered (or could not be asked): report it, once. */
export function finishCall(callId, outcome) {
  if (!pending.take(callId, KIND.call)) return;
  send({ type: OUT.callResult, callId, ...outcome });
}

/** A hop's timestamp for a traced call (debug mode): [name, epoch ms]. */
const stamp = (name) => [name, performance.timeOrigin + performance.now()];

/** A page's answer to a call, with the trace it carried (debug mode) stamped once more. */
export function pageOutcome(msg, failure) {
  const outcome = {
    ok: !!msg.ok,
    result: msg.ok ? msg.result : undefined,
    error: msg.ok ? undefined : pageError(msg.error, failure),
  };
  if (Array.isArray(msg.trace)) outcome.trace = [...msg.trace.slice(0, 30), stamp('worker.out')];
  return outcome;
}

/**
 * A page's error, marked as the page's words (`fromPage`): the bridge reports it as PAGE_ERROR
 * with them as page data, so no page can answer with a code the bridge owns.
 * @param {any} error what the page sent @param {string} failure said when it sent nothing
 */
export function pageError(error, failure) {
  const e = error && typeof error === 'object' ? error : {};
  return {
    code: typeof e.code === 'string' && e.code ? e.code : ERROR.PAGE_ERROR,
    message: typeof e.message === 'string' ? e.message : failure,
    details: e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? e.details : undefined,
    fromPage: true,
  };
}

/** The bridge gave up on a call: the page stops it; no answer is sent. */
export function cancelCall(callId, reason) {
  if (pending.get(callId, KIND.call)) pending.end(callId, RULE.cancel, reason || 'cancelled');
}

/** Why the page is told to stop a call a rule ended (a page that is gone is not told). */
const CANCEL_REASONS = Object.freeze({ [RULE.timeout]: 'timeout', [RULE.bridgeGone]: 'bridge disconnected' });

pending.handle(KIND.call, (call, rule, message) => {
  if (rule === RULE.timeout || rule === RULE.cancel || rule === RULE.bridgeGone) {
    try {
      call.data.port.postMessage({ type: PAGE.cancel, callId: call.id, reason: CANCEL_REASONS[rule] || message });
    } catch {
      /* the page is gone */
    }
  }
  if (bridgeWaits(rule)) send({ type: OUT.callResult, callId: call.id, ok: false, error: { code: RULE_ERRORS[rule], message } });
});
