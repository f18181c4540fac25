// @ts-check
/**
 * Approvals asked in the extension's own window, never in the page.
 *
 * When the bridge needs a person's yes (the MCP client cannot ask through elicitation), the
 * service worker opens approval.html in a small extension window: the page can neither read,
 * restyle, cover nor answer it (it is not in the page's DOM, and input dispatched into the tab
 * cannot reach another window). The window shows the origin, the tool's title and name, the
 * arguments as the bridge will send them and why approval is needed; the person may remember
 * the decision for this origin + tool (and reason) for the browser session (chrome.storage.session,
 * which content scripts cannot read).
 *
 * Only our approval page may fetch a question or answer it: messages from anything else
 * (content scripts, pages) are ignored.
 */

export const APPROVAL_PAGE = 'approval/approval.html';
const REMEMBER_KEY = 'tabmcp.approval.remembered';
const MSG_GET = 'tabmcp.approval.get';
const MSG_ANSWER = 'tabmcp.approval.answer';

/**
 * @typedef {{approvalId: string, tabId: number, tool: string, title: string, description?: string,
 *   arguments: object, reason: string, timeoutMs: number, origin?: string}} ApprovalRequest
 * @typedef {{request: ApprovalRequest, origin: string, url: string, windowId: number | null,
 *   timer: ReturnType<typeof setTimeout>, askedAt: number}} Pending
 */

/**
 * A remembered "allow" covers the same origin, tool and reason only: a lockdown (after a result
 * that gave the agent orders) or a changed definition is a new reason, so it asks again.
 * @param {string} origin @param {string} tool @param {string} reason
 */
const rememberKey = (origin, tool, reason) => JSON.stringify([origin, tool, reason]);

/** @param {string} url */
function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/**
 * @param {{send: (msg: object) => boolean | void, resultType: string}} deps
 *   ``send`` posts a message to the bridge; ``resultType`` is the wire type of the answer.
 */
export function createApprovals({ send, resultType }) {
  /** @type {Map<string, Pending>} */
  const pending = new Map();

  /** @returns {Promise<string[]>} */
  async function remembered() {
    const got = await chrome.storage.session.get(REMEMBER_KEY);
    return Array.isArray(got[REMEMBER_KEY]) ? got[REMEMBER_KEY] : [];
  }

  /** @param {string} approvalId @param {boolean} approved @param {string} reason */
  function finish(approvalId, approved, reason) {
    const entry = pending.get(approvalId);
    if (!entry) return false;
    pending.delete(approvalId);
    clearTimeout(entry.timer);
    send({ type: resultType, approvalId, approved, reason });
    if (entry.windowId !== null) chrome.windows.remove(entry.windowId).catch(() => {});
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
    const origin = request.origin || originOf(url);
    if ((await remembered()).includes(rememberKey(origin, request.tool, request.reason))) {
      send({ type: resultType, approvalId: request.approvalId, approved: true,
        reason: 'approved: remembered for this origin and tool for the session' });
      return;
    }
    const timer = setTimeout(() => finish(request.approvalId, false, 'nobody answered in time'), request.timeoutMs || 120_000);
    pending.set(request.approvalId, { request, origin, url, windowId: null, timer, askedAt: Date.now() });
    const page = chrome.runtime.getURL(`${APPROVAL_PAGE}?id=${encodeURIComponent(request.approvalId)}`);
    try {
      const win = await chrome.windows.create({ url: page, type: 'popup', width: 480, height: 600, focused: true });
      const entry = pending.get(request.approvalId);
      if (entry && win && win.id !== undefined) entry.windowId = win.id;
      else if (!entry && win && win.id !== undefined) chrome.windows.remove(win.id).catch(() => {});
    } catch (e) {
      finish(request.approvalId, false, `could not open the approval window: ${e && /** @type {any} */ (e).message}`);
    }
  }

  /** Deny every question about a tab (it closed or navigated). @param {number} tabId @param {string} reason */
  function denyInTab(tabId, reason) {
    for (const [id, entry] of [...pending]) if (entry.request.tabId === tabId) finish(id, false, reason);
  }

  /** @param {chrome.runtime.MessageSender} sender */
  const fromApprovalPage = (sender) =>
    sender.id === chrome.runtime.id && typeof sender.url === 'string' &&
    sender.url.startsWith(chrome.runtime.getURL(APPROVAL_PAGE));

  /**
   * The worker's onMessage hook: true when the message was ours (the answer is sent async).
   * @param {any} msg @param {chrome.runtime.MessageSender} sender @param {(r: any) => void} sendResponse
   */
  function onMessage(msg, sender, sendResponse) {
    if (!msg || typeof msg.type !== 'string' || !msg.type.startsWith('tabmcp.approval.')) return false;
    if (!fromApprovalPage(sender)) return false; // a content script or anything else: ignored
    const entry = pending.get(String(msg.approvalId));
    if (msg.type === MSG_GET) {
      sendResponse(entry ? { ...entry.request, origin: entry.origin, url: entry.url } : null);
      return false;
    }
    if (msg.type === MSG_ANSWER && entry) {
      const approved = msg.approved === true;
      const done = async () => {
        if (approved && msg.remember === true) {
          const list = await remembered();
          list.push(rememberKey(entry.origin, entry.request.tool, entry.request.reason));
          await chrome.storage.session.set({ [REMEMBER_KEY]: [...new Set(list)] });
        }
        finish(entry.request.approvalId, approved, approved
          ? (msg.remember ? 'approved by the user (remembered for this session)' : 'approved by the user')
          : 'denied by the user');
        sendResponse({ ok: true });
      };
      done();
      return true;
    }
    return false;
  }

  // The person closed the window without answering: that is a no.
  chrome.windows.onRemoved.addListener((windowId) => {
    for (const [id, entry] of [...pending]) {
      if (entry.windowId === windowId) finish(id, false, 'the approval window was closed without an answer');
    }
  });

  return { start, denyInTab, onMessage, pending };
}
