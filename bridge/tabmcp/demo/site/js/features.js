// @ts-check
/** App-wide switches that other modules and tools flip: admin mode, beta features, theme. */
import { db, log, changed } from './store.js';
import { ui, toast } from './ui.js';
import { registerRemovable, setPageStates } from './webmcp.js';
import betaCategory from './tools/beta.js';

/** The page states WebMCP should know about. */
export function pageStates() {
  return ['authenticated', ...(ui.adminMode ? ['admin-mode'] : [])];
}

/** @param {boolean} enabled */
export function setAdminMode(enabled) {
  if (ui.adminMode === enabled) return;
  ui.adminMode = enabled;
  document.body.dataset.adminMode = String(enabled);
  setPageStates(pageStates());
  log(`${enabled ? 'switched on' : 'switched off'} admin mode`);
  toast(enabled ? 'Admin mode is on: admin-only actions are unlocked.' : 'Admin mode is off.', { kind: enabled ? 'warning' : 'info', title: 'Admin mode' });
  changed();
}

/** @type {(() => void) | null} */
let unregisterBeta = null;
/** @type {Promise<void>} serialises quick on/off/on toggles */
let betaQueue = Promise.resolve();

/**
 * Turn the beta features on or off: registers or unregisters the "beta_reports" category.
 * @param {boolean} enabled
 */
export function setBetaFeatures(enabled) {
  const run = betaQueue.catch(() => {}).then(async () => {
    const was = db.settings.beta_features;
    db.settings.beta_features = enabled; // first, so every render from here on shows the new state
    if (enabled === Boolean(unregisterBeta)) return;
    try {
      if (enabled) {
        unregisterBeta = await registerRemovable(betaCategory);
      } else {
        unregisterBeta?.();
        unregisterBeta = null;
      }
    } catch (e) {
      db.settings.beta_features = was;
      changed();
      throw e;
    }
    log(`${enabled ? 'enabled' : 'disabled'} beta features`);
    toast(enabled ? 'Beta features enabled: custom reports and forecasts are available.' : 'Beta features disabled.', { kind: 'info', title: 'Beta features' });
    changed();
  });
  betaQueue = run;
  return run.catch((e) => {
    console.error('[acme] beta features:', e);
    toast(`Could not ${enabled ? 'enable' : 'disable'} beta features: ${e instanceof Error ? e.message : e}`, { kind: 'error' });
    throw e;
  });
}

const darkQuery = matchMedia('(prefers-color-scheme: dark)');
/** Apply db.settings.theme to the page. */
export function applyTheme() {
  const t = db.settings.theme;
  document.documentElement.dataset.theme = t === 'system' ? (darkQuery.matches ? 'dark' : 'light') : t;
}
darkQuery.addEventListener('change', applyTheme);
