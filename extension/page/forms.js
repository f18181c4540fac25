// tabmcp page forms (main world, top document, document_start, after webmcp-polyfill.js).
// Offers a site's ordinary forms (no `toolname`) as tools while the bridge says this origin's
// forms-as-tools switch is on; what is never offered, and why, is in docs/security.md ("Page forms
// as tools"); the checks are page/form_guard.js. Talks to the content script over page/channel.js,
// like page/agent.js. Idempotent.
(() => {
  const KEY = Symbol.for('tabmcp.pageForms');
  if (window[KEY] || window.top !== window) return;
  const { PAGE, PAGE_EVENT } = globalThis[Symbol.for('tabmcp.messages')];
  const { ERROR } = globalThis[Symbol.for('tabmcp.protocol')];
  const MAX_FORMS = 64;
  const MAX_TITLE = 120;
  const MAX_DESCRIPTION = 600;
  const MAX_RESPONSE = 2000;
  /** How long a page that handles the submission itself is watched for its answer. */
  const RESPONSE_QUIET_MS = 300;
  const RESPONSE_MAX_MS = 5000;

  const events = globalThis[Symbol.for('tabmcp.pageChannel')];
  /** To the content script, at once (its listener runs before this returns). */
  const post = (msg) => events.send(PAGE_EVENT.toContent, msg);
  const hook = () => globalThis[Symbol.for('tabmcp.webmcp')];
  // What is never offered (page/form_guard.js, injected just before this script).
  const guard = globalThis[Symbol.for('tabmcp.formGuard')];
  const { FRAMES, textOf, idrefsText, unseen, sensitive, takesSecret, unreadable, formParts, besideHostedField } = guard;

  // ---- names and descriptions -----------------------------------------------------------------

  const HEADINGS = 'h1,h2,h3,h4,h5,h6,[role=heading]';

  /** The nearest heading before the form in its section (not past another form). @param {Element} form */
  function headingBefore(form) {
    let node = form;
    for (let depth = 0; node && depth < 4; depth += 1, node = node.parentElement) {
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) {
        if (sib.localName === 'form' || sib.querySelector('form')) return '';
        if (sib.matches(HEADINGS)) return textOf(sib);
        const inner = sib.querySelectorAll(HEADINGS);
        if (inner.length) return textOf(inner[inner.length - 1]);
      }
      if (node.parentElement && node.parentElement.localName === 'body') break;
    }
    return '';
  }

  /** The text of the button that submits the form. @param {HTMLFormElement} form */
  function submitText(form) {
    const h = hook();
    const button = h && h.forms ? h.forms.defaultButton(form) : null;
    if (!button) return '';
    return (button.localName === 'input' ? button.value || button.getAttribute('alt') : textOf(button))
      || button.getAttribute('aria-label') || button.getAttribute('title') || '';
  }

  /** A name's words, ASCII, split and lower-cased (`quickSearchForm` → `quick search form`). */
  const words = (text) => String(text || '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .toLowerCase()
    .trim();
  const humanize = (text) => words(text).replace(/\b(form|frm)\b/g, '').replace(/\s+/g, ' ').trim();

  const cap = (text, n) => (text.length > n ? `${text.slice(0, n - 1).trimEnd()}…` : text);

  /** A readable identifier: ASCII letters, digits and underscores, at most 40 characters. */
  function slug(text) {
    const plain = String(text || '').normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
    let out = plain.replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
    if (out.length > 40) out = out.slice(0, 40).replace(/_[^_]*$/, '') || out.slice(0, 40);
    return out;
  }

  /** What the form says it is, in the order a person would read it. @param {HTMLFormElement} form */
  function formFacts(form) {
    const inside = form.querySelector(HEADINGS);
    const legend = form.querySelector('legend');
    return {
      aria: (form.getAttribute('aria-label') || '').trim(),
      labelledBy: idrefsText(form, 'aria-labelledby'),
      heading: inside ? textOf(inside) : '',
      legend: legend ? textOf(legend) : '',
      before: headingBefore(form),
      name: humanize(form.getAttribute('name') || form.id || ''),
      button: submitText(form),
      describedBy: idrefsText(form, 'aria-describedby') || (form.getAttribute('aria-description') || '').trim(),
    };
  }

  // ---- the forms a page offers ------------------------------------------------------------------

  /**
   * The page's ordinary forms as tool definitions, and the forms left out with the reason.
   * @returns {{tools: object[], forms: Map<string, HTMLFormElement>, skipped: Array<{form: string, reason: string}>}}
   */
  function describeForms() {
    const h = hook();
    /** @type {object[]} */
    const tools = [];
    /** @type {Map<string, HTMLFormElement>} */
    const forms = new Map();
    const skipped = [];
    if (!h || !h.forms) return { tools, forms, skipped };
    const all = Array.from(document.forms).slice(0, MAX_FORMS);
    const foreign = Array.from(document.querySelectorAll(FRAMES.join(','))).filter(unreadable);
    all.forEach((form, index) => {
      const which = form.id ? `#${form.id}` : `form ${index + 1}`;
      const skip = (reason) => skipped.push({ form: which, reason });
      if (form.hasAttribute('toolname')) return skip('a WebMCP form: the site offers it itself');
      if ((form.getAttribute('method') || '').toLowerCase() === 'dialog') return skip('a dialog form submits nothing');
      if (unseen(form)) return skip('not shown to the person');
      const { controls, blind } = formParts(form);
      /** The form's own secret inputs, offered as fields that take a secret's name. @type {Set<string>} */
      const secretFields = new Set();
      for (const el of controls) {
        const why = sensitive(el);
        if (why && secretsBound && takesSecret(form, el)) secretFields.add(el.name);
        else if (why) return skip(why);
      }
      if (blind) return skip(blind);
      const facts = formFacts(form);
      const hosted = besideHostedField(form, facts, foreign);
      if (hosted) return skip(hosted);
      const leaveOut = (el) => unseen(el);
      const schema = h.forms.schema(form, { skip: leaveOut });
      const props = schema.properties || {};
      if (!Object.keys(props).length) return skip('nothing to fill in');
      for (const field of secretFields) {
        if (!props[field] || props[field].type !== 'string') return skip('it has a secret field it cannot offer');
        props[field] = { type: 'string', 'x-tabmcp-secret': true };
      }
      for (const el of Array.from(form.elements)) {
        if (!h.forms.isParam(el) || leaveOut(el) || !props[el.name] || props[el.name].description) continue;
        const hint = el.getAttribute('placeholder') || idrefsText(el, 'aria-describedby') || el.getAttribute('title')
          || humanize(el.name);
        if (hint) props[el.name].description = cap(hint.trim(), 200);
      }
      const title = cap(facts.aria || facts.labelledBy || facts.heading || facts.legend || facts.before || facts.name
        || facts.button || `Form ${index + 1}`, MAX_TITLE);
      let base = slug(title) || slug(facts.button) || slug(facts.name) || String(index + 1);
      base = `form_${base}`;
      let name = base;
      for (let n = 2; forms.has(name); n += 1) name = `${base}_${n}`;
      forms.set(name, form);
      const parts = [`The page's form \u201c${title}\u201d: fills it in and submits it`];
      if (facts.button && facts.button !== title) parts[0] += ` (its button: \u201c${cap(facts.button, 60)}\u201d)`;
      parts[0] += '.';
      const context = [facts.heading, facts.legend, facts.before].filter((t) => t && t !== title);
      if (context.length) parts.push(`Section: ${cap([...new Set(context)].join(' / '), 160)}.`);
      if (facts.describedBy) parts.push(cap(facts.describedBy, 200));
      const button = h.forms.defaultButton(form);
      const method = String((button?.hasAttribute('formmethod') && button.formMethod) || form.method || 'get').toUpperCase();
      parts.push(`Sends ${method} to ${destination(form, button).said}.`);
      tools.push({ name, title, description: cap(parts.join(' '), MAX_DESCRIPTION), inputSchema: schema });
    });
    return { tools, forms, skipped };
  }

  /**
   * Where the form sends its data: the path when it stays on this origin, else the other origin
   * with its path, said to be another site (the agent must know the data leaves the site).
   * @param {HTMLFormElement} form @param {any} button
   * @returns {{action: string, said: string}}
   */
  function destination(form, button) {
    let url;
    try {
      url = new URL((button?.hasAttribute('formaction') && button.formAction) || form.action || location.href, location.href);
    } catch {
      return { action: '', said: '/' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { action: url.protocol, said: `a ${url.protocol} address, not a web page of this site` };
    }
    if (url.origin !== location.origin) {
      const where = `${url.origin}${url.pathname}`;
      return { action: where, said: `${where} — another site` };
    }
    return { action: url.pathname, said: url.pathname || '/' };
  }

  // ---- following the page while the switch is on ------------------------------------------------

  let enabled = false;
  /** @type {MutationObserver | null} */
  let observer = null;
  let timer = 0;
  let lastSent = '';
  /** A secret is bound to this origin (the worker says so): a sign-in form may be offered. */
  let secretsBound = false;
  /** @type {Map<string, HTMLFormElement>} */
  let current = new Map();

  function report(force) {
    timer = 0;
    const { tools, forms } = enabled ? describeForms() : { tools: [], forms: new Map() };
    current = forms;
    const key = events.text(tools);
    if (!force && key === lastSent) return;
    lastSent = key;
    post({ type: PAGE.forms, tools });
  }

  function schedule() {
    if (!timer) timer = setTimeout(() => report(false), 100);
  }

  /** Whether a mutation can change what the forms offer (cheap checks first). @param {MutationRecord} m */
  function concernsForms(m) {
    if (m.type === 'attributes') {
      const t = /** @type {Element} */ (m.target);
      return t.localName === 'form' || !!t.closest('form') || !!t.querySelector?.('form') || FRAMES.includes(t.localName);
    }
    for (const list of [m.addedNodes, m.removedNodes]) {
      for (const n of list) {
        if (n.nodeType !== 1) continue;
        const el = /** @type {Element} */ (n);
        if (el.closest?.('form') || el.localName === 'form' || el.querySelector(`form,input,select,textarea,button,legend,${FRAMES}`)
          || /^h[1-6]$/.test(el.localName) || FRAMES.includes(el.localName)) return true; // a frame beside a form may hide its card field
      }
    }
    return m.target.nodeType === 1 && !!(/** @type {Element} */ (m.target)).closest('form');
  }

  /** @param {Event} event */
  function onFrameLoad(event) {
    const t = /** @type {Element} */ (event.target);
    if (t && FRAMES.includes(t.localName)) schedule();
  }

  /** @param {boolean} on @param {boolean} [secrets] a secret is bound to this origin */
  function setEnabled(on, secrets = false) {
    if (on === enabled && secrets === secretsBound) return;
    secretsBound = secrets;
    enabled = on;
    if (on && !observer) {
      observer = new MutationObserver((records) => {
        if (records.some(concernsForms)) schedule();
      });
      // A frame that loads another document may now hide fields (no mutation says so).
      document.addEventListener('load', onFrameLoad, true);
      const start = () => observer && observer.observe(document.documentElement, {
        subtree: true, childList: true, attributes: true,
        attributeFilter: ['name', 'type', 'required', 'disabled', 'hidden', 'style', 'class', 'autocomplete',
          'aria-label', 'aria-labelledby', 'placeholder', 'toolname', 'method', 'action', 'min', 'max', 'pattern',
          'src', 'sandbox'],
      });
      if (document.documentElement) start();
      else document.addEventListener('readystatechange', start, { once: true });
    } else if (!on && observer) {
      observer.disconnect();
      observer = null;
      document.removeEventListener('load', onFrameLoad, true);
    }
    report(true);
  }

  // ---- running a call: fill, submit, report what happened -------------------------------------

  const result = (data, text) => ({ content: [{ type: 'text', text }], structuredContent: data });

  /**
   * Starts watching what the page shows (before the submission, whose listeners may change it at
   * once); `answer()` settles once the page is quiet, with the text of its live regions and additions.
   * @param {HTMLFormElement} form
   */
  function watchResponse(form) {
    /** @type {Element[]} */
    const added = [];
    /** @type {(text: string) => void} */
    let settle = () => {};
    let quiet = 0;
    let limit = 0;
    let changed = false;
    const done = () => {
      clearTimeout(quiet);
      clearTimeout(limit);
      watcher.disconnect();
      const live = Array.from(document.querySelectorAll('[role=status],[role=alert],[aria-live]:not([aria-live=off]),output'))
        .filter((el) => !form.contains(el) && !unseen(el)).map(textOf).filter(Boolean);
      const fresh = added.filter((el) => el.isConnected && !form.contains(el) && !unseen(el)).map(textOf).filter(Boolean);
      const text = [...new Set([...live, ...fresh])].join('\n');
      settle(text.length > MAX_RESPONSE ? `${text.slice(0, MAX_RESPONSE)}…` : text);
    };
    const watcher = new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) {
          if (n.nodeType === 1) added.push(/** @type {Element} */ (n));
          else if (n.nodeType === 3 && n.parentElement) added.push(n.parentElement);
        }
        if (r.type === 'characterData' && r.target.parentElement) added.push(r.target.parentElement);
      }
      changed = true;
      clearTimeout(quiet);
      quiet = setTimeout(done, RESPONSE_QUIET_MS);
    });
    watcher.observe(document.documentElement, { subtree: true, childList: true, characterData: true });
    return {
      stop: () => watcher.disconnect(),
      /** @returns {Promise<string>} */
      answer: () => new Promise((resolve) => {
        settle = resolve;
        limit = setTimeout(done, RESPONSE_MAX_MS);
        if (changed) {
          clearTimeout(quiet);
          quiet = setTimeout(done, RESPONSE_QUIET_MS);
        }
      }),
    };
  }

  /** @returns {Promise<{ok: boolean, result?: object, error?: {code: string, message: string}}>} */
  async function runCall(msg) {
    if (!enabled) {
      return { ok: false, error: { code: ERROR.TOOL_NOT_FOUND, message: 'forms-as-tools is off for this page' } };
    }
    report(false); // the page may have changed since the last report
    const form = current.get(msg.tool);
    const h = hook();
    if (!form || !form.isConnected || !h || !h.forms) {
      return { ok: false, error: { code: ERROR.TOOL_NOT_FOUND, message: `the page has no form ${msg.tool} now` } };
    }
    h.forms.fill(form, msg.arguments || {}, { skip: unseen });
    if (!form.noValidate && !form.checkValidity()) {
      const problems = Array.from(form.elements)
        .filter((el) => el.willValidate && !el.checkValidity())
        .map((el) => `${el.name || el.id || el.localName}: ${el.validationMessage}`);
      return { ok: false, error: { code: ERROR.VALIDATION_ERROR, message: `the page's form refused the values: ${problems.join('; ')}` } };
    }
    let event = null;
    const onSubmit = (e) => {
      if (e.target === form) event = e;
    };
    window.addEventListener('submit', onSubmit, true);
    const button = h.forms.defaultButton(form);
    const watch = watchResponse(form);
    try {
      if (button) form.requestSubmit(button);
      else form.requestSubmit();
    } finally {
      window.removeEventListener('submit', onSubmit, true);
    }
    const { action, said: goesTo } = destination(form, button);
    const method = String((button?.hasAttribute('formmethod') && button.formMethod) || form.method || 'get').toUpperCase();
    if (!event || !event.defaultPrevented) watch.stop();
    if (!event) {
      return { ok: true, result: result({ submitted: false }, `The page stopped the submission of form ${msg.tool} before it started.`) };
    }
    if (!event.defaultPrevented) {
      const data = { submitted: true, navigates: true, action, method };
      return { ok: true, result: result(data, `Submitted form ${msg.tool}: the tab navigates to ${goesTo} (${method}). The new page's tools appear in tools/list once it loads.`) };
    }
    const response = await watch.answer();
    const data = { submitted: true, handledByPage: true, response };
    return {
      ok: true,
      result: result(data, response ? `Submitted form ${msg.tool}. The page shows:\n${response}`
        : `Submitted form ${msg.tool}. The page handled it without showing any new text.`),
    };
  }

  events.listen(PAGE_EVENT.toPage, (msg) => {
    if (msg.type === PAGE.formsPolicy) {
      setEnabled(msg.enabled === true, msg.secrets === true);
    } else if (msg.type === PAGE.resync) {
      if (enabled) report(true);
    } else if (msg.type === PAGE.formCall && typeof msg.callId === 'string') {
      runCall(msg).then(
        (out) => post({ type: PAGE.result, callId: msg.callId, ...out }),
        (err) => post({ type: PAGE.result, callId: msg.callId, ok: false, error: { code: ERROR.PAGE_ERROR, message: String(err && err.message || err) } }),
      );
    }
  });

  // For tests and the curious: what this page would offer, and what it leaves out and why.
  Object.defineProperty(window, KEY, {
    value: Object.freeze({
      describe: () => {
        const { tools, skipped } = describeForms();
        return JSON.parse(JSON.stringify({ tools, skipped }));
      },
      /** What a field's text says it is ('payment', 'secret' or ''), as tabmcp/core/sensitive_fields.py `said`. */
      classify: guard.classify,
      /** The text as the vocabulary sees it (the drift test compares it with the bridge's). */
      normalize: guard.normalize,
    }),
  });
})();
