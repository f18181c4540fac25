/**
 * The declarative form machinery: a form's input schema as the browser builds it (labels, types,
 * choices, constraints) and filling its controls from a tool call's input. Pure DOM work, used by
 * the declarative tools and, through the hook, by the tabmcp extension's page forms.
 */

import { isPlainObject } from './util.js';

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
 * The input schema of a form, built like the browser builds it; also the extension's page forms'
 * builder (hook.forms.schema), which passes `skip` for controls it never offers.
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

export { defaultButton, fillForm, formSchema, isParam };
