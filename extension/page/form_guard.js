// tabmcp page form guard (main world, top document, document_start, before page/forms.js): what
// forms-as-tools never offers (docs/security.md, "Page forms as tools"); the vocabulary is
// tabmcp/core/sensitive_fields.py. Runs before the page's scripts, so it sees every attachShadow
// call, and its object is frozen. Idempotent.
(() => {
  const KEY = Symbol.for('tabmcp.formGuard');
  if (window[KEY] || window.top !== window) return;
  const { FIELDS } = globalThis[Symbol.for('tabmcp.protocol')];

  /**
   * The text as the vocabulary is matched against it (tabmcp/core/sensitive_fields.py `normalize`):
   * ASCII camelCase split, lower case, accents dropped, anything but letters and digits one space.
   */
  const normalize = (text) => String(text ?? '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  /**
   * A matcher for one vocabulary: its words whole (each run of up to `longest` words of the text
   * looked up in a set), its parts anywhere once spaces are gone.
   */
  const vocabulary = ({ words, parts }) => {
    const known = new Set(words);
    const longest = Math.max(1, ...words.map((w) => w.split(' ').length));
    return (said) => {
      if (!said) return false;
      const tokens = said.split(' ');
      for (let i = 0; i < tokens.length; i += 1) {
        let run = tokens[i];
        if (known.has(run)) return true;
        for (let n = 1; n < longest && i + n < tokens.length; n += 1) {
          run = `${run} ${tokens[i + n]}`;
          if (known.has(run)) return true;
        }
      }
      const joined = tokens.join('');
      return parts.some((p) => joined.includes(p));
    };
  };
  const saysPayment = vocabulary(FIELDS.payment);
  const saysSecret = vocabulary(FIELDS.secret);
  /** A placeholder shaped like a card number; a pattern asking for a card number's digits. */
  const CARD_SHAPE = new RegExp(FIELDS.cardShape);
  const CARD_DIGITS = new RegExp(FIELDS.cardDigits);
  /** What separates an autocomplete attribute's tokens (as the bridge splits them). */
  const AUTOCOMPLETE_GAPS = new RegExp(FIELDS.autocompleteGaps.source, FIELDS.autocompleteGaps.flags);
  const saysContext = vocabulary(FIELDS.paymentContext);
  const saysPaymentContext = (said) => saysContext(said) || saysPayment(said);
  /** How far into a form's shadow roots and same-origin frames the check looks, and how much it reads. */
  const MAX_FRAME_DEPTH = 3;
  /** The elements that hold another document. */
  const FRAMES = ['iframe', 'frame', 'object', 'embed'];
  /** Input types that never hold a typed secret (a secret field of one of them refuses its form). */
  const NOT_TEXT = new Set(['checkbox', 'radio', 'file', 'hidden', 'submit', 'reset', 'button', 'image', 'range', 'color']);
  const MAX_NODES = 5000;

  const textOf = (el) => (el && el.textContent ? el.textContent.replace(/\s+/g, ' ').trim() : '');

  /**
   * Hosts of closed shadow roots (what they hold cannot be read from here): this script runs at
   * document_start, before the page's scripts, so it sees every attachShadow call of this document.
   */
  const closedHosts = new WeakSet();
  const nativeAttachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function attachShadow(init) {
    const root = nativeAttachShadow.call(this, init);
    if (init && init.mode === 'closed') closedHosts.add(this);
    return root;
  };

  /** @param {Element} el @param {string} attr */
  function idrefsText(el, attr) {
    const root = /** @type {any} */ (el.getRootNode());
    const byId = (id) => (typeof root.getElementById === 'function' ? root.getElementById(id) : document.getElementById(id));
    const ids = (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean);
    return ids.map((id) => textOf(byId(id))).filter(Boolean).join(' ');
  }

  /** The short text just before a control with no label of its own (`<span>Card</span><input>`). @param {any} el */
  function textBefore(el) {
    for (let node = el.previousSibling, n = 0; node && n < 3; node = node.previousSibling, n += 1) {
      if (node.nodeType === 1 && /** @type {Element} */ (node).matches('input,select,textarea,button')) return '';
      const text = textOf(node);
      if (text) return text.slice(-80);
    }
    return '';
  }

  /** Everything a control says about itself. @param {any} el */
  function controlText(el) {
    const labels = el.labels ? Array.from(el.labels).map(textOf) : [];
    const aria = el.getAttribute('aria-label') || idrefsText(el, 'aria-labelledby');
    return [el.name, el.id, el.getAttribute('autocomplete'), el.getAttribute('placeholder'), el.getAttribute('title'),
      el.getAttribute('aria-description'), aria, ...labels, labels.length || aria ? '' : textBefore(el)]
      .filter(Boolean).join(' ');
  }

  /** An input whose characters are shown as dots (a PIN typed in a text field). @param {any} el */
  function masked(el) {
    try {
      const style = getComputedStyle(el);
      return !!style.webkitTextSecurity && style.webkitTextSecurity !== 'none';
    } catch {
      return false;
    }
  }

  /**
   * Why a control makes its whole form one that is never offered, or ''.
   * @param {any} el
   */
  function sensitive(el) {
    const tag = el.localName;
    if (tag !== 'input' && tag !== 'select' && tag !== 'textarea') return '';
    const type = tag === 'input' ? el.type : tag;
    if (type === 'password') return 'it has a password field';
    const autocomplete = String(el.getAttribute('autocomplete') || '').toLowerCase().split(AUTOCOMPLETE_GAPS);
    if (autocomplete.some((t) => t.startsWith(FIELDS.paymentAutocompletePrefix))) return 'it has a payment card field';
    if (autocomplete.some((t) => FIELDS.secretAutocomplete.includes(t))) return 'it has a password or one-time code field';
    if (type === 'hidden' || type === 'submit' || type === 'reset' || type === 'button' || type === 'image') return '';
    if (tag !== 'select' && masked(el)) return 'it has a masked field (typed as dots, like a password)';
    if (CARD_SHAPE.test(String(el.getAttribute('placeholder') || '').trim())) return 'it has a payment field';
    if (CARD_DIGITS.test(el.getAttribute('pattern') || '')) return 'it has a payment field';
    const said = normalize(controlText(el));
    if (saysPayment(said)) return 'it has a payment field';
    if (saysSecret(said)) return 'it has a password, PIN or one-time code field';
    if (type === 'file' && el.required) return 'it requires a file';
    return '';
  }

  /**
   * Whether a secret control can take a secret's value: a named text-like input of the form itself
   * (not in a shadow root or a frame), which the form's own fill reaches.
   * @param {HTMLFormElement} form @param {any} el
   */
  function takesSecret(form, el) {
    return el.localName === 'input' && !!el.name && el.form === form && !NOT_TEXT.has(el.type);
  }

  /**
   * Whether a frame's document is, or is about to be, out of reach (another origin, a data: URL,
   * sandboxed without allow-same-origin, unreadable).
   * @param {any} frame
   */
  function unreadable(frame) {
    const src = frame.getAttribute('src') || frame.getAttribute('data');
    if (src) {
      try {
        const url = new URL(src, location.href);
        if (url.protocol === 'data:') return true;
        if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== location.origin) return true;
      } catch {
        /* judged by its document */
      }
    }
    const sandbox = frame.getAttribute('sandbox');
    if (sandbox !== null && !/(^|\s)allow-same-origin(\s|$)/i.test(sandbox)) return true;
    try {
      return !frame.contentDocument;
    } catch {
      return true;
    }
  }

  /**
   * Every control of a form (its elements, and those in open shadow roots and same-origin frames
   * inside it), and why some part of it cannot be seen ('' when all can).
   * @param {HTMLFormElement} form
   * @returns {{controls: Element[], blind: string}}
   */
  function formParts(form) {
    const controls = new Set(Array.from(form.elements));
    let blind = '';
    let visited = 0;
    /** @type {Array<[ParentNode, number]>} */
    const roots = [[form, 0]];
    while (roots.length && !blind) {
      const [root, depth] = /** @type {[ParentNode, number]} */ (roots.pop());
      for (const el of Array.from(root.querySelectorAll('*'))) {
        if (el.localName === 'option') continue; // a long list of choices hides no field
        if ((visited += 1) > MAX_NODES) return { controls: [...controls], blind: 'it is too large to check for secret fields' };
        const tag = el.localName;
        if (tag === 'input' || tag === 'select' || tag === 'textarea') controls.add(el);
        if (el.shadowRoot) roots.push([el.shadowRoot, depth]);
        else if (closedHosts.has(el)) blind = 'it has a part whose inside the page keeps closed (a closed shadow root)';
        else if (tag.includes('-') && /** @type {any} */ (customElements.get(tag))?.formAssociated) {
          blind = `it has a field whose inside cannot be seen (<${tag}>)`;
        }
        if (FRAMES.includes(tag)) {
          if (unreadable(el)) blind = 'it holds a frame of another site, whose fields cannot be checked (a hosted card field?)';
          else if (depth < MAX_FRAME_DEPTH && /** @type {any} */ (el).contentDocument.documentElement) {
            roots.push([/** @type {any} */ (el).contentDocument.documentElement, depth + 1]);
          }
        }
        if (blind) break;
      }
    }
    return { controls: [...controls], blind };
  }

  /** What a frame says it is: its title, name, id, label and address. @param {Element} frame */
  const frameText = (frame) => ['title', 'name', 'id', 'aria-label', 'src', 'data'].map((a) => frame.getAttribute(a) || '').join(' ');

  /**
   * A form that looks like taking a payment beside a frame of another site (Stripe Elements and
   * the like), where the card field cannot be checked. Why, or ''.
   * @param {HTMLFormElement} form @param {ReturnType<typeof formFacts>} facts
   * @param {Element[]} foreign the page's frames of other sites (read once per scan)
   */
  function besideHostedField(form, facts, foreign) {
    const frames = foreign.filter((f) => !form.contains(f));
    if (!frames.length) return '';
    const formSays = normalize([facts.aria, facts.labelledBy, facts.heading, facts.legend, facts.before, facts.name, facts.button,
      form.getAttribute('action'), textOf(form).slice(0, 2000)].join(' '));
    if (!saysPaymentContext(formSays)) return '';
    /** The form's section: its parent, or grandparent, short of the body. */
    const top = (el) => !el || el.localName === 'body' || el.localName === 'html';
    let section = top(form.parentElement) ? null : form.parentElement;
    if (section && !top(section.parentElement)) section = section.parentElement;
    const near = (f) => !!section && section.contains(f);
    const frame = frames.find((f) => near(f) || saysPaymentContext(normalize(frameText(f))));
    return frame ? 'it takes a payment beside a frame of another site, whose fields cannot be checked (a hosted card field?)' : '';
  }

  /** Controls a person cannot see are never parameters (they are often spam traps). @param {any} el */
  function unseen(el) {
    if (typeof el.checkVisibility === 'function') return !el.checkVisibility({ visibilityProperty: true });
    return el.getClientRects().length === 0;
  }

  Object.defineProperty(window, KEY, {
    value: Object.freeze({
      FRAMES, textOf, idrefsText, unseen, sensitive, takesSecret, unreadable, formParts, besideHostedField,
      /** What a field's text says it is ('payment', 'secret' or ''), as tabmcp/core/sensitive_fields.py `said`. */
      classify: (text) => {
        const said = normalize(text);
        return saysPayment(said) ? 'payment' : saysSecret(said) ? 'secret' : '';
      },
      /** The text as the vocabulary sees it (the drift test compares it with the bridge's). */
      normalize: (text) => normalize(text),
    }),
  });
})();
