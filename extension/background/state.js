// @ts-check
// What the background script knows, in one place: the bridge link's status, each tab's pages and
// frames with their ports, what the per-tab limits did, and the one table of pending requests.
// The other modules of background/ read and write it; none keeps state another needs. No I/O here.
import { DEFAULT_BRIDGE_URL } from '../protocol.js';
import { createPendingTable } from '../pending.js';
import '../limits.js';

/** Per-tab rates and sizes (limits.js, a classic script shared with content.js): no page can affect another tab or the link. */
export const LIMITS = /** @type {any} */ (globalThis)[Symbol.for('tabmcp.limits')];

/** The reconnect backoff after a link the bridge held (link.js doubles it to 2 s). */
export const BACKOFF_START_MS = 250;

/** Settled once settings are loaded and the tabs known (background.js): work that needs state waits on it. */
let markReady = () => {};
export const ready = new Promise((resolve) => (markReady = resolve));
/** Called once by background.js when setup is done. */
export const setReady = () => markReady();

/**
 * @typedef {{port: chrome.runtime.Port, documentId?: string, frameId: number, origin: string}} PagePort
 * @typedef {{url:string, title:string, native:boolean, tools:object[], categories:object[], states:string[],
 *   frameTools?: string[]}} PageState
 * @typedef {{port: chrome.runtime.Port, documentId?: string, origin: string, page: PageState | null}} FramePort
 */


export const state = {
  /** @type {WebSocket | null} */ ws: null,
  /** 'pairing': the bridge answered our hello with pair.required (not paired: nothing but the ceremony).
   * @type {'disconnected'|'connecting'|'open'|'pairing'|'ready'} */ status: 'disconnected',
  /** The bridge reads frames of several messages (its welcome said `batch`). */ batch: false,
  /** The bridge puts big messages sent in chunks back together (its welcome said `chunks`: tab_lane.js). */ chunks: false,
  /** The bridge stores each tab's revision and takes a sync's `kept` tabs (its welcome said `revisions`). */ revisions: false,
  /** The tabs the bridge still holds, by the revision of each (welcome.held): a sync keeps the unchanged ones.
   * @type {Map<number, string>} */ held: new Map(),
  url: DEFAULT_BRIDGE_URL,
  /** @type {string | null} */ token: null,
  /** The pairing the person confirmed (tabmcp pair) with the bridge at `url`, presented in every
   * hello to that bridge and to no other. Only here and in chrome.storage.local (by bridge URL): no
   * page, content script or other extension can read either.
   * @type {{id: string, secret: string} | null} */ pairing: null,
  /** Why the bridge would not take us (pair.required's reason), and the code it gave us to show.
   * @type {{reason: string, message: string} | null} */ pairRequired: null,
  /** @type {{code: string, expiresAt: number} | null} */ pairCode: null,
  backoffMs: BACKOFF_START_MS,
  /** @type {ReturnType<typeof setTimeout> | null} */ reconnectTimer: null,
  /** @type {ReturnType<typeof setInterval> | null} */ heartbeat: null,
  instanceId: crypto.randomUUID(),
  /** This browser profile's id (STORAGE.profileId), sent in hello. @type {string | null} */ profileId: null,
  /** @type {string | null} */ sessionId: null,
  /** The bridge run this worker last sent a sync to (hello.sessionId): only that run lists the tabs it holds.
   * @type {string | null} */ syncedSessionId: null,
  /** @type {string | null} */ lastError: null,
  connects: 0,
  /** @type {Map<number, PagePort>} */ ports: new Map(),
  /** @type {Map<number, PageState>} */ pages: new Map(),
  /** Child frames with our scripts, by tab and frame id. @type {Map<number, Map<number, FramePort>>} */ frames: new Map(),
  /** @type {Map<number, chrome.tabs.Tab>} */ tabs: new Map(),
  /** @type {Map<number, ReturnType<typeof setTimeout>>} */ updateTimers: new Map(),
  /** Each tab's snapshot as this link last sent it (sameSnapshot: an unchanged one is not sent again). @type {Map<number, object>} */
  sentSnapshots: new Map(),
  /** The revision each tab's last sent snapshot went with (this instance's id and a counter). @type {Map<number, string>} */
  sentRevisions: new Map(),
  /** Revisions made by this worker instance so far. */ revisionCount: 0,
  /** @type {number | null} */ focusedWindowId: null,
  /** @type {Map<number, Record<string, number>>} */ telemetryDropped: new Map(),
  /**
   * Top documents that were already running when this worker injected the content script (after
   * an install or reload), by tab: their capture's line went to the old content script, so the
   * page is not asked live questions (only the audit, which runs in our own world) until it reloads.
   * @type {Map<number, string>}
   */
  lateDocuments: new Map(),
  /** The bridge's capture settings for pages (telemetry.config), latest first. @type {object | null} */
  telemetryConfig: null,
  /** Why the bridge refused some of a tab's definitions (its INVALID_TOOL answer). @type {Map<number, string>} */
  refused: new Map(),
  /** The reachable sites and their stored tools, as the bridge last sent them (sites.list). @type {object[]} */
  sites: [],
  /** Forms-as-tools: the bridge's rules (forms-policy.js); empty (all off) until it speaks. @type {import('./forms-policy.js').FormsRule[]} */
  formsRules: [],
  /** The origins with a secret bound (forms.policy secretSites: no name, no value): their sign-in forms may be offered. @type {Set<string>} */
  secretSites: new Set(),
  /** Each tab's ordinary forms as tools (page/forms.js), kept only while its origin's switch is on. @type {Map<number, object[]>} */
  forms: new Map(),
  /** Popup requests waiting for the bridge's next forms.policy. @type {Array<() => void>} */
  formsWaiters: [],
  /** Each tab's telemetry rate rule (all its frames together), per document. @type {Map<number, ReturnType<typeof createFloodRule>>} */
  telemetryRules: new Map(),
  /**
   * What the per-tab limits did to a tab, for the person: the tab cut off for flooding, and the
   * definitions refused for their size, by frame. @type {Map<number, TabLimits>}
   */
  limited: new Map(),
  /** Messages this worker got from each tab's documents (the popup's report: a flood stops before it). @type {Map<number, number>} */
  received: new Map(),
};

/**
 * @typedef {{code: string, message: string}} Limit
 * @typedef {{flood: Limit | null, refused: Map<number, Limit[]>, tab: Limit | null}} TabLimits
 */

/**
 * Every request waiting for an answer (calls, page queries, approvals), with its deadline; they
 * all end by the same rules (pending.js): tab closed, page gone, bridge link dropped, timeout, cancel.
 */
export const pending = createPendingTable();
