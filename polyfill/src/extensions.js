/**
 * Our additions to the standard, installed on both shapes (our ModelContext and the browser's).
 */

import { expandCategory, getCategories, list } from './views.js';
import { getStates, setStates } from './states.js';
import { registerCategory, unregisterCategory } from './categories.js';

/** @type {Record<string, Function>} */
const extensionMethods = {
  registerCategory, unregisterCategory, expandCategory, getCategories, list, setStates, getStates,
};

export { extensionMethods };
