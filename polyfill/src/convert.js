/**
 * What registerTool and its kin check before touching the registry, with Chromium's messages and
 * order: the WebIDL dictionaries, options (`signal`, `exposedTo`), origins, our `scope` field, the
 * schema, the name, duplicates and the `tools` Permissions Policy. Shared by both modes so a page
 * sees the same errors with and without native WebMCP.
 */

import { DANGER_LEVELS, HINT_KEYS, NAME_RE, SCOPE_KEYS } from './constants.js';
import { domError, domString, errorMessage, isObjectLike, prefix } from './util.js';
import { nat } from './mode.js';
import { checkSchemaSubset } from './schema.js';
import { nameTaken } from './registry.js';

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
 * Everything registerTool checks, in Chromium's order (our `scope` after the options); the abort
 * check is left to the caller.
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
 * The `tools` Permissions Policy (default 'self') where the polyfill can know it: the browser's
 * answer, else allowed at the top and in a same-origin frame unless its `allow` says `tools 'none'`.
 * A cross-origin frame cannot see its container's attribute: it may register (the extension
 * applies the frame policy itself, docs/security.md).
 */
function toolsPolicyAllows() {
  try {
    const fp = /** @type {any} */ (document).featurePolicy;
    if (fp && typeof fp.features === 'function' && fp.features().includes('tools')) return fp.allowsFeature('tools');
  } catch { /* fall through */ }
  if (window.top === window) return true;
  let frame;
  try { frame = window.frameElement; } catch { frame = null; }
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
    } catch {
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

export { checkName, checkTool, convertGetToolsOptions, convertOptions, convertScope, convertTool };
