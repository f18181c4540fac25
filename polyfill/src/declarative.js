/**
 * Declarative tools in polyfill mode: `<form toolname tooldescription [toolautosubmit]>` kept in
 * step with the document, agent submissions (`SubmitEvent.agentInvoked`, `respondWith()`), and the
 * `:tool-form-active` / `:tool-submit-active` pseudo-classes for selector APIs. Where the browser has
 * WebMCP it registers forms itself.
 */

import { NAME_RE } from './constants.js';
import { domError } from './util.js';
import { addTool, categories, tools } from './registry.js';
import { PersonCancelled, fireToolEvent } from './run.js';
import { defaultButton, fillForm, formSchema } from './form-schema.js';

/** The attribute equivalents of the :tool-form-active / :tool-submit-active pseudo-classes. */
const FORM_ACTIVE_ATTR = 'data-tool-form-active';
const SUBMIT_ACTIVE_ATTR = 'data-tool-submit-active';
/** Attributes whose change can change a form tool's definition. */
const FORM_ATTRS = ['toolname', 'tooldescription', 'toolautosubmit', 'toolparamtitle', 'toolparamdescription',
  'name', 'type', 'required', 'min', 'max', 'step', 'pattern', 'minlength', 'maxlength', 'multiple',
  'value', 'disabled', 'label', 'for', 'id', 'form', 'aria-label'];
/** @type {WeakSet<Event>} submit events of agent-invoked submissions */
const agentSubmits = new WeakSet();
/** @type {WeakMap<Event, {responded: Promise<any>|null, dispatching: boolean}>} */
const submitState = new WeakMap();
/** @type {Map<Element, {name: string, signature: string, controller: AbortController, driver: any}>} */
const formTools = new Map();
const warnedForms = new WeakSet();

/**
 * What runs a form tool: fills the controls, then submits (toolautosubmit) or waits for the
 * person to submit; cancels when the call is aborted or the person resets the form.
 * @param {HTMLFormElement} form @param {() => boolean} registered
 */
function formDriver(form, registered) {
  /** @type {null|{resolve: (v: any) => void, reject: (e: any) => void, button: Element|null, scriptSubmit: boolean}} */
  let run = null;
  /** @type {Element|null} the submit button marked active */
  let marked = null;
  const clear = () => {
    form.removeAttribute(FORM_ACTIVE_ATTR);
    if (marked) marked.removeAttribute(SUBMIT_ACTIVE_ATTR);
    marked = null;
  };
  const end = () => {
    clear();
    form.removeEventListener('reset', onReset);
    run = null;
  };
  const onReset = () => {
    if (!run) return;
    const r = run;
    end();
    // Chromium's own error for this case; the hook reports it as USER_CANCELLED.
    r.reject(new PersonCancelled(domError('Tool execution cancelled by a form reset', 'UnknownError')));
    fireToolEvent('toolcancel', form.getAttribute('toolname') || '');
  };
  /** Called for every submit event of this form while a call waits. @param {SubmitEvent} event */
  const onSubmit = (event) => {
    if (!run) return;
    const r = run;
    agentSubmits.add(event);
    const state = { responded: /** @type {Promise<any>|null} */ (null), dispatching: true };
    submitState.set(event, state);
    return { r, state };
  };
  const finishSubmit = (/** @type {SubmitEvent} */ event, /** @type {any} */ r, /** @type {any} */ state) => {
    state.dispatching = false;
    end();
    if (!registered()) {
      r.reject(domError('The form was removed while its tool ran.', 'UnknownError'));
      return;
    }
    if (state.responded) {
      state.responded.then(r.resolve, r.reject);
    } else if (!event.defaultPrevented || r.scriptSubmit) {
      r.resolve({ submitted: true, action: form.action, method: form.method });
    } else {
      r.resolve(null);
    }
  };
  const driver = {
    form,
    /** @param {any} input */
    fill(input) {
      clear();
      form.setAttribute(FORM_ACTIVE_ATTR, '');
      marked = defaultButton(form);
      if (marked) marked.setAttribute(SUBMIT_ACTIVE_ATTR, '');
      fillForm(form, input);
    },
    submit() {
      return new Promise((resolve, reject) => {
        const button = marked;
        run = { resolve, reject, button, scriptSubmit: false };
        form.addEventListener('reset', onReset);
        if (!form.hasAttribute('toolautosubmit')) return; // the person submits (or cancels)
        if (!form.noValidate && !form.checkValidity()) {
          end();
          reject(domError('The form is not valid after filling it in.', 'DataError'));
          return;
        }
        pendingSubmit = driver;
        lastDispatch = null;
        try {
          // Dispatches the submit event synchronously: every listener has run when it returns.
          if (button) form.requestSubmit(/** @type {any} */ (button));
          else form.requestSubmit();
        } finally {
          pendingSubmit = null;
        }
        const pending = lastDispatch;
        lastDispatch = null;
        if (pending) pending.finish();
        else if (run) {
          // No submit event reached us (a listener stopped it in the capture phase): count it as submitted.
          const r = run;
          end();
          r.resolve(null);
        }
      });
    },
    cancel() {
      if (run) end();
    },
    /** The form left the document (or stopped being a tool) while a call waited for the person. */
    abandon() {
      if (!run) return;
      const r = run;
      end();
      r.reject(domError('The form was removed while its tool ran.', 'UnknownError'));
    },
    /** @param {SubmitEvent} event */
    onSubmitCapture(event) {
      const got = onSubmit(event);
      if (!got) return;
      // Settle once the event's dispatch is over: listeners may call respondWith() or submit().
      const { r, state } = got;
      lastDispatch = { event, finish: () => finishSubmit(event, r, state) };
    },
    scriptSubmitted() {
      if (run) run.scriptSubmit = true;
    },
    get waiting() { return !!run; },
  };
  return driver;
}

