// @ts-check
/**
 * Acme Back Office: start-up, rendering and the page's event handling.
 *
 * Data lives in store.js, tools in tools/*.js, views in views/*.js. Every button that changes
 * data runs a tool (data-tool="..."), the same code an AI agent reaches through WebMCP.
 */
import { db, currentUser, subscribe, changed } from './store.js';
import { ui, esc, toast, avatar, confirmAction } from './ui.js';
import { ROUTES, startRouter, navigate } from './router.js';
import { webmcp, registerAll, setPageStates, categoryCount } from './webmcp.js';
import { setAdminMode, setBetaFeatures, applyTheme, pageStates } from './features.js';
import { showForm } from './forms.js';
import { bindToolForms, FORM_TOOLS } from './declarative.js';
import users from './tools/users.js';
import content from './tools/content.js';
import media from './tools/media.js';
import comments from './tools/comments.js';
import orders from './tools/orders.js';
import products from './tools/products.js';
import analytics from './tools/analytics.js';
import settings from './tools/settings.js';
import support from './tools/support.js';
import marketing from './tools/marketing.js';
import beta from './tools/beta.js';
import general, { VERSION, searchAll } from './tools/general.js';
import { dashboardSummary } from './tools/analytics.js';
import * as dashboard from './views/dashboard.js';
import { renderUsers, renderSupport } from './views/people.js';
import { renderContent, renderMedia, renderComments } from './views/publishing.js';
import { renderOrders, renderProducts, renderMarketing } from './views/commerce.js';
import { renderAnalytics, renderSettings, renderActivity, renderTools } from './views/system.js';

/** The categories registered at start-up, in the order the sidebar lists their areas. */
const CATEGORIES = [users, content, media, comments, orders, products, analytics, settings, support, marketing];

/** Every tool the page knows, also the ones not registered right now (beta). */
const ALL_TOOLS = new Map([...CATEGORIES, beta].flatMap((c) => c.tools).concat(general).map((t) => [t.name, t]));

/** @type {Record<string, () => string>} */
const VIEWS = {
  dashboard: dashboard.render, analytics: renderAnalytics, users: renderUsers, support: renderSupport, content: renderContent,
  media: renderMedia, comments: renderComments, orders: renderOrders, products: renderProducts, marketing: renderMarketing,
  settings: renderSettings, activity: renderActivity, tools: renderTools,
};

// ---------------------------------------------------------------- icons (hand-drawn, 24×24, stroke)

const ICON_PATHS = /** @type {Record<string,string>} */ ({
  dashboard: '<rect x="3" y="3" width="7" height="7" rx="1.5"/><rect x="14" y="3" width="7" height="7" rx="1.5"/><rect x="3" y="14" width="7" height="7" rx="1.5"/><rect x="14" y="14" width="7" height="7" rx="1.5"/>',
  analytics: '<path d="M4 20V10M10 20V4M16 20v-7M22 20H2"/>',
  users: '<circle cx="9" cy="8" r="3.5"/><path d="M2.5 20c.8-3.6 3.4-5.5 6.5-5.5s5.7 1.9 6.5 5.5"/><path d="M16 4.8a3.3 3.3 0 0 1 0 6.4M18 14.8c1.8.7 3 2.4 3.5 5.2"/>',
  support: '<circle cx="12" cy="12" r="9"/><circle cx="12" cy="12" r="3.5"/><path d="M5.6 5.6l3.9 3.9M14.5 14.5l3.9 3.9M18.4 5.6l-3.9 3.9M9.5 14.5l-3.9 3.9"/>',
  content: '<path d="M6 2.5h8l4.5 4.5v14.5H6z"/><path d="M14 2.5V7h4.5M9 12h6M9 16h6"/>',
  media: '<rect x="3" y="4" width="18" height="16" rx="2"/><circle cx="9" cy="10" r="2"/><path d="M3.5 18l5.5-5 4 3.5 3-2.5 4.5 4"/>',
  comments: '<path d="M4 5h16v11H10l-4.5 4v-4H4z"/>',
  orders: '<path d="M5 8h14l-1.2 12H6.2z"/><path d="M9 10V6.5a3 3 0 0 1 6 0V10"/>',
  products: '<path d="M12 2.5l8.5 4.5v10L12 21.5 3.5 17V7z"/><path d="M3.5 7L12 11.5 20.5 7M12 11.5v10"/>',
  marketing: '<path d="M3 10v4h3l7 4.5v-13L6 10z"/><path d="M16.5 9a4 4 0 0 1 0 6M19 6.5a7.5 7.5 0 0 1 0 11"/>',
  settings: '<path d="M4 6h10M18 6h2M4 12h4M12 12h8M4 18h12M20 18h0"/><circle cx="16" cy="6" r="2"/><circle cx="10" cy="12" r="2"/><circle cx="18" cy="18" r="2"/>',
  activity: '<path d="M2.5 12h4l3-7 5 14 3-7h4"/>',
  tools: '<path d="M8 7l-5 5 5 5M16 7l5 5-5 5M13.5 4.5l-3 15"/>',
});
/** @param {string} key */
const icon = (key) => `<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.7" stroke-linecap="round" stroke-linejoin="round">${ICON_PATHS[key] ?? ''}</svg>`;

