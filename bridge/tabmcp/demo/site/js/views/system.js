// @ts-check
import { db, TIMEZONES, LANGUAGES, rangeDays } from '../store.js';
import { ui, esc, fmtMoney, fmtNum, fmtDate, fmtDateTime, badge } from '../ui.js';
import { window_, totals, topProducts } from '../tools/analytics.js';
import { reports, schedules } from '../tools/beta.js';
import { webmcp, categoryCount } from '../webmcp.js';
import { pageHeader, toolButton, formButton, card, table, dl } from './common.js';
import { lineChart, barChart, barList } from './charts.js';
import { activityFeed } from './dashboard.js';

/** @param {number} now @param {number} before */
function delta(now, before) {
  if (!before) return '';
  const pct = ((now - before) / before) * 100;
  return `<span class="delta ${pct >= 0 ? 'up' : 'down'}">${pct >= 0 ? '▲' : '▼'} ${Math.abs(pct).toFixed(1)}%</span>`;
}

export function renderAnalytics() {
  const r = ui.analyticsRange;
  const { current, previous } = window_(r);
  const now = totals(current);
  const before = totals(previous);
  const seg = ['7d', '30d', '90d'].map((k) => `<button type="button" class="seg${k === r ? ' active' : ''}" aria-pressed="${k === r}" data-set-range="${k}">${rangeDays(k)} days</button>`).join('');
  const top = topProducts('revenue').slice(0, 6);
  const posts = db.posts.filter((p) => p.status === 'published').sort((a, b) => b.views - a.views).slice(0, 6);
  const beta = db.settings.beta_features ? card('Custom reports (beta)', reports.length || schedules.length
    ? `<ul class="report-list" data-testid="beta-reports">${reports.map((rep) => `<li><strong>${esc(rep.name)}</strong> <span class="muted small">${esc(rep.range)} · ${esc(fmtDateTime(rep.created_at))}</span><div>${Object.entries(rep.totals).map(([k, v]) => `<span class="tag">${esc(k)}: ${esc(k === 'revenue' ? fmtMoney(v) : fmtNum(v))}</span>`).join(' ')}</div></li>`).join('')}
       ${schedules.map((s) => `<li>✉ “${esc(s.report)}” ${esc(s.frequency)} to ${esc(s.recipients.join(', '))}</li>`).join('')}</ul>`
    : '<p class="muted" data-testid="beta-reports">No custom reports yet. Ask your assistant to build one, e.g. “visits and revenue for the last 90 days”.</p>', '<span class="tag tag-beta">beta</span>') : '';
  return `
    ${pageHeader('Analytics', `Last ${rangeDays(r)} days compared with the ${rangeDays(r)} days before.`, `<div class="segmented" role="group" aria-label="Range" data-testid="analytics-range" data-range="${r}">${seg}</div>`)}
    <div class="kpis kpis-4">
      <div class="kpi"><span class="kpi-label">Visits</span><span class="kpi-value">${fmtNum(now.visits)}</span><span class="kpi-hint">${delta(now.visits, before.visits)}</span></div>
      <div class="kpi"><span class="kpi-label">Revenue</span><span class="kpi-value" data-testid="analytics-revenue">${esc(fmtMoney(now.revenue))}</span><span class="kpi-hint">${delta(now.revenue, before.revenue)}</span></div>
      <div class="kpi"><span class="kpi-label">Orders</span><span class="kpi-value">${fmtNum(now.orders)}</span><span class="kpi-hint">${delta(now.orders, before.orders)}</span></div>
      <div class="kpi"><span class="kpi-label">Conversion</span><span class="kpi-value">${now.conversion_rate}%</span><span class="kpi-hint">AOV ${esc(fmtMoney(now.average_order_value))}</span></div>
    </div>
    <div class="grid-2">
      ${card('Visits', lineChart(current.map((d) => d.visits), { label: `Daily visits, last ${rangeDays(r)} days` }))}
      ${card('Revenue', barChart(current.map((d) => d.revenue), { label: `Daily revenue, last ${rangeDays(r)} days`, format: fmtMoney, dates: current.map((d) => d.date) }))}
    </div>
    <div class="grid-2">
      ${card('Top products by revenue', barList(top.map((p) => ({ label: p.name, value: p.revenue, display: fmtMoney(p.revenue) }))))}
      ${card('Most-read posts', barList(posts.map((p) => ({ label: p.title, value: p.views, display: fmtNum(p.views) }))))}
    </div>
    ${beta}`;
}

