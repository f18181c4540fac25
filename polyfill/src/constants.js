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

export {
  DANGER_LEVELS, EMPTY_SCHEMA_JSON, G, HINT_KEYS, HOOK_KEY, MSG_INVOCATION_FAILED, MSG_TRANSIENT, NAME_RE,
  FOREIGN_REFRESH_MAX_MS, FOREIGN_REFRESH_MS, NATIVE_HINT_KEYS, NAV_ORIGINAL, NAV_RELAY, RESULT_LIMIT, SCOPE_KEYS, VERSION,
};
