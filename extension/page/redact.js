// tabmcp telemetry, 2 of 11: redaction (after natives.js).
//
// The page redacts with the bridge's rules only: `telemetry.config` (TelemetrySettings.page_config
// in bridge/tabmcp/core/telemetry/settings.py, relayed by the extension on connect and on every
// change) carries the whole rule set, and there is no copy of it here. Until the first rules
// arrive, `known()` is false: queue.js holds every captured event in the page (built later, with
// the rules) and query.js holds every query, so nothing leaves the page unredacted.
// The bridge re-applies its rules on ingest. Every pattern arrives compiled for JavaScript by the
// bridge ({source, flags}, bridge/tabmcp/core/js_regex.py): nothing here reads Python's syntax.
// The fixed shapes (card digits, secret field names, form bodies) come the same way, generated
// into protocol.generated.js (PATTERNS) since a field is checked before any config arrives, with
// the secret autocomplete tokens (FIELDS). The steps below are core/telemetry/redact.py's, held to
// them by the shared vectors of bridge/tests/parity/ (run in node and in Python) and by a
// differential test that runs both on generated inputs (test_redaction_differential.py).
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { N, oops, cap } = T;

  const MARK = '[REDACTED]';
  /**
   * A pattern the bridge compiled for JavaScript ({source, flags}: bridge/tabmcp/core/js_regex.py),
   * with `extra` flags; `null` if it is not one or does not compile.
   * @param {unknown} pattern @param {string} [extra]
   * @returns {RegExp | null}
   */
  function compile(pattern, extra = '') {
    const p = /** @type {any} */ (pattern);
    if (!p || typeof p.source !== 'string' || typeof p.flags !== 'string') return null;
    try {
      return new RegExp(p.source, p.flags + extra);
    } catch {
      oops();
      return null;
    }
  }
  /** The fixed shapes both sides redact by, as the bridge wrote them (protocol.generated.js PATTERNS). */
  const { PATTERNS } = T.WIRE;
  /** A space, a hyphen, or a no-break / thin / narrow / zero-width space between a card's digits. */
  const CARD_RUN = /** @type {RegExp} */ (compile(PATTERNS.cardRun, 'g'));
  const CARD_PREFIX = /** @type {RegExp} */ (compile(PATTERNS.cardPrefix));
  /** Field names / labels that mark an input's value as secret (as the bridge's action rule). */
  const SENSITIVE_HINT = /** @type {RegExp} */ (compile(PATTERNS.sensitiveHint));
  /** Between the digits a field holds; a field value that is all card digits. */
  const FIELD_GAPS = /** @type {RegExp} */ (compile(PATTERNS.fieldGaps, 'g'));
  const FIELD_CARD = /** @type {RegExp} */ (compile(PATTERNS.fieldCard));
  /** A URL's scheme, user and password (to the last `@` of its authority, as browsers read it). */
  const URL_PASSWORD = /** @type {RegExp} */ (compile(PATTERNS.urlPassword));
  /** The autocomplete tokens of secret and card fields, as forms.js and the bridge read them (FIELDS). */
  const { secretAutocomplete, paymentAutocompletePrefix } = T.WIRE.FIELDS;
  /** What separates those tokens (ECMA's and Python's whitespace together, as the bridge splits them). */
  const AUTOCOMPLETE_GAPS = /** @type {RegExp} */ (compile(T.WIRE.FIELDS.autocompleteGaps));

  /** What a key name loses before it is compared (as the bridge's normalize_key). */
  const KEY_GAPS = /** @type {RegExp} */ (compile(PATTERNS.keyGaps, 'g'));
  /** @param {unknown} name */
  const normKey = (name) => String(name).toLowerCase().replace(KEY_GAPS, '');

  const R = {
    /** No rules yet: nothing may leave the page. */
    known: false,
    keys: /** @type {string[]} */ ([]),
    exact: /** @type {Set<string>} */ (new Set()),
    headers: /** @type {Set<string>} */ (new Set()),
    patterns: /** @type {RegExp[]} */ ([]),
    /** Text without a match skips `patterns` (they all need one of its words); null: always run them. */
    gate: /** @type {RegExp | null} */ (null),
    custom: /** @type {RegExp[]} */ ([]),
    cards: false,
    cache: /** @type {Map<string, boolean>} */ (new Map()),
  };
  /** @type {Array<() => void>} */
  const waiting = [];

  /**
   * Take the rules of a telemetry.config: the whole rule set, as configured in the bridge — its
   * key names (`keys`: contained, `exactKeys`: whole), the patterns it kept from its defaults
   * (`patterns`, skipped for text `gate` does not match), the ones added in its config
   * (`customPatterns`, always run), `cardNumbers`; `headers` are extra secret header names. Every
   * pattern arrives compiled for JavaScript by the bridge ({source, flags}).
   * The first call releases what waited for the rules (`whenKnown`).
   * @typedef {{source: string, flags: string}} JsRegExp
   * @param {{headers?: string[], keys?: string[], exactKeys?: string[], patterns?: JsRegExp[],
   *   customPatterns?: JsRegExp[], gate?: JsRegExp, cardNumbers?: boolean}} rules
   */
  function setRules(rules) {
    const list = (/** @type {unknown} */ v) => (N.isArray(v) ? /** @type {unknown[]} */ (v).filter((x) => typeof x === 'string' && x) : []);
    const patterns = (/** @type {unknown} */ v) => (N.isArray(v) ? /** @type {unknown[]} */ (v) : [])
      .map((p) => compile(p, 'gd')).filter((p) => p !== null);
    R.keys = [...new Set(list(rules.keys).map(normKey).filter(Boolean))];
    R.exact = new Set(list(rules.exactKeys).map(normKey).filter(Boolean));
    R.headers = new Set(list(rules.headers).map(normKey).filter(Boolean));
    R.patterns = patterns(rules.patterns);
    R.gate = compile(rules.gate);
    R.custom = patterns(rules.customPatterns);
    R.cards = rules.cardNumbers !== false;
    R.cache.clear();
    if (R.known) return;
    R.known = true;
    for (const fn of waiting.splice(0)) {
      try {
        fn();
      } catch {
        oops();
      }
    }
  }

  /** Run `fn` once the rules are known (now, if they are). @param {() => void} fn */
  function whenKnown(fn) {
    if (R.known) fn();
    else waiting.push(fn);
  }

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
    if (!R.gate || R.gate.test(s)) for (const re of R.patterns) s = applyPattern(re, s);
    for (const re of R.custom) s = applyPattern(re, s);
    if (R.cards && s.length >= 13) {
      s = s.replace(CARD_RUN, (run) => (isCardNumber(run.replace(/\D/g, '')) ? MARK : run));
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
    let s = url.replace(URL_PASSWORD, (m, scheme, user, pass) => (pass === MARK ? m : `${scheme}${user}:${MARK}@`));
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

  /** Redacted and capped, with the regular expressions run over a bounded string. @param {string} s @param {number} n */
  const safeText = (s, n) => cap(redactText(s.length > n * 2 ? s.slice(0, n * 2) : s), n);

  /** @param {Record<string, string>} headers */
  function redactHeaders(headers) {
    /** @type {Record<string, string>} No prototype: a header named `__proto__` is kept like any other. */
    const out = { __proto__: null };
    for (const name of N.keys(headers)) out[name] = isSecretKey(name) ? MARK : safeText(headers[name], 4000);
    return out;
  }

  /** Levels of JSON walked (redact.py JSON_DEPTH): a body nested deeper is replaced whole. */
  const JSON_DEPTH = 64;

  /**
   * Walk parsed JSON: secret keys lose their values, strings go through the text rules.
   * @param {any} v @param {{changed: boolean, deep: boolean}} st @param {number} depth
   * @returns {any}
   */
  function redactJson(v, st, depth) {
    if (depth > JSON_DEPTH) {
      st.deep = true;
      return v;
    }
    if (typeof v === 'string') {
      const r = redactText(v);
      if (r !== v) st.changed = true;
      return r;
    }
    if (typeof v === 'number') {
      if (R.cards && Number.isInteger(v) && v > 1e12 && isCardNumber(String(v))) {
        st.changed = true;
        return MARK;
      }
      return v;
    }
    if (N.isArray(v)) return v.map((x) => redactJson(x, st, depth + 1));
    if (v && typeof v === 'object') {
      /** @type {Record<string, any>} No prototype: a key named `__proto__` is kept like any other. */
      const out = { __proto__: null };
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

  /** How a JSON body starts and ends (PATTERNS): anything else is not parsed. */
  const JSON_START = /** @type {RegExp} */ (compile(PATTERNS.jsonStart));
  const JSON_END = /** @type {RegExp} */ (compile(PATTERNS.jsonEnd));
  const FORM = /** @type {RegExp} */ (compile(PATTERNS.form));

  /**
   * Redact a body, a frame or a log argument, keeping its format: JSON is parsed (and
   * re-serialized only when something was replaced), form bodies stay forms, anything else
   * gets the text rules.
   * @param {string} body @param {string | null} [mime]
   */
  function redactBody(body, mime) {
    if (typeof body !== 'string' || !body) return body;
    const jsonMime = !!mime && /json/i.test(mime);
    if ((jsonMime || JSON_START.test(body)) && JSON_END.test(body)) {
      let parsed;
      let ok = false;
      try {
        parsed = N.parse(body);
        ok = true;
      } catch {
        /* not JSON after all (or truncated) */
      }
      if (ok) {
        const st = { changed: false, deep: false };
        const redacted = redactJson(parsed, st, 0);
        if (st.deep) return MARK;
        return st.changed ? N.stringify(redacted) : body;
      }
    }
    if ((mime && /x-www-form-urlencoded/i.test(mime)) || (body.length < 100000 && body.includes('=') && FORM.test(body))) {
      return redactText(redactParams(body));
    }
    return redactText(body);
  }

  /**
   * Should this field's value never leave the page, whatever the rules? (A password or card
   * field, a one-time code, a name or label that says so, a value that is a card number: the
   * same steps as the bridge's sensitive_field in core/telemetry/redact.py, from the same lists.)
   * @param {Element} el @param {string} value @param {string} labels the text of its <label>s
   */
  function sensitiveField(el, value, labels) {
    const any = /** @type {any} */ (el);
    if (el.localName === 'input' && String(any.type).toLowerCase() === 'password') return true;
    const tokens = String(el.getAttribute('autocomplete') || '').toLowerCase().split(AUTOCOMPLETE_GAPS);
    if (tokens.some((t) => t.startsWith(paymentAutocompletePrefix) || secretAutocomplete.includes(t))) return true;
    const hints = [el.getAttribute('name'), el.id, el.getAttribute('data-testid'), el.getAttribute('aria-label'),
      el.getAttribute('placeholder'), labels].filter(Boolean).join(' ');
    if (SENSITIVE_HINT.test(hints)) return true;
    const digits = value.replace(FIELD_GAPS, '');
    return FIELD_CARD.test(digits) && luhn(digits);
  }

  T.redact = Object.freeze({
    MARK,
    known: () => R.known,
    whenKnown,
    setRules,
    isSecretKey,
    redactText,
    redactParams,
    redactUrl,
    redactHeaders,
    redactBody,
    safeText,
    sensitiveField,
  });
})();
