// @ts-check
/**
 * One table of the service worker's pending requests of every kind (call, query, approval, panel),
 * each with a deadline and ended by the same rules (RequestTable in core/extension_links.py is the
 * bridge's twin). The table decides which requests a rule ends; each kind's `onEnd` handler reports it.
 */

import { END_RULES } from './protocol.js';

/** The kinds of pending requests. */
export const KIND = Object.freeze({ call: 'call', query: 'query', approval: 'approval', panel: 'panel' });

/** The tab id of requests that belong to no tab (the popup's questions to the bridge). */
export const NO_TAB = -1;

/**
 * The rules that end a pending request before its answer, by name; one table with the bridge's
 * session (END_RULES, generated from bridge/tabmcp/core/end_rules.py).
 * @type {Readonly<Record<keyof typeof END_RULES, string>>}
 */
export const RULE = Object.freeze(Object.fromEntries(Object.keys(END_RULES).map((name) => [name, name])));

/** The error code a call or page query ends with under a rule the bridge hears about. */
export const RULE_ERRORS = Object.freeze(Object.fromEntries(
  Object.entries(END_RULES).filter(([, rule]) => rule.reported).map(([name, rule]) => [name, rule.code]),
));

/**
 * Does the bridge wait to hear how a request ended by `rule`? Not when it cancelled the request
 * itself, nor when its link is gone (it ended its own side when the link dropped).
 * @param {Rule} rule
 */
export const bridgeWaits = (rule) => !!END_RULES[rule]?.reported;

/**
 * @typedef {keyof typeof KIND} Kind
 * @typedef {keyof typeof RULE} Rule
 * @typedef {{id: string, kind: Kind, tabId: number, frameId: number, data: any,
 *   deadline: number, timeoutMessage: string}} Pending
 * @typedef {(entry: Pending, rule: Rule, message: string) => void} OnEnd
 */

