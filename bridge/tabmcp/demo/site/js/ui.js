// @ts-check
/** UI state, HTML helpers, toasts and the form dialog shared by every view. */

/**
 * View state that is not data: the route, table filters, toggles.
 * Tools and on-page controls both change it, then call `changed()` from the store.
 */
export const ui = {
  route: 'dashboard',
  /** @type {string|null} the id after the section, e.g. "12" in #/users/12 */
  param: null,
  adminMode: false,
  /** @type {{ users:{query:string,role:string,status:string}, posts:{query:string,status:string,tag:string}, media:{query:string,type:string,folder:string}, comments:{status:string}, orders:{query:string,status:string}, products:{query:string,category:string,stock:string}, tickets:{status:string,priority:string}, campaigns:{status:string} }} */
  filters: {
    users: { query: '', role: '', status: '' },
    posts: { query: '', status: '', tag: '' },
    media: { query: '', type: '', folder: '' },
    comments: { status: 'pending' },
    orders: { query: '', status: '' },
    products: { query: '', category: '', stock: '' },
    tickets: { status: '', priority: '' },
    campaigns: { status: '' },
  },
  analyticsRange: '30d',
  /** @type {{query:string, results:{type:string,id:number|string,label:string,route:string}[]}|null} */
  search: null,
  /** @type {{name:string,at:string,ok:boolean}[]} the last tool calls, newest first */
  toolCalls: [],
};

const ESC = /** @type {Record<string,string>} */ ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' });
/** Escape text for HTML (every value from the store or a tool goes through this). @param {unknown} v */
export const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ESC[c]);

const dateFmt = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const dateTimeFmt = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });

/** "12 Jan 2026" (UTC). @param {string|null|undefined} isoDate */
export const fmtDate = (isoDate) => (isoDate ? dateFmt.format(new Date(isoDate)) : '—');

/** "12 Jan, 09:00" (UTC). @param {string|null|undefined} isoDate */
export const fmtDateTime = (isoDate) => (isoDate ? dateTimeFmt.format(new Date(isoDate)) : '—');

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
/** @param {number} n */
export const fmtMoney = (n) => usd.format(n);
const usdCompact = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', notation: 'compact', maximumFractionDigits: 1 });
/** $157.8K @param {number} n */
export const fmtMoneyShort = (n) => usdCompact.format(n);
/** @param {number} n */
export const fmtNum = (n) => new Intl.NumberFormat('en-US').format(n);
/** @param {number} kb */
export const fmtSize = (kb) => (kb >= 1024 ? `${(kb / 1024).toFixed(1)} MB` : `${kb} KB`);

/** A coloured status pill. @param {string} value */
export const badge = (value) => `<span class="badge badge-${esc(String(value).replace(/[\s_]+/g, '-'))}">${esc(String(value).replace(/_/g, ' '))}</span>`;

/** Initials avatar. @param {string} name */
export function avatar(name) {
  const initials = name.split(/\s+/).map((p) => p[0]).slice(0, 2).join('').toUpperCase();
  let hue = 0;
  for (const ch of name) hue = (hue * 31 + ch.charCodeAt(0)) % 360;
  return `<span class="avatar" style="--hue:${hue}" aria-hidden="true">${esc(initials)}</span>`;
}

/**
 * <select> markup. @param {string} name @param {string[]} options @param {string} value
 * @param {{label:string, all?:string, attrs?:string}} o
 */
export function select(name, options, value, o) {
  const opts = (o.all !== undefined ? [`<option value="">${esc(o.all)}</option>`] : [])
    .concat(options.map((v) => `<option value="${esc(v)}"${v === value ? ' selected' : ''}>${esc(v)}</option>`));
  return `<label class="field-inline"><span class="sr-only">${esc(o.label)}</span><select name="${esc(name)}" aria-label="${esc(o.label)}" ${o.attrs ?? ''}>${opts.join('')}</select></label>`;
}

/** An empty-state row. @param {number} cols @param {string} text */
export const emptyRow = (cols, text) => `<tr class="empty"><td colspan="${cols}">${esc(text)}</td></tr>`;

// ---------------------------------------------------------------- toasts

