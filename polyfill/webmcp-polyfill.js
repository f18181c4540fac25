/*!
 * tabmcp WebMCP polyfill: classic script, no build step, no dependencies.
 *
 * - Provides the current WebMCP draft on `document.modelContext` where the browser has none
 *   (registerTool / getTools / executeTool, the toolchange / toolactivated / toolcancel events).
 * - Where the browser has a native `document.modelContext`, keeps it and only wraps `registerTool`
 *   and adds what is missing (categories, list(), page states, scope bookkeeping).
 * - Keeps the older shape as a deprecated alias on `navigator.modelContext`.
 * - Exposes a small internal hook for the tabmcp extension on
 *   `globalThis[Symbol.for('tabmcp.webmcp')]`.
 *
 * Loading it twice (or after another copy) changes nothing. Safe at document_start.
 * Reference: docs/polyfill.md. Types: polyfill/webmcp-polyfill.d.ts.
 *
 * GENERATED from the modules in polyfill/src/ by `python -m tabmcp.polyfill_js`: edit the
 * modules, or edit this file and run `python -m tabmcp.polyfill_js --split` (docs/polyfill.md).
 */
(function () {
  'use strict';

  // ==== src/types.js ====
  /**
   * The shapes the modules pass around (JSDoc only: this module holds no code).
   */

  /**
   * @typedef {{routes?: string[], states?: string[], dangerLevel?: 'safe'|'moderate'|'destructive',
   *            aiEnabled?: boolean, requiresApproval?: boolean, core?: boolean}} ToolScope
   * @typedef {{[hint: string]: boolean}} Hints
   * @typedef {{name: string, title: string, description: string, schemaJSON: string|undefined,
   *            outputJSON?: string, hints: Hints|undefined, execute: Function, scope: ToolScope|null, category: string|null,
   *            exposedTo: string[], form: FormDriver|null,
   *            controller: AbortController, signal: AbortSignal, fromNavigator: boolean}} ToolRecord
   * @typedef {{fill(input: any): void, submit(client: any): Promise<any>, cancel(): void}} FormDriver
   * @typedef {{name: string, description: string, members: string[], scope: ToolScope|null,
   *            controller: AbortController, signal: AbortSignal,
   *            refused?: {name: string, error: string}[]}} CategoryRecord
   * @typedef {{type: 'text', text: string}} TextContent
   * @typedef {{content: any[], structuredContent?: any, isError?: boolean, _meta?: any}} CallToolResult
   * @typedef {{status: 'ok', value: any, fromNative?: boolean} | {status: 'threw', error: any, nativeOnly?: boolean}
   *         | {status: 'cancelled', error: DOMException}
   *         | {status: 'aborted', reason: any} | {status: 'gone'}} Outcome
   * @typedef {{ok: true, result: CallToolResult} | {ok: false, error: {code: string, message: string},
   *            result?: CallToolResult, reason?: any}} CallOutcome
   */

  // esm: export {};

  // ==== src/constants.js ====
  /**
   * Names and limits every module reads: the hook's key, the version, the tool name rule, the
   * annotation hints, the scope keys, the result cap and Chromium's error messages.
   */

  const HOOK_KEY = Symbol.for('tabmcp.webmcp');
  const G = /** @type {any} */ (globalThis);
  /** Firefox: where a `ModelContext` says how a registration made on it reaches our registry (shared
   * with the extension's page/realm.js, which wraps the method in frames the polyfill does not run in). */
  const NAV_RELAY = Symbol.for('tabmcp.webmcp.relay');
  /** Firefox: on our wrapper of a native `ModelContext.prototype` method, the browser's own method. */
  const NAV_ORIGINAL = Symbol.for('tabmcp.webmcp.original');

  const VERSION = '0.1.0';

  const NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;
  /** Every annotation hint we keep, alphabetical (WebIDL reads dictionary members in this order). */
  const HINT_KEYS = ['consequentialHint', 'debugging', 'destructiveHint', 'idempotentHint',
    'openWorldHint', 'readOnlyHint', 'untrustedContentHint'];
  /** The hints Chromium's getTools() reports (always all four, normalized to booleans). */
  const NATIVE_HINT_KEYS = ['consequentialHint', 'debugging', 'readOnlyHint', 'untrustedContentHint'];
  const DANGER_LEVELS = ['safe', 'moderate', 'destructive'];
  const SCOPE_KEYS = ['routes', 'states', 'dangerLevel', 'aiEnabled', 'requiresApproval', 'core'];
  const EMPTY_SCHEMA_JSON = '{"type":"object","properties":{}}';
  const RESULT_LIMIT = 1024 * 1024; // bytes of JSON
  const FOREIGN_REFRESH_MS = 50; // native mode: a refresh waits for the toolchanges to be this long quiet
  const FOREIGN_REFRESH_MAX_MS = 1000; // … but no longer than this after the first of them
  const MSG_INVOCATION_FAILED =
    'Tool was executed but the invocation failed. For example, the script function threw an error';
  const MSG_TRANSIENT = 'The operation failed for an unknown transient reason (e.g. out of memory).';

  // esm: export {
  // esm:   DANGER_LEVELS, EMPTY_SCHEMA_JSON, G, HINT_KEYS, HOOK_KEY, MSG_INVOCATION_FAILED, MSG_TRANSIENT, NAME_RE,
  // esm:   FOREIGN_REFRESH_MAX_MS, FOREIGN_REFRESH_MS, NATIVE_HINT_KEYS, NAV_ORIGINAL, NAV_RELAY, RESULT_LIMIT, SCOPE_KEYS, VERSION,
  // esm: };

  // ==== src/util.js ====
  /**
   * Small helpers with no state of their own: WebIDL-style conversions and errors, error messages as
   * the console shows them, a macrotask queue, AbortSignal.any and byte lengths.
   */

  // esm: import { G } from './constants.js';

  /** @param {string} method @param {string} [iface] */
  const prefix = (method, iface = 'ModelContext') => `Failed to execute '${method}' on '${iface}': `;
  /** An object or a function (what WebIDL accepts as a dictionary). @param {any} v @returns {boolean} */
  const isObjectLike = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function';
  /** WebIDL DOMString conversion (throws a TypeError for symbols, like the browser). @param {unknown} v */
  const domString = (v) => `${v}`;
  /** @param {string} message @param {string} name */
  const domError = (message, name) => new DOMException(message, name);
  /** @param {string} a @param {string} b */
  const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  /** @param {any} v */
  const isPlainObject = (v) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    const proto = Object.getPrototypeOf(v);
    return proto === Object.prototype || proto === null;
  };

  /** Runs fn in a later task (not throttled like setTimeout in background tabs). */
  const macrotask = (() => {
    /** @type {Array<() => void>} */
    const queue = [];
    let channel = /** @type {MessageChannel|null} */ (null);
    return (/** @type {() => void} */ fn) => {
      if (!channel) {
        channel = new MessageChannel();
        channel.port1.onmessage = () => {
          const f = queue.shift();
          if (f) f();
        };
      }
      queue.push(fn);
      channel.port2.postMessage(null);
    };
  })();

  /** AbortSignal.any() (Chromium 116+), with a fallback. @param {AbortSignal[]} signals @returns {AbortSignal} */
  function anySignal(signals) {
    if (signals.length === 1) return signals[0];
    if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals);
    const controller = new AbortController();
    for (const s of signals) {
      if (s.aborted) {
        controller.abort(s.reason);
        break;
      }
      s.addEventListener('abort', () => controller.abort(s.reason), { once: true });
    }
    return controller.signal;
  }

  /** The page's own message for something it threw. @param {any} e @returns {string} */
  function errorMessage(e) {
    if (e && typeof e === 'object' && typeof e.message === 'string') {
      return e.message || (typeof e.name === 'string' && e.name) || 'Error';
    }
    if (typeof e === 'string') return e;
    try {
      const s = JSON.stringify(e);
      if (s !== undefined) return s;
    } catch (_) { /* fall through */ }
    try { return String(e); } catch (_) { return 'Unknown error'; }
  }

  /** Like the console text of an uncaught exception: "Error: boom". @param {any} e */
  function describeError(e) {
    if (e && typeof e === 'object' && typeof e.message === 'string') {
      return `${typeof e.name === 'string' ? e.name : 'Error'}: ${e.message}`;
    }
    return errorMessage(e);
  }

  /** How Chromium turns a tool's return value into executeTool()'s string. @param {any} v */
  function nativeStringify(v) {
    if (typeof v === 'string') return v;
    if (typeof v === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
    if (typeof v === 'function') return 'undefined';
    if (typeof v === 'object' && v !== null) {
      const s = JSON.stringify(v);
      return s === undefined ? 'undefined' : s;
    }
    return String(v);
  }

  const encoder = new TextEncoder();
  /** Bytes of s in UTF-8. @param {string} s */
  const utf8Length = (s) => encoder.encode(s).length;

  /** Runs fn and turns a synchronous throw into a rejected promise. @param {() => any} fn */
  function promiseFrom(fn) {
    try {
      return Promise.resolve(fn());
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** @param {string} method @param {number} got @param {number} [need] */
  function arity(method, got, need = 1, iface = 'ModelContext') {
    if (got < need) {
      throw new TypeError(`${prefix(method, iface)}${need} argument${need > 1 ? 's' : ''} required, but only ${got} present.`);
    }
  }

  /** @param {any} e */
  function reportError(e) {
    if (typeof G.reportError === 'function') G.reportError(e);
    else console.error(e);
  }

  // esm: export {
  // esm:   anySignal, arity, byName, describeError, domError, domString, errorMessage, isObjectLike, isPlainObject,
  // esm:   macrotask, nativeStringify, prefix, promiseFrom, reportError, utf8Length,
  // esm: };

  // ==== src/mode.js ====
  /**
   * Which mode this document runs in, decided once when the script runs: `native` when the browser
   * has its own `document.modelContext` (the polyfill layers on it), else polyfill mode; and the
   * browser's own methods, captured before the page (or we) change anything.
   */

  // esm: import { G, NAV_ORIGINAL } from './constants.js';

  const secure = G.isSecureContext !== false;
  /** @type {any} */
  let existing = null;
  try { existing = /** @type {any} */ (document).modelContext || null; } catch (_) { existing = null; }
  const native = !!existing;
  /** The browser's originals, captured before the page (or we) change anything. */
  const nat = native ? {
    mc: existing,
    registerTool: existing.registerTool,
    getTools: existing.getTools,
    executeTool: existing.executeTool,
  } : null;
  /** Firefox's native API (dom.modelcontext.enabled): on `navigator.modelContext` only, no events, a
   * `registerTool` that returns undefined. Kept as it is: tools registered through it or through our
   * `document.modelContext` reach both registries (the browser's, and ours that the extension runs). */
  let navNative = null;
  try {
    const n = /** @type {any} */ (navigator).modelContext;
    // The methods may already be our wrappers (page/realm.js ran in this window's first about:blank).
    const own = (/** @type {any} */ f) => (typeof f === 'function' && f[NAV_ORIGINAL]) || f;
    if (!native && n && Object.prototype.toString.call(n) === '[object ModelContext]' &&
        Function.prototype.toString.call(own(n.registerTool)).includes('[native code]')) {
      navNative = { mc: n, registerTool: own(n.registerTool), unregisterTool: own(n.unregisterTool) };
    }
  } catch (_) { navNative = null; }

  // esm: export { nat, native, navNative, secure };

  // ==== src/schema.js ====
  /**
   * Input schemas: the WebMCP draft's JSON Schema subset (checked at registration; refused only in
   * strict mode, otherwise accepted with one console warning per keyword, as Chromium accepts them)
   * and the validation of a call's input against a tool's schema.
   */

  // esm: import { domError, isPlainObject, prefix } from './util.js';
  // esm: import { native } from './mode.js';

  /**
   * Keywords the draft excludes from tool input schemas: references and definitions, vocabulary
   * the validator cannot check locally (format, content*), and the unevaluated / dependent ones.
   */
  const EXCLUDED_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef', '$defs', 'definitions', '$anchor',
    '$dynamicAnchor', 'format', 'contentEncoding', 'contentMediaType', 'contentSchema',
    'unevaluatedProperties', 'unevaluatedItems', 'dependentRequired', 'dependentSchemas', 'dependencies'];
  /** Keywords whose value is one subschema. */
  const SUBSCHEMA_KEYWORDS = ['not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalItems'];
  /** Keywords whose value is an array of subschemas. */
  const SUBSCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

  /** A RegExp for a schema `pattern` (ECMA-262 with the u flag, as JSON Schema says; plain as a fallback). @param {string} p */
  function schemaRegExp(p) {
    try { return new RegExp(p, 'u'); } catch (_) { return new RegExp(p); }
  }

  /** Does `text` match the schema pattern `p`? true when no RegExp can be made of it (not checked). @param {string} p @param {string} text */
  function patternMatches(p, text) {
    let re;
    try { re = schemaRegExp(p); } catch (_) { return true; }
    return re.test(text);
  }

  /**
   * Strict schemas: refuse what the draft's subset excludes (opt-in, for authors who want the
   * draft's rules). By default the polyfill accepts what Chromium's shipping implementation
   * accepts and warns once per keyword. Opt in with `<script src="webmcp-polyfill.js"
   * data-strict-schemas>` or `globalThis.webmcpPolyfillOptions = { strictSchemas: true }`
   * (read at each registration).
   */
  const strictByScript = (() => {
    try {
      const el = document.currentScript;
      return !!(el && el.hasAttribute('data-strict-schemas'));
    } catch (_) { return false; }
  })();
  function strictSchemas() {
    if (strictByScript) return true;
    try {
      const opts = /** @type {any} */ (globalThis).webmcpPolyfillOptions;
      return !!(opts && typeof opts === 'object' && opts.strictSchemas === true);
    } catch (_) { return false; }
  }
  /** @type {Set<string>} keywords already warned about */
  const warnedKeywords = new Set();
  /**
   * One console warning per keyword, in polyfill mode only: where the browser has WebMCP it decides
   * and says nothing, and so must the page's console with the extension installed.
   * @param {string} key @param {string} why
   */
  function warnKeyword(key, why) {
    if (native || warnedKeywords.has(key)) return;
    warnedKeywords.add(key);
    console.warn(`[webmcp-polyfill] input schema: ${why}; accepted as Chromium accepts it (not checked by the polyfill). `
      + 'Set webmcpPolyfillOptions.strictSchemas to refuse it as the WebMCP draft does.');
  }

  /**
   * Checks a schema against the draft's subset: in strict mode throws a TypeError for what the
   * subset excludes or an invalid pattern; by default warns once per keyword and accepts.
   * @param {any} schema the JSON copy @param {string} method
   */
  function checkSchemaSubset(schema, method) {
    const strict = strictSchemas();
    /** @param {any} node @param {string} where */
    const walk = (node, where) => {
      if (typeof node === 'boolean') return;
      if (!isPlainObject(node)) {
        throw new TypeError(`${prefix(method)}invalid input schema: ${where || '/'} is not a schema object`);
      }
      for (const key of EXCLUDED_KEYWORDS) {
        if (!(key in node)) continue;
        if (strict) {
          throw new TypeError(`${prefix(method)}invalid input schema: '${key}' at ${where || '/'} is not supported (excluded by WebMCP)`);
        }
        warnKeyword(key, `'${key}' (at ${where || '/'}) is outside the WebMCP draft's subset`);
      }
      if ('additionalProperties' in node && node.additionalProperties !== false) {
        if (strict) {
          throw new TypeError(`${prefix(method)}invalid input schema: 'additionalProperties' at ${where || '/'} may only be false`);
        }
        warnKeyword('additionalProperties', `'additionalProperties' other than false (at ${where || '/'}) is outside the WebMCP draft's subset`);
      }
      if ('pattern' in node) {
        try {
          if (typeof node.pattern !== 'string') throw new Error('not a string');
          schemaRegExp(node.pattern);
        } catch (e) {
          if (strict) {
            throw new TypeError(`${prefix(method)}invalid input schema: 'pattern' at ${where || '/'} is not a valid regular expression`);
          }
          warnKeyword('pattern', `'pattern' at ${where || '/'} is not a regular expression the browser can run`);
        }
      }
      for (const key of ['properties', 'patternProperties']) {
        if (node[key] === undefined) continue;
        if (!isPlainObject(node[key])) throw new TypeError(`${prefix(method)}invalid input schema: '${key}' at ${where || '/'} must be an object`);
        for (const [k, sub] of Object.entries(node[key])) walk(sub, `${where}/${key}/${k}`);
      }
      if (node.items !== undefined) {
        if (Array.isArray(node.items)) node.items.forEach((sub, i) => walk(sub, `${where}/items/${i}`));
        else walk(node.items, `${where}/items`);
      }
      for (const key of SUBSCHEMA_KEYWORDS) if (node[key] !== undefined) walk(node[key], `${where}/${key}`);
      for (const key of SUBSCHEMA_LIST_KEYWORDS) {
        if (node[key] === undefined) continue;
        if (!Array.isArray(node[key])) throw new TypeError(`${prefix(method)}invalid input schema: '${key}' at ${where || '/'} must be an array`);
        node[key].forEach((/** @type {any} */ sub, /** @type {number} */ i) => walk(sub, `${where}/${key}/${i}`));
      }
    };
    walk(schema, '');
  }

  /** JSON Schema's type of a JSON value. @param {any} v */
  function jsonType(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'array';
    if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
    return typeof v;
  }

  /** Deep equality of JSON values. @param {any} a @param {any} b @returns {boolean} */
  function jsonEqual(a, b) {
    if (a === b) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }

  /** @param {string} token */
  const pointerToken = (token) => token.replace(/~/g, '~0').replace(/\//g, '~1');

  /**
   * Validates a JSON value against a schema of the subset. Returns null when valid, else the first
   * failure as `{path, reason, schemaPath, message}`: `path` is a JSON Pointer into the input,
   * `reason` the failing keyword, `schemaPath` "/<keyword>".
   * Draft-04 forms are honoured: boolean `exclusiveMinimum` / `exclusiveMaximum` make `minimum` /
   * `maximum` exclusive, and an array `items` validates by position.
   * @param {any} schema @param {any} value @param {string} [path]
   * @returns {{path: string, reason: string, schemaPath: string, message: string}|null}
   */
  function validateValue(schema, value, path = '') {
    if (schema === true || schema === undefined) return null;
    const fail = (/** @type {string} */ reason, /** @type {string} */ message, at = path) =>
      ({ path: at, reason, schemaPath: `/${reason}`, message });
    if (schema === false) return fail('false', 'No value is allowed here.');
    if (!isPlainObject(schema)) return null;
    const t = jsonType(value);
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      const ok = types.some((/** @type {string} */ want) => want === t || (want === 'number' && t === 'integer'));
      if (!ok) return fail('type', `Expected ${types.join(' or ')}, got ${t}.`);
    }
    if (schema.enum !== undefined && Array.isArray(schema.enum) && !schema.enum.some((/** @type {any} */ e) => jsonEqual(e, value))) {
      return fail('enum', `Must be one of ${JSON.stringify(schema.enum)}.`);
    }
    if ('const' in schema && !jsonEqual(schema.const, value)) return fail('const', `Must be ${JSON.stringify(schema.const)}.`);
    if (t === 'number' || t === 'integer') {
      const exMin = schema.exclusiveMinimum;
      const exMax = schema.exclusiveMaximum;
      if (typeof schema.minimum === 'number') {
        if (exMin === true ? value <= schema.minimum : value < schema.minimum) {
          return fail(exMin === true ? 'exclusiveMinimum' : 'minimum',
            `Must be ${exMin === true ? 'greater than' : 'at least'} ${schema.minimum}.`);
        }
      }
      if (typeof schema.maximum === 'number') {
        if (exMax === true ? value >= schema.maximum : value > schema.maximum) {
          return fail(exMax === true ? 'exclusiveMaximum' : 'maximum',
            `Must be ${exMax === true ? 'less than' : 'at most'} ${schema.maximum}.`);
        }
      }
      if (typeof exMin === 'number' && value <= exMin) return fail('exclusiveMinimum', `Must be greater than ${exMin}.`);
      if (typeof exMax === 'number' && value >= exMax) return fail('exclusiveMaximum', `Must be less than ${exMax}.`);
      if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) {
        const q = value / schema.multipleOf;
        if (Math.abs(q - Math.round(q)) > 1e-9) return fail('multipleOf', `Must be a multiple of ${schema.multipleOf}.`);
      }
    }
    if (t === 'string') {
      const length = Array.from(value).length;
      if (typeof schema.minLength === 'number' && length < schema.minLength) return fail('minLength', `Must have at least ${schema.minLength} characters.`);
      if (typeof schema.maxLength === 'number' && length > schema.maxLength) return fail('maxLength', `Must have at most ${schema.maxLength} characters.`);
      if (typeof schema.pattern === 'string' && !patternMatches(schema.pattern, value)) {
        return fail('pattern', `Must match the pattern ${schema.pattern}.`);
      }
    }
    if (t === 'array') {
      if (typeof schema.minItems === 'number' && value.length < schema.minItems) return fail('minItems', `Must have at least ${schema.minItems} items.`);
      if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return fail('maxItems', `Must have at most ${schema.maxItems} items.`);
      if (schema.uniqueItems === true) {
        for (let i = 1; i < value.length; i++) {
          for (let j = 0; j < i; j++) if (jsonEqual(value[i], value[j])) return fail('uniqueItems', 'Items must be unique.');
        }
      }
      const positional = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
      const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
      for (let i = 0; i < value.length; i++) {
        const sub = i < positional.length ? positional[i] : rest;
        const r = validateValue(sub, value[i], `${path}/${i}`);
        if (r) return r;
      }
    }
    if (t === 'object') {
      if (Array.isArray(schema.required)) {
        for (const k of schema.required) {
          if (!Object.prototype.hasOwnProperty.call(value, k)) {
            return fail('required', `Missing required property ${JSON.stringify(k)}.`, `${path}/${pointerToken(String(k))}`);
          }
        }
      }
      const props = isPlainObject(schema.properties) ? schema.properties : {};
      const count = Object.keys(value).length;
      if (typeof schema.minProperties === 'number' && count < schema.minProperties) return fail('minProperties', `Must have at least ${schema.minProperties} properties.`);
      if (typeof schema.maxProperties === 'number' && count > schema.maxProperties) return fail('maxProperties', `Must have at most ${schema.maxProperties} properties.`);
      for (const [k, v] of Object.entries(value)) {
        const at = `${path}/${pointerToken(k)}`;
        let matched = false;
        if (Object.prototype.hasOwnProperty.call(props, k)) {
          matched = true;
          const r = validateValue(props[k], v, at);
          if (r) return r;
        }
        if (isPlainObject(schema.patternProperties)) {
          for (const [re, sub] of Object.entries(schema.patternProperties)) {
            if (patternMatches(re, k)) {
              matched = true;
              const r = validateValue(sub, v, at);
              if (r) return r;
            }
          }
        }
        if (!matched && schema.additionalProperties === false) return fail('additionalProperties', `Unexpected property ${JSON.stringify(k)}.`, at);
        if (!matched && isPlainObject(schema.additionalProperties)) {
          const r = validateValue(schema.additionalProperties, v, at);
          if (r) return r;
        }
      }
    }
    if (Array.isArray(schema.allOf)) {
      for (const sub of schema.allOf) {
        const r = validateValue(sub, value, path);
        if (r) return r;
      }
    }
    if (Array.isArray(schema.anyOf) && !schema.anyOf.some((/** @type {any} */ sub) => !validateValue(sub, value, path))) {
      return fail('anyOf', 'Must match at least one of the schemas in anyOf.');
    }
    if (Array.isArray(schema.oneOf) && schema.oneOf.filter((/** @type {any} */ sub) => !validateValue(sub, value, path)).length !== 1) {
      return fail('oneOf', 'Must match exactly one of the schemas in oneOf.');
    }
    if (schema.not !== undefined && !validateValue(schema.not, value, path)) return fail('not', 'Must not match the schema in not.');
    if (schema.if !== undefined) {
      const branch = validateValue(schema.if, value, path) ? schema.else : schema.then;
      const r = validateValue(branch, value, path);
      if (r) return r;
    }
    return null;
  }

  /** Parsed input schemas by their JSON text: parsed once, not on every call (validateValue only reads them). @type {Map<string, any>} */
  const parsedSchemas = new Map();

  /** The parsed schema of `text`, from the cache (emptied past 256 schemas: a page's tools, not a page's churn). @param {string} text */
  function schemaOf(text) {
    let schema = parsedSchemas.get(text);
    if (schema === undefined) {
      if (parsedSchemas.size >= 256) parsedSchemas.clear();
      schema = JSON.parse(text);
      parsedSchemas.set(text, schema);
    }
    return schema;
  }

  /**
   * The DataError executeTool rejects with when input does not match the tool's schema; its
   * message is JSON: {path, reason, schemaPath, message}.
   * @param {string|undefined} schemaJSON @param {any} input
   */
  function inputError(schemaJSON, input) {
    if (schemaJSON === undefined) return null;
    const failure = validateValue(schemaOf(schemaJSON), input);
    return failure ? domError(JSON.stringify(failure), 'DataError') : null;
  }

  // esm: export { checkSchemaSubset, inputError };

  // ==== src/events.js ====
  /**
   * The standard's event classes (`ToolActivatedEvent`, `ToolCancelEvent`) and `on<type>` event
   * handler attributes.
   */

  // esm: import { domString, isObjectLike } from './util.js';

  class ToolActivatedEvent extends Event {
    #toolName;
    /** @param {string} type @param {EventInit & {toolName?: string}} [init] */
    constructor(type, init) {
      if (arguments.length < 1) {
        throw new TypeError("Failed to construct 'ToolActivatedEvent': 1 argument required, but only 0 present.");
      }
      super(type, init);
      this.#toolName = init && init.toolName !== undefined ? domString(init.toolName) : '';
    }
    get toolName() { return this.#toolName; }
  }

  class ToolCancelEvent extends Event {
    #toolName;
    /** @param {string} type @param {EventInit & {toolName?: string}} [init] */
    constructor(type, init) {
      if (arguments.length < 1) {
        throw new TypeError("Failed to construct 'ToolCancelEvent': 1 argument required, but only 0 present.");
      }
      super(type, init);
      this.#toolName = init && init.toolName !== undefined ? domString(init.toolName) : '';
    }
    get toolName() { return this.#toolName; }
  }

  /** @type {WeakMap<object, Map<string, {fn: any, listener: (e: Event) => void}>>} */
  const handlerSlots = new WeakMap();
  /**
   * Defines an `on<type>` event handler attribute (HTML semantics, simplified) on target.
   * @param {object} target @param {string} type
   */
  function defineEventHandler(target, type) {
    Object.defineProperty(target, `on${type}`, {
      configurable: true,
      enumerable: true,
      get() {
        const slot = handlerSlots.get(this)?.get(type);
        return slot ? slot.fn : null;
      },
      /** @param {any} value */
      set(value) {
        let slots = handlerSlots.get(this);
        if (!slots) handlerSlots.set(this, (slots = new Map()));
        const slot = slots.get(type);
        if (!isObjectLike(value)) {
          if (slot) {
            this.removeEventListener(type, slot.listener);
            slots.delete(type);
          }
          return;
        }
        if (slot) {
          slot.fn = value;
          return;
        }
        const self = this;
        const fresh = {
          fn: value,
          listener(/** @type {Event} */ event) {
            const fn = fresh.fn;
            if (typeof fn === 'function' && fn.call(self, event) === false) event.preventDefault();
          },
        };
        slots.set(type, fresh);
        this.addEventListener(type, fresh.listener);
      },
    });
  }

  // esm: export { ToolActivatedEvent, ToolCancelEvent, defineEventHandler };

  // ==== src/convert.js ====
  /**
   * What registerTool and its kin check before touching the registry, with Chromium's messages and
   * order: the WebIDL dictionaries, options (`signal`, `exposedTo`), origins, our `scope` field, the
   * schema, the name, duplicates and the `tools` Permissions Policy. Shared by both modes so a page
   * sees the same errors with and without native WebMCP.
   */

  // esm: import { DANGER_LEVELS, HINT_KEYS, NAME_RE, SCOPE_KEYS } from './constants.js';
  // esm: import { domError, domString, errorMessage, isObjectLike, prefix } from './util.js';
  // esm: import { nat } from './mode.js';
  // esm: import { checkSchemaSubset } from './schema.js';
  // esm: import { nameTaken } from './registry.js';

  /**
   * WebIDL conversion of a ModelContextTool dictionary, with Chromium's messages.
   * @param {any} tool @param {string} method
   */
  function convertToolDict(tool, method) {
    const p = prefix(method);
    const dict = 'ModelContextTool';
    const read = (/** @type {string} */ key) => `Failed to read the '${key}' property from '${dict}': `;
    if (!isObjectLike(tool)) throw new TypeError(`${p}The provided value is not of type '${dict}'.`);
    /** @type {{annotations?: Hints, description: string, execute: Function, inputSchema?: object, name: string, outputSchema?: object, title?: string}} */
    const out = /** @type {any} */ ({});
    let v = tool.annotations;
    if (v !== undefined) {
      if (v !== null && !isObjectLike(v)) {
        throw new TypeError(`${p}${read('annotations')}The provided value is not of type 'ToolAnnotations'.`);
      }
      /** @type {Hints} */
      const hints = {};
      if (v !== null) {
        for (const k of HINT_KEYS) {
          const h = v[k];
          if (h !== undefined) hints[k] = !!h;
        }
      }
      out.annotations = hints;
    }
    v = tool.description;
    if (v === undefined) throw new TypeError(`${p}${read('description')}Required member is undefined.`);
    out.description = domString(v);
    v = tool.execute;
    if (v === undefined) throw new TypeError(`${p}${read('execute')}Required member is undefined.`);
    if (typeof v !== 'function') throw new TypeError(`${p}${read('execute')}The given value is not a function.`);
    out.execute = v;
    v = tool.inputSchema;
    if (v !== undefined) {
      if (!isObjectLike(v)) throw new TypeError(`${p}${read('inputSchema')}Failed to convert value to 'object'.`);
      out.inputSchema = v;
    }
    v = tool.name;
    if (v === undefined) throw new TypeError(`${p}${read('name')}Required member is undefined.`);
    out.name = domString(v);
    v = tool.outputSchema; // Chrome 159
    if (v !== undefined) {
      if (!isObjectLike(v)) throw new TypeError(`${p}${read('outputSchema')}Failed to convert value to 'object'.`);
      out.outputSchema = v;
    }
    v = tool.title;
    if (v !== undefined) out.title = domString(v);
    return out;
  }

  /**
   * @param {any} options @param {string} method @param {string} dict
   * @returns {{signal: AbortSignal|undefined, exposedTo?: string[]}}
   */
  function convertOptions(options, method, dict) {
    if (options === undefined || options === null) return { signal: undefined };
    const p = prefix(method);
    if (!isObjectLike(options)) throw new TypeError(`${p}The provided value is not of type '${dict}'.`);
    const exposedTo = dict === 'ModelContextRegisterToolOptions'
      ? convertOrigins(options.exposedTo, method, dict, 'exposedTo') : undefined;
    const signal = options.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw new TypeError(
        `${p}Failed to read the 'signal' property from '${dict}': Failed to convert value to 'AbortSignal'.`);
    }
    return exposedTo ? { signal, exposedTo } : { signal };
  }

  const warnedScopeKeys = new Set();
  /**
   * Validates the non-standard `scope` field and returns a clean copy (or null).
   * @param {any} scope @param {string} method @returns {ToolScope|null}
   */
  function convertScope(scope, method) {
    if (scope === undefined || scope === null) return null;
    const bad = (/** @type {string} */ why) => new TypeError(`${prefix(method)}Invalid scope: ${why}`);
    if (typeof scope !== 'object' || Array.isArray(scope)) throw bad('scope must be an object.');
    /** @type {any} */
    const out = {};
    const strings = (/** @type {string} */ key, /** @type {boolean} */ nonEmpty) => {
      const v = scope[key];
      if (v === undefined) return;
      if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' && (!nonEmpty || s.length > 0))) {
        throw bad(`${key} must be an array of ${nonEmpty ? 'non-empty ' : ''}strings.`);
      }
      out[key] = v.slice();
    };
    strings('routes', true);
    strings('states', true);
    const level = scope.dangerLevel;
    if (level !== undefined) {
      if (!DANGER_LEVELS.includes(level)) {
        throw bad(`dangerLevel must be 'safe', 'moderate' or 'destructive', not ${JSON.stringify(String(level))}.`);
      }
      out.dangerLevel = level;
    }
    for (const key of ['aiEnabled', 'requiresApproval', 'core']) {
      const v = scope[key];
      if (v === undefined) continue;
      if (typeof v !== 'boolean') throw bad(`${key} must be a boolean.`);
      out[key] = v;
    }
    for (const key of Object.keys(scope)) {
      if (!SCOPE_KEYS.includes(key) && !warnedScopeKeys.has(key)) {
        warnedScopeKeys.add(key);
        console.warn(`[tabmcp] WebMCP scope: unknown key ${JSON.stringify(key)} ignored`);
      }
    }
    return out;
  }

  /** @param {object} schema @param {string} method */
  function serializeSchema(schema, method) {
    let json;
    try {
      json = JSON.stringify(schema);
    } catch (e) {
      throw new TypeError(prefix(method) + errorMessage(e));
    }
    if (json === undefined) throw new TypeError(`${prefix(method)}invalid input schema: toJSON() returns undefined`);
    return json;
  }

  /**
   * Everything registerTool checks before touching the registry, in Chromium's order:
   * dictionary and options conversion, then (ours) scope, then the input schema, then
   * name, duplicate, description. The abort check is left to the caller.
   * @param {any} tool @param {any} options @param {string} method
   */
  function convertTool(tool, method, options = undefined, withOptions = true) {
    const dict = convertToolDict(tool, method);
    const opts = withOptions
      ? convertOptions(options, method, 'ModelContextRegisterToolOptions') : { signal: undefined };
    const scope = convertScope(tool.scope, method);
    const schemaJSON = dict.inputSchema !== undefined ? serializeSchema(dict.inputSchema, method) : undefined;
    if (schemaJSON !== undefined) checkSchemaSubset(JSON.parse(schemaJSON), method);
    const outputJSON = dict.outputSchema !== undefined ? serializeSchema(dict.outputSchema, method) : undefined;
    return { dict, signal: opts.signal, exposedTo: opts.exposedTo || [], scope, schemaJSON, outputJSON };
  }

  /**
   * The `tools` Permissions Policy (default 'self'), where the polyfill can know it: from the
   * browser when it knows the feature, else allowed in a top-level document and in a frame of
   * the same origin as its parent unless the frame's `allow` attribute says `tools 'none'`. A
   * frame of another origin cannot see its container's `allow` attribute: the polyfill lets it
   * register (the tabmcp extension applies the frame policy itself, see docs/security.md).
   */
  function toolsPolicyAllows() {
    try {
      const fp = /** @type {any} */ (document).featurePolicy;
      if (fp && typeof fp.features === 'function' && fp.features().includes('tools')) return fp.allowsFeature('tools');
    } catch (_) { /* fall through */ }
    if (window.top === window) return true;
    let frame;
    try { frame = window.frameElement; } catch (_) { frame = null; }
    if (!frame) return true;
    const allow = String(frame.getAttribute('allow') || '');
    return !/(^|;)\s*tools\s+'none'\s*(;|$)/.test(allow);
  }

  /** @param {string} name */
  function checkName(name) {
    if (!NAME_RE.test(name)) throw domError('Invalid tool name', 'InvalidStateError');
  }

  /** @param {{dict: {name: string, description: string}}} prep */
  function checkTool(prep) {
    if (!nat && !toolsPolicyAllows()) {
      throw domError("The 'tools' Permissions Policy does not allow this document to register tools.", 'NotAllowedError');
    }
    checkName(prep.dict.name);
    if (nameTaken(prep.dict.name)) throw domError('Duplicate tool name', 'InvalidStateError');
    if (prep.dict.description === '') throw domError('Description is required', 'InvalidStateError');
  }

  /**
   * getTools() options: `fromOrigins`, the other origins whose exposed tools to include.
   * @param {any} options
   */
  function convertGetToolsOptions(options) {
    if (options === undefined || options === null) return { fromOrigins: [] };
    const p = prefix('getTools');
    if (!isObjectLike(options)) throw new TypeError(`${p}The provided value is not of type 'GetToolsOptions'.`);
    return { fromOrigins: convertOrigins(options.fromOrigins, 'getTools', 'GetToolsOptions', 'fromOrigins') };
  }

  /**
   * A sequence of origins (exposedTo, fromOrigins): each must parse as a URL; the origins must be
   * potentially trustworthy (https:, wss:, file:, or a loopback host), else SecurityError.
   * @param {any} v @param {string} method @param {string} dict @param {string} key @returns {string[]}
   */
  function convertOrigins(v, method, dict, key) {
    if (v === undefined) return [];
    const p = prefix(method);
    if (!isObjectLike(v) || typeof v[Symbol.iterator] !== 'function') {
      throw new TypeError(`${p}Failed to read the '${key}' property from '${dict}': The provided value cannot be converted to a sequence.`);
    }
    return Array.from(v, (item) => {
      let url;
      try {
        url = new URL(domString(item));
      } catch (_) {
        throw domError(`Invalid origin in '${key}': ${JSON.stringify(domString(item))}.`, 'SyntaxError');
      }
      if (!potentiallyTrustworthy(url)) {
        throw domError(`The origin ${JSON.stringify(url.origin)} in '${key}' is not potentially trustworthy.`, 'SecurityError');
      }
      return url.origin === 'null' ? url.href : url.origin;
    });
  }

  /** @param {URL} url */
  function potentiallyTrustworthy(url) {
    if (['https:', 'wss:', 'file:'].includes(url.protocol)) return true;
    if (url.protocol !== 'http:' && url.protocol !== 'ws:') return false;
    const host = url.hostname;
    return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';
  }

  // esm: export { checkName, checkTool, convertGetToolsOptions, convertOptions, convertScope, convertTool };

  // ==== src/registry.js ====
  /**
   * The registry both modes share: the tools and categories registered through this layer, the
   * native tools we did not register (`foreign`), subscribers of the hook, and the one place tools
   * are added and removed (with their AbortSignals) and `toolchange` is fired.
   */

  // esm: import { anySignal, isObjectLike, macrotask, promiseFrom, reportError } from './util.js';
  // esm: import { nat, native, navNative } from './mode.js';
  // esm: import { registerWithBrowser } from './native.js';

  /** @type {Map<string, ToolRecord>} tools registered through this layer */
  const tools = new Map();
  /** @type {Map<string, CategoryRecord>} */
  const categories = new Map();
  /** @type {Map<string, any>} native tools we did not register (registered before we loaded) */
  const foreign = new Map();
  /** @type {Set<() => void>} */
  const subscribers = new Set();
  /** Bumped on every change to `tools`, so a native tool list fetched meanwhile is known to be stale. */
  let generation = 0;
  /** Native lists being fetched, and the tools removed meanwhile (name → generation of removal). */
  let fetching = 0;
  /** @type {Map<string, number>} */
  const removedAt = new Map();

  /** A native tool list is being fetched: removals meanwhile are remembered. @returns {number} the generation now */
  function beginFetch() {
    fetching++;
    return generation;
  }

  /** A fetch ended; the last one to end forgets the removals. */
  function endFetch() {
    if (--fetching === 0) removedAt.clear();
  }

  /**
   * Whether our tool was removed after generation `gen` (so a list the browser gave since still had it).
   * @param {string} name @param {number} gen
   */
  function removedSince(name, gen) {
    const removed = removedAt.get(name);
    return removed !== undefined && removed > gen;
  }

  /** The object events are dispatched on: the native ModelContext, or ours. @type {any} */
  let target = null;

  /** Install sets it once, before any tool can register. @param {EventTarget} eventTarget */
  function setTarget(eventTarget) {
    target = eventTarget;
  }

  /**
   * Whether a name is used by a tool or category. Native tools we did not register are only
   * consulted for category names: for tools, the browser itself rejects real duplicates with the
   * same error, and our cached list of its tools may be a task behind.
   * @param {string} name @param {boolean} [forCategory]
   */
  function nameTaken(name, forCategory = false) {
    return tools.has(name) || categories.has(name) || (forCategory && foreign.has(name));
  }

  let notifyPending = false;
  /** Tells subscribers something changed (coalesced to one call per microtask). */
  function notify() {
    if (notifyPending || subscribers.size === 0) return;
    notifyPending = true;
    queueMicrotask(() => {
      notifyPending = false;
      for (const cb of Array.from(subscribers)) {
        try {
          cb();
        } catch (e) {
          reportError(e);
        }
      }
    });
  }

  function fireToolchange() {
    queueMicrotask(() => target.dispatchEvent(new Event('toolchange')));
  }

  /** @param {ToolRecord} rec */
  function removeTool(rec) {
    if (tools.get(rec.name) !== rec) return;
    tools.delete(rec.name);
    generation++;
    if (fetching) removedAt.set(rec.name, generation);
    if (rec.category) {
      const cat = categories.get(rec.category);
      if (cat) cat.members = cat.members.filter((n) => n !== rec.name);
    }
    rec.controller.abort();
    if (navNative && !rec.fromNavigator) try { navNative.unregisterTool.call(navNative.mc, rec.name); } catch (_) { /* gone */ }
    if (!native) fireToolchange(); // the browser fires its own
    notify();
  }

  /** @param {CategoryRecord} cat */
  function removeCategory(cat) {
    if (categories.get(cat.name) !== cat) return;
    categories.delete(cat.name);
    cat.controller.abort(); // members' signals follow it
    fireToolchange();
    notify();
  }

  /**
   * Adds a converted, checked tool. Returns what registerTool returns: in native mode the
   * browser's own promise, else a promise resolving after toolchange was dispatched.
   * @param {ReturnType<typeof convertTool>} prep
   * @param {{category?: string|null, categorySignal?: AbortSignal, form?: FormDriver|null, fromNavigator?: boolean}} [where]
   * @returns {Promise<undefined>}
   */
  function addTool(prep, where = {}) {
    const { dict } = prep;
    const controller = new AbortController();
    /** @type {AbortSignal[]} */
    const sources = [controller.signal];
    if (prep.signal) sources.push(prep.signal);
    if (where.categorySignal) sources.push(where.categorySignal);
    const signal = anySignal(sources);
    /** @type {ToolRecord} */
    const rec = {
      name: dict.name,
      title: dict.title !== undefined ? dict.title : '',
      description: dict.description,
      schemaJSON: prep.schemaJSON,
      outputJSON: prep.outputJSON,
      hints: dict.annotations,
      execute: dict.execute,
      scope: prep.scope,
      category: where.category || null,
      exposedTo: prep.exposedTo || [],
      form: where.form || null,
      controller,
      signal,
      fromNavigator: !!where.fromNavigator,
    };
    tools.set(rec.name, rec);
    generation++;
    signal.addEventListener('abort', () => removeTool(rec), { once: true });
    notify();
    if (nat) return registerWithBrowser(rec, prep);
    if (navNative && !rec.fromNavigator) {
      // Firefox: a tool registered through our document.modelContext reaches the browser's registry too.
      try {
        navNative.registerTool.call(navNative.mc, { name: rec.name, description: rec.description, execute: rec.execute,
          ...(prep.schemaJSON !== undefined ? { inputSchema: JSON.parse(prep.schemaJSON) } : {}) });
      } catch (_) { /* the browser's registry refused it: ours still has it */ }
    }
    // A form the parser inserts is registered before the page's scripts after it run; the browser fires
    // its toolchange in a later task, so that those scripts can still listen for it.
    const later = where.form && document.readyState === 'loading' ? macrotask : queueMicrotask;
    return new Promise((resolve) => {
      later(() => {
        target.dispatchEvent(new Event('toolchange'));
        resolve(undefined);
      });
    });
  }

  /** The client object execute() receives. @param {any} client */
  function addClientMethods(client) {
    if (!isObjectLike(client) || typeof client.requestUserInteraction === 'function') return client;
    try {
      Object.defineProperty(client, 'requestUserInteraction', {
        configurable: true,
        writable: true,
        enumerable: false,
        /** @param {() => any} callback */
        value: function requestUserInteraction(callback) {
          if (typeof callback !== 'function') {
            return Promise.reject(new TypeError(
              "Failed to execute 'requestUserInteraction' on 'ModelContextClient': parameter 1 is not of type 'Function'."));
          }
          return promiseFrom(() => callback());
        },
      });
    } catch (_) { /* a frozen client: leave it */ }
    return client;
  }

  // esm: export {
  // esm:   addClientMethods, addTool, beginFetch, categories, endFetch, fireToolchange, foreign, generation, nameTaken,
  // esm:   notify, removeCategory, removedSince, removeTool, setTarget, subscribers, target, tools,
  // esm: };

  // ==== src/native.js ====
  /**
   * Native layering: where the browser has WebMCP, our tools are registered with the browser (which
   * decides), the page's execute is wrapped to record what it really did, the browser's own tools we
   * did not register are tracked, and `augmentNative` adds only what the browser lacks.
   */

  // esm: import { FOREIGN_REFRESH_MAX_MS, FOREIGN_REFRESH_MS, NATIVE_HINT_KEYS, NAV_ORIGINAL, NAV_RELAY } from './constants.js';
  // esm: import { arity, isObjectLike, promiseFrom } from './util.js';
  // esm: import { nat } from './mode.js';
  // esm: import { defineEventHandler } from './events.js';
  // esm: import { checkTool, convertTool } from './convert.js';
  // esm: import { addClientMethods, addTool, beginFetch, endFetch, foreign, notify, removedSince, removeTool, tools } from './registry.js';
  // esm: import { extensionMethods } from './extensions.js';

  /**
   * Registers one of our records with the browser, as the page gave it (our extra fields left out;
   * the page's execute wrapped). The browser decides: its promise is what registerTool returns, and
   * a refusal takes our record out again.
   * @param {ToolRecord} rec @param {ReturnType<typeof convertTool>} prep @returns {Promise<undefined>}
   */
  function registerWithBrowser(rec, prep) {
    const { dict } = prep;
    /** @type {any} */
    const def = {};
    if (dict.annotations) {
      def.annotations = {};
      for (const k of NATIVE_HINT_KEYS) if (k in dict.annotations) def.annotations[k] = dict.annotations[k];
    }
    def.description = dict.description;
    def.execute = wrapExecute(rec);
    if (prep.schemaJSON !== undefined) def.inputSchema = JSON.parse(prep.schemaJSON);
    def.name = dict.name;
    if (prep.outputJSON !== undefined) def.outputSchema = JSON.parse(prep.outputJSON);
    if (dict.title !== undefined) def.title = dict.title;
    /** @type {any} */
    const natOptions = { signal: rec.signal };
    if (rec.exposedTo.length) natOptions.exposedTo = rec.exposedTo.slice();
    const p = promiseFrom(() => nat.registerTool.call(nat.mc, def, natOptions));
    p.then(undefined, () => removeTool(rec));
    return p;
  }

  /** @type {Array<{name: string, key: string, taken: boolean, outcome: Outcome|null}>} pending hook calls (native mode) */
  const captures = [];
  /**
   * Native mode: the execute we hand the browser. Adds requestUserInteraction to the client and
   * records what the page's function really did, for the hook (the browser drops the message).
   * @param {ToolRecord} rec
   */
  function wrapExecute(rec) {
    const original = rec.execute;
    return /** @this {any} */ function execute(/** @type {any} */ input, /** @type {any} */ client) {
      addClientMethods(client);
      const cap = takeCapture(rec.name, input);
      let result;
      try {
        result = original.call(this, input, client);
      } catch (e) {
        if (cap) cap.outcome = { status: 'threw', error: e };
        throw e;
      }
      if (!cap) return result;
      if (!isObjectLike(result) || typeof (/** @type {any} */ (result)).then !== 'function') {
        cap.outcome = { status: 'ok', value: result };
        return result;
      }
      return Promise.resolve(result).then(
        (value) => {
          cap.outcome = { status: 'ok', value };
          return value;
        },
        (error) => {
          cap.outcome = { status: 'threw', error };
          throw error;
        });
    };
  }

  /** @param {string} name @param {any} input */
  function takeCapture(name, input) {
    if (captures.length === 0) return null;
    let key;
    try { key = JSON.stringify(input); } catch (_) { return null; }
    const cap = captures.find((c) => c.name === name && c.key === key && !c.taken);
    if (cap) cap.taken = true;
    return cap || null;
  }

  /**
   * Chromium's getTools() also lists the tools of same-origin frames of the page; each carries the
   * window that registered it: `window` up to Chrome 159, `source` from Chrome 160 (where a
   * `Tool` is an opaque object: its properties are read one by one, never spread or serialised).
   * This document answers only for its own.
   * @param {any} t
   */
  const ownTool = (t) => {
    const from = 'source' in t ? t.source : 'window' in t ? t.window : null;
    return from === null || from === undefined || from === globalThis.window;
  };

  /**
   * Native mode: the browser's tools that we did not register ourselves (registered before we
   * loaded, or behind our back). A tool we removed while the browser answered is left out, so it
   * is never mistaken for a foreign one (once: refetching the whole list until nothing changed
   * made a page registering many tools quadratic).
   * @returns {Promise<Map<string, any>|null>} null when the browser's list is unavailable
   */
  async function fetchForeign() {
    if (!nat) return new Map();
    const gen = beginFetch();
    try {
      const list = await nat.getTools.call(nat.mc);
      if (!Array.isArray(list)) return null;
      const found = new Map();
      for (const t of list) {
        if (!t || typeof t.name !== 'string' || !ownTool(t) || tools.has(t.name)) continue;
        if (removedSince(t.name, gen)) continue; // ours until after the browser answered
        found.set(t.name, t);
      }
      return found;
    } catch (_) {
      return null;
    } finally {
      endFetch();
    }
  }

  let refreshing = false;
  let refreshAgain = false;
  /** Native mode: a refresh is due (its timer set after a toolchange). */
  let refreshTimer = 0;
  /** Native mode: toolchanges seen, and whether one came after the last refresh of `foreign`. */
  let toolchanges = 0;
  let foreignStale = true;
  /**
   * Native mode: updates the cached foreign tools (list() and name checks use it). One refresh at
   * a time: toolchanges meanwhile ask for one more after it, so a page registering n tools costs
   * about n getTools() calls, not one per toolchange each retried while the next registration lands.
   */
  async function refreshForeign() {
    if (!nat) return;
    if (refreshing) {
      refreshAgain = true;
      return;
    }
    refreshing = true;
    try {
      do {
        refreshAgain = false;
        const changes = toolchanges;
        const next = await fetchForeign();
        if (!next) continue;
        if (changes === toolchanges) foreignStale = false;
        // Any other Tool (a name, or a new object for one: its fields may differ) makes a new snapshot.
        const changed = next.size !== foreign.size || Array.from(next).some(([k, v]) => foreign.get(k) !== v);
        foreign.clear();
        for (const [k, v] of next) foreign.set(k, v);
        if (changed) notify();
      } while (refreshAgain);
    } finally {
      refreshing = false;
    }
  }

  /** When the first toolchange the due refresh waits for came, and the last since. */
  let firstToolchange = 0;
  let lastToolchange = 0;
  /** The due refresh's timer: refreshes when the toolchanges were quiet or it waited long enough, else waits on. */
  function refreshWhenQuiet() {
    const now = performance.now();
    const latest = firstToolchange + FOREIGN_REFRESH_MAX_MS;
    if (now - lastToolchange >= FOREIGN_REFRESH_MS || now >= latest) {
      refreshTimer = 0;
      refreshForeign();
      return;
    }
    refreshTimer = setTimeout(refreshWhenQuiet, Math.min(FOREIGN_REFRESH_MS - (now - lastToolchange), latest - now));
  }

  /**
   * Native mode: the browser's tools that are not ours: the cached list when no toolchange came
   * since, or when a refresh is due or under way (it notifies if the list changed); read from the
   * browser otherwise.
   */
  async function foreignTools() {
    if (!foreignStale || refreshTimer || refreshing) return foreign;
    return (await fetchForeign()) || foreign;
  }

  /** @param {any} mc */
  function augmentNative(mc) {
    /** @param {string} key @param {any} value */
    const define = (key, value) =>
      Object.defineProperty(mc, key, { value, writable: true, configurable: true, enumerable: false });
    define('registerTool', function registerTool(/** @type {any} */ tool, options = undefined) {
      const argc = arguments.length;
      return promiseFrom(() => {
        arity('registerTool', argc);
        const prep = convertTool(tool, 'registerTool', options);
        checkTool(prep);
        if (prep.signal && prep.signal.aborted) throw prep.signal.reason;
        return addTool(prep);
      });
    });
    for (const [key, fn] of Object.entries(extensionMethods)) if (!(key in mc)) define(key, fn);
    if (!('onstatechange' in mc)) defineEventHandler(mc, 'statechange');
    // A burst of registrations refreshes once after it (each refresh has the browser build every
    // tool, schema and all): when the toolchanges were quiet for FOREIGN_REFRESH_MS, or at the latest
    // FOREIGN_REFRESH_MAX_MS after the first.
    mc.addEventListener('toolchange', () => {
      toolchanges++;
      foreignStale = true;
      lastToolchange = performance.now();
      if (refreshTimer) return;
      firstToolchange = lastToolchange;
      refreshTimer = setTimeout(refreshWhenQuiet, FOREIGN_REFRESH_MS);
    });
    refreshForeign();
  }

  /**
   * Firefox (dom.modelcontext.enabled): the browser's API is on `navigator.modelContext` only, fires
   * no events, its `registerTool` returns undefined, and it has no list of tools to read (without a
   * testing pref). So what the browser took is recorded as it takes it: the methods of
   * `ModelContext.prototype` are wrapped (a page may call them on the object, through the prototype,
   * or with another same-origin window's method: page/realm.js wraps those), and each wrapper asks
   * the object it was called on, through NAV_RELAY, to record the tool. The browser decides (and
   * answers) first; what it took, ours records too, so the extension relays it.
   * @param {{mc: any, registerTool: Function, unregisterTool: Function}} n
   */
  function layerOnNavigator(n) {
    Object.defineProperty(n.mc, NAV_RELAY, {
      value: Object.freeze({
        /** @param {any} tool */
        registered(tool) {
          try {
            const prep = convertTool(tool, 'registerTool', undefined, false);
            checkTool(prep);
            addTool(prep, { fromNavigator: true });
          } catch (e) { console.warn('[tabmcp] a tool the browser took is not relayed:', e); }
        },
        /** @param {any} name */
        unregistered(name) {
          const rec = typeof name === 'string' || typeof name === 'number' ? tools.get(String(name)) : undefined;
          if (rec && rec.fromNavigator) rec.controller.abort();
        },
      }),
    });
    wrapNavigatorMethods(Object.getPrototypeOf(n.mc));
  }

  /**
   * Wraps a realm's native `registerTool`/`unregisterTool` once (the same wrapper as page/realm.js,
   * which may have come first): the browser's method runs as it would (its answer and its refusals
   * are the page's), then the object it ran on records the change if it has a NAV_RELAY. Our own
   * `document.modelContext` (not the browser's object) takes the registration itself.
   * @param {any} proto
   */
  function wrapNavigatorMethods(proto) {
    if (!proto) return;
    /** @param {any} on */
    const relayOf = (on) => {
      try { return on !== null && typeof on === 'object' && on[NAV_RELAY] || null; } catch (_) { return null; }
    };
    /** @type {Record<string, (original: Function) => Function>} */
    const wrappers = {
      registerTool: (original) => function registerTool(/** @type {any} */ tool) {
        const relay = relayOf(this);
        if (relay && relay.polyfill) return relay.polyfill.apply(this, arguments);
        const returned = original.apply(this, arguments);
        if (relay && relay.registered) relay.registered(tool);
        return returned;
      },
      unregisterTool: (original) => function unregisterTool(/** @type {any} */ name) {
        const returned = original.apply(this, arguments);
        const relay = relayOf(this);
        if (relay && relay.unregistered) relay.unregistered(name);
        return returned;
      },
    };
    for (const [key, wrap] of Object.entries(wrappers)) {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      if (!d || typeof d.value !== 'function' || d.value[NAV_ORIGINAL]) continue;
      const wrapped = wrap(d.value);
      Object.defineProperty(wrapped, NAV_ORIGINAL, { value: d.value });
      Object.defineProperty(proto, key, { ...d, value: wrapped });
    }
  }

  // esm: export { augmentNative, captures, fetchForeign, foreignTools, layerOnNavigator, ownTool, registerWithBrowser };

  // ==== src/run.js ====
  /**
   * Running a tool in polyfill mode as the draft says (a tick later, `toolactivated`, aborts and
   * `toolcancel`) and turning its outcome into what executeTool() gives the page.
   */

  // esm: import { MSG_INVOCATION_FAILED, MSG_TRANSIENT } from './constants.js';
  // esm: import { describeError, domError, macrotask, nativeStringify } from './util.js';
  // esm: import { ToolActivatedEvent, ToolCancelEvent } from './events.js';
  // esm: import { addClientMethods, target, tools } from './registry.js';

  /**
   * Fires toolactivated / toolcancel at the window, then at the ModelContext (the draft's two
   * targets). @param {'toolactivated'|'toolcancel'} type @param {string} toolName
   */
  function fireToolEvent(type, toolName) {
    const Cls = type === 'toolactivated' ? ToolActivatedEvent : ToolCancelEvent;
    window.dispatchEvent(new Cls(type, { toolName }));
    target.dispatchEvent(new Cls(type, { toolName }));
  }

  /**
   * Runs a tool like the draft says: a tick later the tool starts (a form tool's controls are
   * filled first), then toolactivated fires. Aborting the call, even right after executeTool()
   * returned, rejects the promise with the signal's reason; the tool's own signal then aborts and
   * toolcancel follows, in a later task. A tool that started is never forgotten: if it unregisters
   * itself while it runs, its result still counts.
   * @param {ToolRecord} rec @param {any} input @param {AbortSignal|undefined} signal
   * @returns {Promise<Outcome>}
   */
  function runTool(rec, input, signal) {
    return new Promise((resolve) => {
      let done = false;
      let started = false;
      /** @type {{reason: any}|null} aborted before the tool started */
      let early = null;
      const clientController = new AbortController();
      const client = addClientMethods({ signal: clientController.signal });
      const cancelLater = () => macrotask(() => {
        clientController.abort();
        if (rec.form) rec.form.cancel();
        fireToolEvent('toolcancel', rec.name);
      });
      const onAbort = () => {
        if (done) return;
        const reason = /** @type {AbortSignal} */ (signal).reason;
        if (!started) {
          early = { reason };
          return;
        }
        done = true;
        resolve({ status: 'aborted', reason });
        cancelLater();
      };
      /** @param {Outcome} outcome */
      const finish = (outcome) => {
        if (done) return;
        done = true;
        if (signal) signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      if (signal) signal.addEventListener('abort', onAbort, { once: true });
      queueMicrotask(() => {
        if (done) return;
        if (tools.get(rec.name) !== rec) {
          finish({ status: 'gone' });
          return;
        }
        started = true;
        let result;
        let threw = false;
        let error;
        try {
          if (rec.form) rec.form.fill(input);
          else result = rec.execute.call(undefined, input, client);
        } catch (e) {
          threw = true;
          error = e;
        }
        if (rec.form && !threw && !early) {
          try {
            result = rec.form.submit(client); // with toolautosubmit, the submit event is dispatched now
          } catch (e) {
            threw = true;
            error = e;
          }
        }
        fireToolEvent('toolactivated', rec.name);
        if (early) {
          done = true;
          if (signal) signal.removeEventListener('abort', onAbort);
          resolve({ status: 'aborted', reason: early.reason });
          cancelLater();
          return;
        }
        if (threw) {
          finish({ status: 'threw', error });
          return;
        }
        Promise.resolve(result).then(
          (value) => finish({ status: 'ok', value }),
          (e) => finish(e instanceof PersonCancelled ? { status: 'cancelled', error: e.error } : { status: 'threw', error: e }));
      });
    });
  }

  /** How a form tool's run ends when the person cancels it (not the page throwing). */
  class PersonCancelled {
    /** @param {DOMException} error */
    constructor(error) { this.error = error; }
  }

  /**
   * What executeTool() gives the page for an outcome, logging failures like Chromium does.
   * @param {Outcome} outcome @returns {string}
   */
  function settleForPage(outcome) {
    switch (outcome.status) {
      case 'aborted':
        throw outcome.reason;
      case 'gone':
        throw domError(MSG_TRANSIENT, 'UnknownError');
      case 'cancelled':
        throw outcome.error;
      case 'threw':
        console.error(`WebMCP tool execution failed: Uncaught ${describeError(outcome.error)}`);
        throw domError(MSG_INVOCATION_FAILED, 'UnknownError');
      default:
        try {
          return nativeStringify(outcome.value);
        } catch (e) {
          console.error(`WebMCP tool execution failed: Uncaught ${describeError(e)}`);
          throw domError(MSG_INVOCATION_FAILED, 'UnknownError');
        }
    }
  }

  // esm: export { PersonCancelled, fireToolEvent, runTool, settleForPage };

  // ==== src/results.js ====
  /**
   * A tool's return value as an MCP CallToolResult: a JSON-safe copy (what could not be kept is
   * named) capped at 1 MB.
   */

  // esm: import { RESULT_LIMIT } from './constants.js';
  // esm: import { errorMessage, isObjectLike, isPlainObject, utf8Length } from './util.js';

  /**
   * A JSON-safe copy of v, and what could not be kept.
   * @param {any} value @returns {{value: any, dropped: string[]}}
   */
  function jsonSafe(value) {
    /** @type {string[]} */
    const dropped = [];
    const ancestors = new Set();
    const key = (/** @type {string} */ path, /** @type {string} */ k) =>
      (/^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);
    /** @param {any} v @param {string} path @param {string} holderKey @returns {any} */
    function walk(v, path, holderKey) {
      if (isObjectLike(v) || typeof v === 'bigint') {
        let toJSON;
        try { toJSON = /** @type {any} */ (v).toJSON; } catch (_) { toJSON = undefined; }
        if (typeof toJSON === 'function') {
          try {
            v = toJSON.call(v, holderKey);
          } catch (e) {
            dropped.push(`${path} (toJSON() threw: ${errorMessage(e)})`);
            return undefined;
          }
        }
      }
      switch (typeof v) {
        case 'string':
        case 'boolean':
          return v;
        case 'number':
          return Number.isFinite(v) ? v : null;
        case 'undefined':
          return undefined;
        case 'bigint':
          dropped.push(`${path} (BigInt, converted to a string)`);
          return v.toString();
        case 'function':
          dropped.push(`${path} (function)`);
          return undefined;
        case 'symbol':
          dropped.push(`${path} (symbol)`);
          return undefined;
        default:
          break;
      }
      if (v === null) return null;
      if (ancestors.has(v)) {
        dropped.push(`${path} (circular reference)`);
        return undefined;
      }
      if (v instanceof Number || v instanceof String || v instanceof Boolean) return v.valueOf();
      ancestors.add(v);
      try {
        if (Array.isArray(v)) {
          return v.map((item, i) => {
            const r = walk(item, `${path}[${i}]`, String(i));
            return r === undefined ? null : r;
          });
        }
        if (v instanceof Map || v instanceof Set) {
          dropped.push(`${path} (${v instanceof Map ? 'Map' : 'Set'}, its entries are not JSON)`);
        }
        /** @type {any} */
        const out = {};
        for (const k of Object.keys(v)) {
          let item;
          try {
            item = v[k];
          } catch (e) {
            dropped.push(`${key(path, k)} (getter threw: ${errorMessage(e)})`);
            continue;
          }
          const r = walk(item, key(path, k), k);
          if (r !== undefined) out[k] = r;
        }
        return out;
      } finally {
        ancestors.delete(v);
      }
    }
    try {
      return { value: walk(value, '$', ''), dropped };
    } catch (e) {
      // e.g. RangeError: nested too deeply
      return { value: undefined, dropped: [`$ (${errorMessage(e)})`] };
    }
  }

  /** @param {any} v */
  const looksLikeCallToolResult = (v) => isPlainObject(v) && Array.isArray(v.content);

  /**
   * MCP CallToolResult for a tool's return value (the legacy alias and the hook use this).
   * @param {any} raw @returns {{result: CallToolResult, dropped: string[]}}
   */
  function toCallToolResult(raw) {
    const { value, dropped } = jsonSafe(raw);
    /** @type {CallToolResult} */
    let result;
    if (value === undefined) result = { content: [] };
    else if (typeof value === 'string') result = { content: [{ type: 'text', text: value }] };
    else if (looksLikeCallToolResult(raw) && isPlainObject(value) && Array.isArray(value.content)) result = value;
    else {
      result = { content: [{ type: 'text', text: JSON.stringify(value) }] };
      if (isPlainObject(raw) && isPlainObject(value)) result.structuredContent = value;
    }
    if (dropped.length) {
      const shown = dropped.slice(0, 20).join(', ') + (dropped.length > 20 ? `, and ${dropped.length - 20} more` : '');
      result = {
        ...result,
        content: [...result.content, {
          type: 'text',
          text: `[tabmcp] The tool's result was not fully JSON-serializable; dropped or converted: ${shown}.`,
        }],
      };
    }
    return { result: truncate(result), dropped };
  }

  /** Keeps a result under RESULT_LIMIT bytes of JSON. @param {CallToolResult} result */
  function truncate(result) {
    const json = JSON.stringify(result);
    // A UTF-16 unit is at most 3 bytes of UTF-8: a short result (every no-op's) is not encoded to count.
    if (json.length * 3 <= RESULT_LIMIT) return result;
    const bytes = utf8Length(json);
    if (bytes <= RESULT_LIMIT) return result;
    const texts = result.content.filter((c) => c && c.type === 'text' && typeof c.text === 'string');
    const full = texts.length ? texts.map((c) => c.text).join('\n') : json;
    /** @type {string[]} */
    const lost = [];
    if (result.structuredContent !== undefined) lost.push('structuredContent was dropped');
    if (texts.length < result.content.length) {
      lost.push(`${result.content.length - texts.length} non-text content block(s) were dropped`);
    }
    /** @param {string} text @returns {CallToolResult} */
    const build = (text) => {
      /** @type {CallToolResult} */
      const out = {
        content: [
          { type: 'text', text },
          {
            type: 'text',
            text: `[tabmcp] Result truncated: the tool returned ${bytes} bytes of JSON, more than the ` +
              `${RESULT_LIMIT}-byte (1 MB) limit; only the first ${text.length} of ${full.length} characters ` +
              `of its text are shown${lost.length ? `; ${lost.join('; ')}` : ''}.`,
          },
        ],
        _meta: { 'tabmcp/truncated': { originalBytes: bytes } },
      };
      if (result.isError) out.isError = true;
      return out;
    };
    // Shrink until the whole encoded result fits (escaping can make JSON text much longer).
    let keep = Math.min(full.length, RESULT_LIMIT);
    let out = build(full.slice(0, keep));
    for (let size = utf8Length(JSON.stringify(out)); size > RESULT_LIMIT; size = utf8Length(JSON.stringify(out))) {
      keep = Math.max(0, Math.floor(keep * Math.min(0.98, (RESULT_LIMIT - 2048) / size)));
      let cut = full.slice(0, keep);
      if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1); // do not split a surrogate pair
      out = build(cut);
    }
    return out;
  }

  // esm: export { toCallToolResult };

  // ==== src/invoke.js ====
  /**
   * Calling a tool by name, for the tabmcp hook and the legacy alias: input checked against the
   * schema, run in polyfill mode or through the browser in native mode, the outcome as a CallOutcome.
   */

  // esm: import { errorMessage } from './util.js';
  // esm: import { nat, secure } from './mode.js';
  // esm: import { inputError } from './schema.js';
  // esm: import { categories, tools } from './registry.js';
  // esm: import { captures, ownTool } from './native.js';
  // esm: import { runTool, settleForPage } from './run.js';
  // esm: import { toCallToolResult } from './results.js';

  /**
   * @param {any} name @param {any} args @param {any} options
   * @returns {Promise<CallOutcome>}
   */
  async function invoke(name, args, options) {
    /** @param {string} code @param {string} message @returns {CallOutcome} */
    const fail = (code, message) => ({ ok: false, error: { code, message } });
    try {
      name = String(name);
      if (args === undefined) args = {};
      if (args === null || typeof args !== 'object' || Array.isArray(args)) {
        return fail('INVALID_ARGUMENTS', 'The arguments must be a JSON object.');
      }
      let argsJSON;
      try {
        argsJSON = JSON.stringify(args);
      } catch (e) {
        return fail('INVALID_ARGUMENTS', `The arguments are not JSON-serializable: ${errorMessage(e)}`);
      }
      const input = JSON.parse(argsJSON);
      const signal = options == null ? undefined : options.signal;
      if (signal !== undefined && !(signal instanceof AbortSignal)) {
        return fail('INVALID_ARGUMENTS', 'options.signal must be an AbortSignal.');
      }
      const aborted = (/** @type {any} */ reason) => ({
        ...fail('ABORTED', reason === undefined ? 'The call was aborted.' : `The call was aborted: ${errorMessage(reason)}`),
        reason,
      });
      if (signal && signal.aborted) return aborted(signal.reason);
      const notFound = () => fail('TOOL_NOT_FOUND', categories.has(name)
        ? `"${name}" is a category, not a tool: expand it to see its tools.`
        : `No tool named "${name}" is registered on this page.`);
      if (!secure) return notFound();

      const own = tools.get(name);
      const invalid = own ? inputError(own.schemaJSON, input) : null;
      if (invalid) {
        const f = JSON.parse(invalid.message);
        return fail('INVALID_ARGUMENTS',
          `The arguments do not match the tool's input schema at "${f.path || '/'}" (${f.reason}): ${f.message}`);
      }

      /** @type {Outcome} */
      let outcome;
      if (!nat) {
        const rec = own;
        if (!rec) return notFound();
        outcome = await runTool(rec, input, signal);
        if (outcome.status !== 'aborted' && outcome.status !== 'gone') {
          try { settleForPage(outcome); } catch (_) { /* logged like the page would see it */ }
        }
      } else {
        const list = await nat.getTools.call(nat.mc);
        const entry = Array.isArray(list) ? list.find((t) => t && t.name === name && ownTool(t)) : undefined;
        if (!entry) return notFound();
        const cap = tools.has(name)
          ? { name, key: argsJSON, taken: false, outcome: /** @type {Outcome|null} */ (null) } : null;
        if (cap) captures.push(cap);
        try {
          const text = await nat.executeTool.call(nat.mc, entry, input, signal ? { signal } : undefined);
          outcome = cap && cap.outcome && cap.outcome.status === 'ok'
            ? cap.outcome : { status: 'ok', value: text, fromNative: true };
        } catch (e) {
          if (signal && signal.aborted) outcome = { status: 'aborted', reason: signal.reason };
          else if (cap && cap.outcome) outcome = cap.outcome; // threw, or returned something the browser could not serialize
          else outcome = { status: 'threw', error: e, nativeOnly: true };
        } finally {
          if (cap) captures.splice(captures.indexOf(cap), 1);
        }
      }

      switch (outcome.status) {
        case 'aborted':
          return aborted(outcome.reason);
        case 'cancelled':
          return fail('USER_CANCELLED', errorMessage(outcome.error));
        case 'gone':
          return notFound();
        case 'threw': {
          let message = errorMessage(outcome.error);
          if (outcome.nativeOnly) {
            message += ' (the page\'s own error message is not available: this tool was registered with the ' +
              'browser before the tabmcp polyfill loaded)';
          }
          return fail('PAGE_ERROR', message);
        }
        default: {
          const { result, dropped } = toCallToolResult(outcome.value);
          if (dropped.length) {
            return {
              ok: false,
              error: {
                code: 'BAD_RESULT',
                message: `The tool's result is not JSON-serializable; dropped or converted: ${dropped.slice(0, 20).join(', ')}` +
                  `${dropped.length > 20 ? `, and ${dropped.length - 20} more` : ''}.`,
              },
              result,
            };
          }
          return { ok: true, result };
        }
      }
    } catch (e) {
      return fail('PAGE_ERROR', `tabmcp polyfill: unexpected failure: ${errorMessage(e)}`);
    }
  }

  // esm: export { invoke };

  // ==== src/views.js ====
  /**
   * Read-only views of the registry: list(), expandCategory(), getCategories() and the hook's
   * snapshot().
   */

  // esm: import { EMPTY_SCHEMA_JSON } from './constants.js';
  // esm: import { byName, domError, domString, isPlainObject } from './util.js';
  // esm: import { categories, foreign, tools } from './registry.js';
  // esm: import { foreignTools } from './native.js';
  // esm: import { getStates } from './states.js';

  /** @param {ToolRecord} rec */
  function toolInfo(rec) {
    return {
      name: rec.name,
      title: rec.title,
      description: rec.description,
      inputSchema: JSON.parse(rec.schemaJSON !== undefined ? rec.schemaJSON : EMPTY_SCHEMA_JSON),
      ...(rec.outputJSON !== undefined ? { outputSchema: JSON.parse(rec.outputJSON) } : {}),
      annotations: { ...(rec.hints || {}) },
    };
  }

  /** A native tool we did not register, as a JSON-safe info. @param {any} t */
  function foreignInfo(t) {
    let schema = null;
    let annotations = {};
    try {
      const given = t.inputSchema;
      // an object, or (as the draft's getTools() gives it) the schema's JSON text
      schema = given === undefined || given === null ? null
        : typeof given === 'string' ? JSON.parse(given) : JSON.parse(JSON.stringify(given));
      if (!isPlainObject(schema)) schema = null;
    } catch (_) { schema = null; }
    try { annotations = t.annotations ? JSON.parse(JSON.stringify(t.annotations)) : {}; } catch (_) { annotations = {}; }
    let output = null;
    try {
      const given = t.outputSchema; // Chrome 159+, an object or its JSON text
      output = given == null ? null : typeof given === 'string' ? JSON.parse(given) : JSON.parse(JSON.stringify(given));
    } catch (_) { output = null; }
    return {
      ...(isPlainObject(output) ? { outputSchema: output } : {}),
      name: String(t.name),
      title: t.title == null ? '' : String(t.title),
      description: t.description == null ? '' : String(t.description),
      inputSchema: schema || JSON.parse(EMPTY_SCHEMA_JSON),
      annotations,
    };
  }

  function list() {
    /** @type {any[]} */
    const entries = [];
    for (const cat of categories.values()) {
      entries.push({ name: cat.name, description: cat.description, isCategory: true, toolCount: cat.members.length });
    }
    for (const rec of tools.values()) if (!rec.category) entries.push(toolInfo(rec));
    for (const t of foreign.values()) if (!tools.has(t.name)) entries.push(foreignInfo(t));
    return entries.sort((a, b) => byName(a.name, b.name));
  }

  /** @param {any} name */
  function expandCategory(name) {
    const cat = categories.get(domString(name));
    if (!cat) throw domError(`No category named ${JSON.stringify(domString(name))}.`, 'NotFoundError');
    return cat.members.map((n) => tools.get(n)).filter((r) => !!r).map((r) => toolInfo(/** @type {ToolRecord} */ (r)));
  }

  function getCategories() {
    return Array.from(categories.values())
      .sort((a, b) => byName(a.name, b.name))
      .map((c) => ({ name: c.name, description: c.description, tools: c.members.slice(),
        ...(c.refused && c.refused.length ? { refused: c.refused.map((r) => ({ ...r })) } : {}) }));
  }

  /** @param {any} value a JSON-safe value, frozen all the way down (shared by every snapshot after) */
  function deepFreeze(value) {
    if (value && typeof value === 'object') {
      for (const v of Object.values(value)) deepFreeze(v);
      Object.freeze(value);
    }
    return value;
  }

  /**
   * Each of our records' snapshot entry, built (parsed, made JSON-safe, frozen) once: a record never
   * changes after it is added, so a snapshot during a burst of n registrations reads no schema again.
   * @type {WeakMap<ToolRecord, any>}
   */
  const ownEntries = new WeakMap();
  /** @param {ToolRecord} rec */
  function ownEntry(rec) {
    let entry = ownEntries.get(rec);
    if (!entry) {
      entry = deepFreeze(JSON.parse(JSON.stringify({ ...toolInfo(rec), category: rec.category, scope: rec.scope })));
      ownEntries.set(rec, entry);
    }
    return entry;
  }

  /**
   * The browser's tools we did not register, by name: the Tool object last seen, and its entry. A
   * Tool seen again is not read again; a new object for the same name (a refresh) is read once, and
   * keeps the entry it had when nothing in it changed.
   * @type {Map<string, {tool: any, text: string, entry: any}>}
   */
  const foreignEntries = new Map();
  /** @param {any} t */
  function foreignEntry(t) {
    const name = String(t.name);
    const known = foreignEntries.get(name);
    if (known && known.tool === t) return known.entry;
    const text = JSON.stringify({ ...foreignInfo(t), category: null, scope: null });
    const entry = known && known.text === text ? known.entry : deepFreeze(JSON.parse(text));
    foreignEntries.set(name, { tool: t, text, entry });
    return entry;
  }

  /**
   * What the extension relays: every tool (ours and the browser's others), the categories and the
   * states. JSON- and structured-clone-safe; its tool entries are frozen and shared between
   * snapshots while their tool is unchanged (so a reader can tell what changed by identity).
   * In native mode the browser's list is read only when a toolchange came since the last read and
   * no refresh is on its way (a refresh that finds other tools notifies, and the next snapshot has
   * them): a burst of registrations does not read every tool's schema once per snapshot.
   */
  async function snapshot() {
    const others = await foreignTools();
    const toolList = [];
    for (const rec of tools.values()) toolList.push(ownEntry(rec));
    for (const t of others.values()) if (!tools.has(t.name)) toolList.push(foreignEntry(t));
    for (const name of foreignEntries.keys()) if (!others.has(name)) foreignEntries.delete(name);
    toolList.sort((a, b) => byName(a.name, b.name));
    const rest = JSON.parse(JSON.stringify({
      categories: Array.from(categories.values())
        .sort((a, b) => byName(a.name, b.name))
        .map((c) => ({ name: c.name, description: c.description, tools: c.members.slice(), scope: c.scope })),
      states: getStates(),
    }));
    return { tools: toolList, categories: rest.categories, states: rest.states };
  }

  // esm: export { expandCategory, getCategories, list, snapshot };

  // ==== src/states.js ====
  /**
   * Page states (our extension): setStates() / getStates() and the `statechange` event.
   */

  // esm: import { arity, prefix } from './util.js';
  // esm: import { notify, target } from './registry.js';

  /** @type {string[]} */
  let states = [];
  /** @param {any} next */
  function setStates(next) {
    arity('setStates', arguments.length);
    if (!Array.isArray(next) || !next.every((s) => typeof s === 'string')) {
      throw new TypeError(`${prefix('setStates')}states must be an array of strings.`);
    }
    const unique = Array.from(new Set(next));
    const same = unique.length === states.length && unique.every((s) => states.includes(s));
    states = unique;
    if (same) return;
    notify();
    target.dispatchEvent(new Event('statechange'));
  }

  function getStates() {
    return states.slice();
  }

  // esm: export { getStates, setStates };

  // ==== src/categories.js ====
  /**
   * Tool categories (our extension): registerCategory() registers the valid members and reports the
   * others (one bad member never takes its neighbours down); unregisterCategory().
   */

  // esm: import {
  // esm:   anySignal, arity, domError, domString, errorMessage, isObjectLike, prefix, promiseFrom,
  // esm: } from './util.js';
  // esm: import { checkName, checkTool, convertOptions, convertScope, convertTool } from './convert.js';
  // esm: import { addTool, categories, fireToolchange, nameTaken, notify, removeCategory } from './registry.js';

  /**
   * @param {any} category @param {any} [options]
   * @returns {Promise<undefined>}
   */
  function registerCategory(category, options = undefined) {
    const method = 'registerCategory';
    const argc = arguments.length;
    return promiseFrom(() => {
      arity(method, argc);
      const p = prefix(method);
      const dict = 'ModelContextCategory';
      const read = (/** @type {string} */ key) => `Failed to read the '${key}' property from '${dict}': `;
      if (!isObjectLike(category)) throw new TypeError(`${p}The provided value is not of type '${dict}'.`);
      let v = category.description;
      if (v === undefined) throw new TypeError(`${p}${read('description')}Required member is undefined.`);
      const description = domString(v);
      v = category.name;
      if (v === undefined) throw new TypeError(`${p}${read('name')}Required member is undefined.`);
      const name = domString(v);
      v = category.tools;
      if (v === undefined) throw new TypeError(`${p}${read('tools')}Required member is undefined.`);
      if (!isObjectLike(v) || typeof v[Symbol.iterator] !== 'function') {
        throw new TypeError(`${p}${read('tools')}The provided value cannot be converted to a sequence.`);
      }
      const given = Array.from(v);
      const opts = convertOptions(options, method, 'ModelContextRegisterCategoryOptions');
      const scope = convertScope(category.scope, method);

      checkName(name);
      if (nameTaken(name, true)) throw domError('Duplicate tool name', 'InvalidStateError');
      if (description === '') throw domError('Description is required', 'InvalidStateError');
      // One bad member never takes its neighbours down: each is checked alone, the valid ones are
      // registered, the others reported (console, and getCategories()'s `refused`).
      /** @type {ReturnType<typeof convertTool>[]} */
      const members = [];
      /** @type {{name: string, error: string}[]} */
      const refused = [];
      const seen = new Set([name]);
      for (const t of given) {
        let m;
        try {
          m = convertTool(t, method, undefined, false);
          checkTool(m);
          if (seen.has(m.dict.name)) throw domError('Duplicate tool name', 'InvalidStateError');
        } catch (e) {
          let memberName = '';
          try { memberName = isObjectLike(t) && t.name !== undefined ? domString(t.name) : ''; } catch (_) { /* unnamed */ }
          refused.push({ name: memberName, error: `${e && /** @type {any} */ (e).name ? /** @type {any} */ (e).name + ': ' : ''}${errorMessage(e)}` });
          continue;
        }
        seen.add(m.dict.name);
        members.push(m);
      }
      if (opts.signal && opts.signal.aborted) throw opts.signal.reason;
      for (const r of refused) {
        console.warn(`[webmcp-polyfill] registerCategory(${JSON.stringify(name)}): member ${JSON.stringify(r.name)} not registered: ${r.error}`);
      }

      const controller = new AbortController();
      const signal = opts.signal ? anySignal([opts.signal, controller.signal]) : controller.signal;
      /** @type {CategoryRecord} */
      const cat = { name, description, members: [], scope, controller, signal, refused };
      categories.set(name, cat);
      signal.addEventListener('abort', () => removeCategory(cat), { once: true });
      const pending = members.map((m) => {
        cat.members.push(m.dict.name);
        return addTool(m, { category: name, categorySignal: signal });
      });
      notify();
      return Promise.all(pending).then(
        () => {
          if (categories.get(name) === cat) fireToolchange();
          return undefined;
        },
        (e) => {
          controller.abort();
          throw e;
        });
    });
  }

  /** @param {any} name */
  function unregisterCategory(name) {
    arity('unregisterCategory', arguments.length);
    const cat = categories.get(domString(name));
    if (!cat) throw domError(`No category named ${JSON.stringify(domString(name))}.`, 'NotFoundError');
    removeCategory(cat);
  }

  // esm: export { registerCategory, unregisterCategory };

  // ==== src/extensions.js ====
  /**
   * Our additions to the standard, installed on both shapes (our ModelContext and the browser's).
   */

  // esm: import { expandCategory, getCategories, list } from './views.js';
  // esm: import { getStates, setStates } from './states.js';
  // esm: import { registerCategory, unregisterCategory } from './categories.js';

  /** @type {Record<string, Function>} */
  const extensionMethods = {
    registerCategory, unregisterCategory, expandCategory, getCategories, list, setStates, getStates,
  };

  // esm: export { extensionMethods };

  // ==== src/frames.js ====
  /**
   * Same-origin frames in polyfill mode: getTools() lists the tools of every same-origin document of
   * the frame tree, as Chromium does; each polyfilled document answers for its own.
   */

  // esm: import { NATIVE_HINT_KEYS } from './constants.js';
  // esm: import { byName } from './util.js';
  // esm: import { tools } from './registry.js';

  /** The key under which a ModelContext answers other same-origin documents' getTools(). */
  const OWN_TOOLS = Symbol.for('tabmcp.webmcp.ownTools');

  /** This document's tools as RegisteredTool dictionaries (fresh objects). */
  function ownRegisteredTools() {
    const origin = location.origin;
    return Array.from(tools.values()).sort((a, b) => byName(a.name, b.name)).map((rec) => {
      /** @type {any} */
      const o = {};
      if (rec.hints) {
        o.annotations = {};
        for (const k of NATIVE_HINT_KEYS) o.annotations[k] = !!rec.hints[k];
      }
      o.description = rec.description;
      if (rec.schemaJSON !== undefined) o.inputSchema = JSON.parse(rec.schemaJSON);
      o.name = rec.name;
      o.origin = origin;
      if (rec.outputJSON !== undefined) o.outputSchema = JSON.parse(rec.outputJSON);
      o.title = rec.title;
      o.window = window;
      return o;
    });
  }

  /** Tools of every same-origin document, as getTools() lists them. */
  function collectTools() {
    const out = [];
    for (const w of sameOriginWindows()) {
      if (w === window) out.push(...ownRegisteredTools());
      else {
        const mc = frameContext(w);
        if (mc) out.push(...mc[OWN_TOOLS]());
      }
    }
    return out.sort((a, b) => byName(a.name, b.name));
  }

  /**
   * The ModelContext of another window if it is a same-origin document running this polyfill
   * (any version that answers OWN_TOOLS), else null. @param {any} w
   */
  function frameContext(w) {
    try {
      if (!w || w === window) return null;
      const mc = w.document && w.document.modelContext;
      return mc && typeof mc[OWN_TOOLS] === 'function' ? mc : null;
    } catch (_) {
      return null; // another origin
    }
  }

  /**
   * Every window of this origin in the frame tree, from the topmost same-origin ancestor down,
   * in document order: the documents whose tools getTools() lists by default.
   */
  function sameOriginWindows() {
    /** @type {any} */
    let root = window;
    for (;;) {
      let up;
      try {
        up = root.parent;
        if (up === root || !up.document) break; // the top, or throws for another origin
      } catch (_) {
        break;
      }
      root = up;
    }
    /** @type {any[]} */
    const found = [];
    /** @param {any} w */
    const walk = (w) => {
      try {
        if (w !== window && !frameContext(w)) return;
        found.push(w);
        for (let i = 0; i < w.frames.length; i++) walk(w.frames[i]);
      } catch (_) { /* another origin: neither it nor its subtree */ }
    };
    walk(root);
    return found;
  }

  // esm: export { OWN_TOOLS, collectTools, frameContext, ownRegisteredTools };

  // ==== src/model-context.js ====
  /**
   * Polyfill mode: our own `ModelContext` (registerTool, getTools, executeTool, the event handler
   * attributes and our extension methods), installed on `document.modelContext` where the browser has
   * none.
   */

  // esm: import { G, MSG_TRANSIENT } from './constants.js';
  // esm: import {
  // esm:   arity, domError, domString, errorMessage, isObjectLike, macrotask, prefix, promiseFrom,
  // esm: } from './util.js';
  // esm: import { inputError } from './schema.js';
  // esm: import { defineEventHandler } from './events.js';
  // esm: import { checkTool, convertGetToolsOptions, convertOptions, convertTool } from './convert.js';
  // esm: import { addTool, tools } from './registry.js';
  // esm: import { runTool, settleForPage } from './run.js';
  // esm: import { extensionMethods } from './extensions.js';
  // esm: import { collectTools, frameContext } from './frames.js';

  const CONSTRUCT = Symbol('construct');

  class ModelContext extends EventTarget {
    /** @param {symbol} [token] */
    constructor(token) {
      if (token !== CONSTRUCT) throw new TypeError("Failed to construct 'ModelContext': Illegal constructor");
      super();
    }

    /** @param {any} tool @param {any} [options] @returns {Promise<undefined>} */
    registerTool(tool, options = undefined) {
      const argc = arguments.length;
      return promiseFrom(() => {
        arity('registerTool', argc);
        const prep = convertTool(tool, 'registerTool', options);
        checkTool(prep);
        if (prep.signal && prep.signal.aborted) throw prep.signal.reason;
        const { signal } = prep;
        return addTool(prep).then(() => {
          // Aborted before the registration completed (React StrictMode's effect cleanup does so):
          // the browser rejects with the signal's reason, and so do we.
          if (signal && signal.aborted) throw signal.reason;
          return undefined;
        });
      });
    }

    /** @param {any} [options] @returns {Promise<any[]>} */
    getTools(options = undefined) {
      return promiseFrom(() => convertGetToolsOptions(options)).then(() => new Promise((resolve) => {
        // Answered in a later task, like the browser (which asks another process).
        macrotask(() => resolve(collectTools()));
      }));
    }


    /** @param {any} tool @param {any} [input] @param {any} [options] @returns {Promise<string>} */
    executeTool(tool, input = undefined, options = undefined) {
      const argc = arguments.length;
      return promiseFrom(() => {
        const method = 'executeTool';
        const p = prefix(method);
        arity(method, argc);
        const dict = 'RegisteredTool';
        if (!isObjectLike(tool)) throw new TypeError(`${p}The provided value is not of type '${dict}'.`);
        /** @type {Record<string, any>} */
        const read = {};
        for (const key of ['description', 'name', 'origin', 'window']) {
          const v = tool[key];
          if (v === undefined) {
            throw new TypeError(`${p}Failed to read the '${key}' property from '${dict}': Required member is undefined.`);
          }
          read[key] = v;
        }
        const name = domString(read.name);
        const opts = convertOptions(options, method, 'ExecuteToolOptions');
        if (input === undefined) input = {};
        if (!isObjectLike(input)) throw new TypeError(`${p}invalid input object: value is not an object`);
        let json;
        try {
          json = JSON.stringify(input);
        } catch (e) {
          throw new TypeError(p + errorMessage(e));
        }
        if (json === undefined) throw new TypeError(`${p}invalid input object: toJSON() returns undefined`);
        const copy = JSON.parse(json);
        if (!isObjectLike(copy)) throw domError('Failed to parse input arguments', 'UnknownError');
        if (opts.signal && opts.signal.aborted) throw opts.signal.reason;
        if (read.window !== window) {
          // A tool of another document of this origin (a frame, or the parent): run it there,
          // so its events fire at that document's ModelContext.
          const other = frameContext(read.window);
          if (!other) throw domError(MSG_TRANSIENT, 'UnknownError');
          return other.executeTool(tool, copy, options);
        }
        const rec = tools.get(name);
        if (!rec) throw domError(MSG_TRANSIENT, 'UnknownError');
        const invalid = inputError(rec.schemaJSON, copy);
        if (invalid) throw invalid;
        return runTool(rec, copy, opts.signal).then(settleForPage);
      });
    }
  }
  Object.defineProperty(ModelContext.prototype, Symbol.toStringTag, { value: 'ModelContext', configurable: true });
  for (const type of ['toolchange', 'toolactivated', 'toolcancel', 'statechange']) {
    defineEventHandler(ModelContext.prototype, type);
  }
  for (const [key, fn] of Object.entries(extensionMethods)) {
    Object.defineProperty(ModelContext.prototype, key, { value: fn, writable: true, configurable: true, enumerable: false });
  }

  /** @param {string} name @param {any} value */
  function defineGlobal(name, value) {
    if (name in G) return;
    Object.defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });
  }

  // esm: export { CONSTRUCT, ModelContext, defineGlobal };

  // ==== src/legacy.js ====
  /**
   * The deprecated alias on `navigator.modelContext` (older drafts: registerTool returning
   * `{unregister}`, unregisterTool, list, executeTool by name, provideContext, clearContext).
   */

  // esm: import { arity, domError, domString, isObjectLike, prefix } from './util.js';
  // esm: import { defineEventHandler } from './events.js';
  // esm: import { checkName, checkTool, convertTool } from './convert.js';
  // esm: import { addTool, categories, nameTaken, tools } from './registry.js';
  // esm: import { invoke } from './invoke.js';
  // esm: import { list } from './views.js';
  // esm: import { extensionMethods } from './extensions.js';

  let deprecationWarned = false;
  function deprecated() {
    if (deprecationWarned) return;
    deprecationWarned = true;
    console.warn('[tabmcp] navigator.modelContext is deprecated: use document.modelContext ' +
      '(registerTool(tool, {signal}), getTools(), executeTool()) instead.');
  }

  /** @type {Set<ToolRecord>} tools that came from provideContext() */
  const provided = new Set();

  /** Synchronous registration for the legacy shapes. @param {any} tool @param {string} method */
  function legacyRegister(tool, method) {
    const prep = convertTool(tool, method, undefined, false);
    checkTool(prep);
    const promise = addTool(prep);
    promise.then(undefined, (e) => console.error(`[tabmcp] ${method}(${JSON.stringify(prep.dict.name)}) failed:`, e));
    return /** @type {ToolRecord} */ (tools.get(prep.dict.name));
  }

  class ModelContextLegacy extends EventTarget {
    /** @param {any} tool @returns {{unregister(): void}} */
    registerTool(tool) {
      deprecated();
      arity('registerTool', arguments.length);
      const rec = legacyRegister(tool, 'registerTool');
      return { unregister: () => rec.controller.abort() };
    }

    /** @param {any} name */
    unregisterTool(name) {
      deprecated();
      arity('unregisterTool', arguments.length);
      const rec = tools.get(domString(name));
      if (rec) rec.controller.abort();
    }

    list() {
      deprecated();
      return list();
    }

    /** @param {any} name @param {any} [args] @param {any} [options] @returns {Promise<CallToolResult>} */
    async executeTool(name, args = undefined, options = undefined) {
      deprecated();
      arity('executeTool', arguments.length);
      const out = await invoke(name, args, options);
      if (out.ok) return out.result;
      switch (out.error.code) {
        case 'TOOL_NOT_FOUND':
          throw domError(out.error.message, 'NotFoundError');
        case 'INVALID_ARGUMENTS':
          throw new TypeError(out.error.message);
        case 'ABORTED':
          throw out.reason !== undefined ? out.reason : domError(out.error.message, 'AbortError');
        case 'BAD_RESULT':
          return { ...(out.result || { content: [] }), isError: true };
        default:
          return { isError: true, content: [{ type: 'text', text: out.error.message }] };
      }
    }

    /** Older drafts: replaces the tools given by the previous provideContext(). @param {any} context */
    provideContext(context = undefined) {
      deprecated();
      const given = context == null ? undefined : context.tools;
      const list = given === undefined ? [] : given;
      if (!isObjectLike(list) || typeof list[Symbol.iterator] !== 'function') {
        throw new TypeError(`${prefix('provideContext')}tools must be an array of tools.`);
      }
      const preps = Array.from(list, (t) => convertTool(t, 'provideContext', undefined, false));
      const replaced = new Set(Array.from(provided, (r) => r.name));
      const seen = new Set();
      for (const prep of preps) {
        checkName(prep.dict.name);
        if (seen.has(prep.dict.name) || (nameTaken(prep.dict.name) && !replaced.has(prep.dict.name))) {
          throw domError('Duplicate tool name', 'InvalidStateError');
        }
        if (prep.dict.description === '') throw domError('Description is required', 'InvalidStateError');
        seen.add(prep.dict.name);
      }
      for (const rec of provided) rec.controller.abort();
      provided.clear();
      for (const prep of preps) {
        addTool(prep).then(undefined, (e) => console.error('[tabmcp] provideContext() failed:', e));
        provided.add(/** @type {ToolRecord} */ (tools.get(prep.dict.name)));
      }
    }

    /** Older drafts: removes every tool and category registered through this page's polyfill. */
    clearContext() {
      deprecated();
      provided.clear();
      for (const cat of Array.from(categories.values())) cat.controller.abort();
      for (const rec of Array.from(tools.values())) rec.controller.abort();
    }
  }
  Object.defineProperty(ModelContextLegacy.prototype, Symbol.toStringTag, {
    value: 'ModelContextLegacy', configurable: true,
  });
  for (const [key, fn] of Object.entries(extensionMethods)) {
    if (key === 'list') continue;
    Object.defineProperty(ModelContextLegacy.prototype, key, {
      value: /** @this {any} */ function (/** @type {any[]} */ ...args) {
        deprecated();
        return fn.apply(this, args);
      },
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }
  for (const type of ['toolchange', 'statechange']) defineEventHandler(ModelContextLegacy.prototype, type);

  // esm: export { ModelContextLegacy };

  // ==== src/form-schema.js ====
  /**
   * The declarative form machinery: a form's input schema as the browser builds it (labels, types,
   * choices, constraints) and filling its controls from a tool call's input. Pure DOM work, used by
   * the declarative tools and, through the hook, by the tabmcp extension's page forms.
   */

  // esm: import { isPlainObject } from './util.js';

  /** Input types that are not parameters. */
  const NOT_PARAMS = ['submit', 'reset', 'button', 'image', 'hidden', 'file'];
  const EMAIL_PATTERN = "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";
  const TYPE_PATTERNS = /** @type {Record<string, string>} */ ({
    email: EMAIL_PATTERN,
    url: '^[a-zA-Z][a-zA-Z0-9+.-]*:\\S*$',
    time: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
    'datetime-local': '^[0-9]{4}-(0[1-9]|1[0-2])-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]$',
    month: '^\\d{4}-\\d{2}$',
    week: '^\\d{4}-W\\d{2}$',
    color: '^#[0-9a-fA-F]{6}$',
  });
  const TYPE_FORMATS = /** @type {Record<string, string>} */ ({ date: 'date' });
  const TYPE_HINTS = /** @type {Record<string, string>} */ ({ date: "Dates MUST be provided in 'YYYY-MM-DD' format." });

  /** @param {Element} el */
  const textOf = (el) => (el.textContent || '').replace(/\s+/g, ' ').trim();

  /** Controls whose own text (options, a textarea's value) is not the words of a label around them. */
  const LABEL_SKIP = new Set(['select', 'textarea', 'datalist', 'option', 'optgroup', 'script', 'style', 'template']);

  /**
   * A label's own words, as Chromium's declarative tools take them: the text of a control nested
   * in the label (a select's options) is not part of it (`<label>Cabin <select>…</select></label>`
   * describes the select as "Cabin", not "Cabin DeckBerth").
   * @param {Element} label
   */
  function labelText(label) {
    let out = '';
    /** @param {Node} node */
    const walk = (node) => {
      for (const child of node.childNodes) {
        if (child.nodeType === 3) out += child.nodeValue;
        else if (child.nodeType === 1 && !LABEL_SKIP.has(/** @type {Element} */ (child).localName)) walk(child);
      }
    };
    walk(label);
    return out.replace(/\s+/g, ' ').trim();
  }

  /** A control's description: toolparamdescription, else its label, else aria-label. @param {any} el */
  function controlDescription(el) {
    const own = el.getAttribute('toolparamdescription');
    if (own) return own;
    const label = el.labels && el.labels.length ? labelText(el.labels[0]) : '';
    return label || el.getAttribute('aria-label') || '';
  }

  /** @param {any} el */
  const isParam = (el) => {
    const tag = el.localName;
    if (!el.name || el.disabled) return false;
    if (tag === 'input') return !NOT_PARAMS.includes(el.type);
    return tag === 'select' || tag === 'textarea';
  };

  /**
   * A string choice among values (radio group, select), as the browser describes it: `anyOf` of
   * `{type, const, title?}` plus `enum`. @param {Array<[string, string]>} pairs value and title
   */
  const choices = (pairs) => ({
    type: 'string',
    anyOf: pairs.map(([value, title]) => (title ? { type: 'string', const: value, title } : { type: 'string', const: value })),
    enum: pairs.map(([value]) => value),
  });

  /**
   * A form's parameter controls grouped by name (radio groups and same-name checkboxes share one).
   * @param {HTMLFormElement} form @param {((el: Element) => boolean)|undefined} skip
   */
  function paramGroups(form, skip) {
    /** @type {Map<string, any[]>} */
    const groups = new Map();
    for (const el of /** @type {any[]} */ (Array.from(form.elements))) {
      if (!isParam(el) || (skip && skip(el))) continue;
      if (!groups.has(el.name)) groups.set(el.name, []);
      /** @type {any[]} */ (groups.get(el.name)).push(el);
    }
    return groups;
  }

  /**
   * The input schema of a form, built from its named controls like the browser builds it. The one
   * builder for declarative forms and for the tabmcp extension's page forms (hook.forms.schema),
   * which passes `skip` to leave out controls it never offers.
   * @param {HTMLFormElement} form @param {{skip?: (el: Element) => boolean}} [options]
   */
  function formSchema(form, options = {}) {
    /** @type {Record<string, any>} */
    const properties = {};
    /** @type {string[]} */
    const required = [];
    const groups = paramGroups(form, options.skip);
    for (const [name, els] of groups) {
      const el = els[0];
      /** @type {any} */
      let prop;
      const type = el.localName === 'input' ? el.type : el.localName;
      if (type === 'radio') {
        prop = choices(els.map((r) => [r.value, r.labels && r.labels.length ? labelText(r.labels[0]) : '']));
      } else if (type === 'checkbox') {
        prop = els.length > 1
          ? { type: 'array', items: { type: 'string', enum: els.map((c) => c.value) }, uniqueItems: true }
          : { type: 'boolean' };
      } else if (type === 'select') {
        const options = Array.from(/** @type {any[]} */ (el.options)).filter((o) => !o.disabled);
        const one = choices(options.map((o) => [o.value, textOf(o)]));
        prop = el.multiple ? { type: 'array', items: one, uniqueItems: true } : one;
      } else if (type === 'number' || type === 'range') {
        prop = { type: 'number' };
        const min = parseFloat(el.min);
        const max = parseFloat(el.max);
        const stepAttr = (el.getAttribute('step') || '1').trim().toLowerCase();
        const step = stepAttr === 'any' ? NaN : parseFloat(stepAttr) > 0 ? parseFloat(stepAttr) : 1;
        if (Number.isFinite(min)) prop.minimum = min;
        if (Number.isFinite(max)) prop.maximum = max;
        if (Number.isFinite(step)) prop.multipleOf = step;
      } else {
        prop = { type: 'string' };
        if (TYPE_FORMATS[type]) prop.format = TYPE_FORMATS[type];
        const pattern = el.getAttribute('pattern');
        if (pattern && (type === 'text' || type === 'search' || type === 'tel' || type === 'password' || type === 'email' || type === 'url')) {
          prop.pattern = `^(?:${pattern})$`;
        } else if (TYPE_PATTERNS[type]) prop.pattern = TYPE_PATTERNS[type];
        if (el.minLength > 0) prop.minLength = el.minLength;
        if (el.maxLength >= 0 && el.hasAttribute('maxlength')) prop.maxLength = el.maxLength;
      }
      const title = el.getAttribute('toolparamtitle');
      if (title) prop.title = title;
      // A radio button's label names its choice (a title above), not the parameter.
      const description = (type === 'radio' ? el.getAttribute('toolparamdescription') : controlDescription(el)) || TYPE_HINTS[type] || '';
      if (description) prop.description = description;
      properties[name] = prop;
      if (els.some((e) => e.required)) required.push(name);
    }
    /** @type {any} */
    const schema = { type: 'object', properties };
    if (required.length) schema.required = required;
    return schema;
  }

  /** @param {Element} el @param {string} type */
  const fire = (el, type) => el.dispatchEvent(new Event(type, { bubbles: true, composed: type === 'input' }));

  /**
   * Fills a form's controls from a tool call's input, firing input and change on every control
   * whose value changed (and on none when nothing changed); controls `skip` names are never touched.
   * @param {HTMLFormElement} form @param {any} input @param {{skip?: (el: Element) => boolean}} [options]
   */
  function fillForm(form, input, options = {}) {
    if (!isPlainObject(input)) return;
    const groups = paramGroups(form, options.skip);
    for (const [name, value] of Object.entries(input)) {
      const els = groups.get(name);
      if (!els) continue;
      const el = els[0];
      const type = el.localName === 'input' ? el.type : el.localName;
      /** @type {Element[]} */
      const changed = [];
      if (type === 'radio') {
        const pick = els.find((r) => r.value === String(value));
        if (pick && !pick.checked) {
          pick.checked = true;
          changed.push(pick);
        }
      } else if (type === 'checkbox') {
        for (const c of els) {
          const want = els.length > 1 ? Array.isArray(value) && value.map(String).includes(c.value) : !!value;
          if (c.checked !== want) {
            c.checked = want;
            changed.push(c);
          }
        }
      } else if (type === 'select' && el.multiple) {
        const want = new Set((Array.isArray(value) ? value : [value]).map(String));
        let any = false;
        for (const o of el.options) {
          const sel = want.has(o.value);
          if (o.selected !== sel) {
            o.selected = sel;
            any = true;
          }
        }
        if (any) changed.push(el);
      } else {
        const text = value === null || value === undefined ? '' : String(value);
        if (el.value !== text) {
          el.value = text;
          changed.push(el);
        }
      }
      for (const c of changed) {
        fire(c, 'input');
        fire(c, 'change');
      }
    }
  }

  /** The button an agent's submission goes through: the form's default button, if any. @param {HTMLFormElement} form */
  function defaultButton(form) {
    return /** @type {any[]} */ (Array.from(form.elements)).find((el) =>
      (el.localName === 'button' && el.type === 'submit') || (el.localName === 'input' && (el.type === 'submit' || el.type === 'image'))) || null;
  }

  // esm: export { defaultButton, fillForm, formSchema, isParam };

  // ==== src/declarative.js ====
  /**
   * Declarative tools in polyfill mode: `<form toolname tooldescription [toolautosubmit]>` kept in
   * step with the document, agent submissions (`SubmitEvent.agentInvoked`, `respondWith()`), and the
   * `:tool-form-active` / `:tool-submit-active` pseudo-classes for selector APIs. Where the browser has
   * WebMCP it registers forms itself.
   */

  // esm: import { NAME_RE } from './constants.js';
  // esm: import { domError } from './util.js';
  // esm: import { addTool, categories, tools } from './registry.js';
  // esm: import { PersonCancelled, fireToolEvent } from './run.js';
  // esm: import { defaultButton, fillForm, formSchema } from './form-schema.js';

  /** The attribute equivalents of the :tool-form-active / :tool-submit-active pseudo-classes. */
  const FORM_ACTIVE_ATTR = 'data-tool-form-active';
  const SUBMIT_ACTIVE_ATTR = 'data-tool-submit-active';
  /** Attributes whose change can change a form tool's definition. */
  const FORM_ATTRS = ['toolname', 'tooldescription', 'toolautosubmit', 'toolparamtitle', 'toolparamdescription',
    'name', 'type', 'required', 'min', 'max', 'step', 'pattern', 'minlength', 'maxlength', 'multiple',
    'value', 'disabled', 'label', 'for', 'id', 'form', 'aria-label'];
  /** @type {WeakSet<Event>} submit events of agent-invoked submissions */
  const agentSubmits = new WeakSet();
  /** @type {WeakMap<Event, {responded: Promise<any>|null, dispatching: boolean}>} */
  const submitState = new WeakMap();
  /** @type {Map<Element, {name: string, signature: string, controller: AbortController, driver: any}>} */
  const formTools = new Map();
  const warnedForms = new WeakSet();

  /**
   * What runs a form tool: fills the controls, then submits (toolautosubmit) or waits for the
   * person to submit; cancels when the call is aborted or the person resets the form.
   * @param {HTMLFormElement} form @param {() => boolean} registered
   */
  function formDriver(form, registered) {
    /** @type {null|{resolve: (v: any) => void, reject: (e: any) => void, button: Element|null, scriptSubmit: boolean}} */
    let run = null;
    /** @type {Element|null} the submit button marked active */
    let marked = null;
    const clear = () => {
      form.removeAttribute(FORM_ACTIVE_ATTR);
      if (marked) marked.removeAttribute(SUBMIT_ACTIVE_ATTR);
      marked = null;
    };
    const end = () => {
      clear();
      form.removeEventListener('reset', onReset);
      run = null;
    };
    const onReset = () => {
      if (!run) return;
      const r = run;
      end();
      // Chromium's own error for this case; the hook reports it as USER_CANCELLED.
      r.reject(new PersonCancelled(domError('Tool execution cancelled by a form reset', 'UnknownError')));
      fireToolEvent('toolcancel', form.getAttribute('toolname') || '');
    };
    /** Called for every submit event of this form while a call waits. @param {SubmitEvent} event */
    const onSubmit = (event) => {
      if (!run) return;
      const r = run;
      agentSubmits.add(event);
      const state = { responded: /** @type {Promise<any>|null} */ (null), dispatching: true };
      submitState.set(event, state);
      return { r, state };
    };
    const finishSubmit = (/** @type {SubmitEvent} */ event, /** @type {any} */ r, /** @type {any} */ state) => {
      state.dispatching = false;
      end();
      if (!registered()) {
        r.reject(domError('The form was removed while its tool ran.', 'UnknownError'));
        return;
      }
      if (state.responded) {
        state.responded.then(r.resolve, r.reject);
      } else if (!event.defaultPrevented || r.scriptSubmit) {
        r.resolve({ submitted: true, action: form.action, method: form.method });
      } else {
        r.resolve(null);
      }
    };
    const driver = {
      form,
      /** @param {any} input */
      fill(input) {
        clear();
        form.setAttribute(FORM_ACTIVE_ATTR, '');
        marked = defaultButton(form);
        if (marked) marked.setAttribute(SUBMIT_ACTIVE_ATTR, '');
        fillForm(form, input);
      },
      /** @param {any} client */
      submit(client) {
        return new Promise((resolve, reject) => {
          const button = marked;
          run = { resolve, reject, button, scriptSubmit: false };
          form.addEventListener('reset', onReset);
          if (!form.hasAttribute('toolautosubmit')) return; // the person submits (or cancels)
          if (!form.noValidate && !form.checkValidity()) {
            end();
            reject(domError('The form is not valid after filling it in.', 'DataError'));
            return;
          }
          pendingSubmit = driver;
          lastDispatch = null;
          try {
            // Dispatches the submit event synchronously: every listener has run when it returns.
            if (button) form.requestSubmit(/** @type {any} */ (button));
            else form.requestSubmit();
          } finally {
            pendingSubmit = null;
          }
          const pending = lastDispatch;
          lastDispatch = null;
          if (pending) pending.finish();
          else if (run) {
            // No submit event reached us (a listener stopped it in the capture phase): count it as submitted.
            const r = run;
            end();
            r.resolve(null);
          }
        });
      },
      cancel() {
        if (run) end();
      },
      /** The form left the document (or stopped being a tool) while a call waited for the person. */
      abandon() {
        if (!run) return;
        const r = run;
        end();
        r.reject(domError('The form was removed while its tool ran.', 'UnknownError'));
      },
      /** @param {SubmitEvent} event */
      onSubmitCapture(event) {
        const got = onSubmit(event);
        if (!got) return;
        // Settle once the event's dispatch is over: listeners may call respondWith() or submit().
        const { r, state } = got;
        lastDispatch = { event, finish: () => finishSubmit(event, r, state) };
      },
      scriptSubmitted() {
        if (run) run.scriptSubmit = true;
      },
      get waiting() { return !!run; },
    };
    return driver;
  }

  /** @type {any} the driver whose form is being submitted by the agent right now */
  let pendingSubmit = null;
  /** @type {null|{event: Event, finish: () => void}} */
  let lastDispatch = null;

  /** A capturing submit listener on the window: marks agent submissions before page listeners run. */
  function onSubmitCapture(/** @type {any} */ event) {
    const form = event.target;
    const entry = formTools.get(form);
    if (!entry || !entry.driver.waiting) return;
    entry.driver.onSubmitCapture(event);
    if (pendingSubmit === entry.driver) return; // finished by the driver right after requestSubmit()
    // A person's submission of a form the agent filled in: settle after the dispatch.
    const pending = lastDispatch;
    lastDispatch = null;
    if (pending) setTimeout(pending.finish, 0);
  }

  /** Registers, updates or removes form tools to match the document. */
  function scanForms() {
    /** @type {Set<Element>} */
    const seen = new Set();
    for (const form of /** @type {any[]} */ (Array.from(document.querySelectorAll('form[toolname]')))) {
      seen.add(form);
      const name = form.getAttribute('toolname') || '';
      const description = form.getAttribute('tooldescription') || '';
      const schema = formSchema(form);
      const signature = JSON.stringify([name, description, form.hasAttribute('toolautosubmit'), schema]);
      const entry = formTools.get(form);
      if (entry && entry.signature === signature) continue;
      if (entry && entry.driver.waiting) continue; // never change a tool while it runs
      if (entry) {
        formTools.delete(form);
        entry.controller.abort();
      }
      if (!NAME_RE.test(name) || !description || tools.has(name) || categories.has(name)) {
        if (!warnedForms.has(form)) {
          warnedForms.add(form);
          console.warn(`[tabmcp] WebMCP: <form toolname=${JSON.stringify(name)}> is not a tool: ` +
            (!NAME_RE.test(name) ? 'invalid tool name' : !description ? 'tooldescription is missing' : 'the name is taken'));
        }
        continue;
      }
      const controller = new AbortController();
      /** @type {any} */
      const holder = {};
      const driver = formDriver(form, () => form.isConnected && formTools.get(form) === holder.entry);
      holder.entry = { name, signature, controller, driver };
      formTools.set(form, holder.entry);
      const prep = {
        dict: { name, description, execute: () => undefined },
        signal: controller.signal,
        exposedTo: [],
        scope: null,
        schemaJSON: JSON.stringify(schema),
      };
      addTool(/** @type {any} */ (prep), { form: driver });
    }
    for (const [form, entry] of Array.from(formTools)) {
      if (seen.has(form)) continue;
      formTools.delete(form);
      entry.driver.abandon();
      entry.controller.abort();
    }
  }

  let scanQueued = false;
  function queueScan() {
    if (scanQueued) return;
    scanQueued = true;
    queueMicrotask(() => {
      scanQueued = false;
      scanForms();
    });
  }

  /** Whether a mutation can concern a form tool (cheap filters first). @param {MutationRecord} m */
  function concernsForms(m) {
    const t = /** @type {any} */ (m.target);
    if (m.type === 'attributes') {
      if (t.localName === 'form') return true;
      return !!(t.closest && t.closest('form[toolname]')) || !!(t.form && t.form.hasAttribute && t.form.hasAttribute('toolname'));
    }
    if (t.nodeType === 1 && t.closest && t.closest('form[toolname]')) return true;
    for (const list of [m.addedNodes, m.removedNodes]) {
      for (const n of /** @type {any} */ (list)) {
        if (n.nodeType !== 1) continue;
        if (n.localName === 'form' || n.localName === 'label' || (n.querySelector && n.querySelector('form,label,input,select,textarea')) ||
          n.localName === 'input' || n.localName === 'select' || n.localName === 'textarea' || n.localName === 'option') return true;
      }
    }
    return false;
  }

  /** Rewrites the two pseudo-classes to their attribute equivalents for selector APIs. @param {any} sel */
  const rewriteSelector = (sel) => (typeof sel === 'string' && sel.includes(':tool-')
    ? sel.replace(/:tool-form-active\b/g, `[${FORM_ACTIVE_ATTR}]`).replace(/:tool-submit-active\b/g, `[${SUBMIT_ACTIVE_ATTR}]`)
    : sel);

  function startDeclarative() {
    // SubmitEvent.agentInvoked and respondWith(), where the browser has neither.
    if (typeof SubmitEvent === 'function' && !('agentInvoked' in SubmitEvent.prototype)) {
      Object.defineProperty(SubmitEvent.prototype, 'agentInvoked', {
        configurable: true,
        enumerable: true,
        get() { return agentSubmits.has(this); },
      });
      Object.defineProperty(SubmitEvent.prototype, 'respondWith', {
        configurable: true,
        writable: true,
        /** @this {SubmitEvent} @param {any} promise */
        value: function respondWith(promise) {
          const state = submitState.get(this);
          if (!state || !state.dispatching) {
            throw domError("Failed to execute 'respondWith' on 'SubmitEvent': You can only call respondWith on a submit event that has agentInvoked == true, during its dispatch.", 'InvalidStateError');
          }
          if (state.responded) {
            throw domError("Failed to execute 'respondWith' on 'SubmitEvent': respondWith() was already called.", 'InvalidStateError');
          }
          this.preventDefault();
          state.responded = Promise.resolve(promise);
        },
      });
    }
    // form.submit() from a submit listener of an agent's submission completes the call.
    const nativeSubmit = HTMLFormElement.prototype.submit;
    Object.defineProperty(HTMLFormElement.prototype, 'submit', {
      configurable: true,
      writable: true,
      value: function submit() {
        const entry = formTools.get(this);
        if (entry && entry.driver.waiting) entry.driver.scriptSubmitted();
        return nativeSubmit.call(this);
      },
    });
    // Selector APIs understand :tool-form-active / :tool-submit-active (stylesheets cannot).
    for (const [proto, keys] of /** @type {Array<[any, string[]]>} */ ([
      [Element.prototype, ['matches', 'closest', 'querySelector', 'querySelectorAll', 'webkitMatchesSelector']],
      [Document.prototype, ['querySelector', 'querySelectorAll']],
      [DocumentFragment.prototype, ['querySelector', 'querySelectorAll']],
    ])) {
      for (const key of keys) {
        const original = proto[key];
        if (typeof original !== 'function') continue;
        Object.defineProperty(proto, key, {
          configurable: true,
          writable: true,
          value: { [key](/** @type {any} */ sel) { return original.call(this, rewriteSelector(sel)); } }[key],
        });
      }
    }
    window.addEventListener('submit', onSubmitCapture, true);
    new MutationObserver((records) => {
      if (records.some(concernsForms)) queueScan();
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: FORM_ATTRS });
    queueScan();
  }

  // esm: export { startDeclarative };

  // ==== src/hook.js ====
  /**
   * The internal hook for the tabmcp extension on `globalThis[Symbol.for('tabmcp.webmcp')]`: version,
   * mode, snapshot(), call(), subscribe() and the form machinery.
   */

  // esm: import { VERSION } from './constants.js';
  // esm: import { native, navNative } from './mode.js';
  // esm: import { subscribers } from './registry.js';
  // esm: import { invoke } from './invoke.js';
  // esm: import { snapshot } from './views.js';
  // esm: import { defaultButton, fillForm, formSchema, isParam } from './form-schema.js';

  function createHook() {
    return Object.freeze({
      version: VERSION,
      native: native || !!navNative,
      snapshot,
      /** @param {any} name @param {any} [args] @param {any} [options] */
      call: async (name, args = undefined, options = undefined) => {
        const out = await invoke(name, args, options);
        if (out.ok) return { ok: true, result: out.result };
        /** @type {any} */
        const clean = { ok: false, error: { code: out.error.code, message: out.error.message } };
        if (out.result) clean.result = out.result;
        return clean;
      },
      /** @param {() => void} callback */
      subscribe(callback) {
        if (typeof callback !== 'function') throw new TypeError('subscribe(callback): callback must be a function');
        const entry = () => callback();
        subscribers.add(entry);
        return () => { subscribers.delete(entry); };
      },
      /**
       * The declarative form machinery, for the tabmcp extension's page forms (extension/page/forms.js):
       * one schema builder and one filler for both kinds of form. Pure DOM work; works in both modes.
       */
      forms: Object.freeze({
        /** @param {HTMLFormElement} form @param {{skip?: (el: Element) => boolean}} [options] */
        schema: (form, options) => formSchema(form, options),
        /** @param {HTMLFormElement} form @param {any} input @param {{skip?: (el: Element) => boolean}} [options] */
        fill: (form, input, options) => fillForm(form, input, options),
        /** @param {HTMLFormElement} form */
        defaultButton: (form) => defaultButton(form),
        /** @param {Element} el whether a control is a parameter (named, enabled, not a button, hidden or file) */
        isParam: (el) => isParam(el),
      }),
    });
  }

  // esm: export { createHook };

  // ==== src/install.js ====
  /**
   * The entry: installs the polyfill once per document (another copy, maybe another version, may
   * already have) on the shape the mode calls for, the legacy alias where the page has none, and
   * the hook.
   */

  // esm: import { G, HOOK_KEY, NAV_RELAY } from './constants.js';
  // esm: import { nat, navNative, secure } from './mode.js';
  // esm: import { ToolActivatedEvent, ToolCancelEvent } from './events.js';
  // esm: import { setTarget, target } from './registry.js';
  // esm: import { augmentNative, layerOnNavigator } from './native.js';
  // esm: import { OWN_TOOLS, ownRegisteredTools } from './frames.js';
  // esm: import { CONSTRUCT, ModelContext, defineGlobal } from './model-context.js';
  // esm: import { ModelContextLegacy } from './legacy.js';
  // esm: import { startDeclarative } from './declarative.js';
  // esm: import { createHook } from './hook.js';

  function install() {
    if (secure) {
      if (nat) {
        setTarget(nat.mc);
        augmentNative(nat.mc);
      } else {
        const mc = new ModelContext(CONSTRUCT);
        setTarget(mc);
        Object.defineProperty(mc, OWN_TOOLS, { value: ownRegisteredTools });
        Object.defineProperty(Document.prototype, 'modelContext', {
          configurable: true,
          enumerable: true,
          get() { return this === document ? mc : undefined; },
        });
        defineGlobal('ModelContext', ModelContext);
        startDeclarative();
        if (navNative) {
          // Firefox's own `ModelContext.prototype.registerTool` called on our document.modelContext
          // (the page's code for Chromium, where both are the browser's): ours takes it.
          Object.defineProperty(mc, NAV_RELAY, { value: Object.freeze({ polyfill: ModelContext.prototype.registerTool }) });
          layerOnNavigator(navNative);
        }
      }
      defineGlobal('ToolActivatedEvent', ToolActivatedEvent);
      defineGlobal('ToolCancelEvent', ToolCancelEvent);

      let hasAlias = false;
      try { hasAlias = /** @type {any} */ (navigator).modelContext !== undefined; } catch (_) { hasAlias = true; }
      if (!hasAlias) {
        const legacy = new ModelContextLegacy();
        for (const type of ['toolchange', 'statechange']) {
          target.addEventListener(type, () => legacy.dispatchEvent(new Event(type)));
        }
        Object.defineProperty(Navigator.prototype, 'modelContext', {
          configurable: true,
          enumerable: true,
          get() { return this === navigator ? legacy : undefined; },
        });
      }
    } else {
      setTarget(new EventTarget()); // inert: nothing is installed on insecure pages, like the browser
    }
    Object.defineProperty(G, HOOK_KEY, { value: createHook(), writable: false, enumerable: false, configurable: false });
  }

  // Once per document: another copy (maybe another version) may already be installed; windows only.
  if (!G[HOOK_KEY] && typeof document !== 'undefined' && typeof EventTarget === 'function') install();

  // esm: export {};
})();