/** The longest delay setTimeout takes (a longer one fires at once). */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** A new, empty table. */
export function createPendingTable() {
  /** @type {Map<string, Pending>} */
  const entries = new Map();
  /** How many requests of each kind each tab has pending (`inTab` without a scan). @type {Map<string, number>} */
  const perTab = new Map();
  /** @param {Pending} entry @param {number} by */
  const count = (entry, by) => {
    const key = `${entry.kind} ${entry.tabId}`;
    const n = (perTab.get(key) || 0) + by;
    if (n > 0) perTab.set(key, n);
    else perTab.delete(key);
  };
  /** @type {Partial<Record<Kind, OnEnd>>} */
  const handlers = {};
  /** Told whenever a request starts or ends (the icon's badge follows them). @type {Array<(entry: Pending) => void>} */
  const watchers = [];
  /**
   * One timer for every deadline, armed for the earliest it knows of and never cleared when a
   * request ends: a call no longer costs a setTimeout and a clearTimeout. When it fires it ends
   * what is due and arms itself for the earliest deadline left.
   */
  let timer = /** @type {ReturnType<typeof setTimeout> | null} */ (null);
  let timerAt = Infinity;

  /** @param {number} at a deadline (performance.now() ms) */
  function arm(at) {
    if (timer !== null && timerAt <= at) return;
    if (timer !== null) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(onDeadline, Math.min(MAX_DELAY_MS, Math.max(0, Math.ceil(at - performance.now()))));
  }

  function onDeadline() {
    timer = null;
    timerAt = Infinity;
    const now = performance.now() + 1; // a timer's delay is whole ms, the clock coarse: due within 1 ms is due
    const due = [...entries.values()].filter((e) => e.deadline <= now).sort((a, b) => a.deadline - b.deadline);
    for (const entry of due) if (entries.get(entry.id) === entry) end(entry.id, RULE.timeout, entry.timeoutMessage);
    let next = Infinity;
    for (const entry of entries.values()) if (entry.deadline < next) next = entry.deadline;
    if (next < Infinity) arm(next);
  }

  /** @param {Pending} entry */
  const changed = (entry) => {
    for (const watcher of watchers) {
      try {
        watcher(entry);
      } catch (err) {
        console.warn('[tabmcp] pending watcher failed', err);
      }
    }
  };

  /**
   * Call `fn` with each request that starts or ends (after the table changed).
   * @param {(entry: Pending) => void} fn
   */
  function watch(fn) {
    watchers.push(fn);
  }

  /**
   * How requests of `kind` report an end by a rule (one handler per kind).
   * @param {Kind} kind @param {OnEnd} onEnd
   */
  function handle(kind, onEnd) {
    handlers[kind] = onEnd;
  }

  /**
   * Track a request until it is answered or a rule ends it. Its deadline is `timeoutMs` from now.
   * @param {Kind} kind @param {string} id
   * @param {{tabId: number, frameId?: number, timeoutMs: number, timeoutMessage: string, data?: any}} opts
   * @returns {Pending}
   */
  function add(kind, id, { tabId, frameId = 0, timeoutMs, timeoutMessage, data = {} }) {
    if (entries.has(id)) end(id, RULE.cancel, 'replaced by a request with the same id');
    /** @type {Pending} */
    // As setTimeout took it: a number of ms (none is 0), at most its largest delay (2^31 - 1).
    const ms = Math.min(Number(timeoutMs) || 0, MAX_DELAY_MS);
    const entry = { id, kind, tabId, frameId, data, deadline: performance.now() + ms, timeoutMessage };
    arm(entry.deadline);
    entries.set(id, entry);
    count(entry, 1);
    changed(entry);
    return entry;
  }

  /** The pending request `id` (of `kind`, if given). @param {string} id @param {Kind} [kind] */
  function get(id, kind) {
    const entry = entries.get(id);
    return entry && (!kind || entry.kind === kind) ? entry : undefined;
  }

  /**
   * Forget a request that got its answer (the caller reports it); undefined if it already ended.
   * @param {string} id @param {Kind} [kind]
   */
  function take(id, kind) {
    const entry = get(id, kind);
    if (!entry) return undefined;
    entries.delete(id);
    count(entry, -1);
    changed(entry);
    return entry;
  }

  /**
   * End one request by a rule: forget it, then let its kind report the end. A handler that fails is
   * logged, not thrown: the shared deadline timer and `endWhere` go on ending the others (one throw
   * there would leave every request after it, and every later deadline, pending for good).
   * @param {string} id @param {Rule} rule @param {string} message @returns {boolean}
   */
  function end(id, rule, message) {
    const entry = take(id);
    if (!entry) return false;
    const onEnd = handlers[entry.kind];
    try {
      if (onEnd) onEnd(entry, rule, message);
    } catch (err) {
      console.warn('[tabmcp] pending end handler failed', err);
    }
    return true;
  }

  /**
   * End every request matching `which` by a rule.
   * @param {(entry: Pending) => boolean} which @param {Rule} rule @param {string} message
   */
  function endWhere(which, rule, message) {
    for (const entry of [...entries.values()]) if (which(entry)) end(entry.id, rule, message);
  }

  /**
   * A tab closed or its page went away: every request in it ends, whatever its kind.
   * @param {number} tabId @param {Rule} rule @param {string} message
   */
  const endTab = (tabId, rule, message) => endWhere((e) => e.tabId === tabId, rule, message);

  /**
   * A child frame went away: only the calls made to it end (queries and approvals are the top page's).
   * @param {number} tabId @param {number} frameId @param {string} message
   */
  const endFrame = (tabId, frameId, message) =>
    endWhere((e) => e.tabId === tabId && e.frameId === frameId && frameId !== 0, RULE.navigated, message);

  /** The bridge link dropped: everything ends. @param {string} message */
  const endAll = (message) => endWhere(() => true, RULE.bridgeGone, message);

  /** How many requests are pending (of `kind`, if given). @param {Kind} [kind] */
  function size(kind) {
    let n = 0;
    for (const entry of entries.values()) if (!kind || entry.kind === kind) n += 1;
    return n;
  }

  /** The pending requests of `kind`. @param {Kind} kind */
  const all = (kind) => [...entries.values()].filter((e) => e.kind === kind);

  /** Whether a request of `kind` is pending in tab `tabId`. @param {Kind} kind @param {number} tabId */
  function inTab(kind, tabId) {
    return perTab.has(`${kind} ${tabId}`);
  }

  return { handle, watch, add, get, take, end, endTab, endFrame, endAll, size, all, inTab };
}

/** @typedef {ReturnType<typeof createPendingTable>} PendingTable */