let toastSeq = 0;
/**
 * Show a toast in the bottom-right corner for a few seconds.
 * @param {string} message
 * @param {{kind?: 'success'|'info'|'warning'|'error', title?: string, timeout?: number}} [opts]
 */
export function toast(message, opts = {}) {
  const kind = opts.kind ?? 'success';
  const box = document.getElementById('toasts');
  if (!box) return;
  const el = document.createElement('div');
  el.className = `toast toast-${kind}`;
  el.dataset.testid = 'toast';
  el.dataset.kind = kind;
  el.id = `toast-${++toastSeq}`;
  el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  el.innerHTML = `<div class="toast-body">${opts.title ? `<strong>${esc(opts.title)}</strong>` : ''}<span class="toast-message">${esc(message)}</span></div>
    <button type="button" class="toast-close" aria-label="Dismiss notification">×</button>`;
  el.querySelector('button')?.addEventListener('click', () => el.remove());
  box.append(el);
  while (box.children.length > 4) box.firstElementChild?.remove();
  setTimeout(() => el.remove(), opts.timeout ?? 6000);
}

// ---------------------------------------------------------------- form dialog

/**
 * @typedef {{name:string, label:string, type?:'text'|'email'|'number'|'textarea'|'select'|'date', options?:string[],
 *   required?:boolean, value?:string|number, min?:number, step?:string}} Field
 */

/**
 * Open a modal form; `submit` gets the values and may throw to show an error inside the dialog.
 * @param {{title:string, submitLabel?:string, danger?:boolean, text?:string, fields?:Field[], submit:(values:Record<string,string>)=>void}} spec
 */
export function openForm(spec) {
  const dlg = /** @type {HTMLDialogElement} */ (document.getElementById('form-dialog'));
  const fields = (spec.fields ?? []).map((f) => {
    const id = `f-${f.name}`;
    const req = f.required ? ' required' : '';
    const val = f.value ?? '';
    let control;
    if (f.type === 'select') {
      control = `<select id="${id}" name="${esc(f.name)}"${req}>${(f.options ?? []).map((o) => `<option${o === val ? ' selected' : ''}>${esc(o)}</option>`).join('')}</select>`;
    } else if (f.type === 'textarea') {
      control = `<textarea id="${id}" name="${esc(f.name)}" rows="4"${req}>${esc(val)}</textarea>`;
    } else {
      control = `<input id="${id}" name="${esc(f.name)}" type="${f.type ?? 'text'}" value="${esc(val)}"${f.min !== undefined ? ` min="${f.min}"` : ''}${f.step ? ` step="${f.step}"` : ''}${req}>`;
    }
    return `<div class="form-row"><label for="${id}">${esc(f.label)}</label>${control}</div>`;
  }).join('');
  dlg.innerHTML = `<form method="dialog" class="dialog-form" data-testid="form-dialog">
      <h2>${esc(spec.title)}</h2>
      ${spec.text ? `<p class="muted">${esc(spec.text)}</p>` : ''}
      ${fields}
      <p class="form-error" role="alert" hidden></p>
      <div class="dialog-actions">
        <button type="button" class="btn" value="cancel" data-dialog-cancel>Cancel</button>
        <button type="submit" class="btn ${spec.danger ? 'btn-danger' : 'btn-primary'}" value="ok">${esc(spec.submitLabel ?? 'Save')}</button>
      </div>
    </form>`;
  const form = /** @type {HTMLFormElement} */ (dlg.querySelector('form'));
  const error = /** @type {HTMLElement} */ (dlg.querySelector('.form-error'));
  dlg.querySelector('[data-dialog-cancel]')?.addEventListener('click', () => dlg.close());
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const values = /** @type {Record<string,string>} */ (Object.fromEntries(new FormData(form).entries()));
    try {
      spec.submit(values);
      dlg.close();
    } catch (e) {
      error.hidden = false;
      error.textContent = e instanceof Error ? e.message : String(e);
    }
  });
  dlg.showModal();
  /** @type {HTMLElement|null} */ (dlg.querySelector('input, select, textarea, button[type=submit]'))?.focus();
}

/**
 * Ask before something irreversible.
 * @param {string} title @param {string} text @param {() => void} onConfirm
 */
export function confirmAction(title, text, onConfirm) {
  openForm({ title, text, submitLabel: 'Delete', danger: true, submit: onConfirm });
}
