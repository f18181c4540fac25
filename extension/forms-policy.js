// Forms-as-tools in the service worker: which origins have the switch on, as the bridge says.
//
// The bridge sends `forms.policy` {rules: [{match, enabled, source}]} after `welcome` and whenever
// it changes; a rule's `match` is an origin glob from `[[policy.origins]]` (fnmatch: `*`, `?`,
// `[...]`) or an exact origin the person chose in the popup; the last matching rule wins, and
// nothing matched means off. Until the bridge has spoken, every origin is off. The bridge checks
// again on every listing and call: this copy only spares pages the work and keeps their forms home.

/** @typedef {{match: string, enabled: boolean, source: 'config'|'person'}} FormsRule */

/**
 * Python's fnmatch.fnmatchcase as a RegExp: `*` any run, `?` one character, `[...]` a set
 * (`[!...]` negated); everything else literal.
 * @param {string} glob
 */
export function globToRegExp(glob) {
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      const negated = body.startsWith('!');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 's');
}

/** @param {unknown} rules @returns {FormsRule[]} */
export function cleanRules(rules) {
  if (!Array.isArray(rules)) return [];
  return rules
    .filter((r) => r && typeof r.match === 'string' && typeof r.enabled === 'boolean')
    .map((r) => ({ match: r.match, enabled: r.enabled, source: r.source === 'person' ? 'person' : 'config' }));
}

/**
 * Whether an origin's ordinary forms may be offered, under the bridge's rules.
 * @param {FormsRule[]} rules @param {string} origin
 */
export function formsEnabled(rules, origin) {
  if (!origin || origin === 'null') return false;
  let on = false;
  for (const rule of rules) {
    if (rule.source === 'person' ? rule.match === origin : globToRegExp(rule.match).test(origin)) on = rule.enabled;
  }
  return on;
}
