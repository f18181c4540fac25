// tabmcp telemetry, 5 of 11: page loads, navigations and the person's actions (after describe.js):
// the trusted events a test would replay (clicks, debounced typing, changes, keys that act,
// submits). Secret fields' values never leave the page.
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { W, N, now, listen, oops, load, newId, cfg } = T;
  const { redactUrl } = T.redact;
  const { capture } = T.queue;
  const { snapSelectors, finishSelectors, isField, fieldValue, snapField, fieldText } = T.describe;

  const INPUT_DEBOUNCE = 500;

  // --- Page loads and navigations ---

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

  /** A navigation event and its action twin (`navigate` or `route`). @param {string} href @param {string} navType @param {string} action */
  function navigated(href, navType, action) {
    const loadId = load.id;
    const ts = now();
    capture('navigation', () => ({ kind: 'navigation', ts, loadId, url: redactUrl(href), navType }));
    capture('action', () => ({ kind: 'action', ts, action, url: redactUrl(href) }));
  }

  /** A new document load (or a page restored from the back/forward cache). @param {string} navType */
  function startLoad(navType) {
    lastUrl = location.href;
    navigated(lastUrl, navType, 'navigate');
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
    navigated(href, 'spa', 'route');
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
      History.prototype[/** @type {'pushState'} */ (method)] = T.likeOriginal(wrapper, original);
    }
  }

  // --- User actions ---

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

  /**
   * @param {string} action @param {Element | null} el
   * @param {{key?: string, field?: {value: string, secret: boolean}}} [extra] @param {number} [ts]
   */
  function emitAction(action, el, extra, ts) {
    const at = ts || now();
    const href = location.href;
    const selectors = el ? snapSelectors(el) : null;
    const tag = el ? el.localName : '';
    capture('action', () => {
      /** @type {Record<string, any> & {kind: string, ts: number}} */
      const ev = { kind: 'action', ts: at, action, url: redactUrl(href) };
      if (selectors) {
        ev.selectors = finishSelectors(selectors);
        ev.tag = tag;
      }
      if (extra && extra.key) ev.key = extra.key;
      if (extra && extra.field) ev.value = fieldText(extra.field);
      return ev;
    });
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
    emitAction(p ? 'input' : 'change', el, { field: snapField(el, value) }, p ? p.ts : undefined);
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
        emitAction('change', el, { field: snapField(el, value) });
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

  // --- Install ---

  T.install(() => {
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
    } else {
      wrapHistory();
    }
    listen(W, 'popstate', checkRoute);
    listen(W, 'hashchange', checkRoute);
    // Leaving: the value typed so far is reported before the last batch (start.js sends it).
    listen(document, 'visibilitychange', () => {
      if (document.visibilityState === 'hidden') flushInputs();
    });
    listen(W, 'pagehide', flushInputs);
    listen(W, 'pageshow', (/** @type {PageTransitionEvent} */ e) => {
      if (!e.persisted) return;
      // Restored from the back/forward cache: a new page load without a new document.
      load.id = newId();
      startLoad('back_forward');
    });
  });

  T.loads = Object.freeze({
    navEntry,
    /** Record this document's load (start.js, once every script is in place). */
    start: () => startLoad(initialNavType()),
    /** Capture was switched off (nothing typed is held) or back on (routes count from here). @param {boolean} enabled */
    switched(enabled) {
      if (enabled) {
        lastUrl = location.href;
        return;
      }
      for (const [, p] of pendingInputs) N.clearTimeout(p.timer);
      pendingInputs.clear();
    },
  });
})();
