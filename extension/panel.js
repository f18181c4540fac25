// @ts-check
/**
 * The popup's questions to the bridge (`panel.query`, `control.set`, answered by `panel.state`).
 * Only the extension's own pages may ask; each question waits in the worker's pending table
 * (kind `panel`), so it ends like every other request.
 */

import { KIND, NO_TAB, RULE } from './pending.js';
import { ERROR, RUNTIME } from './protocol.js';

const ANSWER_WITHIN_MS = 5_000;
const PAGES = ['popup/popup.html', 'options/options.html'];
const ACTIONS = new Set(['pause', 'resume', 'writes', 'origin', 'accept', 'clear', 'unbind']);

/**
 * Whether a runtime message came from one of the extension's own pages (popup, options): only
 * they may read or flip the person's switches.
 * @param {chrome.runtime.MessageSender} sender
 */
export const fromOwnPage = (sender) =>
  !!sender && sender.id === chrome.runtime.id && typeof sender.url === 'string' &&
  PAGES.some((page) => /** @type {string} */ (sender.url).startsWith(chrome.runtime.getURL(page)));

/**
 * @param {{send: (msg: object) => boolean, types: {query: string, control: string},
 *   table: import('./pending.js').PendingTable, ready: () => boolean}} deps
 */
export function createPanel({ send, types, table, ready }) {
  table.handle(KIND.panel, (entry, rule, message) => {
    entry.data.reply({ ok: false, error: { code: rule === RULE.timeout ? ERROR.TIMEOUT : ERROR.EXTENSION_DISCONNECTED, message } });
  });

  /** @param {object} message @param {(r: any) => void} reply */
  function ask(message, reply) {
    if (!ready()) {
      reply({ ok: false, error: { code: ERROR.EXTENSION_DISCONNECTED, message: 'the bridge is not connected' } });
      return;
    }
    const requestId = crypto.randomUUID();
    table.add(KIND.panel, requestId, {
      tabId: NO_TAB,
      timeoutMs: ANSWER_WITHIN_MS,
      timeoutMessage: 'the bridge did not answer',
      data: { reply },
    });
    if (!send({ ...message, requestId })) table.end(requestId, RULE.bridgeGone, 'the bridge is not connected');
  }

  /**
   * The bridge's `panel.state`: hand it to the page that asked.
   * @param {{requestId: string, ok: boolean, state?: object, error?: object}} msg
   */
  function onState(msg) {
    const entry = table.take(String(msg.requestId), KIND.panel);
    if (entry) entry.data.reply({ ok: msg.ok !== false, state: msg.state, error: msg.error });
  }

  /**
   * The worker's onMessage hook: true when the message was ours (answered async).
   * @param {any} msg @param {chrome.runtime.MessageSender} sender @param {(r: any) => void} sendResponse
   */
  function onMessage(msg, sender, sendResponse) {
    if (!msg || (msg.type !== RUNTIME.panelQuery && msg.type !== RUNTIME.controlSet)) return false;
    if (!fromOwnPage(sender)) return false;
    if (msg.type === RUNTIME.panelQuery) {
      ask({
        type: types.query,
        tabId: Number.isInteger(msg.tabId) ? msg.tabId : undefined,
        origin: typeof msg.origin === 'string' && msg.origin ? msg.origin : undefined,
        limit: Number.isInteger(msg.limit) ? msg.limit : 100,
        expanded: Array.isArray(msg.expanded) ? msg.expanded.filter(Number.isInteger).slice(0, 64) : [],
      }, sendResponse);
      return true;
    }
    if (!ACTIONS.has(msg.action)) {
      sendResponse({ ok: false, error: { code: ERROR.MALFORMED_MESSAGE, message: `unknown action ${msg.action}` } });
      return false;
    }
    ask({
      type: types.control,
      action: msg.action,
      enabled: typeof msg.enabled === 'boolean' ? msg.enabled : null,
      origin: String(msg.origin || ''),
      tool: String(msg.tool || ''),
      secret: String(msg.secret || ''), // unbind: a secret's name (the extension never holds a value)
    }, sendResponse);
    return true;
  }

  return { onMessage, onState };
}
