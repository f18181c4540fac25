// @ts-check
/**
 * Approvals asked in the extension's own window, which the page can neither read, cover nor
 * answer; only the extension's own pages may fetch or answer a question (docs/security.md 2).
 */

import { KIND, RULE, bridgeWaits } from '../pending.js';
import { RUNTIME } from '../protocol.js';
import { originOf } from '../origin.js';

export const APPROVAL_PAGE = 'approval/approval.html';
/** Extension pages that may list and answer questions besides the approval window. */
const ANSWERING_PAGES = [APPROVAL_PAGE, 'popup/popup.html'];
const REMEMBER_KEY = 'tabmcp.approval.remembered';

/** What the person is told the bridge heard, when a rule (not the person) ended the question. */
const REASONS = Object.freeze({
  [RULE.tabClosed]: 'the tab was closed',
  [RULE.navigated]: 'the page unloaded before anyone answered',
  [RULE.timeout]: 'nobody answered in time',
  [RULE.leftOrigin]: 'the agent tab left its site and was closed',
});

/**
 * @typedef {{approvalId: string, tabId: number, tool: string, title: string, description?: string,
 *   arguments: object, reason: string, timeoutMs: number, origin?: string, frameId?: number,
 *   toolName?: string, mayGiveUp?: boolean}} ApprovalRequest
 * @typedef {{request: ApprovalRequest, origin: string, topOrigin: string, url: string,
 *   windowId: number | null, askedAt: number}} Question
 *   ``origin`` owns the tool (the frame's for a frame's tool); ``topOrigin`` is the tab's page.
 */

/**
 * A remembered "allow" covers only this owning origin, tool and reason (docs/security.md 2).
 * @param {string} origin @param {string} tool @param {string} reason
 */
const rememberKey = (origin, tool, reason) => JSON.stringify([origin, tool, reason]);

/**
 * @param {{send: (msg: object) => boolean | void, resultType: string,
 *   table: import('../pending.js').PendingTable,
 *   frameOrigin: (tabId: number, frameId: number) => string}} deps
 *   ``table``: the worker's pending requests; ``frameOrigin``: Chrome's origin for a child frame
 *   that may offer tools now ('' if not).
 */
