// tabmcp telemetry, 6 of 11: the console, uncaught errors and unhandled rejections (after actions.js).
// Wraps the console methods (the page's call still runs as it would); each console.error is also
// an `error` event with its own budget, so errors survive a log flood. Uncaught errors are seen in
// the capture phase; the page's handlers and the browser still get them.
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { W, now, listen, oops, guard, likeOriginal, install, cfg } = T;
  const { redactUrl, redactBody, safeText } = T.redact;
  const { LIMITS, room, record, drop } = T.queue;
  const { isErrorLike, errorText, snapValue, snapText } = T.describe;

  /** @param {string} s @param {number} n */
  const capped = (s, n) => (s.length > n ? `${s.slice(0, n)}…` : s);

  /**
   * Console arguments copied at the call: a leading format string and the values it may use.
   * @typedef {{format: string | null, items: import('./describe.js').Snap[], count: number}} ConsoleSnap
   * @param {ArrayLike<any>} args @returns {ConsoleSnap}
   */
  function snapConsole(args) {
    const format = args.length > 1 && typeof args[0] === 'string' && args[0].includes('%') ? args[0] : null;
    const specifiers = format ? (format.match(/%/g) || []).length : 0;
    const n = Math.min(args.length, LIMITS.args + specifiers);
    const items = [];
    for (let i = format ? 1 : 0; i < n; i++) items.push(snapValue(args[i]));
    return { format: format && format.length > LIMITS.arg * 4 ? format.slice(0, LIMITS.arg * 4) : format, items, count: args.length };
  }

  /**
   * The arguments as strings, with printf-style substitutions (%s %d %i %f %o %O %c) applied to a
   * leading format string, as the browser's console shows them; redacted and capped.
   * @param {ConsoleSnap} snap @returns {string[]}
   */
  function consoleTexts(snap) {
    /** @type {string[]} */
    const out = [];
    const items = snap.items;
    let i = 0; // index in items (arguments after the format string, if any)
    let index = 0; // index in the page's arguments
    if (snap.format !== null) {
      const text = snap.format.replace(/%([sdifoOc%])/g, (m, f) => {
        if (f === '%') return '%';
        if (i >= items.length || 1 + i >= snap.count) return m;
        const a = items[i++];
        switch (f) {
          case 's':
            return a.s !== undefined ? a.s : snapText(a);
          case 'd':
          case 'i':
            return typeof a.v === 'number' ? String(Math.trunc(a.v)) : typeof a.v === 'bigint' ? `${a.v}n` : 'NaN';
          case 'f':
            return typeof a.v === 'number' ? String(a.v) : 'NaN';
          case 'c':
            return '';
          default:
            return snapText(a);
        }
      });
      out.push(capped(redactBody(text.length > LIMITS.arg * 4 ? text.slice(0, LIMITS.arg * 4) : text), LIMITS.arg));
      index = 1 + i;
    }
    const n = Math.min(snap.count, LIMITS.args);
    for (; index < n; index++, i++) out.push(snapText(items[i]));
    if (snap.count > n) out.push(`… ${snap.count - n} more arguments`);
    let total = 0;
    for (let k = 0; k < out.length; k++) {
      total += out[k].length + 1;
      if (total > LIMITS.eventArgs) {
        out[k] = capped(out[k], Math.max(0, out[k].length - (total - LIMITS.eventArgs)));
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
  /** @param {string} s @param {number} n */
  const bounded = (s, n) => (s.length > n * 2 ? s.slice(0, n * 2) : s);

  // --- Console ---

  /**
   * @param {'log'|'info'|'warn'|'error'|'debug'} level
   * @param {ArrayLike<any>} args
   * @param {Function} wrapper
   * @param {string} [prefix] e.g. "Assertion failed:"
   */
  function onConsole(level, args, wrapper, prefix) {
    guard.busy = true;
    try {
      if (typeof args[0] === 'string' && args[0].startsWith('[tabmcp]')) return; // the extension's own logs
      const wantLog = room('console');
      const wantError = level === 'error' && room('error');
      if (!wantLog && !wantError) return;
      const ts = now();
      const snap = snapConsole(args);
      /** @type {string[] | null} */
      let texts = null;
      const textsOf = () => {
        if (!texts) {
          texts = consoleTexts(snap);
          if (prefix) texts.unshift(prefix);
        }
        return texts;
      };
      const stack = level === 'error' || level === 'warn' ? bounded(callerStack(wrapper), LIMITS.stack) : '';
      if (wantLog) {
        record('console', () => {
          /** @type {Record<string, any> & {kind: string, ts: number}} */
          const ev = { kind: 'console', ts, level, args: textsOf() };
          const source = sourceOf(stack);
          if (source) ev.source = source;
          return ev;
        });
      }
      if (wantError) {
        const first = args[0];
        const errStack = first && typeof first === 'object' && isErrorLike(first) ? bounded(errorText(first), LIMITS.stack) : stack;
        record('error', () => {
          /** @type {Record<string, any> & {kind: string, ts: number}} */
          const ev = { kind: 'error', ts, message: textsOf().join(' '), errorType: 'console' };
          if (errStack) ev.stack = safeText(errStack, LIMITS.stack);
          const source = sourceOf(stack);
          if (source) ev.source = source;
          return ev;
        });
      }
    } catch {
      oops();
      drop(level === 'error' ? 'error' : 'console'); // never lost silently
    } finally {
      guard.busy = false;
    }
  }

  /**
   * A wrapper's two halves, for the Firefox build's console-firefox.js (why: its header). They give
   * a page nothing it has not: the browser's method and a recording of what it could log.
   */
  const SPLIT = Symbol.for('tabmcp.console.split');
  /** @param {Function} wrapper @param {(args: ArrayLike<any>) => void} record @param {Function} original */
  function split(wrapper, record, original) {
    Object.defineProperty(wrapper, SPLIT, { value: Object.freeze({ record, original }) });
    return likeOriginal(wrapper, original);
  }

  /** @param {string} method @param {'log'|'info'|'warn'|'error'|'debug'} level */
  function wrapConsole(method, level) {
    const c = /** @type {any} */ (W.console);
    const original = c && c[method];
    if (typeof original !== 'function') return;
    /** @param {ArrayLike<any>} args */
    const record = (args) => {
      if (!guard.busy && cfg.enabled) onConsole(level, args, wrapper);
    };
    const wrapper = {
      /** @this {any} */
      [method]() {
        record(arguments);
        return original.apply(this, arguments);
      },
    }[method];
    c[method] = split(wrapper, record, original);
  }

  function wrapAssert() {
    const c = /** @type {any} */ (W.console);
    const original = c && c.assert;
    if (typeof original !== 'function') return;
    /** @param {ArrayLike<any>} args */
    const record = (args) => {
      if (!args[0] && !guard.busy && cfg.enabled) {
        const rest = Array.prototype.slice.call(args, 1);
        onConsole('error', rest, wrapper, rest.length ? 'Assertion failed:' : 'Assertion failed');
      }
    };
    const wrapper = {
      /** @this {any} (no parameters: likeOriginal gives it the native's length) */
      assert() {
        record(arguments);
        return original.apply(this, arguments);
      },
    }.assert;
    c.assert = split(wrapper, record, original);
  }

  // --- Uncaught errors and unhandled rejections ---

  /** @param {ErrorEvent} e */
  function onError(e) {
    if (!cfg.enabled || guard.busy) return;
    try {
      if (!(e instanceof ErrorEvent) || e.target !== W) return; // resource load errors are not exceptions
      if (!room('error')) return;
      const ts = now();
      const err = /** @type {any} */ (e.error);
      let message = e.message || '';
      if (err && typeof err === 'object' && isErrorLike(err)) message = `${err.name || 'Error'}: ${err.message}`;
      else if (message.startsWith('Uncaught ')) message = message.slice(9);
      message = bounded(message || 'Script error.', LIMITS.message);
      const stack = err && typeof err === 'object' && typeof err.stack === 'string' ? bounded(err.stack, LIMITS.stack) : null;
      const file = e.filename ? { url: e.filename, line: e.lineno || 0, col: e.colno || 0 } : null;
      record('error', () => {
        /** @type {Record<string, any> & {kind: string, ts: number}} */
        const ev = { kind: 'error', ts, message: safeText(message, LIMITS.message), errorType: 'uncaught' };
        if (stack !== null) ev.stack = safeText(stack, LIMITS.stack);
        if (file) ev.source = { ...file, url: redactUrl(file.url) };
        return ev;
      });
    } catch {
      oops();
    }
  }

  /** @param {PromiseRejectionEvent} e */
  function onRejection(e) {
    if (!cfg.enabled || guard.busy) return;
    guard.busy = true;
    try {
      if (!room('error')) return;
      const ts = now();
      const reason = /** @type {any} */ (e.reason);
      const isErr = reason && typeof reason === 'object' && isErrorLike(reason);
      const message = isErr ? bounded(`${reason.name || 'Error'}: ${reason.message}`, LIMITS.message) : null;
      const value = isErr ? null : snapValue(reason);
      const stack = isErr && typeof reason.stack === 'string' ? bounded(reason.stack, LIMITS.stack) : null;
      record('error', () => {
        const text = value ? `Unhandled rejection: ${snapText(value)}` : /** @type {string} */ (message);
        /** @type {Record<string, any> & {kind: string, ts: number}} */
        const ev = { kind: 'error', ts, message: safeText(text, LIMITS.message), errorType: 'unhandledrejection' };
        if (stack !== null) {
          ev.stack = safeText(stack, LIMITS.stack);
          const source = sourceOf(stack);
          if (source) ev.source = source;
        }
        return ev;
      });
    } catch {
      oops();
    } finally {
      guard.busy = false;
    }
  }

  install(() => {
    for (const [method, level] of /** @type {const} */ ([['log', 'log'], ['info', 'info'], ['warn', 'warn'], ['error', 'error'], ['debug', 'debug'], ['trace', 'debug']])) {
      wrapConsole(method, level);
    }
    wrapAssert();
  });
  install(() => {
    listen(W, 'error', onError, true);
    listen(W, 'unhandledrejection', onRejection, true);
  });
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbInRhYm1jcC1jYXB0dXJlL3BhZ2UvY29uc29sZS5qcyJdLCJzb3VyY2VzQ29udGVudCI6WyIvLyB0YWJtY3AncyBjb25zb2xlIGNhcHR1cmUgKHBhZ2UvY29uc29sZS5qcyksIGlnbm9yZS1saXN0ZWQ6IERldlRvb2xzIHNob3dzIGEgcGFnZSdzIGNvbnNvbGUgbWVzc2FnZXMgYXQgdGhlIHBhZ2UncyBvd24gbGluZSwgbm90IGF0IHRoaXMgd3JhcHBlci4iXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUE7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQTtBQUNBO0FBQ0E7QUFDQSIsImlnbm9yZUxpc3QiOlswXX0=
