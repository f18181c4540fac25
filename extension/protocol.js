// The wire protocol between this extension and the tabmcp bridge.
// Mirrors bridge/tabmcp/protocol.py (the source of truth) and docs/protocol.md.
// Bump PROTOCOL_VERSION together with the Python side whenever a message changes meaning.

/** @type {number} */
export const PROTOCOL_VERSION = 1;

/** Where the bridge listens by default (tabmcp serve --port 7797). */
export const DEFAULT_BRIDGE_URL = 'ws://127.0.0.1:7797/extension';

/** chrome.storage.local keys. */
export const STORAGE = Object.freeze({ bridgeUrl: 'bridgeUrl', bridgeToken: 'bridgeToken' });

/** Extension → bridge message types. */
export const OUT = Object.freeze({
  hello: 'hello',
  tabsSync: 'tabs.sync',
  tabUpdate: 'tab.update',
  tabClosed: 'tab.closed',
  callResult: 'call.result',
  approvalResult: 'approval.result',
  telemetry: 'telemetry',
  pageResult: 'page.result',
  ping: 'ping',
  pong: 'pong',
  error: 'error',
});

/** Bridge → extension message types. */
export const IN = Object.freeze({
  welcome: 'welcome',
  callStart: 'call.start',
  callCancel: 'call.cancel',
  approvalRequest: 'approval.request',
  approvalWithdraw: 'approval.withdraw',
  pageQuery: 'page.query',
  ping: 'ping',
  pong: 'pong',
  error: 'error',
});

/** Error codes this extension reports in call.result. */
export const CALL_ERRORS = Object.freeze({
  tabClosed: 'TAB_CLOSED',
  tabNavigated: 'TAB_NAVIGATED',
  noPage: 'TAB_CLOSED',
  timeout: 'TIMEOUT',
  pageError: 'PAGE_ERROR',
  notFound: 'TOOL_NOT_FOUND',
  cancelled: 'CANCELLED',
});

/**
 * @typedef {{tabId:number, windowId?:number, url:string, title:string, documentId?:string,
 *   active?:boolean, native?:boolean, tools:object[], categories:object[], states:string[]}} TabSnapshot
 * @typedef {{type:'call.start', callId:string, tabId:number, documentId?:string, tool:string,
 *   arguments:object, timeoutMs:number}} CallStart
 * @typedef {{type:'call.result', callId:string, ok:boolean, result?:object,
 *   error?:{code:string, message:string, details?:object}}} CallResult
 */

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
