// @ts-check
import { db, currentUser } from '../store.js';
import { esc, fmtMoney, fmtMoneyShort, fmtNum, badge, fmtDateTime, avatar } from '../ui.js';
import { dashboardSummary, window_ } from '../tools/analytics.js';
import { pageHeader, card, table } from './common.js';
import { barChart } from './charts.js';

/**
 * @param {string} key @param {string} label @param {string} value @param {string} hint @param {string} [href]
 */
const kpi = (key, label, value, hint, href) => `
  <${href ? `a href="${href}"` : 'div'} class="kpi" data-testid="kpi-${key}">
    <span class="kpi-label">${esc(label)}</span>
    <span class="kpi-value" data-testid="kpi-${key}-value">${esc(value)}</span>
    <span class="kpi-hint">${esc(hint)}</span>
  </${href ? 'a' : 'div'}>`;

/** An activity feed. @param {number} n */
export function activityFeed(n) {
  return `<ol class="feed" data-testid="activity-feed">${db.activity.slice(0, n).map((a) => `
    <li>${avatar(a.actor)}<div><p><strong>${esc(a.actor)}</strong> ${esc(a.text)}${a.via === 'agent' ? ' <span class="tag tag-agent" title="Done by an AI agent through WebMCP">via agent</span>' : ''}</p>
    <time class="muted" datetime="${esc(a.at)}">${esc(fmtDateTime(a.at))}</time></div></li>`).join('')}</ol>`;
}

export function render() {
  const s = dashboardSummary();
  const { current } = window_('30d');
  const recent = [...db.orders].sort((a, b) => b.id - a.id).slice(0, 6);
  const first = currentUser.name.split(' ')[0];
  return `
    ${pageHeader(`Good morning, ${first}`, 'Here is what needs your attention today.')}
    <div class="kpis">
      ${kpi('revenue', 'Revenue · 30 days', fmtMoneyShort(s.revenue_30d), `${fmtNum(s.visits_30d)} visits`, '#/analytics')}
      ${kpi('orders', 'Orders to fulfil', String(s.orders_to_fulfil), 'pending or paid', '#/orders')}
      ${kpi('comments', 'Comments to review', String(s.comments_pending), 'in the moderation queue', '#/comments')}
      ${kpi('tickets', 'Open tickets', String(s.tickets_open), 'waiting for an agent', '#/support')}
      ${kpi('users', 'Team members', String(s.users.total), `${s.users.active} active`, '#/users')}
      ${kpi('stock', 'Low stock', String(s.low_stock_products), 'products at 5 or fewer', '#/products')}
    </div>
    <div class="grid-2-1">
      ${card('Revenue, last 30 days', barChart(current.map((d) => d.revenue), { label: 'Daily revenue for the last 30 days', format: fmtMoney, dates: current.map((d) => d.date) }), `<a href="#/analytics" class="link">Analytics →</a>`)}
      ${card('Recent activity', activityFeed(4), `<a href="#/activity" class="link">All →</a>`)}
    </div>
    ${card('Latest orders', table('<th>Order</th><th>Customer</th><th>Status</th><th class="num">Total</th>',
      recent.map((o) => `<tr data-testid="recent-order-row" data-id="${o.id}"><td><a href="#/orders/${o.id}">#${o.id}</a></td><td>${esc(o.customer_name)}</td><td>${badge(o.status)}</td><td class="num">${esc(fmtMoney(o.total))}</td></tr>`).join('')),
      `<a href="#/orders" class="link">All orders →</a>`)}`;
}
