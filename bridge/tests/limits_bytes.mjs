// What one page may send (extension/limits.js), counted in node on the extension's own script:
// argv[2] names the scenario, the facts it saw are printed as JSON for test_limits_bytes.py. The
// reference for a text's UTF-8 bytes is node's own encoder (Buffer.byteLength).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const EXTENSION = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension');
await import(pathToFileURL(path.join(EXTENSION, 'limits.js')).href); // a classic script: it sets its names on globalThis
const { SIZE, utf8Bytes, bytesOver, fitDefinitions } = globalThis[Symbol.for('tabmcp.limits')];

/** The UTF-8 bytes of a text's JSON, as the link carries it. */
const wire = (value) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** A tool whose schema holds `text`: the shape a page registers. */
const tool = (name, text) => ({ name, description: `Tool ${name}.`, inputSchema: { type: 'object', properties: { text: { type: 'string', description: text } } } });

/** Encodings of big texts while `fn` runs (the count the worker must keep at 0). */
function encodings(fn) {
  const encode = TextEncoder.prototype.encode;
  let n = 0;
  TextEncoder.prototype.encode = function (text) {
    if (typeof text === 'string' && text.length > 1024) n++;
    return encode.call(this, text);
  };
  try {
    return [fn(), n];
  } finally {
    TextEncoder.prototype.encode = encode;
  }
}

/** A deterministic stream of numbers (a seed, no Math.random: a failure can be run again). */
function numbers(seed) {
  let x = seed >>> 0;
  return () => ((x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}

const scenarios = {
  /** utf8Bytes against node's encoder: each kind of unit, pairs and lone surrogates, random texts. */
  counts() {
    const samples = {
      empty: '', ascii: 'plain {"json": 1}', latin: 'é', cyrillic: 'жжж', cjk: '\u4e2d', fdfa: '\ufdfa',
      astral: '\u{1F600}', mixed: 'aé中😀', highAlone: 'a\ud83d', lowAlone: '\ude00b', highThenAscii: '\ud83dx',
      lowThenHigh: '\ude00\ud83d', nonAsciiLast: `${'x'.repeat(1000)}é`, edges: '\u007f\u0080\u07ff\u0800\uffff',
    };
    const wrong = [];
    for (const [name, text] of Object.entries(samples)) {
      if (utf8Bytes(text) !== Buffer.byteLength(text, 'utf8')) wrong.push([name, utf8Bytes(text), Buffer.byteLength(text, 'utf8')]);
    }
    const random = numbers(35);
    const pool = [0x41, 0x7f, 0x80, 0xe9, 0x7ff, 0x800, 0x4e2d, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfdfa, 0xffff];
    let checked = 0;
    for (let i = 0; i < 3000; i++) {
      const units = Array.from({ length: 1 + Math.floor(random() * 24) }, () => pool[Math.floor(random() * pool.length)]);
      const text = String.fromCharCode(...units);
      checked++;
      if (utf8Bytes(text) !== Buffer.byteLength(text, 'utf8')) wrong.push([units, utf8Bytes(text), Buffer.byteLength(text, 'utf8')]);
    }
    return { wrong, checked };
  },
  /** A message over a byte limit in 3-byte characters, under it in UTF-16 units: over, by its bytes. */
  over() {
    const text = JSON.stringify({ d: '\ufdfa'.repeat(SIZE.telemetry / 2) });
    return { units: text.length, bytes: Buffer.byteLength(text, 'utf8'), over: bytesOver(text, SIZE.telemetry), limit: SIZE.telemetry };
  },
  /** Documents of 20 definitions of 240,000 bytes each, in ASCII and in 3-byte characters: cut alike. */
  document() {
    const out = {};
    for (const [kind, text] of [['ascii', 'a'.repeat(240_000)], ['cjk', '\u4e2d'.repeat(80_000)], ['fdfa', '\ufdfa'.repeat(80_000)]]) {
      const tools = Array.from({ length: 20 }, (_, i) => tool(`over_${String(i).padStart(2, '0')}`, text));
      const [fitted, encoded] = encodings(() => fitDefinitions(tools, []));
      const units = tools.reduce((n, t) => n + JSON.stringify(t).length, 0);
      out[kind] = {
        units, kept: fitted.tools.length, keptBytes: fitted.tools.reduce((n, t) => n + wire(t), 0),
        refused: fitted.refused.map((r) => [r.kind, r.name, r.limit]), encoded,
        // The kept texts' bytes as fitDefinitions tells them (counted here: the bound ran out) and as node counts them.
        listBytes: fitted.bytes.tools, textBytes: fitted.texts.tools.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0),
      };
    }
    // A small document: 3 bytes a unit proves it fits, nothing is counted (-1: the worker counts if a tab's size needs it).
    const small = fitDefinitions([tool('small', '\u4e2d'.repeat(100))], [{ name: 'c', description: 'é', tools: ['small'] }]);
    out.small = { kept: small.tools.length + small.categories.length, bytes: small.bytes };
    return { limit: SIZE.document, ...out };
  },
  /** A document of exactly SIZE.document bytes (mixed 1- to 4-byte characters) is kept whole; one byte more is not. */
  edge() {
    const out = {};
    for (const extra of [0, 1]) {
      const tools = Array.from({ length: 17 }, (_, i) => tool(`edge_${String(i).padStart(2, '0')}`, 'aé中😀'.repeat(24_000)));
      const rest = SIZE.document - tools.reduce((n, t) => n + wire(t), 0);
      const last = tool('edge_last', '');
      last.inputSchema.properties.text.description = 'x'.repeat(rest - wire(last) + extra);
      tools.push(last);
      const [fitted, encoded] = encodings(() => fitDefinitions(tools, []));
      out[extra ? 'oneMore' : 'exact'] = {
        bytes: tools.reduce((n, t) => n + wire(t), 0), kept: fitted.tools.length, refused: fitted.refused.map((r) => r.name), encoded,
      };
    }
    return { limit: SIZE.document, ...out };
  },
};

process.stdout.write(JSON.stringify(scenarios[process.argv[2]]()));
