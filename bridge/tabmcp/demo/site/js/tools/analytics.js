// @ts-check
import { db, money, rangeDays, changed } from '../store.js';
import { ui, toast } from '../ui.js';
import { navigate } from '../router.js';
import { tool, obj, S, READ, IDEMPOTENT } from './kit.js';

const RANGES = ['7d', '30d', '90d'];
const range = S.enum(RANGES, 'Time range ending today: last 7, 30 or 90 days (default "30d").');

/** The daily series for the last `days` days, and the `days` before that. @param {string} r */
export function window_(r) {
  const days = rangeDays(r);
  return { current: db.series.slice(-days), previous: db.series.slice(-2 * days, -days) };
}

/** @param {{visits:number,signups:number,revenue:number,orders:number}[]} rows */
export function totals(rows) {
  const t = rows.reduce((a, d) => ({ visits: a.visits + d.visits, signups: a.signups + d.signups, revenue: a.revenue + d.revenue, orders: a.orders + d.orders }),
    { visits: 0, signups: 0, revenue: 0, orders: 0 });
  return { ...t, revenue: money(t.revenue), conversion_rate: t.visits ? Math.round((t.orders / t.visits) * 10000) / 100 : 0,
    average_order_value: t.orders ? money(t.revenue / t.orders) : 0 };
}

/** @param {number} now @param {number} before */
const change = (now, before) => (before ? Math.round(((now - before) / before) * 1000) / 10 : null);

/** Live counts the dashboard shows. */
export function dashboardSummary() {
  const t = totals(window_('30d').current);
  return {
    users: { total: db.users.length, active: db.users.filter((u) => u.status === 'active').length },
    posts: { published: db.posts.filter((p) => p.status === 'published').length, drafts: db.posts.filter((p) => p.status === 'draft').length },
    comments_pending: db.comments.filter((c) => c.status === 'pending').length,
    orders_to_fulfil: db.orders.filter((o) => o.status === 'pending' || o.status === 'paid').length,
    tickets_open: db.tickets.filter((tk) => tk.status === 'open').length,
    low_stock_products: db.products.filter((p) => !p.archived && p.stock <= 5).length,
    revenue_30d: t.revenue,
    visits_30d: t.visits,
  };
}

