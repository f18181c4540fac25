// @ts-check
/** Tools that belong to no area of the app: where am I, go somewhere, find anything, tell the user. */
import { db, currentUser, changed, byId } from '../store.js';
import { ui, toast } from '../ui.js';
import { navigate, ROUTES, ROUTE_KEYS, currentHash } from '../router.js';
import { webmcp, categoryCount } from '../webmcp.js';
import { pageStates } from '../features.js';
import { tool, obj, S, READ, IDEMPOTENT, WRITE } from './kit.js';

export const VERSION = '1.4.0';

/** Pages that can open one record (navigate_to with id), and where their records live. */
const RECORDS = /** @type {Record<string, {list: () => {id: number}[], label: string}>} */ ({
  users: { list: () => db.users, label: 'user' },
  content: { list: () => db.posts, label: 'post' },
  media: { list: () => db.media, label: 'media file' },
  orders: { list: () => db.orders, label: 'order' },
  products: { list: () => db.products, label: 'product' },
  support: { list: () => db.tickets, label: 'ticket' },
  marketing: { list: () => db.campaigns, label: 'campaign' },
});

/** Record types search_everything looks through. */
const SEARCH_TYPES = ['user', 'post', 'order', 'product', 'ticket', 'media', 'campaign'];

/**
 * @param {string} query
 * @param {string[]} types
 * @returns {{type:string, id:number, label:string, detail:string, route:string}[]}
 */
export function searchAll(query, types = SEARCH_TYPES) {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const has = (/** @type {unknown[]} */ ...fields) => fields.some((f) => String(f ?? '').toLowerCase().includes(q));
  /** @type {{type:string, id:number, label:string, detail:string, route:string}[]} */
  const out = [];
  const want = new Set(types);
  if (want.has('user')) for (const u of db.users) if (has(u.name, u.email, u.department)) out.push({ type: 'user', id: u.id, label: u.name, detail: `${u.role} · ${u.email}`, route: `#/users/${u.id}` });
  if (want.has('post')) for (const p of db.posts) if (has(p.title, p.tags.join(' '))) out.push({ type: 'post', id: p.id, label: p.title, detail: p.status, route: `#/content/${p.id}` });
  if (want.has('order')) for (const o of db.orders) if (has(`#${o.id}`, o.customer_name, o.customer_email)) out.push({ type: 'order', id: o.id, label: `Order #${o.id}`, detail: `${o.customer_name} · ${o.status}`, route: `#/orders/${o.id}` });
  if (want.has('product')) for (const p of db.products) if (has(p.name, p.sku, p.category)) out.push({ type: 'product', id: p.id, label: p.name, detail: `${p.sku} · ${p.stock} in stock`, route: `#/products/${p.id}` });
  if (want.has('ticket')) for (const t of db.tickets) if (has(`#${t.id}`, t.subject, t.customer_email)) out.push({ type: 'ticket', id: t.id, label: `#${t.id} ${t.subject}`, detail: `${t.status} · ${t.priority}`, route: `#/support/${t.id}` });
  if (want.has('media')) for (const m of db.media) if (has(m.filename, m.alt_text, m.folder)) out.push({ type: 'media', id: m.id, label: m.filename, detail: `${m.type} · ${m.folder}`, route: `#/media/${m.id}` });
  if (want.has('campaign')) for (const c of db.campaigns) if (has(c.name, c.channel)) out.push({ type: 'campaign', id: c.id, label: c.name, detail: `${c.channel} · ${c.status}`, route: `#/marketing/${c.id}` });
  return out;
}

/** @type {import('./kit.js').ToolDef[]} */
export default [
  tool({
    name: 'get_page_info',
    title: 'Where am I?',
    description: 'What the page shows right now: app name and version, current page and route, signed-in user, admin mode, theme, beta features, and how many WebMCP tools and categories the page offers.',
    annotations: READ,
    run: () => ({
      app: db.settings.site_name,
      version: VERSION,
      route: currentHash(),
      page: ROUTES.find((r) => r.key === ui.route)?.label ?? ui.route,
      pages: ROUTE_KEYS,
      signed_in_as: { id: currentUser.id, name: currentUser.name, role: currentUser.role },
      admin_mode: ui.adminMode,
      states: pageStates(),
      theme: db.settings.theme,
      beta_features: db.settings.beta_features,
      webmcp: { tools: webmcp.tools.size, categories: categoryCount(), category_support: webmcp.categories },
    }),
  }),
  tool({
    name: 'navigate_to',
    title: 'Go to a page',
    description: 'Show a page of the back office to the user, optionally with one record opened: page "users" with id 12 opens user 12 (records open on users, content, media, orders, products, support and marketing).',
    input: obj({
      page: S.enum(ROUTE_KEYS, 'The page to open.'),
      id: S.int('Optional record to open on that page (user, post, media file, order, product, ticket or campaign id).', { minimum: 1 }),
    }, ['page']),
    annotations: IDEMPOTENT,
    scope: { core: true },
    run: ({ page, id }) => {
      if (id !== undefined) {
        const records = RECORDS[page];
        if (!records) throw new Error(`The ${page} page has no records to open; call navigate_to without id`);
        byId(records.list(), id, records.label);
      }
      navigate(page, id ?? null);
      return { route: currentHash(), page: ROUTES.find((r) => r.key === page)?.label };
    },
  }),
  tool({
    name: 'search_everything',
    title: 'Search the back office',
    description: 'Find users, posts, orders, products, tickets, media files and campaigns matching a text, across the whole app. Results show in the top-bar search too.',
    input: obj({
      query: S.str('What to look for (name, email, title, order number, SKU...).', { minLength: 2, maxLength: 100 }),
      types: S.arr(S.enum(SEARCH_TYPES, 'A record type.'), 'Only these record types (default: all).', { minItems: 1, uniqueItems: true }),
      limit: S.limit(20),
    }, ['query']),
    annotations: READ,
    scope: { core: true },
    run: ({ query, types, limit }) => {
      const results = searchAll(query, types);
      ui.search = { query, results };
      changed();
      return { query, total: results.length, results: results.slice(0, limit) };
    },
  }),
  tool({
    name: 'show_notification',
    title: 'Show a message to the user',
    description: 'Pop up a short notification (toast) in the corner of the page, e.g. to say a long task is done.',
    input: obj({
      message: S.str('The text, one or two sentences.', { minLength: 1, maxLength: 300 }),
      kind: S.enum(['info', 'success', 'warning', 'error'], 'Colour and icon (default "info").'),
      title: S.str('Optional bold title.', { maxLength: 60 }),
    }, ['message']),
    annotations: WRITE,
    run: ({ message, kind = 'info', title }) => {
      toast(message, { kind, title: title ?? 'Message from your assistant' });
      return { shown: true };
    },
  }),
];
