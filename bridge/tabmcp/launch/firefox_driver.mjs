// Drives a real Firefox for tabmcp's tests and benchmarks (tabmcp/launch/firefox_launcher.py spawns it).
//
// puppeteer-core launches Firefox over WebDriver BiDi (no browser download: the system's
// firefox-esr), installs the unpacked extension, and then answers one request per line on stdin
// with one line on stdout, in JSON:
//   → {"id": 1, "op": "newPage", "url": "http://…"}        ← {"id": 1, "ok": true, "result": "p1"}
//   → {"id": 2, "op": "evaluate", "page": "p1", "fn": "(a) => a + 1", "args": [1]}   ← … "result": 2
// The first line out is {"ready": true, "extensionId": …, "extensionUrl": "moz-extension://<uuid>/"}.
// Errors are {"id": n, "ok": false, "error": "…"}; stdin closing closes the browser.
//
// Launch options come as one JSON argument: {executable, extension, headless, prefs}.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import puppeteer from 'puppeteer-core';

const options = JSON.parse(process.argv[2] || '{}');
const ADDON_ID = options.addonId;
const uuid = randomUUID();

const browser = await puppeteer.launch({
  browser: 'firefox',
  executablePath: options.executable,
  headless: options.headless !== false,
  // Lets the harness open the extension's own pages (moz-extension://) in a tab: WebDriver BiDi
  // refuses to navigate there otherwise.
  args: ['--remote-allow-system-access'],
  extraPrefsFirefox: {
    // The extension's origin, moz-extension://<uuid>, fixed for this profile so the harness can
    // open its pages; the bridge still admits it only by its pairing.
    'extensions.webextensions.uuids': JSON.stringify({ [ADDON_ID]: uuid }),
    ...(options.prefs || {}),
  },
});
const extensionId = options.extension ? await browser.installExtension(options.extension) : null;

/** @type {Map<string, import('puppeteer-core').Page>} */
const pages = new Map();
let nextPage = 1;
const idOf = (page) => {
  for (const [id, p] of pages) if (p === page) return id;
  const id = `p${nextPage++}`;
  pages.set(id, page);
  page.once('close', () => pages.delete(id));
  return id;
};
const pageOf = (id) => {
  const page = pages.get(id);
  if (!page) throw new Error(`no page ${id} (closed?)`);
  return page;
};

/**
 * Load `url` in `page`. BiDi reports no load for the extension's own pages (they move to the
 * extension process): those are waited for by polling the document instead.
 */
async function load(page, url) {
  if (!url.startsWith('moz-extension:')) {
    await page.goto(url, { waitUntil: 'load' });
    return;
  }
  page.goto(url, { timeout: 0 }).catch(() => {});
  const deadline = Date.now() + 30_000;
  for (;;) {
    const here = await page.evaluate(() => location.href + ' ' + document.readyState).catch(() => '');
    if (here === `${url} complete`) return;
    if (Date.now() > deadline) throw new Error(`${url} did not load (${here})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The page's document URL, asked of the document: BiDi keeps about:blank for extension pages. */
const hrefOf = (page) => page.evaluate(() => location.href).catch(() => page.url());

const ops = {
  newPage: async ({ url }) => {
    const page = await browser.newPage();
    const id = idOf(page);
    if (url) await load(page, url);
    return id;
  },
  goto: async ({ page, url }) => {
    await load(pageOf(page), url);
  },
  reload: async ({ page }) => {
    await pageOf(page).reload({ waitUntil: 'load' });
  },
  evaluate: ({ page, fn, args = [] }) =>
    pageOf(page).evaluate(`(${fn})(...${JSON.stringify(args)})`),
  /** Add a script file's text to the page (CSP does not apply to the driver's evaluation). */
  addScript: ({ page, source }) => pageOf(page).evaluate(`(() => { ${source}\n})()`),
  click: async ({ page, selector }) => {
    await pageOf(page).locator(selector).setTimeout(15_000).click();
  },
  url: ({ page }) => hrefOf(pageOf(page)),
  close: async ({ page }) => {
    const p = pages.get(page);
    if (p && !p.isClosed()) await p.close();
  },
  /** Every open page (windows the extension opened too), by id, with its document's URL. */
  pages: async () => Promise.all((await browser.pages()).map(async (p) => ({ page: idOf(p), url: await hrefOf(p) }))),
  /** Wait for a page whose URL contains `includes` (an approval window, say). */
  waitPage: async ({ includes, timeoutMs = 15_000 }) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const p of await browser.pages()) if ((await hrefOf(p)).includes(includes)) return idOf(p);
      if (Date.now() > deadline) throw new Error(`no page with ${includes} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  },
  /** Time `fn` run in the page over BiDi, `calls` times after `warmup` untimed ones: ms each, timed here. */
  timeEvaluate: async ({ page, fn, calls, warmup = 0 }) => {
    const p = pageOf(page);
    const out = [];
    for (let i = 0; i < warmup + calls; i++) {
      const start = performance.now();
      await p.evaluate(fn);
      if (i >= warmup) out.push(performance.now() - start);
    }
    return out;
  },
  version: () => browser.version(),
  // The console message the call of `fn` in the page makes first, as Firefox reports it over BiDi
  // (log.entryAdded): its text and the stack trace the browser's console shows its location from.
  consoleTrace: ({ page, fn }) => new Promise((resolve, reject) => {
    const p = pageOf(page);
    const on = (msg) => {
      p.off('console', on);
      resolve({ text: msg.text(), stack: msg.stackTrace() });
    };
    p.on('console', on);
    p.evaluate(`(${fn})()`).catch((err) => { p.off('console', on); reject(err); });
  }),
};

process.stdout.write(JSON.stringify({ ready: true, extensionId, extensionUrl: `moz-extension://${uuid}/` }) + '\n');

const lines = createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  const { id, op } = request;
  try {
    if (!Object.hasOwn(ops, op)) throw new Error(`unknown op ${op}`);
    const result = await ops[op](request);
    process.stdout.write(JSON.stringify({ id, ok: true, result: result === undefined ? null : result }) + '\n');
  } catch (err) {
    process.stdout.write(JSON.stringify({ id, ok: false, error: String((err && err.message) || err) }) + '\n');
  }
});
lines.on('close', async () => {
  await browser.close().catch(() => {});
  process.exit(0);
});
