// tabmcp telemetry, 9 of 11: live page queries (after vitals.js): `dom`, `page`, `vitals`.
// Accessibility audits run in the worker's own axe-core, where the page cannot patch `axe`.
// Answers are redacted like events (a query waits for the rules), and what a query does in the
// page is not captured.
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { W, N, noop, oops, cap, collapse, load, guard, install, cfg } = T;
  const { PAGE } = T.MSG;
  const { ERROR, QUERY } = T.WIRE;
  const { MARK, isSecretKey, redactText, redactUrl, whenKnown } = T.redact;
  const { LIMITS } = T.queue;
  const { isField, selectorsOf, fieldValue, sensitiveValue, snapField, fieldText } = T.describe;

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
      out.value = fieldText(snapField(el, value));
    }
    if (withHtml) out.html = cap(redactText(el.outerHTML), LIMITS.html);
    return out;
  }

  /** @param {Record<string, any>} args */
  function queryDom(args) {
    const selector = args.selector;
    if (typeof selector !== 'string' || !selector.trim()) throw queryError(ERROR.INVALID_SELECTOR, 'selector must be a non-empty CSS selector');
    let list;
    try {
      list = N.qsa.call(document, selector);
    } catch (err) {
      throw queryError(ERROR.INVALID_SELECTOR, `not a valid CSS selector: ${selector} (${/** @type {any} */ (err).message})`);
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
      loadId: load.id,
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
      telemetry: { version: T.VERSION, enabled: cfg.enabled },
    };
  }

  /** @param {string} requestId @param {boolean} ok @param {any} payload */
  function reply(requestId, ok, payload) {
    const type = PAGE.pageResult;
    const msg = ok ? { type, requestId, ok: true, result: payload } : { type, requestId, ok: false, error: payload };
    try {
      T.channel.send(msg);
    } catch (err) {
      oops();
      T.channel.send({ type, requestId, ok: false,
        error: { code: ERROR.QUERY_FAILED, message: `the answer could not be sent: ${/** @type {any} */ (err).message}` } });
    }
  }

  /** @param {Record<string, any>} msg */
  async function answerQuery(msg) {
    const requestId = String(msg.requestId);
    const args = msg.args && typeof msg.args === 'object' ? msg.args : {};
    guard.busy = true;
    try {
      let result;
      switch (msg.kind) {
        case QUERY.dom:
          result = queryDom(args);
          break;
        case QUERY.page:
          result = queryPage();
          break;
        case QUERY.vitals:
          result = T.vitals.query();
          break;
        default:
          throw queryError(ERROR.UNKNOWN_QUERY, `unknown page query kind: ${msg.kind}`);
      }
      reply(requestId, true, result);
    } catch (err) {
      const e = /** @type {any} */ (err);
      reply(requestId, false, { code: (e && e.code) || ERROR.QUERY_FAILED, message: String((e && e.message) || e) });
    } finally {
      guard.busy = false;
    }
  }

  /** A query from the bridge, on the capture's own line (natives.js): the page can neither read nor post one. @param {Record<string, any>} msg */
  function onQuery(msg) {
    if (msg.requestId == null) return;
    // Answers are redacted: before the rules arrive, the query waits for them (the bridge's
    // deadline still ends it).
    whenKnown(() => N.then.call(answerQuery(msg), noop, oops));
  }

  install(() => T.channel.on(PAGE.pageQuery, onQuery));
})();
