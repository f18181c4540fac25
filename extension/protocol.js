// The wire protocol (generated into protocol.generated.js from bridge/tabmcp/protocol.py) and the
// internal messages (messages.js) as ES module exports for the worker and the extension's pages.
// Both are classic scripts that content.js and the page scripts load too: imported here for their
// effect, read from globalThis. docs/protocol.md describes them.

import './protocol.generated.js';
import './messages.js';

const WIRE = /** @type {any} */ (globalThis)[Symbol.for('tabmcp.protocol')];
const MESSAGES = /** @type {any} */ (globalThis)[Symbol.for('tabmcp.messages')];

/** @type {number} */
export const PROTOCOL_VERSION = WIRE.PROTOCOL_VERSION;
/** Extension → bridge message types. @type {Readonly<Record<string, string>>} */
export const OUT = WIRE.OUT;
/** Bridge → extension message types. @type {Readonly<Record<string, string>>} */
export const IN = WIRE.IN;
/** Every error code on the wire and in tool results. @type {Readonly<Record<string, string>>} */
export const ERROR = WIRE.ERROR;
/** The kinds of live page queries. @type {Readonly<Record<string, string>>} */
export const QUERY = WIRE.QUERY;
export const END_RULES = WIRE.END_RULES;

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
  /** The pairings with bridges, by bridge URL ({[url]: {id, secret}}, from pair.done or a launcher):
   * each sent in every hello to its bridge, never to another. */
  bridgePairings: 'bridgePairings',
  /** This profile's random id, made once: the bridge tells browsers (and profiles) apart by it. */
  profileId: 'profileId',
  /** The latest telemetry.config from the bridge, so pages get it even before a reconnect. */
  telemetryConfig: 'telemetryConfig',
});

/** Messages inside the extension (see messages.js). @type {Readonly<Record<string, string>>} */
export const PAGE = MESSAGES.PAGE;
/** The name of the port each page's content script opens to the worker. @type {string} */
export const PAGE_PORT = MESSAGES.PAGE_PORT;
/** Messages between the extension's pages / tests and the worker (chrome.runtime.sendMessage). */
export const RUNTIME = MESSAGES.RUNTIME;

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
