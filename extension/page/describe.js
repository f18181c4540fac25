// tabmcp telemetry, 4 of 11: page values and elements as plain data (after queue.js).
// Two steps, so an event can wait for the redaction rules: `snap*` copies a live value or element
// into plain, bounded data at capture time (later the page may have changed); `*Text` / `finish*`
// apply the rules when the event is built. Getters are never invoked.
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { W, N, cap, collapse } = T;
  const { MARK, known, isSecretKey, redactText, redactBody, safeText, sensitiveField } = T.redact;
  const { LIMITS } = T.queue;

  // --- Page values (console arguments, rejection reasons) ---

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
   * Cycle-safe, capped JSON text of a page value, always valid JSON (so the rules apply later as
   * to any body); getters are not invoked, and keys the rules know as secret lose their values here.
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
      if (size > limit) {
        put('"…"');
        return;
      }
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
    return out.join('');
  }

  /**
   * A page value copied as plain data: `{s}` a page string (bounded), `{p}` text to show as it is
   * (a number, a DOM node's descriptor...), `{e}` an error's text, `{j}` an object's JSON (`keyed`:
   * its secret keys already lost their values, the rules being known when it was copied).
   * `v` keeps a number or bigint for printf's %d / %i / %f.
   * @typedef {{s?: string, p?: string, e?: string, j?: string, keyed?: boolean, v?: number | bigint}} Snap
   * @param {any} a
   * @returns {Snap}
   */
  function snapValue(a) {
    switch (typeof a) {
      case 'string':
        return { s: a.length > LIMITS.arg * 4 ? a.slice(0, LIMITS.arg * 4) : a };
      case 'number':
        return { p: String(a), v: a };
      case 'bigint':
        return { p: `${a}n`, v: a };
      case 'boolean':
      case 'undefined':
        return { p: String(a) };
      case 'symbol':
        return { p: a.toString() };
      case 'function':
        return { p: `[Function ${a.name || 'anonymous'}]` };
      default:
    }
    if (a === null) return { p: 'null' };
    if (isNode(a)) return { p: describeNode(a) };
    if (isErrorLike(a)) {
      const text = errorText(a);
      return { e: text.length > LIMITS.arg * 2 ? text.slice(0, LIMITS.arg * 2) : text };
    }
    return { j: jsonish(a, LIMITS.arg), keyed: known() };
  }

  /** A copied value as redacted text. @param {Snap} a */
  function snapText(a) {
    if (a.s !== undefined) return cap(redactBody(a.s), LIMITS.arg);
    if (a.e !== undefined) return safeText(a.e, LIMITS.arg);
    // Copied before the rules: parsed, so its keys get them too; else the text rules suffice.
    if (a.j !== undefined) return cap(a.keyed ? redactText(a.j) : redactBody(a.j), LIMITS.arg);
    return a.p || '';
  }

  // --- Elements: every way to name one, best first ---

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

  /** @typedef {{testId?: string, role?: string, name?: string, label?: string, text?: string, css: string}} Selectors */

  /** @param {string} s */
  const bounded = (s) => (s.length > LIMITS.name * 4 ? s.slice(0, LIMITS.name * 4) : s);

  /** An element's selectors as the page shows them now, not yet redacted. @param {Element} el @returns {Selectors} */
  function snapSelectors(el) {
    /** @type {Selectors} */
    const s = { css: '' };
    const testId = el.getAttribute('data-testid');
    if (testId) s.testId = cap(testId, LIMITS.name);
    const role = roleOf(el);
    if (role && role !== 'presentation' && role !== 'none') s.role = role;
    const name = accessibleName(el, role);
    if (name) s.name = bounded(name);
    if (isField(el)) {
      const label = labelsText(el) || labelledBy(el) || collapse(el.getAttribute('aria-label'));
      if (label) s.label = bounded(label);
    } else if (!CONTAINERS.has(el.localName)) {
      const text = collapse(el.textContent);
      if (text && text.length <= 80) s.text = text;
    }
    s.css = cssPath(el);
    return s;
  }

  /** Copied selectors with the rules applied to the texts. @param {Selectors} raw @returns {Selectors} */
  function finishSelectors(raw) {
    const s = { ...raw };
    if (s.name) s.name = safeText(s.name, LIMITS.name);
    if (s.label) s.label = safeText(s.label, LIMITS.name);
    if (s.text) s.text = redactText(s.text);
    return s;
  }

  /** @param {Element} el */
  const selectorsOf = (el) => finishSelectors(snapSelectors(el));

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

  /** Should this field's value never leave the page? @param {Element} el @param {string} value */
  const sensitiveValue = (el, value) => sensitiveField(el, value, isField(el) ? labelsText(el) : '');

  /**
   * A field's value copied: `secret` when it must never leave the page whatever the rules.
   * @typedef {{value: string, secret: boolean}} FieldSnap
   * @param {Element} el @param {string} value @returns {FieldSnap}
   */
  const snapField = (el, value) => {
    const secret = sensitiveValue(el, value);
    return { value: secret ? '' : value.length > LIMITS.value * 2 ? value.slice(0, LIMITS.value * 2) : value, secret };
  };
  /** @param {FieldSnap} f */
  const fieldText = (f) => (f.secret ? MARK : safeText(f.value, LIMITS.value));

  T.describe = Object.freeze({
    isErrorLike,
    errorText,
    snapValue,
    snapText,
    isField,
    snapSelectors,
    finishSelectors,
    selectorsOf,
    fieldValue,
    sensitiveValue,
    snapField,
    fieldText,
  });
})();