// ---------------------------------------------------------------- rendering

function navCounts() {
  const s = dashboardSummary();
  return /** @type {Record<string, number>} */ ({ users: db.users.length, comments: s.comments_pending, orders: s.orders_to_fulfil, support: s.tickets_open, products: s.low_stock_products });
}

function renderNav() {
  const counts = navCounts();
  let group = '';
  const items = ROUTES.map((r) => {
    const head = r.group !== group ? `<li class="nav-group">${esc((group = r.group))}</li>` : '';
    const count = counts[r.key] ? `<span class="nav-count" data-testid="nav-count-${r.key}">${counts[r.key]}</span>` : '';
    return `${head}<li><a href="#/${r.key}" data-testid="nav-${r.key}"${ui.route === r.key ? ' aria-current="page" class="active"' : ''}>${icon(r.key)}<span>${esc(r.label)}</span>${count}</a></li>`;
  }).join('');
  /** @type {HTMLElement} */ (document.getElementById('nav-list')).innerHTML = items;
}

/** Tools the page offers: the registered ones plus its declarative forms (when WebMCP is on). */
const toolCount = () => webmcp.tools.size + (webmcp.available ? FORM_TOOLS.length : 0);

function renderTopbar() {
  /** @type {HTMLElement} */ (document.getElementById('site-name')).textContent = db.settings.site_name;
  const status = /** @type {HTMLElement} */ (document.getElementById('webmcp-status'));
  status.textContent = webmcp.available ? `${toolCount()} tools${webmcp.categories ? ` · ${categoryCount()} categories` : ''}` : 'WebMCP off';
  status.dataset.tools = String(toolCount());
  status.dataset.categories = String(categoryCount());
  status.classList.toggle('off', !webmcp.available);
  const admin = /** @type {HTMLInputElement} */ (document.getElementById('admin-toggle'));
  admin.checked = ui.adminMode;
  /** @type {HTMLElement} */ (document.getElementById('maintenance-flag')).hidden = !db.settings.maintenance_mode;
  const box = /** @type {HTMLElement} */ (document.getElementById('search-results'));
  const input = /** @type {HTMLInputElement} */ (document.getElementById('global-search'));
  if (ui.search && document.activeElement !== input) input.value = ui.search.query;
  if (ui.search && ui.search.query) {
    const res = ui.search.results;
    box.hidden = false;
    box.innerHTML = res.length ? `<p class="muted small">${res.length} result${res.length === 1 ? '' : 's'} for “${esc(ui.search.query)}”</p><ul>${res.slice(0, 12).map((r) =>
      `<li><a href="${esc(r.route)}" data-testid="search-result" data-type="${esc(r.type)}" data-id="${esc(r.id)}"><span class="tag">${esc(r.type)}</span> <span>${esc(r.label)}</span><span class="muted small">${esc(r.detail)}</span></a></li>`).join('')}</ul>`
      : `<p class="muted">Nothing found for “${esc(ui.search.query)}”.</p>`;
  } else {
    box.hidden = true;
    box.innerHTML = '';
  }
}