/** A switch (checkbox styled as a toggle). @param {string} id @param {boolean} on @param {string} label @param {string} attrs */
const toggle = (id, on, label, attrs) => `<label class="switch" for="${id}"><input type="checkbox" role="switch" id="${id}" ${on ? 'checked' : ''} ${attrs}><span class="switch-track" aria-hidden="true"></span><span>${esc(label)}</span></label>`;

export function renderSettings() {
  const s = db.settings;
  const keys = db.apiKeys.map((k) => `<tr data-testid="api-key-row" data-id="${k.id}"><td>${esc(k.label)}</td><td><code>${esc(k.prefix)}…</code></td><td>${k.scopes.map((x) => `<span class="tag">${esc(x)}</span>`).join(' ')}</td><td class="muted">${esc(fmtDate(k.created_at))}</td>
      <td class="actions">${toolButton('Revoke', 'revoke_api_key', { id: k.id }, { cls: 'btn-sm btn-danger-ghost', disabled: !ui.adminMode, confirm: `Revoke “${k.label}”? Integrations using it stop working.` })}</td></tr>`).join('');
  const opt = (/** @type {string[]} */ list, /** @type {string} */ v) => list.map((x) => `<option${x === v ? ' selected' : ''}>${esc(x)}</option>`).join('');
  return `
    ${pageHeader('Settings', 'Site, appearance, notifications and administration.')}
    <div class="grid-2">
      ${card('General', `<form class="settings-form" data-settings-form>
        <div class="form-row"><label for="s-site_name">Site name</label><input id="s-site_name" name="site_name" value="${esc(s.site_name)}" required minlength="2" maxlength="60"></div>
        <div class="form-row"><label for="s-support_email">Support email</label><input id="s-support_email" name="support_email" type="email" value="${esc(s.support_email)}" required></div>
        <div class="form-row form-row-2"><div><label for="s-timezone">Timezone</label><select id="s-timezone" name="timezone">${opt(TIMEZONES, s.timezone)}</select></div>
        <div><label for="s-language">Language</label><select id="s-language" name="language">${opt(LANGUAGES, s.language)}</select></div></div>
        <div class="btn-row"><button type="submit" class="btn btn-primary btn-sm">Save changes</button></div></form>`)}
      ${card('Appearance & notifications', `
        <div class="form-row"><label for="s-theme">Theme</label><select id="s-theme" data-testid="theme-select" data-setting-tool="set_theme" data-setting-arg="theme">${opt(['light', 'dark', 'system'], s.theme)}</select></div>
        <div class="stack">
          ${toggle('s-notify-email', s.notifications.email, 'Email notifications', 'data-setting-tool="set_notification_preferences" data-setting-arg="email"')}
          ${toggle('s-notify-push', s.notifications.push, 'Browser push notifications', 'data-setting-tool="set_notification_preferences" data-setting-arg="push"')}
          <div class="form-row"><label for="s-digest">Summary digest</label><select id="s-digest" data-setting-tool="set_notification_preferences" data-setting-arg="digest">${opt(['daily', 'weekly', 'never'], s.notifications.digest)}</select></div>
        </div>`)}
    </div>
    ${card('Beta features', `<p class="muted">Try features that are still in development: custom reports, revenue forecasts and scheduled report emails. Turning this on also offers your AI assistant a new group of tools (<code>beta_reports</code>).</p>
      ${toggle('s-beta', s.beta_features, 'Enable beta features', 'data-testid="beta-toggle" data-setting-tool="set_beta_features" data-setting-arg="enabled"')}`, '<span class="tag tag-beta">beta</span>')}
    <section class="card admin-area${ui.adminMode ? '' : ' locked'}" data-testid="admin-area">
      <div class="card-head"><h2>Administration</h2>${ui.adminMode ? badge('admin mode') : '<span class="muted small">Switch on Admin mode in the top bar to change these.</span>'}</div>
      <fieldset ${ui.adminMode ? '' : 'disabled'}>
        <legend class="sr-only">Administration</legend>
        ${toggle('s-maintenance', s.maintenance_mode, 'Maintenance mode (public site shows a maintenance page)', 'data-testid="maintenance-toggle" data-setting-tool="set_maintenance_mode" data-setting-arg="enabled"')}
        <div class="card-head sub"><h3>API keys</h3>${ui.adminMode ? formButton('Create key', 'create_api_key', {}, 'btn-sm') : ''}</div>
        ${table('<th>Label</th><th>Key</th><th>Scopes</th><th>Created</th><th><span class="sr-only">Actions</span></th>', keys || '<tr class="empty"><td colspan="5">No API keys.</td></tr>', 'api-keys-table')}
      </fieldset>
    </section>`;
}

