// The extension's byte counting (extension/limits.js) on a heavy tab's texts, for
// bench/limit_counting.py: CPU time of `utf8Bytes` and of `fitDefinitions`, against the earlier
// count measured in the same run (texts encoded with TextEncoder to be counted; a document added
// up by its UTF-16 length). Prints one JSON object: {rows: [[case, units, bytes, nowMs, earlierMs]]}.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await import(pathToFileURL(path.join(ROOT, 'extension/limits.js')).href);
const { SIZE, utf8Bytes, fitDefinitions } = globalThis[Symbol.for('tabmcp.limits')];

const NON_ASCII = /[\u0080-\uffff]/;
/** The earlier count: a text with any non-ASCII unit encoded to be counted. */
const encodedBytes = (text) => (NON_ASCII.test(text) ? new TextEncoder().encode(text).length : text.length);
/** The earlier fitDefinitions' work: each definition serialized and bounded, the document added up by its length. */
function earlierFit(tools) {
  let total = 0;
  const texts = [];
  for (const item of tools) {
    const text = JSON.stringify(item);
    if (text.length * 3 > SIZE.definition && encodedBytes(text) > SIZE.definition) continue;
    if (total + text.length > SIZE.document) continue;
    total += text.length;
    texts.push(text);
  }
  return texts;
}

/** Median CPU milliseconds of `fn` over `reps` runs (after 3 to warm up). */
function cpuMs(fn, reps = 40) {
  for (let i = 0; i < 3; i++) fn();
  const times = [];
  for (let i = 0; i < reps; i++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(reps / 4)]; // the first quartile: the machine is shared
}

const tool = (i, description, text) => ({ name: `t_${i}`, description, inputSchema: { type: 'object', properties: { text: { type: 'string', description: text } } } });
const words = (n) => ' Details of what this tool does, at length.'.repeat(n);
const tabs = {
  // heavy.html: 60 tools of ~64 KB of ASCII (3.8 MB), every one within every limit.
  'heavy tab, ASCII (heavy.html)': Array.from({ length: 60 }, (_, i) => tool(i, `Heavy tool ${i}.${words(170)}`, `The text.${words(1300)}`)),
  // over-document.html?text=cjk: 77 tools of 54 KB of 3-byte characters (4.2 MB, within 4 MiB).
  'heavy tab, CJK': Array.from({ length: 77 }, (_, i) => tool(i, '\u4e2d'.repeat(8000), '\u4e2d'.repeat(10_000))),
  // over-document.html?text=under: 1- to 4-byte characters.
  'heavy tab, aé中😀': Array.from({ length: 94 }, (_, i) => tool(i, 'a\u00e9\u4e2d\u{1F600}'.repeat(1900), 'a\u00e9\u4e2d\u{1F600}'.repeat(2500))),
};
const rows = [];
for (const [name, tools] of Object.entries(tabs)) {
  const list = `[${tools.map((t) => JSON.stringify(t)).join(',')}]`; // a list's text, as the worker counts it for SIZE.tab
  rows.push([`${name}: one list's bytes`, list.length, utf8Bytes(list), cpuMs(() => utf8Bytes(list)), cpuMs(() => encodedBytes(list))]);
  rows.push([`${name}: fitDefinitions (content script)`, list.length, utf8Bytes(list), cpuMs(() => fitDefinitions(tools, [])), cpuMs(() => earlierFit(tools))]);
  // The worker, per snapshot: the definitions admitted, then the tab's size (tab_limits.js listBytes:
  // counted only if fitDefinitions did not count them; before, always, encoded when not ASCII).
  const now = () => {
    const fitted = fitDefinitions(tools, []);
    const text = `[${fitted.texts.tools.join(',')}]`;
    return fitted.bytes.tools < 0 ? utf8Bytes(text) : fitted.bytes.tools + fitted.texts.tools.length + 1;
  };
  const earlier = () => encodedBytes(`[${earlierFit(tools).join(',')}]`);
  rows.push([`${name}: admitted and sized (worker)`, list.length, utf8Bytes(list), cpuMs(now), cpuMs(earlier)]);
}
const late = `${'x'.repeat(4_000_000)}\u00e9`; // one non-ASCII unit at its end
rows.push(['4 MB ASCII, one é last: bytes', late.length, utf8Bytes(late), cpuMs(() => utf8Bytes(late)), cpuMs(() => encodedBytes(late))]);
process.stdout.write(JSON.stringify({ rows }));
