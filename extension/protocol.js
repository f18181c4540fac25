// The wire protocol between this extension and the tabmcp bridge, and the extension's own
// internal messages. The wire part (PROTOCOL_VERSION, message types, error codes, a JSDoc
// typedef of every message) is generated from bridge/tabmcp/protocol.py into
// protocol.generated.js; docs/protocol.md describes the same messages for humans.

export { ERROR, IN, OUT, PROTOCOL_VERSION } from './protocol.generated.js';
import { ERROR } from './protocol.generated.js';

/**
 * @typedef {import('./protocol.generated.js').TabSnapshot} TabSnapshot
 * @typedef {import('./protocol.generated.js').FrameSnapshot} FrameSnapshot
 * @typedef {import('./protocol.generated.js').CallStart} CallStart
 * @typedef {import('./protocol.generated.js').CallResult} CallResult
 * @typedef {import('./protocol.generated.js').PageQuery} PageQuery
 * @typedef {import('./protocol.generated.js').ApprovalRequest} ApprovalRequest
 * @typedef {import('./protocol.generated.js').TelemetryConfig} TelemetryConfig
 */

/** Where the bridge listens by default (tabmcp serve --port 7797). */
export const DEFAULT_BRIDGE_URL = 'ws://127.0.0.1:7797/extension';

/** chrome.storage.local keys. */
export const STORAGE = Object.freeze({
  bridgeUrl: 'bridgeUrl',
  bridgeToken: 'bridgeToken',
  /** The latest telemetry.config from the bridge, so pages get it even before a reconnect. */
  telemetryConfig: 'telemetryConfig',
});

/** Error codes this extension reports in call.result and page.result. */
export const CALL_ERRORS = Object.freeze({
  tabClosed: ERROR.TAB_CLOSED,
  tabNavigated: ERROR.TAB_NAVIGATED,
  noPage: ERROR.TAB_CLOSED,
  timeout: ERROR.TIMEOUT,
  pageError: ERROR.PAGE_ERROR,
  notFound: ERROR.TOOL_NOT_FOUND,
  cancelled: ERROR.CANCELLED,
  axeMissing: ERROR.AXE_MISSING,
  malformed: ERROR.MALFORMED_MESSAGE,
  unknownType: ERROR.UNKNOWN_TYPE,
});

/**
 * Messages inside the extension: service worker ⇄ content script (over the page's port) ⇄
 * page scripts (window.postMessage, wrapped as {__tabmcp: 'page' | 'content', msg}).
 * content.js and the page scripts are classic scripts and cannot import this module; they use
 * the same strings, listed here once.
 */
export const PAGE = Object.freeze({
  /** page → worker: the page's tools, categories and states. */
  snapshot: 'snapshot',
  /** worker → page: run a tool {callId, tool, arguments}; page → worker: its `result`. */
  call: 'call',
  result: 'result',
  /** worker → page: stop a running call {callId, reason}. */
  cancel: 'cancel',
  /** page → worker: a batch of captured events (relayed as the wire's `telemetry`). */
  telemetry: 'telemetry',
  /** worker → page: the bridge's capture settings. */
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
});

/** The name of the port each page's content script opens to the worker. */
export const PAGE_PORT = 'tabmcp-page';

/** Messages between the popup / tests and the worker (chrome.runtime.sendMessage). */
export const RUNTIME = Object.freeze({
  status: 'tabmcp.status',
  reconnect: 'tabmcp.reconnect',
  /** popup → worker: the forms-as-tools rules and the switch of one origin {origin}. */
  formsStatus: 'tabmcp.forms.status',
  /** popup → worker: the person turns forms-as-tools on or off for one origin {origin, enabled}. */
  formsSet: 'tabmcp.forms.set',
});

/**
 * Normalize what a person typed on the options page into a WebSocket URL of the bridge.
 * Accepts ws(s)://host:port[/extension] or http(s)://host:port[/...].
 * @param {string} value
 * @returns {string}
 */
export function normalizeBridgeUrl(value) {
  const text = String(value || '').trim();
  if (!text) return DEFAULT_BRIDGE_URL;
  const url = new URL(text.includes('://') ? text : `ws://${text}`);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  if (url.protocol === 'https:') url.protocol = 'wss:';
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new Error(`not a WebSocket URL: ${text}`);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/extension';
  return url.toString();
}