export function renderActivity() {
  const calls = ui.toolCalls.map((c) => `<tr data-testid="tool-call-row"><td><code>${esc(c.name)}</code></td><td>${c.ok ? badge('ok') : `${badge('error')} <span class="muted small">${esc(/** @type {any} */ (c).error ?? '')}</span>`}</td><td class="muted">${esc(fmtDateTime(c.at))}</td></tr>`).join('');
  return `
    ${pageHeader('Activity log', 'Who did what, including your AI assistant.')}
    <div class="grid-2">
      ${card('Recent activity', activityFeed(50))}
      ${card('Tool calls from AI agents', table('<th>Tool</th><th>Result</th><th>When</th>', calls || '<tr class="empty"><td colspan="3">No agent has called a tool yet.</td></tr>', 'tool-calls-table'))}
    </div>`;
}

/** @param {import('../tools/kit.js').ToolDef} t */
function scopeTags(t) {
  const sc = t.scope ?? {};
  const tags = [];
  if (sc.core) tags.push('<span class="tag tag-core">core</span>');
  if (t.annotations.readOnlyHint) tags.push('<span class="tag">read-only</span>');
  if (sc.dangerLevel && sc.dangerLevel !== 'safe') tags.push(`<span class="tag tag-${esc(sc.dangerLevel)}">${esc(sc.dangerLevel)}</span>`);
  if (sc.requiresApproval) tags.push('<span class="tag tag-approval">needs approval</span>');
  for (const s of sc.states ?? []) tags.push(`<span class="tag tag-state">${esc(s)}</span>`);
  for (const r of sc.routes ?? []) tags.push(`<span class="tag tag-route">${esc(r)}</span>`);
  return tags.join(' ');
}

export function renderTools() {
  const groups = [...webmcp.groups.values()];
  const loose = [...webmcp.tools.values()].filter((t) => t.category === null).map((t) => t.def);
  /** @param {import('../tools/kit.js').ToolDef[]} tools */
  const list = (tools) => `<ul class="tool-list">${tools.map((t) => `<li data-testid="tool-entry" data-name="${esc(t.name)}"><code>${esc(t.name)}</code> <span class="tool-title">${esc(t.title)}</span> ${scopeTags(t)}<p class="muted small">${esc(t.description)}</p></li>`).join('')}</ul>`;
  const mode = !webmcp.available ? 'WebMCP is not available in this browser: no tools are registered.'
    : webmcp.categories ? `${webmcp.tools.size} tools in ${categoryCount()} categories, registered with document.modelContext.registerCategory.`
      : `${webmcp.tools.size} tools registered one by one (no category support: the WebMCP polyfill is not loaded).`;
  return `
    ${pageHeader('WebMCP tools', mode)}
    ${webmcp.errors.length ? `<div class="banner banner-error" role="alert"><strong>Some registrations failed:</strong><ul>${webmcp.errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></div>` : ''}
    ${card('Page state', dl([['Route', `<code>${esc(location.hash)}</code>`], ['States', webmcp.pageStates.map((s) => `<span class="tag tag-state">${esc(s)}</span>`).join(' ') || '—']]))}
    <div class="tool-groups" data-testid="tool-catalogue">
      ${groups.map((g) => card(`${g.title}`, `<p class="muted small"><code>${esc(g.name)}</code> · ${esc(g.description)}</p>${list(g.tools)}`, `<span class="count">${g.tools.length}</span>${/** @type {any} */ (g).dynamic ? ' <span class="tag tag-beta">dynamic</span>' : ''}`)).join('')}
      ${loose.length ? card('Uncategorized', list(loose), `<span class="count">${loose.length}</span>`) : ''}
    </div>`;
}
