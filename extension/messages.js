// The extension's internal messages, named once: service worker ⇄ content script (over the
// page's port) ⇄ page scripts (window.postMessage), and the extension's own pages (popup,
// approval window) ⇄ service worker (chrome.runtime.sendMessage). The wire protocol with the
// bridge and every error code are in protocol.generated.js.
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
  });

  /**
   * The window.postMessage envelope between the content script and the page scripts:
   * `{[ENVELOPE.key]: ENVELOPE.page | ENVELOPE.content, msg}`, named by who sends it.
   */
  const ENVELOPE = Object.freeze({ key: '__tabmcp', page: 'page', content: 'content' });

  /** The name of the port each page's content script opens to the worker. */
  const PAGE_PORT = 'tabmcp-page';

  /** Messages from the extension's own pages (popup, approval window) and tests to the worker. */
  const RUNTIME = Object.freeze({
    status: 'tabmcp.status',
    reconnect: 'tabmcp.reconnect',
    /** The approval window asks for its question {approvalId} and gives the person's answer. */
    approvalGet: 'tabmcp.approval.get',
    approvalAnswer: 'tabmcp.approval.answer',
  });

  Object.defineProperty(globalThis, KEY, { value: Object.freeze({ PAGE, ENVELOPE, PAGE_PORT, RUNTIME }) });
})();
