// @ts-check
/**
 * The "beta_reports" category: registered only while Settings › Beta features is on, so
 * hosts can be seen reacting to tools appearing and disappearing at run time.
 */
import { db, log, money, rangeDays } from '../store.js';
import { toast } from '../ui.js';
import { totals } from './analytics.js';
import { tool, obj, S, READ, WRITE } from './kit.js';

const METRICS = ['visits', 'signups', 'orders', 'revenue'];

/** Reports made with generate_custom_report, shown on the Analytics page. */
export const reports = /** @type {{id:number,name:string,metrics:string[],range:string,created_at:string,totals:Record<string,number>}[]} */ ([]);
/** Report emails planned with schedule_report_email. */
export const schedules = /** @type {{id:number,recipients:string[],frequency:string,report:string}[]} */ ([]);

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'beta_reports',
  title: 'Reports (beta)',
  description: 'Beta: build custom reports from several metrics, forecast revenue and email reports on a schedule. Available while beta features are enabled in Settings.',
  tools: [
    tool({
      name: 'generate_custom_report',
      title: 'Build a custom report',
      description: 'Combine metrics (visits, sign-ups, orders, revenue) for a range into a saved report, listed on the Analytics page.',
      input: obj({
        name: S.str('Report title.', { minLength: 3, maxLength: 80 }),
        metrics: S.arr(S.enum(METRICS, 'A metric.'), 'Metrics to include.', { minItems: 1, uniqueItems: true }),
        range: S.enum(['7d', '30d', '90d'], 'Time range (default "30d").'),
      }, ['name', 'metrics']),
      annotations: WRITE,
      run: ({ name, metrics, range = '30d' }) => {
        const t = /** @type {Record<string, number>} */ (/** @type {unknown} */ (totals(db.series.slice(-rangeDays(range)))));
        const report = { id: reports.length + 1, name, metrics, range, created_at: new Date().toISOString(),
          totals: Object.fromEntries(metrics.map((/** @type {string} */ m) => [m, t[m]])) };
        reports.unshift(report);
        log(`built the report “${name}”`);
        toast(`Report “${name}” is ready on the Analytics page.`, { title: 'Report created' });
        return report;
      },
    }),
    tool({
      name: 'forecast_revenue',
      title: 'Forecast revenue',
      description: 'Project revenue for the next N days from the trend of the last 90 days (linear fit). Experimental: treat as a rough estimate.',
      input: obj({ days: S.int('How many days ahead (default 30).', { minimum: 7, maximum: 90, default: 30 }) }),
      annotations: READ,
      run: ({ days }) => {
        const ys = db.series.map((d) => d.revenue);
        const n = ys.length;
        const mx = (n - 1) / 2;
        const my = ys.reduce((a, b) => a + b, 0) / n;
        let num = 0;
        let den = 0;
        ys.forEach((y, x) => { num += (x - mx) * (y - my); den += (x - mx) ** 2; });
        const slope = num / den;
        let sum = 0;
        for (let i = 0; i < days; i++) sum += my + slope * (n + i - mx);
        return { days, forecast_revenue: money(sum), daily_trend: money(slope), basis: 'linear fit of the last 90 days', confidence: 'low' };
      },
    }),
    tool({
      name: 'schedule_report_email',
      title: 'Email a report regularly',
      description: 'Send the analytics summary by email to a list of people every day, week or month.',
      input: obj({
        recipients: S.arr(S.email('An email address.'), 'Who gets the email.', { minItems: 1, maxItems: 10, uniqueItems: true }),
        frequency: S.enum(['daily', 'weekly', 'monthly'], 'How often.'),
        report: S.str('Title of a saved report to send; the dashboard summary if omitted.', { maxLength: 80 }),
      }, ['recipients', 'frequency']),
      annotations: WRITE,
      run: ({ recipients, frequency, report = 'Dashboard summary' }) => {
        if (report !== 'Dashboard summary' && !reports.some((r) => r.name === report)) {
          throw new Error(`No saved report titled “${report}”; build it with generate_custom_report first`);
        }
        const s = { id: schedules.length + 1, recipients, frequency, report };
        schedules.push(s);
        log(`scheduled a ${frequency} email of “${report}”`);
        toast(`“${report}” will be emailed ${frequency} to ${recipients.length} recipient${recipients.length === 1 ? '' : 's'}.`, { title: 'Report email scheduled' });
        return { scheduled: s };
      },
    }),
  ],
};
