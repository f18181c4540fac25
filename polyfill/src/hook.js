/**
 * The internal hook for the tabmcp extension on `globalThis[Symbol.for('tabmcp.webmcp')]`: version,
 * mode, snapshot(), call(), subscribe() and the form machinery.
 */

import { VERSION } from './constants.js';
import { native, navNative } from './mode.js';
import { subscribers } from './registry.js';
import { invoke } from './invoke.js';
import { snapshot } from './views.js';
import { defaultButton, fillForm, formSchema, isParam } from './form-schema.js';

function createHook() {
  return Object.freeze({
    version: VERSION,
    native: native || !!navNative,
    snapshot,
    /** @param {any} name @param {any} [args] @param {any} [options] */
    call: async (name, args = undefined, options = undefined) => {
      const out = await invoke(name, args, options);
      if (out.ok) return { ok: true, result: out.result };
      /** @type {any} */
      const clean = { ok: false, error: { code: out.error.code, message: out.error.message } };
      if (out.result) clean.result = out.result;
      return clean;
    },
    /** @param {() => void} callback */
    subscribe(callback) {
      if (typeof callback !== 'function') throw new TypeError('subscribe(callback): callback must be a function');
      const entry = () => callback();
      subscribers.add(entry);
      return () => { subscribers.delete(entry); };
    },
    /**
     * The declarative form machinery, for the tabmcp extension's page forms (extension/page/forms.js):
     * one schema builder and one filler for both kinds of form. Pure DOM work; works in both modes.
     */
    forms: Object.freeze({
      /** @param {HTMLFormElement} form @param {{skip?: (el: Element) => boolean}} [options] */
      schema: (form, options) => formSchema(form, options),
      /** @param {HTMLFormElement} form @param {any} input @param {{skip?: (el: Element) => boolean}} [options] */
      fill: (form, input, options) => fillForm(form, input, options),
      /** @param {HTMLFormElement} form */
      defaultButton: (form) => defaultButton(form),
      /** @param {Element} el whether a control is a parameter (named, enabled, not a button, hidden or file) */
      isParam: (el) => isParam(el),
    }),
  });
}

export { createHook };
