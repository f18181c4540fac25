// Runs shared parity cases through the extension's own code, in node: the Python side runs the
// same case files through the bridge's (bridge/tests/parity/test_parity.py). Reads one JSON
// request {suite, rules?, cases} on argv[2] and prints the extension's answers as JSON. Without
// argv[2] it answers a batch: one request per line on stdin, one answer per line on stdout (the
// differential tests, test_redaction_differential.py, put hundreds of examples through one node).
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import vm from 'node:vm';
import { fileURLToPath, pathToFileURL } from 'node:url';

const EXTENSION = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../extension');

/** Load a classic script of the extension into this context, as Chrome would. @param {string} rel */
const load = (rel) => vm.runInThisContext(fs.readFileSync(path.join(EXTENSION, rel), 'utf8'), { filename: rel });

/** The page's redaction last loaded: a batch line without `rules` reuses it. */
let current = null;
function pageRedaction(rules, protocol) {
  if (rules === undefined && current) return current;
  current = loadRedaction(rules, protocol);
  return current;
}

/**
 * The page's redaction (page/redact.js), given the namespace natives.js opens for it. `protocol` is
 * protocol.generated.js as the bridge renders it now (so a rule dropped from the bridge's source fails
 * here too); the committed file otherwise (test_protocol_js.py keeps the two equal).
 */
function loadRedaction(rules, protocol) {
  globalThis.window = globalThis;
  if (protocol) vm.runInThisContext(protocol, { filename: 'protocol.generated.js' });
  else load('protocol.generated.js');
  const stats = { internalErrors: 0 };
  const T = {
    N: Object.freeze({ isArray: Array.isArray, keys: Object.keys, parse: JSON.parse, stringify: JSON.stringify }),
    oops: () => {
      stats.internalErrors += 1;
    },
    cap: (s, n) => (s.length > n ? `${s.slice(0, n)}…` : s),
    WIRE: globalThis[Symbol.for('tabmcp.protocol')],
  };
  globalThis[Symbol.for('tabmcp.telemetry.loading')] = T;
  load('page/redact.js');
  T.redact.setRules(rules);
  if (stats.internalErrors) throw new Error(`page/redact.js failed ${stats.internalErrors} time(s) taking the rules`);
  return T.redact;
}

const suites = {
  async redaction({ rules, cases, protocol }) {
    const R = pageRedaction(rules, protocol);
    const run = {
      text: (c) => R.redactText(c.input),
      url: (c) => R.redactUrl(c.input),
      body: (c) => R.redactBody(c.input, c.mime),
      headers: (c) => R.redactHeaders(c.input),
      secretKey: (c) => R.isSecretKey(c.input),
    };
    return cases.map((c) => run[c.fn](c));
  },
  async sensitiveField({ rules, cases, protocol }) {
    const R = pageRedaction(rules, protocol);
    return cases.map(({ field, labels, value }) => {
      const attrs = { name: field.name, 'data-testid': field.testid, 'aria-label': field.ariaLabel,
        placeholder: field.placeholder, autocomplete: field.autocomplete };
      const el = { localName: field.tag || 'input', type: field.type || 'text', id: field.id || '',
        getAttribute: (n) => attrs[n] ?? null };
      return R.sensitiveField(el, value || '', labels || '');
    });
  },
  async patterns({ patterns, texts }) {
    return patterns.map((p) => {
      const re = new RegExp(p.source, `${p.flags}g`);
      return texts.map((t) => [...t.matchAll(re)].map((m) => [m.index, m.index + m[0].length]));
    });
  },
  async formsGlobs({ rules, cases }) {
    const { cleanRules, formsEnabled } = await import(pathToFileURL(path.join(EXTENSION, 'forms-policy.js')).href);
    return cases.map((c, i) => formsEnabled(cleanRules(rules[i]), c.origin));
  },
  async pending({ cases }) {
    const { RULE_ERRORS, bridgeWaits, RULE } = await import(pathToFileURL(path.join(EXTENSION, 'pending.js')).href);
    return cases.map((c) => ({ known: c.rule in RULE, code: RULE_ERRORS[c.rule] ?? null, bridgeWaits: bridgeWaits(c.rule) }));
  },
};

if (process.argv[2]) {
  const request = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  process.stdout.write(JSON.stringify(await suites[request.suite](request)));
} else {
  for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    const request = JSON.parse(line);
    process.stdout.write(`${JSON.stringify(await suites[request.suite](request))}\n`);
  }
}
