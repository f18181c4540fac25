// @ts-check
/**
 * Helpers for writing tools: JSON Schema builders, a small input validator (so a bad call
 * gets a clear error whether or not the WebMCP host validates), and the `tool()` factory.
 */

/**
 * @typedef {Record<string, any>} Schema
 * @typedef {{routes?: string[], states?: string[], dangerLevel?: 'safe'|'moderate'|'destructive', requiresApproval?: boolean, core?: boolean}} Scope
 * @typedef {{readOnlyHint?: boolean, destructiveHint?: boolean, idempotentHint?: boolean, openWorldHint?: boolean}} Annotations
 * @typedef {{name: string, title: string, description: string, inputSchema: Schema, annotations: Annotations,
 *   scope?: Scope, execute: (input?: any) => any}} ToolDef
 * @typedef {{name: string, title: string, description: string, tools: ToolDef[]}} CategoryDef
 */

// ---------------------------------------------------------------- schema builders

/** An object schema that rejects unknown keys. @param {Record<string, Schema>} properties @param {string[]} [required] */
export function obj(properties = {}, required = []) {
  /** @type {Schema} */
  const s = { type: 'object', properties, additionalProperties: false };
  if (required.length) s.required = required;
  return s;
}

/** @type {WeakMap<Schema, 'email'|'date'|'date-time'>} string kinds, for the kit's own error messages */
const KINDS = new WeakMap();
/** @param {'email'|'date'|'date-time'} k @param {Schema} schema */
const kind = (k, schema) => { KINDS.set(schema, k); return schema; };