/** @param {'revenue'|'units'} by */
export function topProducts(by) {
  /** @type {Map<number, {product_id:number,name:string,units:number,revenue:number}>} */
  const m = new Map();
  for (const o of db.orders) {
    if (o.status === 'cancelled' || o.status === 'refunded') continue;
    for (const it of o.items) {
      const row = m.get(it.product_id) ?? { product_id: it.product_id, name: it.name, units: 0, revenue: 0 };
      row.units += it.quantity;
      row.revenue = money(row.revenue + it.quantity * it.unit_price);
      m.set(it.product_id, row);
    }
  }
  return [...m.values()].sort((a, b) => b[by] - a[by]);
}

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'analytics',
  title: 'Analytics & reports',
  description: 'Traffic, sales, sign-ups and top content/products over the last 7, 30 or 90 days; also switches the range shown on the Analytics page.',
  tools: [
    tool({
      name: 'get_dashboard_summary',
      title: 'Dashboard summary',
      description: 'The headline numbers of the back office right now: users, posts, pending comments, orders to fulfil, open tickets, low stock, 30-day revenue and visits.',
      annotations: READ,
      scope: { core: true },
      run: () => dashboardSummary(),
    }),
    tool({
      name: 'get_traffic_stats',
      title: 'Traffic statistics',
      description: 'Visits, sign-ups and conversion rate for a range, with the change against the previous period of the same length and the daily series.',
      input: obj({ range, include_daily: S.bool('Include the day-by-day numbers (default false).') }),
      annotations: READ,
      run: ({ range: r = '30d', include_daily = false }) => {
        const { current, previous } = window_(r);
        const now = totals(current);
        const before = totals(previous);
        return { range: r, visits: now.visits, signups: now.signups, conversion_rate: now.conversion_rate,
          change_percent: { visits: change(now.visits, before.visits), signups: change(now.signups, before.signups) },
          ...(include_daily ? { daily: current.map((d) => ({ date: d.date, visits: d.visits, signups: d.signups })) } : {}) };
      },
    }),
    tool({
      name: 'get_sales_report',
      title: 'Sales report',
      description: 'Revenue, orders and average order value for a range, grouped by day or by week.',
      input: obj({ range, group_by: S.enum(['day', 'week'], 'Bucket size of the breakdown (default "week").') }),
      annotations: READ,
      run: ({ range: r = '30d', group_by = 'week' }) => {
        const { current } = window_(r);
        const size = group_by === 'day' ? 1 : 7;
        const buckets = [];
        for (let i = 0; i < current.length; i += size) {
          const chunk = current.slice(i, i + size);
          const t = totals(chunk);
          buckets.push({ from: chunk[0].date, to: chunk[chunk.length - 1].date, revenue: t.revenue, orders: t.orders });
        }
        const t = totals(current);
        return { range: r, revenue: t.revenue, orders: t.orders, average_order_value: t.average_order_value, group_by, breakdown: buckets };
      },
    }),
    tool({
      name: 'get_top_products',
      title: 'Best-selling products',
      description: 'Products ranked by revenue or units sold across all non-cancelled, non-refunded orders.',
      input: obj({ by: S.enum(['revenue', 'units'], 'Ranking metric (default "revenue").'), limit: S.int('How many (default 5).', { minimum: 1, maximum: 20, default: 5 }) }),
      annotations: READ,
      run: ({ by = 'revenue', limit }) => ({ by, products: topProducts(by).slice(0, limit) }),
    }),
    tool({
      name: 'get_top_posts',
      title: 'Most-read posts',
      description: 'Published posts ranked by views or by number of approved comments.',
      input: obj({ metric: S.enum(['views', 'comments'], 'Ranking metric (default "views").'), limit: S.int('How many (default 5).', { minimum: 1, maximum: 20, default: 5 }) }),
      annotations: READ,
      run: ({ metric = 'views', limit }) => {
        const rows = db.posts.filter((p) => p.status === 'published').map((p) => ({ id: p.id, title: p.title, views: p.views,
          comments: db.comments.filter((c) => c.post_id === p.id && c.status === 'approved').length }));
        return { metric, posts: rows.sort((a, b) => (metric === 'views' ? b.views - a.views : b.comments - a.comments)).slice(0, limit) };
      },
    }),
    tool({
      name: 'get_user_growth',
      title: 'Staff account growth',
      description: 'How many staff accounts were created in the range, and the current split by role and by status.',
      input: obj({ range }),
      annotations: READ,
      run: ({ range: r = '30d' }) => {
        const since = Date.parse(db.series[db.series.length - rangeDays(r)].date);
        /** @param {string} key */
        const countBy = (key) => db.users.reduce((/** @type {Record<string, number>} */ m, u) => { const k = /** @type {any} */ (u)[key]; m[k] = (m[k] ?? 0) + 1; return m; }, {});
        return { range: r, new_accounts: db.users.filter((u) => Date.parse(u.created_at) >= since).length, total: db.users.length, by_role: countBy('role'), by_status: countBy('status') };
      },
    }),
    tool({
      name: 'compare_periods',
      title: 'Compare with the previous period',
      description: 'One metric for the chosen range against the period just before it, as absolute values and percent change.',
      input: obj({ metric: S.enum(['visits', 'signups', 'orders', 'revenue', 'conversion_rate'], 'The metric to compare.'), range }, ['metric']),
      annotations: READ,
      run: ({ metric, range: r = '30d' }) => {
        const { current, previous } = window_(r);
        const now = /** @type {any} */ (totals(current))[metric];
        const before = /** @type {any} */ (totals(previous))[metric];
        return { metric, range: r, current: now, previous: before, change_percent: change(now, before) };
      },
    }),
    tool({
      name: 'set_analytics_range',
      title: 'Change the charts’ range',
      description: 'Switch the Analytics page charts to the last 7, 30 or 90 days (opens the Analytics page).',
      input: obj({ range: S.enum(RANGES, 'Range to show.') }, ['range']),
      annotations: IDEMPOTENT,
      scope: { routes: ['#/analytics*', '#/dashboard*'] },
      run: ({ range: r }) => {
        ui.analyticsRange = r;
        if (ui.route !== 'analytics') navigate('analytics');
        changed();
        toast(`Showing the last ${rangeDays(r)} days.`, { kind: 'info' });
        return { range: r, ...totals(window_(r).current) };
      },
    }),
  ],
};
