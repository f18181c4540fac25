/**
 * Input schemas: the WebMCP draft's JSON Schema subset (checked at registration; refused only in
 * strict mode, otherwise accepted with one console warning per keyword, as Chromium accepts them)
 * and the validation of a call's input against a tool's schema.
 */

import { domError, isPlainObject, prefix } from './util.js';
import { native } from './mode.js';

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
  try { return new RegExp(p, 'u'); } catch { return new RegExp(p); }
}

/** Does `text` match the schema pattern `p`? true when no RegExp can be made of it (not checked). @param {string} p @param {string} text */
function patternMatches(p, text) {
  let re;
  try { re = schemaRegExp(p); } catch { return true; }
  return re.test(text);
}

/**
 * Strict schemas (opt-in: `data-strict-schemas` or `webmcpPolyfillOptions.strictSchemas`, read at
 * each registration): refuse what the draft's subset excludes; by default accept what Chromium
 * accepts and warn once per keyword.
 */
const strictByScript = (() => {
  try {
    const el = document.currentScript;
    return !!(el && el.hasAttribute('data-strict-schemas'));
  } catch { return false; }
})();
function strictSchemas() {
  if (strictByScript) return true;
  try {
    const opts = /** @type {any} */ (globalThis).webmcpPolyfillOptions;
    return !!(opts && typeof opts === 'object' && opts.strictSchemas === true);
  } catch { return false; }
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
      } catch {
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
 * Validates a JSON value against a schema of the subset (draft-04's boolean exclusiveMinimum /
 * exclusiveMaximum and array `items` honoured). Null when valid, else the first failure.
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

export { checkSchemaSubset, inputError };