/** @type {any} the driver whose form is being submitted by the agent right now */
let pendingSubmit = null;
/** @type {null|{event: Event, finish: () => void}} */
let lastDispatch = null;

/** A capturing submit listener on the window: marks agent submissions before page listeners run. */
function onSubmitCapture(/** @type {any} */ event) {
  const form = event.target;
  const entry = formTools.get(form);
  if (!entry || !entry.driver.waiting) return;
  entry.driver.onSubmitCapture(event);
  if (pendingSubmit === entry.driver) return; // finished by the driver right after requestSubmit()
  // A person's submission of a form the agent filled in: settle after the dispatch.
  const pending = lastDispatch;
  lastDispatch = null;
  if (pending) setTimeout(pending.finish, 0);
}

/** Registers, updates or removes form tools to match the document. */
function scanForms() {
  /** @type {Set<Element>} */
  const seen = new Set();
  for (const form of /** @type {any[]} */ (Array.from(document.querySelectorAll('form[toolname]')))) {
    seen.add(form);
    const name = form.getAttribute('toolname') || '';
    const description = form.getAttribute('tooldescription') || '';
    const schema = formSchema(form);
    const signature = JSON.stringify([name, description, form.hasAttribute('toolautosubmit'), schema]);
    const entry = formTools.get(form);
    if (entry && entry.signature === signature) continue;
    if (entry && entry.driver.waiting) continue; // never change a tool while it runs
    if (entry) {
      formTools.delete(form);
      entry.controller.abort();
    }
    if (!NAME_RE.test(name) || !description || tools.has(name) || categories.has(name)) {
      if (!warnedForms.has(form)) {
        warnedForms.add(form);
        console.warn(`[tabmcp] WebMCP: <form toolname=${JSON.stringify(name)}> is not a tool: ` +
          (!NAME_RE.test(name) ? 'invalid tool name' : !description ? 'tooldescription is missing' : 'the name is taken'));
      }
      continue;
    }
    const controller = new AbortController();
    /** @type {any} */
    const holder = {};
    const driver = formDriver(form, () => form.isConnected && formTools.get(form) === holder.entry);
    holder.entry = { name, signature, controller, driver };
    formTools.set(form, holder.entry);
    const prep = {
      dict: { name, description, execute: () => undefined },
      signal: controller.signal,
      exposedTo: [],
      scope: null,
      schemaJSON: JSON.stringify(schema),
    };
    addTool(/** @type {any} */ (prep), { form: driver });
  }
  for (const [form, entry] of Array.from(formTools)) {
    if (seen.has(form)) continue;
    formTools.delete(form);
    entry.driver.abandon();
    entry.controller.abort();
  }
}

