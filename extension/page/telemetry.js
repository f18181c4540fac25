// tabmcp telemetry (page's main world, document_start, after webmcp-polyfill.js and page/agent.js).
//
// Captures what happens in the page — console, uncaught errors and rejections, fetch/XHR,
// WebSockets, user actions, Web Vitals, long tasks, navigations — in the event shapes of
// docs/telemetry.md, redacts secrets before anything leaves the page, and posts bounded batches
// ({__tabmcp: 'page', msg: {type: 'telemetry', url, events, dropped}}) for the content script to
// relay. Answers live queries (page.query: dom, page, axe, vitals) and takes its settings
// (telemetry.config) from {__tabmcp: 'content'} window messages.
//
// It must never break the page: every wrapper keeps the wrapped function's behaviour, return
// value, `this`, exceptions and timing; our own failures are swallowed and counted. Loading it
// twice changes nothing (guard: Symbol.for('tabmcp.telemetry')).
(() => {
  'use strict';

  const KEY = Symbol.for('tabmcp.telemetry');
  if (typeof window === 'undefined' || typeof document === 'undefined') return;
  const W = /** @type {any} */ (window);
  if (W[KEY]) return;

  const VERSION = '0.1.0';

  // ------------------------------------------------------------------------------------------
  // Natives, captured before page scripts run (a page that later patches them does not see,
  // or break, our own use of them)
  // ------------------------------------------------------------------------------------------

  const N = {
    setTimeout: W.setTimeout.bind(W),
    clearTimeout: W.clearTimeout.bind(W),
    postMessage: W.postMessage.bind(W),
    on: EventTarget.prototype.addEventListener,
    off: EventTarget.prototype.removeEventListener,
    stringify: JSON.stringify,
    parse: JSON.parse,
    Promise,
    then: Promise.prototype.then,
    perfNow: performance.now.bind(performance),
    keys: Object.keys,
    getOwn: Object.getOwnPropertyDescriptor,
    isArray: Array.isArray,
    qsa: Document.prototype.querySelectorAll,
  };
  const timeOrigin = performance.timeOrigin || Date.now() - N.perfNow();
  /** Epoch milliseconds, 0.1 ms resolution, immune to a page that fakes Date. */
  const now = () => Math.round((timeOrigin + N.perfNow()) * 10) / 10;
  const noop = () => {};

  /** @param {EventTarget} target @param {string} type @param {(e: any) => void} fn @param {any} [opts] */
  const listen = (target, type, fn, opts) => N.on.call(target, type, fn, opts);

  const stats = { internalErrors: 0, batches: 0, events: 0, configs: 0, dropped: /** @type {Record<string, number>} */ ({}) };
  /** Count one of our own failures (never surfaced to the page). */
  const oops = () => {
    stats.internalErrors++;
  };

  // ------------------------------------------------------------------------------------------
  // Settings
  // ------------------------------------------------------------------------------------------

  const cfg = {
    enabled: true,
    /** Characters of a request / response body kept (then `bodyTruncated`). */
    bodyLimit: 32 * 1024,
    /** WebSocket messages per second and direction above which a socket is sampled. */
    wsSampleThreshold: 20,
  };
  const LIMITS = {
    arg: 2000, // characters per console argument
    args: 20, // console arguments kept
    eventArgs: 16000, // characters of arguments per console event
    message: 4000,
    stack: 8000,
    wsData: 4096, // characters of a WebSocket frame
    value: 1000, // characters of an input value
    name: 120, // accessible names, labels, texts in selectors
    text: 300, // element text in query results
    html: 4000,
    batchEvents: 200,
    batchBytes: 512 * 1024,
  };
  /** Events of each kind the page holds between two batches; beyond, they are counted as dropped. */
  const CAPS = /** @type {Record<string, number>} */ ({
    console: 300,
    error: 100,
    network: 100,
    websocket: 300,
    action: 100,
    vitals: 10,
    longtask: 50,
    navigation: 30,
  });
  const BATCH_DELAY = 250;
  const ERROR_DELAY = 50;
  const INPUT_DEBOUNCE = 500;
  const VITALS_AFTER_LOAD = 3000;

  // ------------------------------------------------------------------------------------------
  // Redaction: the bridge sends its rules (telemetry.config, from core/telemetry/settings.py)
  // to every page; these built-in ones, the same as its defaults, only cover the moment before
  // the first config arrives. The bridge re-applies its rules on ingest.
  // ------------------------------------------------------------------------------------------

  const MARK = '[REDACTED]';
  const DEFAULT_KEYS = ['authorization', 'cookie', 'password', 'passwd', 'passphrase', 'secret', 'token',
    'apikey', 'accesskey', 'privatekey', 'sessionid', 'creditcard', 'cardnumber', 'cvv', 'cvc', 'ssn'];
  const DEFAULT_EXACT_KEYS = ['key', 'pwd', 'pass', 'pin', 'sig', 'signature', 'auth', 'code', 'otp', 'sid'];
  // The bridge's own list, character for character (a test compares them); compilePattern()
  // reads the Python dialect.
  const DEFAULT_PATTERNS = [
    String.raw`(?i)\b(?:bearer|basic|token)\s+(?P<secret>[A-Za-z0-9._~+/=-]{8,})`,
    String.raw`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`,
    String.raw`\bsk-[A-Za-z0-9_-]{16,}`,
    String.raw`\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`,
    String.raw`\bAKIA[0-9A-Z]{16}\b`,
    String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}`,
    String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
    String.raw`\bAIza[0-9A-Za-z_-]{35}`,
    String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
    String.raw`(?i)[\"']?\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?token|client[_-]?secret)[\"']?` +
      String.raw`\s*[:=]\s*[\"']?(?P<secret>[^\s\"'&,;}]+)`,
  ];
  /**
   * Every built-in pattern needs one of these words or prefixes: text without any skips them all
   * (one scan instead of ten). Custom patterns always run.
   */
  const DEFAULT_GATE = /bearer|basic|token|eyJ|sk-|[spr]k_(?:live|test)_|AKIA|gh[pousr]_|xox[abposr]-|AIza|glpat-|passw|pwd|secret|api[_-]?key|access[_-]?token/i;
  const CARD_RUN = /(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])/g;
  const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|35|6(?:011|5|4[4-9]|22))/;
  /** Field names / labels that mark an input's value as secret (as the bridge's action rule). */
  const SENSITIVE_HINT = /pass(?:word|wd|code|phrase)?|secret|token|card|cvv|cvc|ssn|pin\b|otp/i;
  const SENSITIVE_AUTOCOMPLETE = /(?:^|\s)(?:cc-[a-z-]+|current-password|new-password|one-time-code)(?:\s|$)/i;

  /** @param {unknown} name */
  const normKey = (name) => String(name).toLowerCase().replace(/[-_.\s]/g, '');

  /**
   * A regular expression from a JavaScript or Python source: a leading `(?i)`-style flag group
   * and `(?P<name>…)` groups are translated. `null` if it does not compile.
   * @param {unknown} source
   * @returns {RegExp | null}
   */
  function compilePattern(source) {
    let src = String(source);
    let flags = 'gd';
    const inline = /^\(\?([aiLmsux]+)\)/.exec(src);
    if (inline) {
      for (const f of 'ims') if (inline[1].includes(f)) flags += f;
      src = src.slice(inline[0].length);
    }
    src = src.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
    try {
      return new RegExp(src, flags);
    } catch {
      oops();
      return null;
    }
  }

  const R = {
    keys: /** @type {string[]} */ ([]),
    exact: /** @type {Set<string>} */ (new Set()),
    headers: /** @type {Set<string>} */ (new Set()),
    patterns: /** @type {RegExp[]} */ ([]),
    /** Text without a match skips `patterns` (they all need one of its words). */
    gate: DEFAULT_GATE,
    custom: /** @type {RegExp[]} */ ([]),
    cards: true,
    cache: /** @type {Map<string, boolean>} */ (new Map()),
  };

  /**
   * The rules of the latest telemetry.config. From the bridge (`replace: true`) they are the
   * whole rule set, as configured there: built-in keys and patterns it kept, the gate of those
   * patterns, the patterns added in its config (`customPatterns`, always run). Without
   * `replace`, the built-in rules stay and `keys`, `exactKeys`, `patterns` are added to them.
   * The built-in rules below only cover the moment before the first config arrives.
   * @param {{replace?: boolean, headers?: string[], keys?: string[], exactKeys?: string[],
   *   patterns?: string[], customPatterns?: string[], gate?: string, cardNumbers?: boolean}} [rules]
   */
  function setRedaction(rules = {}) {
    const list = (/** @type {unknown} */ v) => (N.isArray(v) ? /** @type {unknown[]} */ (v).filter((x) => typeof x === 'string' && x) : []);
    const replace = rules.replace === true;
    const gate = replace && typeof rules.gate === 'string' ? compilePattern(rules.gate) : null;
    R.keys = [...new Set([...(replace ? [] : DEFAULT_KEYS), ...list(rules.keys)].map(normKey).filter(Boolean))];
    R.exact = new Set([...(replace ? [] : DEFAULT_EXACT_KEYS), ...list(rules.exactKeys)].map(normKey).filter(Boolean));
    R.headers = new Set(list(rules.headers).map(normKey).filter(Boolean));
    R.patterns = (replace ? list(rules.patterns) : DEFAULT_PATTERNS).map(compilePattern).filter((p) => p !== null);
    R.gate = gate ? new RegExp(gate.source, gate.flags.replace(/[gd]/g, '')) : DEFAULT_GATE;
    R.custom = list(replace ? rules.customPatterns : rules.patterns).map(compilePattern).filter((p) => p !== null);
    R.cards = replace ? rules.cardNumbers !== false : true;
    R.cache.clear();
  }
  setRedaction();

  /** Is a header / parameter / field with this name secret whatever its value? @param {string} name */
  function isSecretKey(name) {
    let hit = R.cache.get(name);
    if (hit !== undefined) return hit;
    const n = normKey(name);
    hit = R.exact.has(n) || R.headers.has(n) || R.keys.some((k) => n.includes(k));
    if (R.cache.size > 1000) R.cache.clear();
    R.cache.set(name, hit);
    return hit;
  }

  /** @param {string} digits */
  function luhn(digits) {
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    return sum % 10 === 0;
  }
  /** @param {string} digits */
  const isCardNumber = (digits) => digits.length >= 13 && digits.length <= 19 && CARD_PREFIX.test(digits) && luhn(digits);

  /** @param {RegExp} re @param {string} s */
  function applyPattern(re, s) {
    re.lastIndex = 0;
    let m = re.exec(s);
    if (!m) return s;
    let out = '';
    let last = 0;
    while (m) {
      const start = m.index;
      const end = start + m[0].length;
      const secret = m.groups && m.groups.secret;
      const span = m.indices && m.indices.groups && m.indices.groups.secret;
      if (secret !== undefined && span) {
        out += secret === MARK ? s.slice(last, end) : s.slice(last, span[0]) + MARK + s.slice(span[1], end);
      } else {
        out += s.slice(last, start) + MARK;
      }
      last = end;
      if (m[0].length === 0) re.lastIndex++;
      m = re.exec(s);
    }
    return out + s.slice(last);
  }

  /** Redact secrets in free text: the patterns, then payment card numbers. @param {string} s */
  function redactText(s) {
    if (typeof s !== 'string' || !s) return s;
    if (R.gate.test(s)) for (const re of R.patterns) s = applyPattern(re, s);
    for (const re of R.custom) s = applyPattern(re, s);
    if (R.cards && s.length >= 13) {
      s = s.replace(CARD_RUN, (run) => (isCardNumber(run.replace(/[ -]/g, '')) ? MARK : run));
    }
    return s;
  }

  /** Query / fragment parameters with secret names lose their values. @param {string} query */
  function redactParams(query) {
    if (!query || !query.includes('=')) return query;
    let changed = false;
    const parts = query.split('&').map((part) => {
      const eq = part.indexOf('=');
      if (eq <= 0) return part;
      let name = part.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        /* keep it raw */
      }
      if (!isSecretKey(name) || part.slice(eq + 1) === MARK) return part;
      changed = true;
      return `${part.slice(0, eq)}=${MARK}`;
    });
    return changed ? parts.join('&') : query;
  }

  /** @param {string} url */
  function redactUrl(url) {
    if (typeof url !== 'string' || !url) return url;
    if (url.length > 4096) url = `${url.slice(0, 4096)}…`; // a data: URL can be megabytes
    let s = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#@:]*):([^/?#@]*)@/i,
      (m, scheme, user, pass) => (pass === MARK ? m : `${scheme}${user}:${MARK}@`));
    const hash = s.indexOf('#');
    let fragment = hash >= 0 ? s.slice(hash + 1) : null;
    let base = hash >= 0 ? s.slice(0, hash) : s;
    const q = base.indexOf('?');
    if (q >= 0) base = base.slice(0, q + 1) + redactParams(base.slice(q + 1));
    if (fragment && fragment.includes('=')) {
      const fq = fragment.indexOf('?');
      if (fq >= 0) fragment = fragment.slice(0, fq + 1) + redactParams(fragment.slice(fq + 1));
      else if (!fragment.includes('/')) fragment = redactParams(fragment);
    }
    s = fragment === null ? base : `${base}#${fragment}`;
    return redactText(s);
  }

  /** @param {Record<string, string>} headers */
  function redactHeaders(headers) {
    /** @type {Record<string, string>} */
    const out = {};
    for (const name of N.keys(headers)) out[name] = isSecretKey(name) ? MARK : safeText(headers[name], 4000);
    return out;
  }

  /**
   * Walk parsed JSON: secret keys lose their values, strings go through the text rules.
   * @param {any} v @param {{changed: boolean}} st @param {number} depth
   * @returns {any}
   */
  function redactJson(v, st, depth) {
    if (depth > 64) return v;
    if (typeof v === 'string') {
      const r = redactText(v);
      if (r !== v) st.changed = true;
      return r;
    }
    if (typeof v === 'number') {
      if (Number.isInteger(v) && v > 1e12 && isCardNumber(String(v))) {
        st.changed = true;
        return MARK;
      }
      return v;
    }
    if (N.isArray(v)) return v.map((x) => redactJson(x, st, depth + 1));
    if (v && typeof v === 'object') {
      /** @type {Record<string, any>} */
      const out = {};
      for (const k of N.keys(v)) {
        if (isSecretKey(k) && v[k] !== null && v[k] !== MARK) {
          out[k] = MARK;
          st.changed = true;
        } else {
          out[k] = redactJson(v[k], st, depth + 1);
        }
      }
      return out;
    }
    return v;
  }

  const PLAUSIBLE_JSON = /^\s*(?:\{\s*(?:"|\})|\[\s*(?:[\]["{\d-]|true|false|null))/;
  const JSON_END = /[}\]]\s*$/;
  const FORM = /^[\w.\-[\]%+]+=[^&\s]*(?:&[\w.\-[\]%+]+=[^&\s]*)*$/;

  /**
   * Redact a body, a frame or a log argument, keeping its format: JSON is parsed (and
   * re-serialized only when something was replaced), form bodies stay forms, anything else
   * gets the text rules.
   * @param {string} body @param {string | null} [mime]
   */
  function redactBody(body, mime) {
    if (typeof body !== 'string' || !body) return body;
    const jsonMime = !!mime && /json/i.test(mime);
    if ((jsonMime || PLAUSIBLE_JSON.test(body)) && JSON_END.test(body)) {
      let parsed;
      let ok = false;
      try {
        parsed = N.parse(body);
        ok = true;
      } catch {
        /* not JSON after all (or truncated) */
      }
      if (ok) {
        const st = { changed: false };
        const redacted = redactJson(parsed, st, 0);
        return st.changed ? N.stringify(redacted) : body;
      }
    }
    if ((mime && /x-www-form-urlencoded/i.test(mime)) || (body.length < 100000 && body.includes('=') && FORM.test(body))) {
      return redactText(redactParams(body));
    }
    return redactText(body);
  }

  // ------------------------------------------------------------------------------------------
  // Safe serialization of page values (console arguments, rejection reasons)
  // ------------------------------------------------------------------------------------------

  /** @param {string} s @param {number} n */
  const cap = (s, n) => (s.length > n ? `${s.slice(0, n)}…` : s);
  /** Redacted and capped, with the regular expressions run over a bounded string. @param {string} s @param {number} n */
  const safeText = (s, n) => cap(redactText(s.length > n * 2 ? s.slice(0, n * 2) : s), n);
  /** @param {unknown} s */
  const collapse = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();

  /** @param {any} v */
  const isNode = (v) => typeof v.nodeType === 'number' && typeof v.nodeName === 'string';
  /** @param {any} v */
  const isErrorLike = (v) => v instanceof Error || (typeof v.message === 'string' && typeof v.stack === 'string' && 'name' in v);

  /** A short descriptor of a DOM node: `<button#save.btn.primary data-testid="save">`. @param {any} node */
  function describeNode(node) {
    switch (node.nodeType) {
      case 1: {
        let s = `<${String(node.localName || node.nodeName).toLowerCase()}`;
        if (node.id) s += `#${node.id}`;
        const cls = typeof node.className === 'string' ? node.className.trim().split(/\s+/).filter(Boolean).slice(0, 3) : [];
        if (cls.length) s += `.${cls.join('.')}`;
        const testId = node.getAttribute && node.getAttribute('data-testid');
        if (testId) s += ` data-testid="${cap(testId, 60)}"`;
        return `${s}>`;
      }
      case 3:
        return `#text "${cap(collapse(node.data), 60)}"`;
      case 8:
        return '<!--…-->';
      case 9:
        return '#document';
      case 11:
        return '#document-fragment';
      default:
        return String(node.nodeName);
    }
  }

  /** `Name: message` plus the stack. @param {any} e */
  function errorText(e) {
    let name = 'Error';
    let message = '';
    let stack = '';
    try {
      name = String(e.name || 'Error');
      message = String(e.message ?? '');
      stack = typeof e.stack === 'string' ? e.stack : '';
    } catch {
      /* a hostile getter */
    }
    const head = message ? `${name}: ${message}` : name;
    if (!stack) return head;
    return stack.includes(message) && stack.startsWith(name) ? stack : `${head}\n${stack}`;
  }

  /**
   * Cycle-safe, depth / size capped JSON-ish text of a page value. Accessor properties are not
   * invoked (a getter can have side effects); secret keys lose their values.
   * @param {any} root @param {number} limit
   */
  function jsonish(root, limit) {
    /** @type {string[]} */
    const out = [];
    let size = 0;
    const seen = new Set();
    const MAX_DEPTH = 4;
    const MAX_KEYS = 50;
    /** @param {string} s */
    const put = (s) => {
      out.push(s);
      size += s.length;
    };
    /** @param {any} v @param {number} depth */
    const walk = (v, depth) => {
      if (size > limit) return;
      switch (typeof v) {
        case 'string':
          put(N.stringify(cap(v, 500)));
          return;
        case 'number':
          put(Number.isFinite(v) ? String(v) : N.stringify(String(v)));
          return;
        case 'boolean':
          put(String(v));
          return;
        case 'undefined':
          put('"undefined"');
          return;
        case 'bigint':
          put(N.stringify(`${v}n`));
          return;
        case 'symbol':
          put(N.stringify(v.toString()));
          return;
        case 'function':
          put(N.stringify(`[Function ${v.name || 'anonymous'}]`));
          return;
        default:
      }
      if (v === null) {
        put('null');
        return;
      }
      if (seen.has(v)) {
        put('"[Circular]"');
        return;
      }
      if (v === W) {
        put('"[Window]"');
        return;
      }
      if (isNode(v)) {
        put(N.stringify(describeNode(v)));
        return;
      }
      if (isErrorLike(v)) {
        put(N.stringify(cap(errorText(v), 1000)));
        return;
      }
      if (v instanceof Date) {
        put(N.stringify(Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString()));
        return;
      }
      if (v instanceof RegExp) {
        put(N.stringify(String(v)));
        return;
      }
      if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
        put(N.stringify(`[${v.constructor ? v.constructor.name : 'ArrayBuffer'}(${v.byteLength} bytes)]`));
        return;
      }
      if (v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet) {
        put(N.stringify(`[${v.constructor.name}]`));
        return;
      }
      const isArr = N.isArray(v);
      if (depth >= MAX_DEPTH) {
        put(isArr ? `"[Array(${v.length})]"` : '"[Object]"');
        return;
      }
      seen.add(v);
      if (v instanceof Map || v instanceof Set) {
        const entries = [...v.entries()].slice(0, MAX_KEYS);
        if (v instanceof Set) {
          put('[');
          entries.forEach(([x], i) => {
            if (i) put(',');
            walk(x, depth + 1);
          });
          if (v.size > MAX_KEYS) put(`,"…${v.size - MAX_KEYS} more"`);
          put(']');
        } else {
          put('{');
          entries.forEach(([k, x], i) => {
            if (i) put(',');
            const key = typeof k === 'string' ? k : String(k);
            put(`${N.stringify(key)}:`);
            if (isSecretKey(key) && x != null) put(N.stringify(MARK));
            else walk(x, depth + 1);
          });
          if (v.size > MAX_KEYS) put(`,"…":"${v.size - MAX_KEYS} more"`);
          put('}');
        }
        seen.delete(v);
        return;
      }
      if (isArr) {
        put('[');
        const n = Math.min(v.length, MAX_KEYS);
        for (let i = 0; i < n && size <= limit; i++) {
          if (i) put(',');
          const d = N.getOwn(v, i);
          if (d && d.get) put('"[Getter]"');
          else walk(d ? d.value : undefined, depth + 1);
        }
        if (v.length > n) put(`,"…${v.length - n} more"`);
        put(']');
        seen.delete(v);
        return;
      }
      put('{');
      const keys = N.keys(v);
      const n = Math.min(keys.length, MAX_KEYS);
      for (let i = 0; i < n && size <= limit; i++) {
        const k = keys[i];
        if (i) put(',');
        put(`${N.stringify(k)}:`);
        const d = N.getOwn(v, k);
        if (d && (d.get || d.set)) put('"[Getter]"');
        else if (isSecretKey(k) && d && d.value != null) put(N.stringify(MARK));
        else walk(d ? d.value : undefined, depth + 1);
      }
      if (keys.length > n) put(`,"…":"${keys.length - n} more"`);
      put('}');
      seen.delete(v);
    };
    walk(root, 0);
    const text = out.join('');
    return text.length > limit ? `${text.slice(0, limit)}…` : text;
  }

  /** One console argument (or rejection reason) as redacted text. @param {any} a */
  function argText(a) {
    switch (typeof a) {
      case 'string':
        return cap(redactBody(a.length > LIMITS.arg * 4 ? a.slice(0, LIMITS.arg * 4) : a), LIMITS.arg);
      case 'number':
      case 'boolean':
      case 'undefined':
        return String(a);
      case 'bigint':
        return `${a}n`;
      case 'symbol':
        return a.toString();
      case 'function':
        return `[Function ${a.name || 'anonymous'}]`;
      default:
    }
    if (a === null) return 'null';
    if (isNode(a)) return describeNode(a);
    if (isErrorLike(a)) return safeText(errorText(a), LIMITS.arg);
    return cap(redactText(jsonish(a, LIMITS.arg)), LIMITS.arg);
  }

  /**
   * Console arguments as strings, with printf-style substitutions (%s %d %i %f %o %O %c) applied
   * to a leading format string, as the browser's console shows them.
   * @param {ArrayLike<any>} args
   * @returns {string[]}
   */
  function consoleArgs(args) {
    /** @type {string[]} */
    const out = [];
    let i = 0;
    if (args.length > 1 && typeof args[0] === 'string' && args[0].includes('%')) {
      let used = 1;
      const text = args[0].replace(/%([sdifoOc%])/g, (m, f) => {
        if (f === '%') return '%';
        if (used >= args.length) return m;
        const a = args[used++];
        switch (f) {
          case 's':
            return typeof a === 'string' ? a : argText(a);
          case 'd':
          case 'i':
            return typeof a === 'number' ? String(Math.trunc(a)) : typeof a === 'bigint' ? `${a}n` : 'NaN';
          case 'f':
            return typeof a === 'number' ? String(a) : 'NaN';
          case 'c':
            return '';
          default:
            return argText(a);
        }
      });
      out.push(cap(redactBody(text.length > LIMITS.arg * 4 ? text.slice(0, LIMITS.arg * 4) : text), LIMITS.arg));
      i = used;
    }
    const n = Math.min(args.length, LIMITS.args);
    for (; i < n; i++) out.push(argText(args[i]));
    if (args.length > n) out.push(`… ${args.length - n} more arguments`);
    let total = 0;
    for (let k = 0; k < out.length; k++) {
      total += out[k].length + 1;
      if (total > LIMITS.eventArgs) {
        out[k] = cap(out[k], Math.max(0, out[k].length - (total - LIMITS.eventArgs)));
        out.length = k + 1;
        break;
      }
    }
    return out;
  }

  const FRAME = /\(?((?:[a-z][a-z0-9+.-]*:)[^\s()]*?):(\d+):(\d+)\)?\s*$/i;
  /** The first frame of a V8 stack as {url, line, col}. @param {string} stack */
  function sourceOf(stack) {
    if (!stack) return undefined;
    for (const line of stack.split('\n')) {
      if (!/^\s*at\s/.test(line)) continue;
      const m = FRAME.exec(line);
      if (m) return { url: redactUrl(m[1]), line: Number(m[2]), col: Number(m[3]) };
    }
    return undefined;
  }
  /** The caller's stack (frames above `fn`), without the "Error" line. @param {Function} fn */
  function callerStack(fn) {
    const holder = new Error();
    if (typeof Error.captureStackTrace === 'function') Error.captureStackTrace(holder, fn);
    const stack = String(holder.stack || '');
    const nl = stack.indexOf('\n');
    return nl >= 0 ? stack.slice(nl + 1) : '';
  }

  // ------------------------------------------------------------------------------------------
  // Bounded queue and batches
  // ------------------------------------------------------------------------------------------

  /** @typedef {Record<string, any> & {kind: string, ts: number}} TelemetryEvent */
  /** @type {TelemetryEvent[]} */
  let queue = [];
  /** @type {Record<string, number>} */
  const pending = {};
  for (const kind of N.keys(CAPS)) pending[kind] = 0;
  /** @type {Record<string, number>} */
  let dropped = {};
  /** @type {WeakMap<object, number>} */
  const sizes = new WeakMap();
  let timer = 0;
  let timerDue = 0;

  /** @param {string} kind @param {number} [n] */
  function drop(kind, n = 1) {
    dropped[kind] = (dropped[kind] || 0) + n;
    stats.dropped[kind] = (stats.dropped[kind] || 0) + n;
    schedule(BATCH_DELAY);
  }
  /** Is there room for one more event of this kind? Counts a drop when there is not. @param {string} kind */
  function room(kind) {
    if (!cfg.enabled) return false;
    if (pending[kind] < CAPS[kind]) return true;
    drop(kind);
    return false;
  }
  /** Queue an event whose room was checked. @param {TelemetryEvent} ev */
  function push(ev) {
    pending[ev.kind]++;
    queue.push(ev);
    schedule(ev.kind === 'error' ? ERROR_DELAY : BATCH_DELAY);
  }
  /** @param {TelemetryEvent} ev */
  function emit(ev) {
    if (!room(ev.kind)) return false;
    push(ev);
    return true;
  }
  /** @param {number} delay */
  function schedule(delay) {
    const due = N.perfNow() + delay;
    if (timer) {
      if (due >= timerDue) return;
      N.clearTimeout(timer);
    }
    timerDue = due;
    timer = N.setTimeout(flush, delay);
  }
  /** @param {TelemetryEvent} ev */
  function sizeOf(ev) {
    let n = sizes.get(ev);
    if (n === undefined) {
      try {
        n = N.stringify(ev).length;
      } catch {
        n = Infinity;
      }
      sizes.set(ev, n);
    }
    return n;
  }

  /** Up to LIMITS.batchEvents events / LIMITS.batchBytes from the queue; errors and the rest before logs. */
  function takeBatch() {
    let total = 0;
    let fits = queue.length <= LIMITS.batchEvents;
    if (fits) {
      for (const ev of queue) {
        total += sizeOf(ev);
        if (total > LIMITS.batchBytes) {
          fits = false;
          break;
        }
      }
    }
    if (fits) {
      const all = queue;
      queue = [];
      for (const ev of all) pending[ev.kind]--;
      return all;
    }
    const chosen = new Uint8Array(queue.length); // 0 keep, 1 send, 2 gone
    let count = 0;
    let bytes = 0;
    /** @param {boolean} logs */
    const pick = (logs) => {
      for (let i = 0; i < queue.length && count < LIMITS.batchEvents; i++) {
        const ev = queue[i];
        if (chosen[i] || (ev.kind === 'console') !== logs) continue;
        const size = sizeOf(ev);
        if (size > LIMITS.batchBytes) {
          chosen[i] = 2;
          pending[ev.kind]--;
          drop(ev.kind);
          continue;
        }
        if (bytes + size > LIMITS.batchBytes) continue;
        chosen[i] = 1;
        count++;
        bytes += size;
      }
    };
    pick(false);
    pick(true);
    /** @type {TelemetryEvent[]} */
    const out = [];
    /** @type {TelemetryEvent[]} */
    const rest = [];
    queue.forEach((ev, i) => {
      if (chosen[i] === 1) {
        out.push(ev);
        pending[ev.kind]--;
      } else if (chosen[i] === 0) {
        rest.push(ev);
      }
    });
    queue = rest;
    return out;
  }

  function flush() {
    if (timer) N.clearTimeout(timer);
    timer = 0;
    const hasDrops = N.keys(dropped).length > 0;
    if (!queue.length && !hasDrops) return;
    /** @type {TelemetryEvent[]} */
    let events = [];
    const sentDrops = dropped;
    dropped = {};
    try {
      events = takeBatch();
      const msg = { type: 'telemetry', url: redactUrl(location.href), events, dropped: sentDrops };
      N.postMessage({ __tabmcp: 'page', msg }, '*');
      stats.batches++;
      stats.events += events.length;
    } catch {
      // Not sent (a value the structured clone refused?): counted, never lost silently.
      oops();
      for (const kind of N.keys(sentDrops)) dropped[kind] = (dropped[kind] || 0) + sentDrops[kind];
      for (const ev of events) drop(ev.kind);
    }
    if (queue.length) schedule(BATCH_DELAY);
  }

  // ------------------------------------------------------------------------------------------
  // Page loads and navigations
  // ------------------------------------------------------------------------------------------

  const newId = () => {
    const bytes = new Uint8Array(8);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  };
  let loadId = newId();
  let seq = 0;
  /** A page-unique id for requests and sockets. @param {string} prefix */
  const nextId = (prefix) => `${prefix}-${loadId.slice(0, 6)}-${++seq}`;

  /** @returns {PerformanceNavigationTiming | undefined} */
  const navEntry = () => {
    try {
      return /** @type {any} */ (performance.getEntriesByType('navigation')[0]);
    } catch {
      return undefined;
    }
  };

  function initialNavType() {
    const entry = navEntry();
    const type = entry ? entry.type : ['navigate', 'reload', 'back_forward'][/** @type {any} */ (performance).navigation?.type] || 'navigate';
    return type === 'reload' ? 'reload' : type === 'back_forward' ? 'back_forward' : 'load';
  }

  let lastUrl = location.href;

  /** A new document load (or a page restored from the back/forward cache). @param {string} navType */
  function startLoad(navType) {
    const url = redactUrl(location.href);
    lastUrl = location.href;
    emit({ kind: 'navigation', ts: now(), loadId, url, navType });
    emit({ kind: 'action', ts: now(), action: 'navigate', url });
  }

  /** SPA route change: the URL changed without a new document. */
  function checkRoute() {
    const href = location.href;
    if (href === lastUrl || !cfg.enabled) {
      lastUrl = href;
      return;
    }
    lastUrl = href;
    flushInputs();
    const url = redactUrl(href);
    emit({ kind: 'navigation', ts: now(), loadId, url, navType: 'spa' });
    emit({ kind: 'action', ts: now(), action: 'route', url });
  }

  // ------------------------------------------------------------------------------------------
  // Console
  // ------------------------------------------------------------------------------------------

  let busy = false; // our own code is running: calls it triggers in the page are not captured

  /**
   * @param {'log'|'info'|'warn'|'error'|'debug'} level
   * @param {ArrayLike<any>} args
   * @param {Function} wrapper
   * @param {string} [prefix] e.g. "Assertion failed:"
   */
  function onConsole(level, args, wrapper, prefix) {
    busy = true;
    try {
      if (typeof args[0] === 'string' && args[0].startsWith('[tabmcp]')) return; // the extension's own logs
      const wantLog = room('console');
      const wantError = level === 'error' && room('error');
      if (!wantLog && !wantError) return;
      const ts = now();
      const texts = consoleArgs(args);
      if (prefix) texts.unshift(prefix);
      let stack = '';
      /** @type {{url: string, line: number, col: number} | undefined} */
      let source;
      if (level === 'error' || level === 'warn') {
        stack = callerStack(wrapper);
        source = sourceOf(stack);
      }
      if (wantLog) {
        /** @type {TelemetryEvent} */
        const ev = { kind: 'console', ts, level, args: texts };
        if (source) ev.source = source;
        push(ev);
      }
      if (wantError) {
        const first = args[0];
        const errStack = first && typeof first === 'object' && isErrorLike(first) ? errorText(first) : stack;
        /** @type {TelemetryEvent} */
        const ev = { kind: 'error', ts, message: texts.join(' '), errorType: 'console' };
        if (errStack) ev.stack = safeText(errStack, LIMITS.stack);
        if (source) ev.source = source;
        push(ev);
      }
    } catch {
      oops();
      drop(level === 'error' ? 'error' : 'console'); // never lost silently
    } finally {
      busy = false;
    }
  }

  /** Give a wrapper the wrapped function's name and length. @param {Function} wrapper @param {Function} original */
  function likeOriginal(wrapper, original) {
    try {
      Object.defineProperty(wrapper, 'name', { value: original.name, configurable: true });
      Object.defineProperty(wrapper, 'length', { value: original.length, configurable: true });
    } catch {
      oops();
    }
    return wrapper;
  }

  /** @param {string} method @param {'log'|'info'|'warn'|'error'|'debug'} level */
  function wrapConsole(method, level) {
    const c = /** @type {any} */ (W.console);
    const original = c && c[method];
    if (typeof original !== 'function') return;
    const wrapper = {
      /** @this {any} */
      [method]() {
        if (!busy && cfg.enabled) onConsole(level, arguments, wrapper);
        return original.apply(this, arguments);
      },
    }[method];
    c[method] = likeOriginal(wrapper, original);
  }

  function wrapAssert() {
    const c = /** @type {any} */ (W.console);
    const original = c && c.assert;
    if (typeof original !== 'function') return;
    const wrapper = {
      /** @this {any} */
      assert(condition) {
        if (!condition && !busy && cfg.enabled) {
          const rest = Array.prototype.slice.call(arguments, 1);
          onConsole('error', rest, wrapper, rest.length ? 'Assertion failed:' : 'Assertion failed');
        }
        return original.apply(this, arguments);
      },
    }.assert;
    c.assert = likeOriginal(wrapper, original);
  }

  // ------------------------------------------------------------------------------------------
  // Uncaught errors and unhandled rejections
  // ------------------------------------------------------------------------------------------

  /** @param {ErrorEvent} e */
  function onError(e) {
    if (!cfg.enabled || busy) return;
    try {
      if (!(e instanceof ErrorEvent) || e.target !== W) return; // resource load errors are not exceptions
      if (!room('error')) return;
      const err = /** @type {any} */ (e.error);
      let message = e.message || '';
      if (err && typeof err === 'object' && isErrorLike(err)) message = `${err.name || 'Error'}: ${err.message}`;
      else if (message.startsWith('Uncaught ')) message = message.slice(9);
      /** @type {TelemetryEvent} */
      const ev = { kind: 'error', ts: now(), message: safeText(message || 'Script error.', LIMITS.message), errorType: 'uncaught' };
      if (err && typeof err === 'object' && typeof err.stack === 'string') ev.stack = safeText(err.stack, LIMITS.stack);
      if (e.filename) ev.source = { url: redactUrl(e.filename), line: e.lineno || 0, col: e.colno || 0 };
      push(ev);
    } catch {
      oops();
    }
  }

  /** @param {PromiseRejectionEvent} e */
  function onRejection(e) {
    if (!cfg.enabled || busy) return;
    busy = true;
    try {
      if (!room('error')) return;
      const reason = /** @type {any} */ (e.reason);
      const isErr = reason && typeof reason === 'object' && isErrorLike(reason);
      let message;
      if (isErr) message = `${reason.name || 'Error'}: ${reason.message}`;
      else message = `Unhandled rejection: ${argText(reason)}`;
      /** @type {TelemetryEvent} */
      const ev = { kind: 'error', ts: now(), message: safeText(message, LIMITS.message), errorType: 'unhandledrejection' };
      if (isErr && typeof reason.stack === 'string') {
        ev.stack = safeText(reason.stack, LIMITS.stack);
        const source = sourceOf(reason.stack);
        if (source) ev.source = source;
      }
      push(ev);
    } catch {
      oops();
    } finally {
      busy = false;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Network: fetch and XMLHttpRequest
  // ------------------------------------------------------------------------------------------

  const TEXTY = /^(?:text\/(?!event-stream)|application\/(?:[\w.+-]*\+)?(?:json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|x-ndjson)\b)/i;
  /** @param {string | null | undefined} contentType */
  const mimeOf = (contentType) => (contentType ? contentType.split(';')[0].trim().toLowerCase() : '');

  /** @param {unknown} url */
  function absoluteUrl(url) {
    try {
      return new URL(String(url), document.baseURI).href;
    } catch {
      return String(url);
    }
  }

  /** @param {any} headers @returns {Record<string, string>} */
  function headersObject(headers) {
    /** @type {Record<string, string>} */
    const out = {};
    if (!headers) return out;
    if (typeof headers.forEach === 'function' && !N.isArray(headers)) {
      headers.forEach((/** @type {string} */ value, /** @type {string} */ name) => {
        out[name] = String(value);
      });
    } else if (N.isArray(headers)) {
      for (const pair of headers) if (pair && pair.length >= 2) out[String(pair[0]).toLowerCase()] = String(pair[1]);
    } else if (typeof headers === 'object') {
      for (const name of N.keys(headers)) out[name.toLowerCase()] = String(headers[name]);
    }
    return out;
  }

  /** @param {Record<string, string>} headers @param {string} name */
  const headerValue = (headers, name) => {
    for (const k of N.keys(headers)) if (k.toLowerCase() === name) return headers[k];
    return undefined;
  };

  /**
   * A request body as text (capped), or a description of what it is.
   * @param {any} body
   * @returns {{text: string, truncated: boolean} | null}
   */
  function describeBody(body) {
    if (body == null) return null;
    let text;
    if (typeof body === 'string') text = body;
    else if (body instanceof URLSearchParams) text = body.toString();
    else if (typeof FormData === 'function' && body instanceof FormData) {
      const parts = [];
      for (const [k, v] of body.entries()) {
        parts.push(`${encodeURIComponent(k)}=${typeof v === 'string' ? encodeURIComponent(v) : `[File ${encodeURIComponent(v.name)} ${v.size} bytes]`}`);
      }
      text = parts.join('&');
    } else if (typeof Blob === 'function' && body instanceof Blob) text = `[Blob ${body.type || 'application/octet-stream'} ${body.size} bytes]`;
    else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) text = `[binary ${body.byteLength} bytes]`;
    else if (typeof ReadableStream === 'function' && body instanceof ReadableStream) text = '[stream]';
    else if (typeof Document === 'function' && body instanceof Document) text = '[document]';
    else return null;
    const truncated = text.length > cfg.bodyLimit;
    return { text: truncated ? text.slice(0, cfg.bodyLimit) : text, truncated };
  }

  /**
   * Read at most `limit` characters of a (cloned) body stream, then let go of it.
   * @param {ReadableStream<Uint8Array>} stream @param {number} limit
   * @returns {Promise<{text: string, truncated: boolean}>}
   */
  async function readCapped(stream, limit) {
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let truncated = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (text.length > limit) {
          truncated = true;
          break;
        }
      }
      if (!truncated) text += decoder.decode();
    } finally {
      if (truncated) N.then.call(reader.cancel(), noop, noop);
    }
    if (text.length > limit) {
      text = text.slice(0, limit);
      truncated = true;
    }
    return { text, truncated };
  }

  /**
   * @typedef {{requestId: string, api: 'fetch'|'xhr', method: string, url: string, start: number,
   *   t0: number, requestHeaders: Record<string, string>, requestBody: {text: string, truncated: boolean} | null,
   *   requestBodyPromise?: Promise<{text: string, truncated: boolean} | null>}} RequestRecord
   */

  /**
   * @param {RequestRecord} rec
   * @param {{status: number, statusText?: string, responseHeaders?: Record<string, string>, mimeType?: string,
   *   body?: {text: string, truncated: boolean} | null, failure?: string}} res
   */
  function emitRequest(rec, res) {
    if (!room('network')) return;
    const requestHeaders = rec.requestHeaders;
    const requestMime = mimeOf(headerValue(requestHeaders, 'content-type'));
    /** @type {TelemetryEvent} */
    const ev = {
      kind: 'network',
      ts: now(),
      requestId: rec.requestId,
      api: rec.api,
      method: rec.method,
      url: redactUrl(rec.url),
      status: res.status,
      statusText: safeText(res.statusText || '', 200),
      startTime: Math.round(rec.start * 10) / 10,
      duration: Math.round((N.perfNow() - rec.t0) * 10) / 10,
      requestHeaders: redactHeaders(requestHeaders),
      responseHeaders: redactHeaders(res.responseHeaders || {}),
    };
    let truncated = false;
    if (rec.requestBody) {
      ev.requestBody = redactBody(rec.requestBody.text, requestMime);
      truncated = rec.requestBody.truncated;
    }
    if (res.body) {
      ev.responseBody = redactBody(res.body.text, res.mimeType);
      truncated = truncated || res.body.truncated;
    }
    if (truncated) ev.bodyTruncated = true;
    if (res.mimeType) ev.mimeType = res.mimeType;
    if (res.failure) ev.failure = safeText(res.failure, LIMITS.message);
    push(ev);
  }

  /** @param {any} err */
  const failureText = (err) => {
    try {
      return err && typeof err === 'object' ? `${err.name || 'Error'}: ${err.message}` : String(err);
    } catch {
      return 'failed';
    }
  };

  function wrapFetch() {
    const original = W.fetch;
    if (typeof original !== 'function') return;
    const NativeRequest = W.Request;

    /** @param {any} input @param {any} init @returns {RequestRecord} */
    function start(input, init) {
      const isRequest = typeof NativeRequest === 'function' && input instanceof NativeRequest;
      const url = absoluteUrl(isRequest ? input.url : input);
      const method = String((init && init.method) || (isRequest ? input.method : 'GET')).toUpperCase();
      const requestHeaders = { ...(isRequest ? headersObject(input.headers) : {}), ...headersObject(init && init.headers) };
      /** @type {RequestRecord} */
      const rec = { requestId: nextId('req'), api: 'fetch', method, url, start: now(), t0: N.perfNow(), requestHeaders, requestBody: null };
      if (init && init.body != null) {
        rec.requestBody = describeBody(init.body);
      } else if (isRequest && input.body && !input.bodyUsed && method !== 'GET' && method !== 'HEAD') {
        const mime = headerValue(requestHeaders, 'content-type');
        if (mime && TEXTY.test(mimeOf(mime))) {
          rec.requestBodyPromise = N.then.call(readCapped(input.clone().body, cfg.bodyLimit), undefined, () => null);
        }
      }
      return rec;
    }

    /** @param {RequestRecord} rec @param {Response} response */
    function done(rec, response) {
      const responseHeaders = headersObject(response.headers);
      const mimeType = mimeOf(response.headers.get('content-type'));
      const base = { status: response.status, statusText: response.statusText, responseHeaders, mimeType: mimeType || undefined };
      /** @type {Promise<{text: string, truncated: boolean} | null>} */
      let bodyPromise = N.Promise.resolve(null);
      if (response.body && mimeType && TEXTY.test(mimeType) && response.type !== 'opaque' && !response.bodyUsed) {
        // A clone: the page's own body stream stays untouched.
        bodyPromise = N.then.call(readCapped(response.clone().body, cfg.bodyLimit), undefined, () => null);
      }
      const finish = async () => {
        const [body, requestBody] = await N.Promise.all([bodyPromise, rec.requestBodyPromise || N.Promise.resolve(rec.requestBody)]);
        rec.requestBody = requestBody;
        emitRequest(rec, { ...base, body });
      };
      N.then.call(finish(), noop, oops);
    }

    /** @param {RequestRecord} rec @param {any} err */
    function failed(rec, err) {
      const finish = async () => {
        if (rec.requestBodyPromise) rec.requestBody = await rec.requestBodyPromise;
        emitRequest(rec, { status: 0, statusText: '', failure: failureText(err) });
      };
      N.then.call(finish(), noop, oops);
    }

    const wrapper = {
      /** @this {any} @param {any} input @param {any} [init] */
      fetch(input, init) {
        /** @type {RequestRecord | null} */
        let rec = null;
        if (cfg.enabled && !busy) {
          try {
            rec = start(input, init);
          } catch {
            oops();
          }
        }
        const promise = original.apply(this, arguments);
        if (!rec) return promise;
        const r = rec;
        // The page gets a promise that settles with the same value or reason (one microtask
        // later), so an uncaught failure is still reported as an unhandled rejection.
        return N.then.call(
          promise,
          (/** @type {Response} */ response) => {
            try {
              done(r, response);
            } catch {
              oops();
            }
            return response;
          },
          (/** @type {any} */ err) => {
            try {
              failed(r, err);
            } catch {
              oops();
            }
            throw err;
          },
        );
      },
    }.fetch;
    W.fetch = likeOriginal(wrapper, original);
  }

  function wrapXhr() {
    const XHR = W.XMLHttpRequest;
    if (typeof XHR !== 'function') return;
    const proto = XHR.prototype;
    const { open, setRequestHeader, send } = proto;
    /** @type {WeakMap<XMLHttpRequest, RequestRecord & {listening?: boolean, failure?: string, handlers?: any}>} */
    const records = new WeakMap();

    proto.open = likeOriginal(
      {
        /** @this {XMLHttpRequest} @param {string} method @param {string | URL} url */
        open(method, url) {
          const result = open.apply(this, arguments);
          try {
            const old = records.get(this);
            if (old && old.listening) unlisten(this, old);
            if (cfg.enabled) {
              records.set(this, {
                requestId: '', api: 'xhr', method: String(method).toUpperCase(), url: absoluteUrl(url),
                start: 0, t0: 0, requestHeaders: {}, requestBody: null,
              });
            } else {
              records.delete(this);
            }
          } catch {
            oops();
          }
          return result;
        },
      }.open,
      open,
    );

    proto.setRequestHeader = likeOriginal(
      {
        /** @this {XMLHttpRequest} @param {string} name @param {string} value */
        setRequestHeader(name, value) {
          const result = setRequestHeader.apply(this, arguments);
          try {
            const rec = records.get(this);
            if (rec) {
              const key = String(name).toLowerCase();
              rec.requestHeaders[key] = key in rec.requestHeaders ? `${rec.requestHeaders[key]}, ${value}` : String(value);
            }
          } catch {
            oops();
          }
          return result;
        },
      }.setRequestHeader,
      setRequestHeader,
    );

    /** @param {XMLHttpRequest} xhr @param {any} rec */
    function unlisten(xhr, rec) {
      for (const type of N.keys(rec.handlers)) N.off.call(xhr, type, rec.handlers[type]);
      rec.listening = false;
    }

    /** @param {XMLHttpRequest} xhr @param {any} rec */
    function finish(xhr, rec) {
      unlisten(xhr, rec);
      if (!cfg.enabled) return;
      const status = xhr.status;
      /** @type {Record<string, string>} */
      const responseHeaders = {};
      for (const line of String(xhr.getAllResponseHeaders() || '').split(/\r?\n/)) {
        const i = line.indexOf(':');
        if (i > 0) responseHeaders[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const mimeType = mimeOf(xhr.getResponseHeader('content-type'));
      let body = null;
      if (status && mimeType && TEXTY.test(mimeType)) {
        let text = null;
        if (xhr.responseType === '' || xhr.responseType === 'text') text = xhr.responseText;
        else if (xhr.responseType === 'json' && xhr.response != null) text = N.stringify(xhr.response);
        if (text != null) body = { text: text.length > cfg.bodyLimit ? text.slice(0, cfg.bodyLimit) : text, truncated: text.length > cfg.bodyLimit };
      }
      const failure = status ? undefined : rec.failure || 'Error: the request failed';
      emitRequest(rec, { status, statusText: xhr.statusText, responseHeaders, mimeType: mimeType || undefined, body, failure });
    }

    proto.send = likeOriginal(
      {
        /** @this {XMLHttpRequest} @param {any} [body] */
        send(body) {
          const rec = records.get(this);
          if (rec && cfg.enabled && !busy) {
            try {
              if (rec.listening) unlisten(this, rec);
              rec.requestId = nextId('req');
              rec.start = now();
              rec.t0 = N.perfNow();
              rec.requestBody = describeBody(body);
              rec.failure = undefined;
              const xhr = this;
              rec.handlers = {
                loadend: () => {
                  try {
                    finish(xhr, rec);
                  } catch {
                    oops();
                  }
                },
                error: () => {
                  rec.failure = 'NetworkError: the request failed';
                },
                abort: () => {
                  rec.failure = 'AbortError: the request was aborted';
                },
                timeout: () => {
                  rec.failure = 'TimeoutError: the request timed out';
                },
              };
              for (const type of N.keys(rec.handlers)) listen(this, type, rec.handlers[type]);
              rec.listening = true;
            } catch {
              oops();
            }
          }
          try {
            return send.apply(this, arguments);
          } catch (err) {
            try {
              if (rec && rec.listening) unlisten(this, rec);
            } catch {
              oops();
            }
            throw err;
          }
        },
      }.send,
      send,
    );
  }

  // ------------------------------------------------------------------------------------------
  // WebSockets
  // ------------------------------------------------------------------------------------------

  /** @typedef {{start: number, count: number}} SampleWindow */
  /** @typedef {{id: string, url: string, windows: {in: SampleWindow, out: SampleWindow}}} Socket */

  /**
   * Keep every message up to the threshold in a one-second window; past it, keep 1 in 2 for the
   * next 2×threshold messages, 1 in 4 for the next 4×threshold, and so on. Each kept message
   * stands for `every` messages, so the bridge's scaled counts stay close to the real ones.
   * Returns `every` for a kept message, 0 for a skipped one.
   * @param {SampleWindow} win
   */
  function sample(win) {
    const t = N.perfNow();
    if (t - win.start >= 1000) {
      win.start = t;
      win.count = 0;
    }
    const i = win.count++;
    const threshold = Math.max(1, cfg.wsSampleThreshold | 0);
    if (i < threshold) return 1;
    let lo = threshold;
    let every = 2;
    while (i >= lo + threshold * every && every < 1 << 20) {
      lo += threshold * every;
      every *= 2;
    }
    return (i - lo) % every === 0 ? every : 0;
  }

  /** @param {string} s */
  const utf8Length = (s) => {
    if (s.length > 65536) return s.length;
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        n += 4;
        i++;
      } else n += 3;
    }
    return n;
  };

  /** @param {Socket} sock @param {'in'|'out'} direction @param {any} data */
  function onFrame(sock, direction, data) {
    if (!cfg.enabled) return;
    const every = sample(sock.windows[direction]);
    if (!every || !room('websocket')) return;
    let text;
    let size;
    if (typeof data === 'string') {
      size = utf8Length(data);
      const raw = data.length > LIMITS.wsData * 4 ? data.slice(0, LIMITS.wsData * 4) : data;
      text = cap(redactBody(raw), LIMITS.wsData);
    } else if (typeof Blob === 'function' && data instanceof Blob) {
      size = data.size;
      text = `[Blob ${size} bytes]`;
    } else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
      size = data.byteLength;
      text = `[binary ${size} bytes]`;
    } else {
      text = safeText(String(data), LIMITS.wsData);
      size = text.length;
    }
    /** @type {TelemetryEvent} */
    const ev = { kind: 'websocket', ts: now(), connectionId: sock.id, event: 'message', url: sock.url, direction, data: text, size };
    if (every > 1) ev.sampled = { every };
    push(ev);
  }

  function wrapWebSocket() {
    const Native = W.WebSocket;
    if (typeof Native !== 'function') return;
    /** @type {WeakMap<object, Socket>} */
    const sockets = new WeakMap();

    /** @param {any} ws */
    function track(ws) {
      /** @type {Socket} */
      const sock = { id: nextId('ws'), url: redactUrl(String(ws.url)), windows: { in: { start: 0, count: 0 }, out: { start: 0, count: 0 } } };
      sockets.set(ws, sock);
      /** @param {TelemetryEvent} ev */
      const lifecycle = (ev) => {
        try {
          emit(ev);
        } catch {
          oops();
        }
      };
      listen(ws, 'open', () => lifecycle({ kind: 'websocket', ts: now(), connectionId: sock.id, event: 'open', url: sock.url }));
      listen(ws, 'message', (/** @type {MessageEvent} */ e) => {
        try {
          onFrame(sock, 'in', e.data);
        } catch {
          oops();
        }
      });
      listen(ws, 'error', () => lifecycle({ kind: 'websocket', ts: now(), connectionId: sock.id, event: 'error', url: sock.url }));
      listen(ws, 'close', (/** @type {CloseEvent} */ e) =>
        lifecycle({ kind: 'websocket', ts: now(), connectionId: sock.id, event: 'close', url: sock.url, code: e.code, reason: safeText(e.reason || '', 500) }));
    }

    // A plain function (not a class) so it can return the native socket; `new.target` keeps
    // subclasses (`class X extends WebSocket`) working, and the prototype is the native one,
    // so instanceof, WebSocket.prototype patches and constants all behave as before.
    const WebSocket = /** @type {any} */ (function WebSocket(/** @type {any} */ url) {
      if (!new.target) return Reflect.apply(Native, this, arguments); // throws the browser's own TypeError
      const ws = Reflect.construct(Native, arguments, new.target === WebSocket ? Native : new.target);
      if (cfg.enabled) {
        try {
          track(ws);
        } catch {
          oops();
        }
      }
      return ws;
    });
    try {
      const descriptors = Object.getOwnPropertyDescriptors(Native);
      for (const name of Reflect.ownKeys(descriptors)) {
        if (name === 'prototype' || name === 'length' || name === 'name' || name === 'arguments' || name === 'caller') continue;
        Object.defineProperty(WebSocket, name, /** @type {any} */ (descriptors)[name]);
      }
      WebSocket.prototype = Native.prototype;
      Object.defineProperty(WebSocket, 'prototype', { writable: false });
      Object.setPrototypeOf(WebSocket, Object.getPrototypeOf(Native));
      likeOriginal(WebSocket, Native);
      Object.defineProperty(Native.prototype, 'constructor', { value: WebSocket, writable: true, configurable: true, enumerable: false });
    } catch {
      oops();
      return;
    }

    const nativeSend = Native.prototype.send;
    Native.prototype.send = likeOriginal(
      {
        /** @this {any} @param {any} data */
        send(data) {
          const result = nativeSend.apply(this, arguments);
          try {
            const sock = sockets.get(this);
            if (sock) onFrame(sock, 'out', data);
          } catch {
            oops();
          }
          return result;
        },
      }.send,
      nativeSend,
    );
    W.WebSocket = WebSocket;
  }

  // ------------------------------------------------------------------------------------------
  // Selectors: every way to name an element, best first
  // ------------------------------------------------------------------------------------------

  const INPUT_ROLES = /** @type {Record<string, string>} */ ({
    button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox', radio: 'radio',
    range: 'slider', number: 'spinbutton', search: 'searchbox', email: 'textbox', tel: 'textbox', text: 'textbox', url: 'textbox',
  });
  const TAG_ROLES = /** @type {Record<string, string>} */ ({
    button: 'button', textarea: 'textbox', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading',
    h6: 'heading', nav: 'navigation', main: 'main', ul: 'list', ol: 'list', menu: 'list', li: 'listitem', table: 'table',
    tr: 'row', td: 'cell', th: 'columnheader', option: 'option', dialog: 'dialog', progress: 'progressbar', meter: 'meter',
    output: 'status', article: 'article', aside: 'complementary', fieldset: 'group', details: 'group', hr: 'separator',
    summary: 'button',
  });
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'heading', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'tab', 'treeitem', 'cell', 'columnheader', 'rowheader', 'gridcell', 'tooltip', 'row']);

  /** Elements whose text is their children's, not a name to find them by. */
  const CONTAINERS = new Set(['html', 'body', 'main', 'form', 'fieldset', 'section', 'article', 'aside', 'nav', 'header',
    'footer', 'dialog', 'ul', 'ol', 'table', 'thead', 'tbody', 'tr', 'select', 'datalist']);

  /** @param {Element} el */
  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit) return explicit.toLowerCase();
    const tag = el.localName;
    if (tag === 'a' || tag === 'area') return el.hasAttribute('href') ? 'link' : '';
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      const role = INPUT_ROLES[type] || '';
      if (el.hasAttribute('list') && (role === 'textbox' || role === 'searchbox')) return 'combobox';
      return role;
    }
    if (tag === 'select') {
      const s = /** @type {HTMLSelectElement} */ (el);
      return s.multiple || s.size > 1 ? 'listbox' : 'combobox';
    }
    if (tag === 'img') return el.getAttribute('alt') === '' ? 'presentation' : 'img';
    if (tag === 'section') return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
    if (tag === 'form') return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('name') ? 'form' : '';
    return TAG_ROLES[tag] || '';
  }

  /** @param {Element} el */
  const isField = (el) => {
    const tag = el.localName;
    if (tag === 'select' || tag === 'textarea') return true;
    if (tag === 'input') return !/^(?:button|submit|reset|image|hidden)$/i.test(el.getAttribute('type') || '');
    return /** @type {HTMLElement} */ (el).isContentEditable === true;
  };

  /** Text of the elements named by aria-labelledby. @param {Element} el */
  function labelledBy(el) {
    const ids = (el.getAttribute('aria-labelledby') || '').trim();
    if (!ids) return '';
    const root = /** @type {any} */ (el.getRootNode());
    return ids.split(/\s+/).map((id) => {
      const ref = (root.getElementById && root.getElementById(id)) || document.getElementById(id);
      return ref ? collapse(ref.textContent) : '';
    }).filter(Boolean).join(' ');
  }

  /** The text of a field's <label>s, without the text of controls inside them. @param {Element} el */
  function labelsText(el) {
    const labels = /** @type {any} */ (el).labels;
    if (!labels || !labels.length) return '';
    const parts = [];
    for (const label of labels) {
      const clone = label.cloneNode(true);
      for (const inner of clone.querySelectorAll('input, select, textarea, button')) inner.remove();
      const t = collapse(clone.textContent);
      if (t) parts.push(t);
    }
    return parts.join(' ');
  }

  /** An approximation of the accessible name (aria-labelledby, aria-label, label, content, title). @param {Element} el @param {string} role */
  function accessibleName(el, role) {
    const by = labelledBy(el);
    if (by) return by;
    const aria = collapse(el.getAttribute('aria-label'));
    if (aria) return aria;
    const tag = el.localName;
    const any = /** @type {any} */ (el);
    if (isField(el)) return labelsText(el) || collapse(el.getAttribute('title')) || collapse(el.getAttribute('placeholder'));
    if (tag === 'input') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (type === 'image') return collapse(el.getAttribute('alt'));
      return collapse(any.value) || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
    }
    if (tag === 'img' || tag === 'area') return collapse(el.getAttribute('alt')) || collapse(el.getAttribute('title'));
    if (NAME_FROM_CONTENT.has(role)) {
      const text = collapse(el.textContent);
      if (text) return text;
      const img = el.querySelector('img[alt], [aria-label]');
      if (img) return collapse(img.getAttribute('alt') || img.getAttribute('aria-label'));
    }
    return collapse(el.getAttribute('title'));
  }

  /** @param {string} id */
  const stableId = (id) => id.length <= 60 && !/^\d|:|\d{4,}|^[a-f0-9-]{16,}$/i.test(id);
  /** @param {string} v */
  const cssString = (v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\a ')}"`;

  /** A short CSS selector unique in the element's document (or shadow root). @param {Element} el */
  function cssPath(el) {
    const root = /** @type {any} */ (el.getRootNode());
    /** @param {string} sel */
    const unique = (sel) => {
      try {
        return root.querySelectorAll(sel).length === 1;
      } catch {
        return false;
      }
    };
    const tag = el.localName;
    if (el.id && stableId(el.id)) {
      const sel = `#${CSS.escape(el.id)}`;
      if (unique(sel)) return sel;
    }
    for (const attr of ['data-testid', 'name', 'aria-label']) {
      const v = el.getAttribute(attr);
      if (v && v.length <= 80) {
        const sel = `${tag}[${attr}=${cssString(v)}]`;
        if (unique(sel)) return sel;
      }
    }
    const parts = [];
    /** @type {Element | null} */
    let cur = el;
    while (cur && cur.nodeType === 1 && parts.length < 10) {
      let part = cur.localName;
      if (cur !== el && cur.id && stableId(cur.id)) {
        part = `#${CSS.escape(cur.id)}`;
      } else if (cur.parentElement) {
        const same = Array.prototype.filter.call(cur.parentElement.children, (c) => c.localName === cur?.localName);
        if (same.length > 1) part += `:nth-of-type(${same.indexOf(cur) + 1})`;
      }
      parts.unshift(part);
      const sel = parts.join(' > ');
      if (unique(sel)) return sel;
      cur = cur.parentElement;
    }
    return parts.join(' > ');
  }

  /**
   * @param {Element} el
   * @returns {{testId?: string, role?: string, name?: string, label?: string, text?: string, css: string}}
   */
  function selectorsOf(el) {
    /** @type {{testId?: string, role?: string, name?: string, label?: string, text?: string, css: string}} */
    const s = { css: '' };
    const testId = el.getAttribute('data-testid');
    if (testId) s.testId = cap(testId, LIMITS.name);
    const role = roleOf(el);
    if (role && role !== 'presentation' && role !== 'none') s.role = role;
    const name = accessibleName(el, role);
    if (name) s.name = cap(redactText(name), LIMITS.name);
    if (isField(el)) {
      const label = labelsText(el) || labelledBy(el) || collapse(el.getAttribute('aria-label'));
      if (label) s.label = cap(redactText(label), LIMITS.name);
    } else if (!CONTAINERS.has(el.localName)) {
      const text = collapse(el.textContent);
      if (text && text.length <= 80) s.text = redactText(text);
    }
    s.css = cssPath(el);
    return s;
  }

  // ------------------------------------------------------------------------------------------
  // User actions
  // ------------------------------------------------------------------------------------------

  const CLICKABLE = 'button, a[href], input, select, textarea, label, summary, option, [role="button"], [role="link"], ' +
    '[role="menuitem"], [role="menuitemcheckbox"], [role="menuitemradio"], [role="tab"], [role="checkbox"], [role="radio"], ' +
    '[role="switch"], [role="option"], [role="treeitem"], [contenteditable=""], [contenteditable="true"]';
  const MODIFIER_KEYS = new Set(['Control', 'Shift', 'Alt', 'Meta', 'AltGraph', 'CapsLock', 'Fn', 'OS', 'Hyper', 'Super']);

  /** The element an event really happened on (inside open shadow roots too). @param {Event} e */
  const targetOf = (e) => {
    const path = e.composedPath ? e.composedPath() : [];
    const t = /** @type {any} */ (path.length ? path[0] : e.target);
    if (t && t.nodeType === 1) return /** @type {Element} */ (t);
    if (t && t.nodeType === 3) return /** @type {Element} */ (t.parentElement);
    return null;
  };

  /** Should this field's value never leave the page? @param {Element} el @param {string} value */
  function sensitiveValue(el, value) {
    const any = /** @type {any} */ (el);
    if (el.localName === 'input' && String(any.type).toLowerCase() === 'password') return true;
    if (SENSITIVE_AUTOCOMPLETE.test(el.getAttribute('autocomplete') || '')) return true;
    const hints = [el.getAttribute('name'), el.id, el.getAttribute('data-testid'), el.getAttribute('aria-label'),
      el.getAttribute('placeholder'), isField(el) ? labelsText(el) : ''].filter(Boolean).join(' ');
    if (SENSITIVE_HINT.test(hints)) return true;
    const digits = value.replace(/[\s-]/g, '');
    return /^\d{13,19}$/.test(digits) && luhn(digits);
  }

  /** The value of a field as an action reports it. @param {Element} el */
  function fieldValue(el) {
    const any = /** @type {any} */ (el);
    const tag = el.localName;
    if (tag === 'select') {
      return any.multiple ? Array.from(any.selectedOptions, (/** @type {any} */ o) => o.value).join(',') : String(any.value);
    }
    if (tag === 'input') {
      const type = String(any.type).toLowerCase();
      if (type === 'checkbox') return String(!!any.checked);
      if (type === 'file') return Array.from(any.files || [], (/** @type {any} */ f) => f.name).join(', ');
      return String(any.value);
    }
    if (tag === 'textarea') return String(any.value);
    return collapse(el.textContent);
  }

  /** @param {Element} el @param {string} value */
  const safeValue = (el, value) => (sensitiveValue(el, value) ? MARK : cap(redactText(value), LIMITS.value));

  /** @param {string} action @param {Element | null} el @param {Record<string, any>} [extra] @param {number} [ts] */
  function emitAction(action, el, extra, ts) {
    if (!room('action')) return;
    /** @type {TelemetryEvent} */
    const ev = { kind: 'action', ts: ts || now(), action, url: redactUrl(location.href) };
    if (el) {
      ev.selectors = selectorsOf(el);
      ev.tag = el.localName;
    }
    if (extra) Object.assign(ev, extra);
    push(ev);
  }

  /** @type {Map<Element, {timer: number, ts: number}>} */
  const pendingInputs = new Map();
  /** @type {WeakMap<Element, string>} */
  const lastValues = new WeakMap();

  /** Report a field's value if it changed since it was last reported. @param {Element} el */
  function flushInput(el) {
    const p = pendingInputs.get(el);
    if (p) {
      N.clearTimeout(p.timer);
      pendingInputs.delete(el);
    }
    const value = fieldValue(el);
    if (lastValues.get(el) === value) return;
    lastValues.set(el, value);
    emitAction(p ? 'input' : 'change', el, { value: safeValue(el, value) }, p ? p.ts : undefined);
  }
  function flushInputs() {
    for (const el of [...pendingInputs.keys()]) {
      try {
        flushInput(el);
      } catch {
        oops();
      }
    }
  }

  /** @param {Element} el */
  const isToggleOrChoice = (el) => {
    if (el.localName === 'select') return true;
    if (el.localName !== 'input') return false;
    return /^(?:checkbox|radio|file|range|color|date|datetime-local|month|time|week)$/i.test(/** @type {any} */ (el).type);
  };

  let lastClick = { el: /** @type {Element | null} */ (null), ts: 0 };
  let lastActivationKey = 0;

  /** @param {MouseEvent} e */
  function onClick(e) {
    if (!e.isTrusted || !cfg.enabled) return;
    try {
      const target = targetOf(e);
      if (!target) return;
      const el = target.closest(CLICKABLE) || target;
      const t = N.perfNow();
      // A click on a <label> clicks its control too; a key (Enter, Space) clicks the button it activates.
      const viaLabel = lastClick.el && lastClick.el.localName === 'label' && /** @type {any} */ (lastClick.el).control === el && t - lastClick.ts < 100;
      lastClick = { el, ts: t };
      if (viaLabel || (e.detail === 0 && t - lastActivationKey < 100)) return;
      flushInputs();
      emitAction('click', el);
    } catch {
      oops();
    }
  }

  /** @param {Event} e */
  function onInput(e) {
    if (!e.isTrusted || !cfg.enabled) return;
    try {
      const el = targetOf(e);
      if (!el || !isField(el) || isToggleOrChoice(el)) return;
      let p = pendingInputs.get(el);
      if (p) N.clearTimeout(p.timer);
      else {
        p = { timer: 0, ts: 0 };
        pendingInputs.set(el, p);
      }
      p.ts = now();
      p.timer = N.setTimeout(() => {
        try {
          flushInput(el);
        } catch {
          oops();
        }
      }, INPUT_DEBOUNCE);
    } catch {
      oops();
    }
  }

  /** @param {Event} e */
  function onChange(e) {
    if (!e.isTrusted || !cfg.enabled) return;
    try {
      const el = targetOf(e);
      if (!el || !isField(el)) return;
      if (isToggleOrChoice(el)) {
        flushInputs();
        const value = fieldValue(el);
        lastValues.set(el, value);
        emitAction('change', el, { value: safeValue(el, value) });
      } else {
        flushInput(el);
      }
    } catch {
      oops();
    }
  }

  /** @param {KeyboardEvent} e */
  function onKeydown(e) {
    if (!e.isTrusted || !cfg.enabled || e.repeat || e.isComposing) return;
    try {
      const key = e.key;
      if (!key || MODIFIER_KEYS.has(key)) return;
      const modified = e.ctrlKey || e.metaKey || e.altKey;
      if (key === 'Enter' || key === ' ') lastActivationKey = N.perfNow();
      if (!(key === 'Enter' || key === 'Escape' || key === 'Tab' || modified)) return;
      const combo = [];
      if (e.ctrlKey) combo.push('Control');
      if (e.altKey) combo.push('Alt');
      if (e.metaKey) combo.push('Meta');
      if (e.shiftKey) combo.push('Shift');
      combo.push(key.length === 1 && key !== ' ' ? key : key === ' ' ? 'Space' : key);
      const el = targetOf(e) || document.activeElement;
      flushInputs(); // the value typed so far comes before the key that acts on it
      emitAction('keydown', el, { key: combo.join('+') });
    } catch {
      oops();
    }
  }

  /** @param {SubmitEvent} e */
  function onSubmit(e) {
    if (!e.isTrusted || !cfg.enabled) return;
    try {
      flushInputs();
      emitAction('submit', targetOf(e));
    } catch {
      oops();
    }
  }

  /** @param {FocusEvent} e */
  function onFocusOut(e) {
    try {
      const el = targetOf(e);
      if (el && pendingInputs.has(el)) flushInput(el);
    } catch {
      oops();
    }
  }

  // ------------------------------------------------------------------------------------------
  // Performance: Web Vitals, navigation timing, long tasks
  // ------------------------------------------------------------------------------------------

  const V = {
    fcp: /** @type {number | undefined} */ (undefined),
    lcp: /** @type {number | undefined} */ (undefined),
    cls: /** @type {number | undefined} */ (undefined),
    clsSession: 0,
    clsFirst: 0,
    clsLast: 0,
    interactions: 0,
    /** @type {Set<number>} */
    ids: new Set(),
    /** @type {{id: number, d: number}[]} */
    longest: [],
    inp: /** @type {number | undefined} */ (undefined),
    lastSent: '',
  };
  let bfcacheRestore = false;

  const activationStart = () => {
    const e = /** @type {any} */ (navEntry());
    return (e && e.activationStart) || 0;
  };

  /**
   * Drains of entries the browser has queued but not yet delivered. A snapshot taken on hide must
   * include them (the last interaction is often the worst one), as web-vitals does with takeRecords.
   * @type {Array<() => void>}
   */
  const perfObservers = [];

  /** @param {string} type @param {(entry: any) => void} fn @param {Record<string, any>} [extra] */
  function observe(type, fn, extra) {
    try {
      const supported = PerformanceObserver.supportedEntryTypes || [];
      if (!supported.includes(type)) return false;
      /** @param {PerformanceEntryList} entries */
      const take = (entries) => {
        for (const entry of entries) {
          try {
            fn(entry);
          } catch {
            oops();
          }
        }
      };
      const po = new PerformanceObserver((list) => take(list.getEntries()));
      po.observe({ type, buffered: true, ...extra });
      perfObservers.push(() => take(po.takeRecords()));
      return true;
    } catch {
      oops();
      return false;
    }
  }

  /** @param {number} id @param {number} duration */
  function addInteraction(id, duration) {
    if (!V.ids.has(id)) {
      V.ids.add(id);
      V.interactions++;
      if (V.ids.size > 1000) V.ids.clear();
    }
    const known = V.longest.find((x) => x.id === id);
    if (known) known.d = Math.max(known.d, duration);
    else V.longest.push({ id, d: duration });
    V.longest.sort((a, b) => b.d - a.d);
    if (V.longest.length > 10) V.longest.length = 10;
    // The 98th percentile, as web-vitals approximates it: skip one of the worst per 50 interactions.
    V.inp = V.longest[Math.min(V.longest.length - 1, Math.floor(V.interactions / 50))].d;
  }

  function startPerformanceObservers() {
    observe('paint', (e) => {
      if (e.name === 'first-contentful-paint' && !bfcacheRestore) V.fcp = Math.max(0, e.startTime - activationStart());
    });
    observe('largest-contentful-paint', (e) => {
      if (!bfcacheRestore) V.lcp = Math.max(0, e.startTime - activationStart());
    });
    if (
      observe('layout-shift', (e) => {
        if (e.hadRecentInput) return;
        if (V.clsSession && e.startTime - V.clsLast < 1000 && e.startTime - V.clsFirst < 5000) {
          V.clsSession += e.value;
          V.clsLast = e.startTime;
        } else {
          V.clsSession = e.value;
          V.clsFirst = V.clsLast = e.startTime;
        }
        V.cls = Math.max(V.cls || 0, V.clsSession);
      })
    ) {
      V.cls = V.cls || 0;
    }
    observe('event', (e) => {
      if (e.interactionId) addInteraction(e.interactionId, e.duration);
    }, { durationThreshold: 16 });
    observe('first-input', (e) => {
      if (e.interactionId) addInteraction(e.interactionId, e.duration);
    });
    observe('longtask', (e) => {
      if (!cfg.enabled) return;
      emit({ kind: 'longtask', ts: now(), startTime: Math.round((timeOrigin + e.startTime) * 10) / 10, duration: Math.round(e.duration * 10) / 10 });
    });
  }

  /** @param {number} x */
  const ms = (x) => Math.round(x * 10) / 10;

  function navigationTiming() {
    const e = /** @type {any} */ (navEntry());
    if (!e) return undefined;
    /** @type {Record<string, number | string>} */
    const out = { type: e.type };
    const put = (/** @type {string} */ name, /** @type {number} */ value) => {
      if (typeof value === 'number' && Number.isFinite(value) && value > 0) out[name] = ms(value);
    };
    put('domInteractive', e.domInteractive);
    put('domContentLoaded', e.domContentLoadedEventEnd);
    put('load', e.loadEventEnd);
    put('responseStart', e.responseStart);
    put('responseEnd', e.responseEnd);
    put('dns', e.domainLookupEnd - e.domainLookupStart);
    put('connect', e.connectEnd - e.connectStart);
    put('request', e.responseStart - e.requestStart);
    put('response', e.responseEnd - e.responseStart);
    if (typeof e.transferSize === 'number') out.transferSize = e.transferSize;
    if (typeof e.encodedBodySize === 'number') out.encodedBodySize = e.encodedBodySize;
    if (typeof e.decodedBodySize === 'number') out.decodedBodySize = e.decodedBodySize;
    if (e.redirectCount) out.redirectCount = e.redirectCount;
    if (e.nextHopProtocol) out.protocol = e.nextHopProtocol;
    return out;
  }

  function vitalsEvent() {
    for (const drain of perfObservers) drain();
    /** @type {Record<string, number>} */
    const metrics = {};
    if (V.lcp !== undefined) metrics.LCP = ms(V.lcp);
    if (V.cls !== undefined) metrics.CLS = Math.round(V.cls * 10000) / 10000;
    if (V.inp !== undefined) metrics.INP = ms(V.inp);
    if (V.fcp !== undefined) metrics.FCP = ms(V.fcp);
    const e = /** @type {any} */ (navEntry());
    if (!bfcacheRestore && e && e.responseStart > 0) metrics.TTFB = ms(Math.max(0, e.responseStart - activationStart()));
    /** @type {TelemetryEvent} */
    const ev = { kind: 'vitals', ts: now(), loadId, metrics };
    const navigation = bfcacheRestore ? undefined : navigationTiming();
    if (navigation) ev.navigation = navigation;
    return ev;
  }

  /** Queue a vitals snapshot (unless nothing changed since the last one and `force` is off). @param {boolean} force */
  function reportVitals(force) {
    if (!cfg.enabled) return null;
    const ev = vitalsEvent();
    const key = N.stringify([ev.loadId, ev.metrics, ev.navigation]);
    if (!force && key === V.lastSent) return ev;
    V.lastSent = key;
    emit(ev);
    return ev;
  }

  // ------------------------------------------------------------------------------------------
  // Live queries: dom, page, axe, vitals
  // ------------------------------------------------------------------------------------------

  const DEFAULT_ATTRIBUTES = ['id', 'class', 'name', 'role', 'aria-label', 'data-testid'];

  /** @param {string} code @param {string} message */
  const queryError = (code, message) => Object.assign(new Error(message), { code });

  /** @param {Element} el */
  function visible(el) {
    const any = /** @type {any} */ (el);
    if (typeof any.checkVisibility === 'function') {
      if (!any.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    }
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }

  /** @param {Element} el @param {string[]} attributes @param {boolean} withText @param {boolean} withHtml */
  function describeElement(el, attributes, withText, withHtml) {
    const r = el.getBoundingClientRect();
    /** @type {Record<string, string>} */
    const attrs = {};
    const secretField = isField(el) && sensitiveValue(el, '');
    for (const name of attributes) {
      const v = el.getAttribute(name);
      if (v !== null) attrs[name] = name === 'value' && secretField ? MARK : cap(isSecretKey(name) ? MARK : redactText(v), 1000);
    }
    /** @type {Record<string, any>} */
    const out = {
      tag: el.localName,
      attributes: attrs,
      selectors: selectorsOf(el),
      visible: visible(el),
      rect: { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) },
    };
    if (withText) {
      const text = isField(el) && el.localName !== 'select' ? '' : collapse(/** @type {any} */ (el).innerText ?? el.textContent);
      out.text = cap(redactText(text), LIMITS.text);
    }
    if (isField(el) && el.localName !== 'select' && !(/** @type {any} */ (el).isContentEditable)) {
      const value = fieldValue(el);
      out.value = safeValue(el, value);
    }
    if (withHtml) out.html = cap(redactText(el.outerHTML), LIMITS.html);
    return out;
  }

  /** @param {Record<string, any>} args */
  function queryDom(args) {
    const selector = args.selector;
    if (typeof selector !== 'string' || !selector.trim()) throw queryError('INVALID_SELECTOR', 'selector must be a non-empty CSS selector');
    let list;
    try {
      list = N.qsa.call(document, selector);
    } catch (err) {
      throw queryError('INVALID_SELECTOR', `not a valid CSS selector: ${selector} (${/** @type {any} */ (err).message})`);
    }
    const limit = Math.max(1, Math.min(200, Number.isFinite(args.limit) ? Math.floor(args.limit) : 20));
    const attributes = N.isArray(args.attributes) && args.attributes.length ? args.attributes.map(String) : DEFAULT_ATTRIBUTES;
    const elements = [];
    for (let i = 0; i < list.length && i < limit; i++) elements.push(describeElement(list[i], attributes, args.text !== false, !!args.html));
    return { selector, matches: list.length, elements, truncated: list.length > limit };
  }

  function queryPage() {
    const count = (/** @type {string} */ sel) => N.qsa.call(document, sel).length;
    const active = document.activeElement;
    const headings = [];
    for (const h of N.qsa.call(document, 'h1, h2, h3, h4, h5, h6')) {
      const text = collapse(h.textContent);
      if (text) headings.push({ level: Number(h.localName[1]), text: cap(redactText(text), LIMITS.name) });
      if (headings.length >= 10) break;
    }
    return {
      url: redactUrl(location.href),
      title: document.title,
      readyState: document.readyState,
      loadId,
      lang: document.documentElement ? document.documentElement.lang : '',
      viewport: { width: W.innerWidth, height: W.innerHeight, devicePixelRatio: W.devicePixelRatio },
      scroll: {
        x: Math.round(W.scrollX),
        y: Math.round(W.scrollY),
        width: document.documentElement ? document.documentElement.scrollWidth : 0,
        height: document.documentElement ? document.documentElement.scrollHeight : 0,
      },
      counts: {
        links: count('a[href], area[href]'),
        forms: count('form'),
        inputs: count('input:not([type="hidden"]), select, textarea'),
        buttons: count('button, input[type="button"], input[type="submit"], input[type="reset"], [role="button"]'),
        images: count('img'),
      },
      activeElement: active && active !== document.body && active !== document.documentElement
        ? { tag: active.localName, selectors: selectorsOf(active) }
        : null,
      headings,
      telemetry: { version: VERSION, enabled: cfg.enabled },
    };
  }

  /** @param {Record<string, any>} args */
  async function queryAxe(args) {
    const axe = W.axe;
    if (!axe || typeof axe.run !== 'function') throw queryError('AXE_MISSING', 'axe-core is not loaded in this page');
    let result;
    try {
      result = await axe.run(document, args.options && typeof args.options === 'object' ? args.options : {});
    } catch (err) {
      throw queryError('AXE_FAILED', `axe-core failed: ${/** @type {any} */ (err)?.message || err}`);
    }
    return N.parse(N.stringify(result));
  }

  /** @param {string} requestId @param {boolean} ok @param {any} payload */
  function reply(requestId, ok, payload) {
    const msg = ok ? { type: 'page.result', requestId, ok: true, result: payload } : { type: 'page.result', requestId, ok: false, error: payload };
    try {
      N.postMessage({ __tabmcp: 'page', msg }, '*');
    } catch (err) {
      oops();
      N.postMessage({ __tabmcp: 'page', msg: { type: 'page.result', requestId, ok: false,
        error: { code: 'QUERY_FAILED', message: `the answer could not be sent: ${/** @type {any} */ (err).message}` } } }, '*');
    }
  }

  /** @param {Record<string, any>} msg */
  async function answerQuery(msg) {
    const requestId = String(msg.requestId);
    const args = msg.args && typeof msg.args === 'object' ? msg.args : {};
    busy = true;
    try {
      let result;
      switch (msg.kind) {
        case 'dom':
          result = queryDom(args);
          break;
        case 'page':
          result = queryPage();
          break;
        case 'axe':
          busy = false;
          result = await queryAxe(args);
          break;
        case 'vitals':
          result = vitalsEvent();
          if (cfg.enabled) {
            V.lastSent = N.stringify([result.loadId, result.metrics, result.navigation]);
            emit(result);
            schedule(ERROR_DELAY);
          }
          break;
        default:
          throw queryError('UNKNOWN_QUERY', `unknown page query kind: ${msg.kind}`);
      }
      reply(requestId, true, result);
    } catch (err) {
      const e = /** @type {any} */ (err);
      reply(requestId, false, { code: (e && e.code) || 'QUERY_FAILED', message: String((e && e.message) || e) });
    } finally {
      busy = false;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Settings from the extension
  // ------------------------------------------------------------------------------------------

  /** @param {Record<string, any>} msg */
  function configure(msg) {
    const c = msg.config && typeof msg.config === 'object' ? msg.config : msg;
    stats.configs++;
    if (typeof c.enabled === 'boolean' && c.enabled !== cfg.enabled) {
      cfg.enabled = c.enabled;
      if (!cfg.enabled) {
        // Nothing captured while disabled leaves the page, and nothing held is sent later.
        queue = [];
        for (const kind of N.keys(pending)) pending[kind] = 0;
        dropped = {};
        for (const [, p] of pendingInputs) N.clearTimeout(p.timer);
        pendingInputs.clear();
      } else {
        lastUrl = location.href;
      }
    }
    if (c.redact && typeof c.redact === 'object') setRedaction(c.redact);
    if (Number.isFinite(c.bodyLimit) && c.bodyLimit >= 0) cfg.bodyLimit = Math.min(Math.floor(c.bodyLimit), 1024 * 1024);
    if (Number.isFinite(c.wsSampleThreshold) && c.wsSampleThreshold >= 1) cfg.wsSampleThreshold = Math.floor(c.wsSampleThreshold);
  }

  /** @param {MessageEvent} event */
  function onMessage(event) {
    if (event.source !== W) return;
    const data = event.data;
    if (!data || data.__tabmcp !== 'content' || !data.msg || typeof data.msg !== 'object') return;
    const msg = data.msg;
    try {
      if (msg.type === 'telemetry.config') configure(msg);
      else if (msg.type === 'page.query' && msg.requestId != null) N.then.call(answerQuery(msg), noop, oops);
    } catch {
      oops();
    }
  }

  // ------------------------------------------------------------------------------------------
  // Install
  // ------------------------------------------------------------------------------------------

  /** @param {() => void} step */
  const install = (step) => {
    try {
      step();
    } catch {
      oops();
    }
  };

  install(() => {
    for (const [method, level] of /** @type {const} */ ([['log', 'log'], ['info', 'info'], ['warn', 'warn'], ['error', 'error'], ['debug', 'debug'], ['trace', 'debug']])) {
      wrapConsole(method, level);
    }
    wrapAssert();
  });
  install(wrapFetch);
  install(wrapXhr);
  install(wrapWebSocket);
  install(() => {
    listen(W, 'error', onError, true);
    listen(W, 'unhandledrejection', onRejection, true);
    listen(W, 'message', onMessage);
    const opts = { capture: true, passive: true };
    listen(document, 'click', onClick, opts);
    listen(document, 'input', onInput, opts);
    listen(document, 'change', onChange, opts);
    listen(document, 'keydown', onKeydown, opts);
    listen(document, 'submit', onSubmit, opts);
    listen(document, 'focusout', onFocusOut, opts);
    const nav = W.navigation;
    if (nav && typeof nav.addEventListener === 'function') {
      listen(nav, 'currententrychange', checkRoute);
      listen(nav, 'navigatesuccess', checkRoute);
    }
    listen(W, 'popstate', checkRoute);
    listen(W, 'hashchange', checkRoute);
  });
  install(() => {
    if (!nativeNavigationApi()) wrapHistory();
  });
  install(startPerformanceObservers);
  install(() => {
    listen(W, 'load', () => N.setTimeout(() => reportVitals(false), VITALS_AFTER_LOAD));
    listen(document, 'visibilitychange', () => {
      if (document.visibilityState === 'hidden') {
        flushInputs();
        reportVitals(false);
        flush();
      }
    });
    listen(W, 'pagehide', () => {
      flushInputs();
      reportVitals(false);
      flush();
    });
    listen(W, 'pageshow', (/** @type {PageTransitionEvent} */ e) => {
      if (!e.persisted) return;
      // Restored from the back/forward cache: a new page load without a new document.
      loadId = newId();
      bfcacheRestore = true;
      Object.assign(V, { fcp: undefined, lcp: undefined, cls: V.cls === undefined ? undefined : 0, clsSession: 0, interactions: 0, longest: [], inp: undefined, lastSent: '' });
      V.ids.clear();
      startLoad('back_forward');
    });
  });

  function nativeNavigationApi() {
    return !!(W.navigation && typeof W.navigation.addEventListener === 'function');
  }

  /** Without the Navigation API, see pushState / replaceState by wrapping them. */
  function wrapHistory() {
    for (const method of ['pushState', 'replaceState']) {
      const original = History.prototype[/** @type {'pushState'} */ (method)];
      if (typeof original !== 'function') continue;
      const wrapper = {
        /** @this {History} */
        [method]() {
          const result = original.apply(this, /** @type {any} */ (arguments));
          try {
            checkRoute();
          } catch {
            oops();
          }
          return result;
        },
      }[method];
      History.prototype[/** @type {'pushState'} */ (method)] = likeOriginal(wrapper, original);
    }
  }

  Object.defineProperty(W, KEY, {
    value: Object.freeze({
      version: VERSION,
      /** Send what is queued now. */
      flush: () => flush(),
      /** Counters for diagnostics: internal errors, batches and events sent, drops by kind. */
      stats: () => ({ ...stats, dropped: { ...stats.dropped }, queued: queue.length, enabled: cfg.enabled, loadId }),
    }),
  });

  install(() => startLoad(initialNavType()));
})();
