// The service worker's shared timers (extension/pending.js's deadlines, extension/badge.js's
// "running" delay), run in node with the extension's own modules: argv[2] names the scenario, the
// facts it saw are printed as JSON for test_worker_timers.py. chrome.action is the one browser API
// they touch: here it records what the badge would show.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const EXTENSION = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension');
const shown = [];
globalThis.chrome = {
  action: {
    setBadgeText: async ({ tabId, text }) => shown.push([tabId, text]),
    setBadgeBackgroundColor: async () => {},
    setTitle: async () => {},
  },
};
const { createPendingTable, KIND } = await import(pathToFileURL(path.join(EXTENSION, 'pending.js')).href);
const { createBadges, RUNNING_AFTER_MS } = await import(pathToFileURL(path.join(EXTENSION, 'badge.js')).href);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Wait (at most 10 s) until `ok()`; false if it never held. */
async function until(ok) {
  for (let i = 0; i < 1000; i++) {
    if (ok()) return true;
    await sleep(10);
  }
  return false;
}

const scenarios = {
  /** Deadlines: an earlier one added after a later one, one after another, one answered in time. */
  async deadlines() {
    const table = createPendingTable();
    const ended = [];
    table.handle(KIND.call, (entry, rule, message) => ended.push({ id: entry.id, rule, message, pending: table.all(KIND.call).map((e) => e.id) }));
    const add = (id, timeoutMs) => table.add(KIND.call, id, { tabId: 1, timeoutMs, timeoutMessage: `${id} timed out` });
    add('long', 30_000);
    add('answered', 20);
    table.take('answered', KIND.call);
    add('short', 40); // earlier than the one the timer waits for
    add('after', 120); // due after the timer fired once
    const all = await until(() => ended.length >= 2);
    await sleep(60); // 'answered' would have ended by now
    const out = { all, ended, left: table.all(KIND.call).map((e) => e.id) };
    table.take('long', KIND.call);
    return out;
  },
  /** A kind's end handler that throws (a bug there) while the timer ends what is due: the other
   * requests due at the same fire, and the later ones, still end. */
  async failingEnd() {
    const table = createPendingTable();
    const ended = [];
    const escaped = [];
    process.on('uncaughtException', (err) => escaped.push(String(err)));
    table.handle(KIND.call, (entry) => {
      if (entry.id === 'bad') throw new Error('a handler bug');
      ended.push(entry.id);
    });
    const add = (id, timeoutMs) => table.add(KIND.call, id, { tabId: 1, timeoutMs, timeoutMessage: `${id} timed out` });
    add('bad', 20);
    add('good', 25); // due by the time the timer armed for 'bad' fires (the machine may be slow)
    add('later', 120);
    table.handle(KIND.query, () => {
      throw new Error('another handler bug');
    });
    table.add(KIND.query, 'query', { tabId: 2, timeoutMs: 30_000, timeoutMessage: 'query timed out' });
    table.add(KIND.call, 'in-tab-2', { tabId: 2, timeoutMs: 30_000, timeoutMessage: 'timed out' });
    let endTabEnded = false;
    const all = await until(() => ended.includes('good') && ended.includes('later'));
    try {
      table.endTab(2, 'tabClosed', 'tab 2 was closed'); // the query's handler throws first: the call still ends
      endTabEnded = ended.includes('in-tab-2');
    } catch (err) {
      escaped.push(String(err));
    }
    return { all, ended, endTabEnded, left: table.all(KIND.call).map((e) => e.id).concat(table.all(KIND.query).map((e) => e.id)), escaped };
  },
  /** The badge: a fast call never shows; a call that runs RUNNING_AFTER_MS shows, also one that
   * starts after the shared timer was armed for an earlier call. */
  async badge() {
    const table = createPendingTable();
    const badges = createBadges({ table, toolCount: () => 3, connected: () => true });
    const add = (id, tabId) => table.add(KIND.call, id, { tabId, timeoutMs: 30_000, timeoutMessage: 'timed out' });
    add('fast', 1); // arms the timer for RUNNING_AFTER_MS from now
    add('other-fast', 2);
    await sleep(5);
    table.take('fast', KIND.call);
    table.take('other-fast', KIND.call);
    await sleep(RUNNING_AFTER_MS / 3);
    add('slow', 1); // starts after the timer was armed: shows once it has run RUNNING_AFTER_MS itself
    const running = await until(() => badges.isRunning(1));
    const fastShown = shown.some(([tabId, text]) => tabId === 2 && text === '▶');
    table.take('slow', KIND.call);
    return { running, fastShown, shown: shown.slice(), runningAfter: badges.isRunning(1) };
  },
};

process.stdout.write(JSON.stringify(await scenarios[process.argv[2]]()), () => process.exit(0)); // the lazy timers may still be armed
