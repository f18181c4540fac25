/**
 * Running a tool in polyfill mode as the draft says (a tick later, `toolactivated`, aborts and
 * `toolcancel`) and turning its outcome into what executeTool() gives the page.
 */

import { MSG_INVOCATION_FAILED, MSG_TRANSIENT } from './constants.js';
import { describeError, domError, macrotask, nativeStringify } from './util.js';
import { ToolActivatedEvent, ToolCancelEvent } from './events.js';
import { addClientMethods, target, tools } from './registry.js';

/**
 * Fires toolactivated / toolcancel at the window, then at the ModelContext (the draft's two
 * targets). @param {'toolactivated'|'toolcancel'} type @param {string} toolName
 */
function fireToolEvent(type, toolName) {
  const Cls = type === 'toolactivated' ? ToolActivatedEvent : ToolCancelEvent;
  window.dispatchEvent(new Cls(type, { toolName }));
  target.dispatchEvent(new Cls(type, { toolName }));
}

/**
 * Runs a tool as the draft says: a tick later it starts (a form's controls filled first), then
 * toolactivated fires; an abort rejects with the signal's reason, then the tool's signal aborts
 * and toolcancel follows. A tool that unregisters itself while it runs still has its result count.
 * @param {ToolRecord} rec @param {any} input @param {AbortSignal|undefined} signal
 * @returns {Promise<Outcome>}
 */
function runTool(rec, input, signal) {
  return new Promise((resolve) => {
    let done = false;
    let started = false;
    /** @type {{reason: any}|null} aborted before the tool started */
    let early = null;
    const clientController = new AbortController();
    const client = addClientMethods({ signal: clientController.signal });
    const cancelLater = () => macrotask(() => {
      clientController.abort();
      if (rec.form) rec.form.cancel();
      fireToolEvent('toolcancel', rec.name);
    });
    const onAbort = () => {
      if (done) return;
      const reason = /** @type {AbortSignal} */ (signal).reason;
      if (!started) {
        early = { reason };
        return;
      }
      done = true;
      resolve({ status: 'aborted', reason });
      cancelLater();
    };
    /** @param {Outcome} outcome */
    const finish = (outcome) => {
      if (done) return;
      done = true;
      if (signal) signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    if (signal) signal.addEventListener('abort', onAbort, { once: true });
    queueMicrotask(() => {
      if (done) return;
      if (tools.get(rec.name) !== rec) {
        finish({ status: 'gone' });
        return;
      }
      started = true;
      let result;
      let threw = false;
      let error;
      try {
        if (rec.form) rec.form.fill(input);
        else result = rec.execute.call(undefined, input, client);
      } catch (e) {
        threw = true;
        error = e;
      }
      if (rec.form && !threw && !early) {
        try {
          result = rec.form.submit(); // with toolautosubmit, the submit event is dispatched now
        } catch (e) {
          threw = true;
          error = e;
        }
      }
      fireToolEvent('toolactivated', rec.name);
      if (early) {
        done = true;
        if (signal) signal.removeEventListener('abort', onAbort);
        resolve({ status: 'aborted', reason: early.reason });
        cancelLater();
        return;
      }
      if (threw) {
        finish({ status: 'threw', error });
        return;
      }
      Promise.resolve(result).then(
        (value) => finish({ status: 'ok', value }),
        (e) => finish(e instanceof PersonCancelled ? { status: 'cancelled', error: e.error } : { status: 'threw', error: e }));
    });
  });
}

/** How a form tool's run ends when the person cancels it (not the page throwing). */
class PersonCancelled {
  /** @param {DOMException} error */
  constructor(error) { this.error = error; }
}

/**
 * What executeTool() gives the page for an outcome, logging failures like Chromium does.
 * @param {Outcome} outcome @returns {string}
 */
function settleForPage(outcome) {
  switch (outcome.status) {
    case 'aborted':
      throw outcome.reason;
    case 'gone':
      throw domError(MSG_TRANSIENT, 'UnknownError');
    case 'cancelled':
      throw outcome.error;
    case 'threw':
      console.error(`WebMCP tool execution failed: Uncaught ${describeError(outcome.error)}`);
      throw domError(MSG_INVOCATION_FAILED, 'UnknownError');
    default:
      try {
        return nativeStringify(outcome.value);
      } catch (e) {
        console.error(`WebMCP tool execution failed: Uncaught ${describeError(e)}`);
        throw domError(MSG_INVOCATION_FAILED, 'UnknownError');
      }
  }
}

export { PersonCancelled, fireToolEvent, runTool, settleForPage };