function renderView() {
  const main = /** @type {HTMLElement} */ (document.getElementById('view'));
  const active = /** @type {HTMLInputElement|null} */ (document.activeElement);
  const focusId = active && active.id && main.contains(active) ? active.id : null;
  const caret = focusId && 'selectionStart' in active && typeof active.selectionStart === 'number' ? [active.selectionStart, active.selectionEnd] : null;
  /** @type {Record<string,string>} unsent text in text areas survives re-renders */
  const drafts = {};
  main.querySelectorAll('textarea[id]').forEach((t) => { drafts[t.id] = /** @type {HTMLTextAreaElement} */ (t).value; });
  const scroll = window.scrollY;

  main.innerHTML = VIEWS[ui.route]();
  main.dataset.route = ui.route;
  main.dataset.param = ui.param ?? '';

  for (const [id, value] of Object.entries(drafts)) {
    const t = /** @type {HTMLTextAreaElement|null} */ (main.querySelector(`#${CSS.escape(id)}`));
    if (t && !t.value) t.value = value;
  }
  if (focusId) {
    const el = /** @type {HTMLInputElement|null} */ (main.querySelector(`#${CSS.escape(focusId)}`));
    el?.focus();
    if (el && caret && 'setSelectionRange' in el) try { el.setSelectionRange(caret[0], caret[1]); } catch { /* not a text input */ }
  }
  if (renderView.lastRoute === `${ui.route}/${ui.param}`) window.scrollTo(0, scroll);
  renderView.lastRoute = `${ui.route}/${ui.param}`;
  const label = ROUTES.find((r) => r.key === ui.route)?.label ?? '';
  document.title = `${label} · ${db.settings.site_name}`;
  /** @type {HTMLElement} */ (document.getElementById('current-route')).textContent = label;
}
/** @type {string} */
renderView.lastRoute = '';

function render() {
  renderNav();
  renderTopbar();
  renderView();
}

// ---------------------------------------------------------------- running tools from the page

/**
 * Run a tool from a click; errors become a red toast.
 * @param {string} name @param {Record<string, unknown>} args
 */
async function runTool(name, args) {
  const def = ALL_TOOLS.get(name);
  if (!def) return toast(`Unknown action ${name}`, { kind: 'error' });
  try {
    await def.execute(args);
  } catch (e) {
    toast(e instanceof Error ? e.message : String(e), { kind: 'error', title: 'That did not work' });
  }
}

/** Run a tool from a form: errors are thrown back so the dialog can show them. @param {string} name @param {Record<string, unknown>} args */
function runToolStrict(name, args) {
  const def = ALL_TOOLS.get(name);
  if (!def) throw new Error(`Unknown action ${name}`);
  return def.execute(args);
}

/** @param {string|undefined} json */
const parseArgs = (json) => (json ? JSON.parse(json) : {});

