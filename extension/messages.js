// The extension's internal messages, named once: worker ⇄ content script ⇄ page scripts, and the
// extension's own pages ⇄ worker (the wire protocol and error codes are in protocol.generated.js).
// A classic script with no exports, safe to load twice, so every context can load it (manifest.json,
// protocol.js, and a copy at the end of protocol.generated.js for the main world, which cannot list
// it too); all read globalThis[Symbol.for('tabmcp.messages')].
(() => {
  const KEY = Symbol.for('tabmcp.messages');
  if (globalThis[KEY]) return;

  /** Messages between the service worker, the content script and the page scripts. */
  const PAGE = Object.freeze({
    /** page → worker: the page's tools, categories and states. */
    snapshot: 'snapshot',
    /** worker → page: run a tool {callId, tool, arguments}; page → worker: its `result`. */
    call: 'call',
    result: 'result',
    /** worker → page: stop a running call {callId, reason}. */
    cancel: 'cancel',
    /** page → worker: a batch of captured events (relayed as the wire's `telemetry`). */
    telemetry: 'telemetry',
    /** worker → page: the bridge's capture settings and redaction rules. */
    telemetryConfig: 'telemetry.config',
    /** worker → page: a live query {requestId, kind, args}; page → worker: `page.result`. */
    pageQuery: 'page.query',
    pageResult: 'page.result',
    /** Never relayed: approvals are asked in the extension's own window (approval/approvals.js). */
    approval: 'approval',
    /** content script → page: the worker (re)connected, send a fresh snapshot. */
    resync: 'resync',
    /** worker → page: definitions the bridge refused {message}; the page logs why to its console. */
    refused: 'refused',
    /** worker → page (page/forms.js): whether this origin's forms-as-tools switch is on {enabled}. */
    formsPolicy: 'forms.policy',
    /** page → worker: the page's ordinary forms as tool definitions {tools} (only while the switch is on). */
    forms: 'forms',
    /** worker → page: fill in and submit a page form {callId, tool, arguments}; answered by `result`. */
    formCall: 'form.call',
    /** content script → worker (never a page's: content.js relays only what a page sends): the
     * frame's telemetry went past its rate for long and is cut off {reason: 'flood', rate, dropped}. */
    limited: 'limited',
  });

  /**
   * The page ⇄ content script channel: a synchronous CustomEvent on the window whose `detail` is
   * the message as JSON text, one type per direction; never window.postMessage, which every
   * `message` listener of the page would hear (docs/protocol.md has why and the measurements).
   */
  const PAGE_EVENT = Object.freeze({ toContent: 'tabmcp-page', toPage: 'tabmcp-content' });

  /** The call path between content script and page/agent.js: `call`, `cancel` in, `result` out. */
  const CALL_EVENT = Object.freeze({ toPage: 'tabmcp-call', toContent: 'tabmcp-call-result' });

  /**
   * The telemetry capture's port handover (page/natives.js ⇄ content.js) at document_start: `offer`
   * is a cancelable MessageEvent of its own type carrying the port; a content script that comes
   * second dispatches `ask` and gets one more offer.
   */
  const CAPTURE_EVENT = Object.freeze({ offer: 'tabmcp-capture-port', ask: 'tabmcp-capture-ask' });

  /** The name of the port each page's content script opens to the worker. */
  const PAGE_PORT = 'tabmcp-page';

  /** Messages from the extension's own pages (popup, approval window, options) and tests to the worker. */
  const RUNTIME = Object.freeze({
    status: 'tabmcp.status',
    reconnect: 'tabmcp.reconnect',
    /** The approval window asks for its question {approvalId} and gives the person's answer. */
    approvalGet: 'tabmcp.approval.get',
    approvalAnswer: 'tabmcp.approval.answer',
    /** popup → worker: the reachable sites (the bridge's sites.list) and the active tab's origin. */
    sites: 'tabmcp.sites',
    /** popup → worker: {origin, reachable}: agents may (not) open this site (relayed as site.permission). */
    sitePermission: 'tabmcp.site.permission',
    /** popup → worker: {origin}: forget the site (relayed as site.forget). */
    siteForget: 'tabmcp.site.forget',
    /** The popup lists the open questions, and brings a question's window to the front {approvalId}. */
    approvalList: 'tabmcp.approval.list',
    approvalFocus: 'tabmcp.approval.focus',
    /** The popup asks the bridge what to show {tabId?, origin?, limit, expanded} (wire: panel.query). */
    panelQuery: 'tabmcp.panel.query',
    /** The popup flips a switch {action, enabled?, origin?, tool?, secret?} (wire: control.set). */
    controlSet: 'tabmcp.control.set',
    /** The popup's forms-as-tools section: the rules and one origin's switch {origin}, and the
     * person turning it on or off {origin, enabled}. */
    formsStatus: 'tabmcp.forms.status',
    formsSet: 'tabmcp.forms.set',
    /** popup/options → worker: ask the bridge for a pairing code to show (wire: pair.request). */
    pairRequest: 'tabmcp.pair.request',
  });

  Object.defineProperty(globalThis, KEY, { value: Object.freeze({ PAGE, PAGE_EVENT, CALL_EVENT, CAPTURE_EVENT, PAGE_PORT, RUNTIME }) });
})();