let scanQueued = false;
function queueScan() {
  if (scanQueued) return;
  scanQueued = true;
  queueMicrotask(() => {
    scanQueued = false;
    scanForms();
  });
}

/** Whether a mutation can concern a form tool (cheap filters first). @param {MutationRecord} m */
function concernsForms(m) {
  const t = /** @type {any} */ (m.target);
  if (m.type === 'attributes') {
    if (t.localName === 'form') return true;
    return !!(t.closest && t.closest('form[toolname]')) || !!(t.form && t.form.hasAttribute && t.form.hasAttribute('toolname'));
  }
  if (t.nodeType === 1 && t.closest && t.closest('form[toolname]')) return true;
  for (const list of [m.addedNodes, m.removedNodes]) {
    for (const n of /** @type {any} */ (list)) {
      if (n.nodeType !== 1) continue;
      if (n.localName === 'form' || n.localName === 'label' || (n.querySelector && n.querySelector('form,label,input,select,textarea')) ||
        n.localName === 'input' || n.localName === 'select' || n.localName === 'textarea' || n.localName === 'option') return true;
    }
  }
  return false;
}

/** Rewrites the two pseudo-classes to their attribute equivalents for selector APIs. @param {any} sel */
const rewriteSelector = (sel) => (typeof sel === 'string' && sel.includes(':tool-')
  ? sel.replace(/:tool-form-active\b/g, `[${FORM_ACTIVE_ATTR}]`).replace(/:tool-submit-active\b/g, `[${SUBMIT_ACTIVE_ATTR}]`)
  : sel);

function startDeclarative() {
  // SubmitEvent.agentInvoked and respondWith(), where the browser has neither.
  if (typeof SubmitEvent === 'function' && !('agentInvoked' in SubmitEvent.prototype)) {
    Object.defineProperty(SubmitEvent.prototype, 'agentInvoked', {
      configurable: true,
      enumerable: true,
      get() { return agentSubmits.has(this); },
    });
    Object.defineProperty(SubmitEvent.prototype, 'respondWith', {
      configurable: true,
      writable: true,
      /** @this {SubmitEvent} @param {any} promise */
      value: function respondWith(promise) {
        const state = submitState.get(this);
        if (!state || !state.dispatching) {
          throw domError("Failed to execute 'respondWith' on 'SubmitEvent': You can only call respondWith on a submit event that has agentInvoked == true, during its dispatch.", 'InvalidStateError');
        }
        if (state.responded) {
          throw domError("Failed to execute 'respondWith' on 'SubmitEvent': respondWith() was already called.", 'InvalidStateError');
        }
        this.preventDefault();
        state.responded = Promise.resolve(promise);
      },
    });
  }
  // form.submit() from a submit listener of an agent's submission completes the call.
  const nativeSubmit = HTMLFormElement.prototype.submit;
  Object.defineProperty(HTMLFormElement.prototype, 'submit', {
    configurable: true,
    writable: true,
    value: function submit() {
      const entry = formTools.get(this);
      if (entry && entry.driver.waiting) entry.driver.scriptSubmitted();
      return nativeSubmit.call(this);
    },
  });
  // Selector APIs understand :tool-form-active / :tool-submit-active (stylesheets cannot).
  for (const [proto, keys] of /** @type {Array<[any, string[]]>} */ ([
    [Element.prototype, ['matches', 'closest', 'querySelector', 'querySelectorAll', 'webkitMatchesSelector']],
    [Document.prototype, ['querySelector', 'querySelectorAll']],
    [DocumentFragment.prototype, ['querySelector', 'querySelectorAll']],
  ])) {
    for (const key of keys) {
      const original = proto[key];
      if (typeof original !== 'function') continue;
      Object.defineProperty(proto, key, {
        configurable: true,
        writable: true,
        value: { [key](/** @type {any} */ sel) { return original.call(this, rewriteSelector(sel)); } }[key],
      });
    }
  }
  window.addEventListener('submit', onSubmitCapture, true);
  new MutationObserver((records) => {
    if (records.some(concernsForms)) queueScan();
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: FORM_ATTRS });
  queueScan();
}

export { startDeclarative };
