/**
 * A tool's return value as an MCP CallToolResult: a JSON-safe copy (what could not be kept is
 * named) capped at 1 MB.
 */

import { RESULT_LIMIT } from './constants.js';
import { errorMessage, isObjectLike, isPlainObject, utf8Length } from './util.js';

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
      try { toJSON = /** @type {any} */ (v).toJSON; } catch { toJSON = undefined; }
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

export { toCallToolResult };
