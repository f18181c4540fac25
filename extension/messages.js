// The extension's internal messages, named once: service worker ⇄ content script (over the
// page's port) ⇄ page scripts (window events of our own, never window.postMessage), and the
// extension's own pages (popup, approval window) ⇄ service worker (chrome.runtime.sendMessage).
// The wire protocol with the bridge and every error code are in protocol.generated.js.
//
// A classic script with no exports, safe to load twice, so every context can load it: listed
// before content.js in manifest.json, imported for its effect by protocol.js (service worker,
// extension pages), copied at the end of protocol.generated.js for the page scripts (Chrome runs
// a file once per frame whatever the world, so the page's main world cannot list this one too;
// `python -m tabmcp.protocol_js` rewrites the copy, a test fails when it is stale). All read
// the same frozen names from globalThis[Symbol.for('tabmcp.messages')]; no other part of the
// extension spells a message type.
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
   * The page ⇄ content script channel: a CustomEvent on the window, dispatched synchronously, its
   * `detail` the message as JSON text (a string crosses the two worlds as is, Firefox's Xray
   * wrappers included), one event type per direction. `toContent` carries what a page script
   * sends (snapshots, form lists, form results, page-reported telemetry), `toPage` what the
   * content script gives the page scripts (resync, refused, forms.policy, form.call). Never
   * window.postMessage: every `message` listener of the page would see (and might log, forward or
   * answer) it, and the page must behave with the extension exactly as without it. Measured
   * (bench/page_channel.py, main world → isolated world): a snapshot of 682 tools (572 KiB) is in
   * the other world after 14.9 ms as JSON text on an event against 14.5 ms structured-cloned on a
   * message (100 tools: 0.9 against 0.8 ms), and it needs no task to arrive. A page can
   * dispatch these events too: the content script takes nothing on them a page could not send.
   */
  const PAGE_EVENT = Object.freeze({ toContent: 'tabmcp-page', toPage: 'tabmcp-content' });

  /**
   * The call path between the content script and the page agent (page/agent.js): like PAGE_EVENT,
   * its own types so the agent's results are told from a form's. `toPage` carries `call` and
   * `cancel`, `toContent` the agent's `result`.
   */
  const CALL_EVENT = Object.freeze({ toPage: 'tabmcp-call', toContent: 'tabmcp-call-result' });

  /**
   * The telemetry capture's line handover (page/natives.js ⇄ content.js), at document_start before
   * any page script runs: `offer` is a MessageEvent of its own type (not `message`: the page's
   * message listeners never see it) dispatched on the window with the capture's port in `ports`,
   * cancelable: the content script takes the port and cancels the event. Which of the two scripts
   * runs first is not fixed, so a content script that comes second dispatches `ask` (a plain
   * Event) and the capture, if its offer was not taken, offers once more, then stops listening.
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
