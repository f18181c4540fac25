/**
 * Tool categories (our extension): registerCategory() registers the valid members and reports the
 * others (one bad member never takes its neighbours down); unregisterCategory().
 */

import {
  anySignal, arity, domError, domString, errorMessage, isObjectLike, prefix, promiseFrom,
} from './util.js';
import { checkName, checkTool, convertOptions, convertScope, convertTool } from './convert.js';
import { addTool, categories, fireToolchange, nameTaken, notify, removeCategory } from './registry.js';

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
        try { memberName = isObjectLike(t) && t.name !== undefined ? domString(t.name) : ''; } catch { /* unnamed */ }
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

export { registerCategory, unregisterCategory };