function bindEvents() {
  document.addEventListener('click', (ev) => {
    const target = /** @type {HTMLElement} */ (ev.target);
    const btn = /** @type {HTMLButtonElement|null} */ (target.closest('button[data-tool], button[data-form]'));
    if (btn && !btn.disabled) {
      const args = parseArgs(btn.dataset.args);
      if (btn.dataset.form) return showForm(btn.dataset.form, args, runToolStrict);
      const name = /** @type {string} */ (btn.dataset.tool);
      if (btn.dataset.confirm) return confirmAction('Are you sure?', btn.dataset.confirm, () => { runToolStrict(name, args); });
      return void runTool(name, args);
    }
    const tab = /** @type {HTMLElement|null} */ (target.closest('[data-set-filter]'));
    if (tab) return setFilter(/** @type {string} */ (tab.dataset.setFilter), tab.dataset.value ?? '');
    const seg = /** @type {HTMLElement|null} */ (target.closest('[data-set-range]'));
    if (seg) {
      ui.analyticsRange = /** @type {string} */ (seg.dataset.setRange);
      return changed();
    }
    const result = target.closest('#search-results a');
    if (result) {
      ui.search = null;
      /** @type {HTMLInputElement} */ (document.getElementById('global-search')).value = '';
      changed();
    } else if (!target.closest('.global-search') && ui.search) {
      ui.search = null;
      changed();
    }
  });

  document.addEventListener('input', (ev) => {
    const el = /** @type {HTMLInputElement} */ (ev.target);
    if (el.dataset.filter && el.type === 'search') setFilter(el.dataset.filter, el.value);
    if (el.id === 'global-search') {
      const q = el.value.trim();
      ui.search = q.length >= 2 ? { query: q, results: searchAll(q) } : null;
      changed();
    }
  });

  document.addEventListener('change', (ev) => {
    const el = /** @type {HTMLInputElement} */ (ev.target);
    if (el.dataset.filter && el.tagName === 'SELECT') return setFilter(el.dataset.filter, el.value);
    if (el.id === 'admin-toggle') return setAdminMode(el.checked);
    if (el.dataset.settingTool) {
      const value = el.type === 'checkbox' ? el.checked : el.value;
      return void runTool(el.dataset.settingTool, { [/** @type {string} */ (el.dataset.settingArg)]: value });
    }
    if (el.dataset.assignTicket) {
      const id = Number(el.dataset.assignTicket);
      return void runTool('assign_ticket', el.value ? { id, assignee_id: Number(el.value) } : { id, unassign: true });
    }
  });

  document.addEventListener('submit', (ev) => {
    const form = /** @type {HTMLFormElement} */ (ev.target);
    if (form.matches('[data-settings-form]')) {
      ev.preventDefault();
      runTool('update_site_settings', Object.fromEntries(new FormData(form).entries()));
    } else if (form.dataset.replyTicket) {
      ev.preventDefault();
      const data = new FormData(form);
      runTool('reply_to_ticket', { id: Number(form.dataset.replyTicket), body: String(data.get('body') ?? ''), internal: data.get('internal') === 'on' });
    }
  });

  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && ui.search) {
      ui.search = null;
      changed();
    }
    if (ev.key === '/' && !(ev.target instanceof HTMLInputElement || ev.target instanceof HTMLTextAreaElement || ev.target instanceof HTMLSelectElement)) {
      ev.preventDefault();
      /** @type {HTMLInputElement} */ (document.getElementById('global-search')).focus();
    }
  });
}

/** @param {string} key e.g. "users.role" @param {string} value */
function setFilter(key, value) {
  const [area, field] = key.split('.');
  const filters = /** @type {Record<string, Record<string,string>>} */ (/** @type {unknown} */ (ui.filters));
  filters[area][field] = value;
  if (ui.param && area !== 'comments') navigate(ui.route);
  changed();
}

// ---------------------------------------------------------------- start

function showBanner() {
  const banner = /** @type {HTMLElement} */ (document.getElementById('webmcp-banner'));
  if (webmcp.categories) return;
  banner.hidden = false;
  banner.innerHTML = webmcp.available
    ? '<strong>WebMCP categories unavailable.</strong> The tabmcp polyfill did not load, so this page registers its tools one by one with <code>document.modelContext.registerTool</code>.'
    : '<strong>WebMCP is not available.</strong> Neither the tabmcp polyfill nor native WebMCP is present: AI agents cannot use this page’s tools. Load <code>/webmcp-polyfill.js</code> or install the tabmcp extension.';
}

async function start() {
  /** @type {HTMLElement} */ (document.getElementById('signed-in')).innerHTML = `${avatar(currentUser.name)}<span><span class="person-name">${esc(currentUser.name)}</span><span class="muted small">${esc(currentUser.role)}</span></span>`;
  applyTheme();
  document.body.dataset.adminMode = 'false';
  bindEvents();
  bindToolForms();
  subscribe(render);
  startRouter(() => { /* WebMCP hosts read location.hash for route scopes */ });
  showBanner();
  setPageStates(pageStates());
  await registerAll(CATEGORIES, general);
  if (db.settings.beta_features) await setBetaFeatures(true);
  const api = Object.freeze({
    version: VERSION,
    toolCount,
    categoryCount: () => categoryCount(),
  });
  Object.defineProperty(window, 'acmeDemo', { value: api, writable: false, configurable: false, enumerable: false });
  document.body.dataset.ready = 'true';
  render();
}

start().catch((e) => {
  console.error('[acme] start-up failed', e);
  toast(`The app failed to start: ${e instanceof Error ? e.message : e}`, { kind: 'error' });
});