export function createApprovals({ send, resultType, table, frameOrigin }) {
  /** The open question `id`, if any. @param {string} id @returns {Question | undefined} */
  const question = (id) => table.get(id, KIND.approval)?.data;

  /** @param {number | null} windowId */
  const closeWindow = (windowId) => {
    if (windowId !== null) chrome.windows.remove(windowId).catch(() => {});
  };

  /**
   * The window says why the question ended without the person (the agent stopped waiting, nobody
   * answered in time, the tab closed), then closes itself a few seconds later.
   * @param {number | null} windowId @param {string} approvalId @param {string} why
   */
  const explainInWindow = async (windowId, approvalId, why) => {
    if (windowId === null) return;
    try {
      const win = await chrome.windows.get(windowId, { populate: true });
      const tabId = win.tabs?.[0]?.id;
      if (tabId === undefined) throw new Error('no tab');
      const url = chrome.runtime.getURL(`${APPROVAL_PAGE}?id=${encodeURIComponent(approvalId)}&ended=${encodeURIComponent(why)}`);
      await chrome.tabs.update(tabId, { url });
    } catch {
      closeWindow(windowId);
    }
  };

  // A rule ended the question (timeout, tab closed, page gone): the answer is no. The window says
  // why rather than vanish under the person's pointer.
  table.handle(KIND.approval, (entry, rule, message) => {
    /** @type {Question} */
    const q = entry.data;
    if (bridgeWaits(rule)) {
      send({ type: resultType, approvalId: entry.id, approved: false, reason: REASONS[rule] || rule });
    }
    explainInWindow(q.windowId, entry.id, REASONS[rule] || message || rule);
  });

  /** @returns {Promise<string[]>} */
  async function remembered() {
    const got = await chrome.storage.session.get(REMEMBER_KEY);
    return Array.isArray(got[REMEMBER_KEY]) ? got[REMEMBER_KEY] : [];
  }

  /** @param {string} approvalId @param {boolean} approved @param {string} reason */
  function finish(approvalId, approved, reason) {
    const entry = table.take(approvalId, KIND.approval);
    if (!entry) return false;
    send({ type: resultType, approvalId, approved, reason });
    closeWindow(entry.data.windowId);
    return true;
  }

  /** @param {ApprovalRequest} request */
  async function start(request) {
    let url = '';
    try {
      url = (await chrome.tabs.get(request.tabId)).url || '';
    } catch {
      send({ type: resultType, approvalId: request.approvalId, approved: false, reason: `no tab ${request.tabId} to ask about` });
      return;
    }
    // Chrome's word for who owns the tool wins over the bridge's (which a page could once forge):
    // the frame's origin for a frame's tool, the tab's for the top page's.
    const topOrigin = originOf(url) || request.origin || '';
    const frameId = Number.isInteger(request.frameId) ? Number(request.frameId) : 0;
    const origin = frameId ? frameOrigin(request.tabId, frameId) : topOrigin;
    if (!origin) {
      send({ type: resultType, approvalId: request.approvalId, approved: false,
        reason: `frame ${frameId} of tab ${request.tabId} is gone or no longer allowed to offer tools` });
      return;
    }
    if ((await remembered()).includes(rememberKey(origin, request.toolName || request.tool, request.reason))) {
      send({ type: resultType, approvalId: request.approvalId, approved: true,
        reason: 'approved: remembered for this origin and tool for the session' });
      return;
    }
    /** @type {Question} */
    const data = { request, origin, topOrigin, url, windowId: null, askedAt: Date.now() };
    table.add(KIND.approval, request.approvalId, {
      tabId: request.tabId,
      timeoutMs: request.timeoutMs || 120_000,
      timeoutMessage: REASONS[RULE.timeout],
      data,
    });
    const page = chrome.runtime.getURL(`${APPROVAL_PAGE}?id=${encodeURIComponent(request.approvalId)}`);
    try {
      const win = await chrome.windows.create({ url: page, type: 'popup', width: 480, height: 600, focused: true });
      const entry = question(request.approvalId);
      if (entry && win && win.id !== undefined) entry.windowId = win.id;
      else if (!entry && win && win.id !== undefined) closeWindow(win.id);
    } catch (e) {
      finish(request.approvalId, false, `could not open the approval window: ${e && /** @type {any} */ (e).message}`);
    }
  }

  /** @param {chrome.runtime.MessageSender} sender */
  const fromOwnPage = (sender) =>
    sender.id === chrome.runtime.id && typeof sender.url === 'string' &&
    ANSWERING_PAGES.some((page) => /** @type {string} */ (sender.url).startsWith(chrome.runtime.getURL(page)));

  /** Every open question, oldest first, as the popup lists them. */
  const openQuestions = () =>
    table.all(KIND.approval).map((entry) => {
      /** @type {Question} */
      const q = entry.data;
      return { ...q.request, origin: q.origin, topOrigin: q.topOrigin, url: q.url, askedAt: q.askedAt,
        hasWindow: q.windowId !== null };
    });

  /**
   * The worker's onMessage hook: true when the message was ours (the answer is sent async).
   * @param {any} msg @param {chrome.runtime.MessageSender} sender @param {(r: any) => void} sendResponse
   */
  function onMessage(msg, sender, sendResponse) {
    const ours = [RUNTIME.approvalGet, RUNTIME.approvalAnswer, RUNTIME.approvalList, RUNTIME.approvalFocus];
    if (!msg || !ours.includes(msg.type)) return false;
    if (!fromOwnPage(sender)) return false; // a content script or anything else: ignored
    if (msg.type === RUNTIME.approvalList) {
      sendResponse(openQuestions());
      return false;
    }
    const entry = question(String(msg.approvalId));
    if (msg.type === RUNTIME.approvalFocus) {
      if (entry && entry.windowId !== null) chrome.windows.update(entry.windowId, { focused: true }).catch(() => {});
      sendResponse({ ok: !!entry });
      return false;
    }
    if (msg.type === RUNTIME.approvalGet) {
      sendResponse(entry ? { ...entry.request, origin: entry.origin, topOrigin: entry.topOrigin, url: entry.url } : null);
      return false;
    }
    if (msg.type === RUNTIME.approvalAnswer && entry) {
      const approved = msg.approved === true;
      const done = async () => {
        if (approved && msg.remember === true) {
          const list = await remembered();
          list.push(rememberKey(entry.origin, entry.request.toolName || entry.request.tool, entry.request.reason));
          await chrome.storage.session.set({ [REMEMBER_KEY]: [...new Set(list)] });
        }
        const ok = finish(entry.request.approvalId, approved, approved
          ? (msg.remember ? 'approved by the user (remembered for this session)' : 'approved by the user')
          : 'denied by the user');
        sendResponse({ ok });
      };
      done();
      return true;
    }
    if (msg.type === RUNTIME.approvalAnswer) sendResponse({ ok: false, gone: true }); // answered elsewhere first
    return false;
  }

  // The person closed the window without answering: that is a no.
  chrome.windows.onRemoved.addListener((windowId) => {
    for (const entry of table.all(KIND.approval)) {
      if (entry.data.windowId === windowId) finish(entry.id, false, 'the approval window was closed without an answer');
    }
  });

  return { start, onMessage, openQuestions };
}
