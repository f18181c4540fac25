/**
 * Page states (our extension): setStates() / getStates() and the `statechange` event.
 */

import { arity, prefix } from './util.js';
import { notify, target } from './registry.js';

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

export { getStates, setStates };
