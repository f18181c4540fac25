// @ts-check
/** Hash routes: #/section or #/section/id. */
import { ui } from './ui.js';
import { changed } from './store.js';

/** The sections, in sidebar order. `key` is what `navigate_to` accepts. */
export const ROUTES = [
  { key: 'dashboard', label: 'Dashboard', group: 'Overview' },
  { key: 'analytics', label: 'Analytics', group: 'Overview' },
  { key: 'users', label: 'Users', group: 'People' },
  { key: 'support', label: 'Support', group: 'People' },
  { key: 'content', label: 'Content', group: 'Publishing' },
  { key: 'media', label: 'Media library', group: 'Publishing' },
  { key: 'comments', label: 'Comments', group: 'Publishing' },
  { key: 'orders', label: 'Orders', group: 'Commerce' },
  { key: 'products', label: 'Products', group: 'Commerce' },
  { key: 'marketing', label: 'Marketing', group: 'Commerce' },
  { key: 'settings', label: 'Settings', group: 'System' },
  { key: 'activity', label: 'Activity log', group: 'System' },
  { key: 'tools', label: 'WebMCP tools', group: 'System' },
];
export const ROUTE_KEYS = ROUTES.map((r) => r.key);

/** @param {string} hash */
export function parseHash(hash) {
  const m = /^#\/([a-z-]+)(?:\/([^/?#]+))?/.exec(hash);
  const key = m && ROUTE_KEYS.includes(m[1]) ? m[1] : 'dashboard';
  return { key, param: m && ROUTE_KEYS.includes(m[1]) && m[2] ? decodeURIComponent(m[2]) : null };
}

/** @type {(() => void) | null} */
let onRoute = null;

/**
 * Go to a section (and optionally open one record). Renders right away, so a tool that
 * navigates returns after the new view is in the DOM.
 * @param {string} key
 * @param {string|number|null} [param]
 */
export function navigate(key, param = null) {
  if (!ROUTE_KEYS.includes(key)) throw new Error(`Unknown page "${key}". Known pages: ${ROUTE_KEYS.join(', ')}`);
  const hash = `#/${key}${param !== null && param !== undefined ? `/${encodeURIComponent(String(param))}` : ''}`;
  ui.route = key;
  ui.param = param !== null && param !== undefined ? String(param) : null;
  if (location.hash !== hash) history.pushState(null, '', hash);
  onRoute?.();
  changed();
}

/** @param {() => void} callback run after every route change (used to tell WebMCP the route) */
export function startRouter(callback) {
  onRoute = callback;
  const sync = () => {
    const { key, param } = parseHash(location.hash);
    ui.route = key;
    ui.param = param;
    if (!location.hash || parseHash(location.hash).key !== location.hash.slice(2).split('/')[0]) {
      history.replaceState(null, '', `#/${key}${param ? `/${param}` : ''}`);
    }
    onRoute?.();
    changed();
  };
  window.addEventListener('hashchange', sync);
  window.addEventListener('popstate', sync);
  sync();
}

/** The current route as a hash, e.g. "#/users/12". */
export const currentHash = () => `#/${ui.route}${ui.param ? `/${ui.param}` : ''}`;
