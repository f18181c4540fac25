// @ts-check
import { db, nextId, removeById, log, changed, TIMEZONES, LANGUAGES, API_SCOPES } from '../store.js';
import { ui, toast } from '../ui.js';
import { setAdminMode, setBetaFeatures, applyTheme } from '../features.js';
import { tool, obj, S, READ, WRITE, IDEMPOTENT, DESTRUCTIVE, requireAdmin } from './kit.js';

/** @param {{id:number,label:string,prefix:string,scopes:string[],created_at:string}} k */
const keySummary = (k) => ({ id: k.id, label: k.label, prefix: k.prefix, scopes: k.scopes, created_at: k.created_at });

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'settings',
  title: 'Settings',
  description: 'Site and account settings: general settings, theme, notifications, admin mode, beta features, maintenance mode and API keys.',
  tools: [
    tool({
      name: 'get_settings',
      title: 'Read settings',
      description: 'All current settings: site name, support email, timezone, language, theme, notifications, maintenance mode, beta features and whether admin mode is on.',
      annotations: READ,
      run: () => ({ ...structuredClone(db.settings), admin_mode: ui.adminMode, api_keys: db.apiKeys.length }),
    }),
    tool({
      name: 'update_site_settings',
      title: 'Change general settings',
      description: 'Change the site name, support email, timezone or language. Give only the fields to change.',
      input: { ...obj({
        site_name: S.str('Name shown in the top bar and emails.', { minLength: 2, maxLength: 60 }),
        support_email: S.email('Address customers reply to.'),
        timezone: S.enum(TIMEZONES, 'Timezone for reports and schedules.'),
        language: S.enum(LANGUAGES, 'Interface language code.'),
      }), minProperties: 1 },
      annotations: IDEMPOTENT,
      run: (changes) => {
        Object.assign(db.settings, changes);
        log(`changed settings: ${Object.keys(changes).join(', ')}`);
        toast('Settings saved.');
        return { settings: structuredClone(db.settings) };
      },
    }),
    tool({
      name: 'set_theme',
      title: 'Switch light/dark theme',
      description: 'Change the colour theme of the back office: light, dark, or follow the operating system.',
      input: obj({ theme: S.enum(['light', 'dark', 'system'], 'The theme.') }, ['theme']),
      annotations: IDEMPOTENT,
      run: ({ theme }) => {
        db.settings.theme = theme;
        applyTheme();
        changed();
        toast(`Theme set to ${theme}.`, { kind: 'info' });
        return { theme };
      },
    }),
    tool({
      name: 'set_notification_preferences',
      title: 'Notification preferences',
      description: 'Choose how you are notified about new orders, tickets and comments: email, browser push, and the summary digest frequency.',
      input: { ...obj({ email: S.bool('Send email notifications.'), push: S.bool('Send browser push notifications.'), digest: S.enum(['daily', 'weekly', 'never'], 'How often to send a summary digest.') }), minProperties: 1 },
      annotations: IDEMPOTENT,
      run: (changes) => {
        Object.assign(db.settings.notifications, changes);
        changed();
        toast('Notification preferences saved.');
        return { notifications: { ...db.settings.notifications } };
      },
    }),
    tool({
      name: 'set_admin_mode',
      title: 'Switch admin mode',
      description: 'Turn admin mode on or off (the toggle in the top bar). Admin mode unlocks admin-only tools such as deleting users and managing API keys. Needs the user’s approval.',
      input: obj({ enabled: S.bool('true to turn admin mode on, false to turn it off.') }, ['enabled']),
      annotations: IDEMPOTENT,
      scope: { dangerLevel: 'moderate', requiresApproval: true },
      run: ({ enabled }) => {
        setAdminMode(enabled);
        return { admin_mode: ui.adminMode };
      },
    }),
    tool({
      name: 'set_beta_features',
      title: 'Turn beta features on/off',
      description: 'Enable or disable the beta features. Enabling adds the "beta_reports" tool category (custom reports, forecasts, scheduled report emails); disabling removes it.',
      input: obj({ enabled: S.bool('true to enable beta features, false to disable them.') }, ['enabled']),
      annotations: IDEMPOTENT,
      run: async ({ enabled }) => {
        await setBetaFeatures(enabled);
        return { beta_features: db.settings.beta_features };
      },
    }),
    tool({
      name: 'set_maintenance_mode',
      title: 'Maintenance mode',
      description: 'Take the public shop and blog offline behind a maintenance page (the back office keeps working), or bring them back. Admin only; needs the user’s approval.',
      input: obj({ enabled: S.bool('true to take the public site offline, false to bring it back.'), message: S.str('Message on the maintenance page.', { maxLength: 200 }) }, ['enabled']),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      scope: { states: ['admin-mode'], dangerLevel: 'destructive', requiresApproval: true },
      run: ({ enabled, message }) => {
        requireAdmin(ui);
        db.settings.maintenance_mode = enabled;
        log(`${enabled ? 'enabled' : 'disabled'} maintenance mode`);
        toast(enabled ? 'The public site now shows the maintenance page.' : 'The public site is back online.', { kind: enabled ? 'warning' : 'success', title: 'Maintenance mode' });
        return { maintenance_mode: enabled, message: enabled ? message ?? 'We will be back shortly.' : null };
      },
    }),
    tool({
      name: 'list_api_keys',
      title: 'List API keys',
      description: 'The API keys that integrations use, with their scopes (secrets are never shown). Admin only: needs admin mode.',
      annotations: READ,
      scope: { states: ['admin-mode'] },
      run: () => {
        requireAdmin(ui);
        return { api_keys: db.apiKeys.map(keySummary) };
      },
    }),
    tool({
      name: 'create_api_key',
      title: 'Create an API key',
      description: 'Issue a new API key for an integration with the given scopes. The secret is shown once on screen, never returned to the agent. Admin only; needs the user’s approval.',
      input: obj({ label: S.str('What the key is for, e.g. "ERP sync".', { minLength: 2, maxLength: 60 }), scopes: S.arr(S.enum(API_SCOPES, 'A permission.'), 'Permissions of the key.', { minItems: 1, uniqueItems: true }) }, ['label', 'scopes']),
      annotations: WRITE,
      scope: { states: ['admin-mode'], dangerLevel: 'moderate', requiresApproval: true },
      run: ({ label, scopes }) => {
        requireAdmin(ui);
        const id = nextId(db.apiKeys);
        const key = { id, label, prefix: `acme_live_${(0x1000 + id * 2749).toString(16).slice(-4)}`, scopes, created_at: new Date().toISOString() };
        db.apiKeys.push(key);
        log(`created API key “${label}”`);
        const secret = `${key.prefix}_${Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
        toast(`Secret for “${label}” (shown only now, never sent to the agent): ${secret}`, { title: 'API key created', kind: 'warning', timeout: 20000 });
        return { created: keySummary(key) };
      },
    }),
    tool({
      name: 'revoke_api_key',
      title: 'Revoke an API key',
      description: 'Revoke an API key immediately; integrations using it stop working. Cannot be undone. Admin only.',
      input: obj({ id: S.id('API key') }, ['id']),
      annotations: DESTRUCTIVE,
      scope: { states: ['admin-mode'], dangerLevel: 'destructive', requiresApproval: true },
      run: ({ id }) => {
        requireAdmin(ui);
        const k = removeById(db.apiKeys, id, 'API key');
        log(`revoked API key “${k.label}”`);
        toast(`API key “${k.label}” revoked.`, { kind: 'warning', title: 'API key revoked' });
        return { revoked: keySummary(k) };
      },
    }),
  ],
};
