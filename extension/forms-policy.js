// Forms-as-tools in the service worker: which origins have the switch on, from the bridge's
// `forms.policy` rules (the last match wins; none, or no word from the bridge yet, means off).
// The bridge checks again on every listing and call: this copy only spares pages the work.

/**
 * A rule as the worker keeps it: a config glob arrives compiled by the bridge (core/js_regex.py).
 * @typedef {{source: string, flags: string}} JsRegExp
 * @typedef {{match: string, enabled: boolean, source: 'config'|'person', pattern: JsRegExp | null}} FormsRule
 */

/** Compiled patterns by source and flags. @type {Map<string, RegExp | null>} */
const compiledPatterns = new Map();

/** @param {JsRegExp | null} pattern @returns {RegExp | null} */
function compiled(pattern) {
  if (!pattern) return null;
  const key = `${pattern.flags}/${pattern.source}`;
  let re = compiledPatterns.get(key);
  if (re === undefined) {
    try {
      re = new RegExp(pattern.source, pattern.flags);
    } catch {
      re = null;
    }
    if (compiledPatterns.size > 256) compiledPatterns.clear();
    compiledPatterns.set(key, re);
  }
  return re;
}

/** @param {any} p @returns {JsRegExp | null} */
const patternOf = (p) => (p && typeof p.source === 'string' && typeof p.flags === 'string' ? { source: p.source, flags: p.flags } : null);

/** @param {unknown} rules @returns {FormsRule[]} */
export function cleanRules(rules) {
  if (!Array.isArray(rules)) return [];
  return rules
    .filter((r) => r && typeof r.match === 'string' && typeof r.enabled === 'boolean')
    .map((r) => {
      const source = r.source === 'person' ? 'person' : 'config';
      return { match: r.match, enabled: r.enabled, source, pattern: source === 'config' ? patternOf(r.pattern) : null };
    });
}

/**
 * Whether an origin's ordinary forms may be offered, under the bridge's rules.
 * @param {FormsRule[]} rules @param {string} origin
 */
export function formsEnabled(rules, origin) {
  if (!origin || origin === 'null') return false;
  let on = false;
  for (const rule of rules) {
    const hit = rule.source === 'person' ? rule.match === origin : !!compiled(rule.pattern)?.test(origin);
    if (hit) on = rule.enabled;
  }
  return on;
}