export const S = {
  /** @param {string} what e.g. "user" */
  id: (what) => ({ type: 'integer', minimum: 1, description: `Numeric id of the ${what}.` }),
  /** @param {string} description @param {Schema} [extra] */
  str: (description, extra = {}) => ({ type: 'string', description, ...extra }),
  /** @param {string[]} values @param {string} description */
  enum: (values, description) => ({ type: 'string', enum: values, description }),
  /** @param {string} description @param {Schema} [extra] */
  int: (description, extra = {}) => ({ type: 'integer', description, ...extra }),
  /** @param {string} description @param {Schema} [extra] */
  num: (description, extra = {}) => ({ type: 'number', description, ...extra }),
  /** @param {string} description */
  bool: (description) => ({ type: 'boolean', description }),
  /** @param {Schema} items @param {string} description @param {Schema} [extra] */
  arr: (items, description, extra = {}) => ({ type: 'array', items, description, ...extra }),
  // WebMCP's schema subset has no `format`: these say it with a pattern, and the kit remembers the
  // kind to word its own errors.
  email: (/** @type {string} */ description) => kind('email', { type: 'string', pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 254, description }),
  date: (/** @type {string} */ description) => kind('date', { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description }),
  dateTime: (/** @type {string} */ description) => kind('date-time', { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$', description }),
  limit: (/** @type {number} */ def = 20) => ({ type: 'integer', minimum: 1, maximum: 100, default: def, description: `Maximum number of rows to return (default ${def}).` }),
  query: (/** @type {string} */ what) => ({ type: 'string', maxLength: 200, description: `Case-insensitive text to match against ${what}.` }),
};

/** Annotation presets. */
export const READ = Object.freeze({ readOnlyHint: true, idempotentHint: true });
export const WRITE = Object.freeze({ readOnlyHint: false });
export const IDEMPOTENT = Object.freeze({ readOnlyHint: false, idempotentHint: true });
export const DESTRUCTIVE = Object.freeze({ readOnlyHint: false, destructiveHint: true });

// ---------------------------------------------------------------- validation

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** @param {unknown} v */
const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);

/**
 * Check (and gently coerce: "12" -> 12, "true" -> true) a value against the subset of JSON
 * Schema our tools use. Fills in defaults. Throws an Error naming the offending field.
 * @param {unknown} value @param {Schema} schema @param {string} path
 * @returns {any}
 */
export function validate(value, schema, path = 'input') {
  const where = path === 'input' ? 'input' : `"${path.replace(/^input\./, '')}"`;
  let v = value;
  const t = schema.type;
  if (t === 'integer' || t === 'number') {
    if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) v = Number(v);
    if (typeof v !== 'number' || Number.isNaN(v) || (t === 'integer' && !Number.isInteger(v))) {
      throw new Error(`Invalid ${where}: expected ${t === 'integer' ? 'an integer' : 'a number'}, got ${JSON.stringify(value)}`);
    }
    if (schema.minimum !== undefined && v < schema.minimum) throw new Error(`Invalid ${where}: must be ≥ ${schema.minimum}, got ${v}`);
    if (schema.maximum !== undefined && v > schema.maximum) throw new Error(`Invalid ${where}: must be ≤ ${schema.maximum}, got ${v}`);
    if (schema.exclusiveMinimum !== undefined && v <= schema.exclusiveMinimum) throw new Error(`Invalid ${where}: must be > ${schema.exclusiveMinimum}, got ${v}`);
  } else if (t === 'boolean') {
    if (v === 'true' || v === 'false') v = v === 'true';
    if (typeof v !== 'boolean') throw new Error(`Invalid ${where}: expected true or false, got ${JSON.stringify(value)}`);
  } else if (t === 'string') {
    if (typeof v !== 'string') throw new Error(`Invalid ${where}: expected a string, got ${JSON.stringify(value)}`);
    if (schema.minLength !== undefined && v.length < schema.minLength) {
      throw new Error(schema.minLength === 1 ? `Invalid ${where}: must not be empty` : `Invalid ${where}: must be at least ${schema.minLength} characters`);
    }
    if (schema.maxLength !== undefined && v.length > schema.maxLength) throw new Error(`Invalid ${where}: must be at most ${schema.maxLength} characters`);
    const k = KINDS.get(schema);
    if (k === 'email' && !EMAIL.test(v)) throw new Error(`Invalid ${where}: ${JSON.stringify(v)} is not an email address`);
    if (k === 'date' && (!DATE.test(v) || Number.isNaN(Date.parse(v)))) throw new Error(`Invalid ${where}: expected a date like 2026-03-01, got ${JSON.stringify(v)}`);
    if (k === 'date-time' && Number.isNaN(Date.parse(v))) throw new Error(`Invalid ${where}: expected an ISO 8601 date-time, got ${JSON.stringify(v)}`);
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(v)) throw new Error(`Invalid ${where}: ${JSON.stringify(v)} does not match ${schema.pattern}`);
  } else if (t === 'array') {
    if (!Array.isArray(v)) throw new Error(`Invalid ${where}: expected an array, got ${JSON.stringify(value)}`);
    if (schema.minItems !== undefined && v.length < schema.minItems) throw new Error(`Invalid ${where}: needs at least ${schema.minItems} item(s)`);
    if (schema.maxItems !== undefined && v.length > schema.maxItems) throw new Error(`Invalid ${where}: allows at most ${schema.maxItems} item(s)`);
    v = v.map((item, i) => validate(item, schema.items ?? {}, `${path}[${i}]`));
    if (schema.uniqueItems && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) throw new Error(`Invalid ${where}: items must be unique`);
  } else if (t === 'object') {
    if (v === undefined || v === null) v = {};
    if (typeOf(v) !== 'object') throw new Error(`Invalid ${where}: expected an object, got ${JSON.stringify(value)}`);
    const props = schema.properties ?? {};
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const [k, val] of Object.entries(/** @type {object} */ (v))) {
      if (!(k in props)) {
        if (schema.additionalProperties === false) {
          const known = Object.keys(props);
          throw new Error(`Unknown argument "${k}"${known.length ? `; expected: ${known.join(', ')}` : '; this tool takes no arguments'}`);
        }
        out[k] = val;
      } else if (val !== undefined && val !== null) {
        out[k] = validate(val, props[k], `${path}.${k}`);
      }
    }
    for (const k of schema.required ?? []) {
      if (out[k] === undefined) throw new Error(`Missing required argument "${k}"`);
    }
    for (const [k, p] of Object.entries(props)) if (out[k] === undefined && p.default !== undefined) out[k] = p.default;
    if (schema.minProperties !== undefined && Object.keys(out).length < schema.minProperties) {
      throw new Error(`Give at least one of: ${Object.keys(props).filter((k) => !(schema.required ?? []).includes(k)).join(', ')}`);
    }
    v = out;
  }
  if (schema.enum && !schema.enum.includes(v)) {
    throw new Error(`Invalid ${where}: ${JSON.stringify(v)} is not one of: ${schema.enum.join(', ')}`);
  }
  return v;
}

// ---------------------------------------------------------------- tool factory

/**
 * Define a tool. `run` gets validated input; its return value is the tool result.
 * @param {{name: string, title: string, description: string, input?: Schema, annotations?: Annotations,
 *   scope?: Scope, run: (input: any) => any}} spec
 * @returns {ToolDef}
 */
export function tool(spec) {
  const inputSchema = spec.input ?? obj();
  /** @type {ToolDef} */
  const def = {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema,
    annotations: { ...(spec.annotations ?? WRITE) },
    execute: (input) => spec.run(validate(input, inputSchema)),
  };
  if (spec.scope) def.scope = spec.scope;
  return def;
}

/**
 * Throw unless admin mode is on: the app itself refuses admin actions, whatever the host shows.
 * @param {{adminMode: boolean}} ui
 */
export function requireAdmin(ui) {
  if (!ui.adminMode) throw new Error('Admin mode is off. Ask the user to switch on "Admin mode" in the top bar, then try again.');
}

/** @param {string} route e.g. "media" -> { routes: ["#/media", "#/media/*"] } pattern list */
export const onRoute = (route) => [`#/${route}*`];
