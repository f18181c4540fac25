/**
 * Calling a tool by name, for the tabmcp hook and the legacy alias: input checked against the
 * schema, run in polyfill mode or through the browser in native mode, the outcome as a CallOutcome.
 */

import { errorMessage } from './util.js';
import { nat, secure } from './mode.js';
import { inputError } from './schema.js';
import { categories, tools } from './registry.js';
import { captures, ownTool } from './native.js';
import { runTool, settleForPage } from './run.js';
import { toCallToolResult } from './results.js';

/**
 * @param {any} name @param {any} args @param {any} options
 * @returns {Promise<CallOutcome>}
 */
async function invoke(name, args, options) {
  /** @param {string} code @param {string} message @returns {CallOutcome} */
  const fail = (code, message) => ({ ok: false, error: { code, message } });
  try {
    name = String(name);
    if (args === undefined) args = {};
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return fail('INVALID_ARGUMENTS', 'The arguments must be a JSON object.');
    }
    let argsJSON;
    try {
      argsJSON = JSON.stringify(args);
    } catch (e) {
      return fail('INVALID_ARGUMENTS', `The arguments are not JSON-serializable: ${errorMessage(e)}`);
    }
    const input = JSON.parse(argsJSON);
    const signal = options == null ? undefined : options.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      return fail('INVALID_ARGUMENTS', 'options.signal must be an AbortSignal.');
    }
    const aborted = (/** @type {any} */ reason) => ({
      ...fail('ABORTED', reason === undefined ? 'The call was aborted.' : `The call was aborted: ${errorMessage(reason)}`),
      reason,
    });
    if (signal && signal.aborted) return aborted(signal.reason);
    const notFound = () => fail('TOOL_NOT_FOUND', categories.has(name)
      ? `"${name}" is a category, not a tool: expand it to see its tools.`
      : `No tool named "${name}" is registered on this page.`);
    if (!secure) return notFound();

    const own = tools.get(name);
    const invalid = own ? inputError(own.schemaJSON, input) : null;
    if (invalid) {
      const f = JSON.parse(invalid.message);
      return fail('INVALID_ARGUMENTS',
        `The arguments do not match the tool's input schema at "${f.path || '/'}" (${f.reason}): ${f.message}`);
    }

    /** @type {Outcome} */
    let outcome;
    if (!nat) {
      const rec = own;
      if (!rec) return notFound();
      outcome = await runTool(rec, input, signal);
      if (outcome.status !== 'aborted' && outcome.status !== 'gone') {
        try { settleForPage(outcome); } catch { /* logged like the page would see it */ }
      }
    } else {
      const list = await nat.getTools.call(nat.mc);
      const entry = Array.isArray(list) ? list.find((t) => t && t.name === name && ownTool(t)) : undefined;
      if (!entry) return notFound();
      const cap = tools.has(name)
        ? { name, key: argsJSON, taken: false, outcome: /** @type {Outcome|null} */ (null) } : null;
      if (cap) captures.push(cap);
      try {
        const text = await nat.executeTool.call(nat.mc, entry, input, signal ? { signal } : undefined);
        outcome = cap && cap.outcome && cap.outcome.status === 'ok'
          ? cap.outcome : { status: 'ok', value: text, fromNative: true };
      } catch (e) {
        if (signal && signal.aborted) outcome = { status: 'aborted', reason: signal.reason };
        else if (cap && cap.outcome) outcome = cap.outcome; // threw, or returned something the browser could not serialize
        else outcome = { status: 'threw', error: e, nativeOnly: true };
      } finally {
        if (cap) captures.splice(captures.indexOf(cap), 1);
      }
    }

    switch (outcome.status) {
      case 'aborted':
        return aborted(outcome.reason);
      case 'cancelled':
        return fail('USER_CANCELLED', errorMessage(outcome.error));
      case 'gone':
        return notFound();
      case 'threw': {
        let message = errorMessage(outcome.error);
        if (outcome.nativeOnly) {
          message += ' (the page\'s own error message is not available: this tool was registered with the ' +
            'browser before the tabmcp polyfill loaded)';
        }
        return fail('PAGE_ERROR', message);
      }
      default: {
        const { result, dropped } = toCallToolResult(outcome.value);
        if (dropped.length) {
          return {
            ok: false,
            error: {
              code: 'BAD_RESULT',
              message: `The tool's result is not JSON-serializable; dropped or converted: ${dropped.slice(0, 20).join(', ')}` +
                `${dropped.length > 20 ? `, and ${dropped.length - 20} more` : ''}.`,
            },
            result,
          };
        }
        return { ok: true, result };
      }
    }
  } catch (e) {
    return fail('PAGE_ERROR', `tabmcp polyfill: unexpected failure: ${errorMessage(e)}`);
  }
}

export { invoke };
