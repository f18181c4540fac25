// @ts-check
import { db, byId, nextId, removeById, log, changed, CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES } from '../store.js';
import { toast, fmtMoney } from '../ui.js';
import { tool, obj, S, READ, WRITE, IDEMPOTENT, DESTRUCTIVE } from './kit.js';

const AUDIENCES = ['All customers', 'Newsletter subscribers', 'VIP customers', 'Lapsed customers', 'New sign-ups'];

/** @param {import('../store.js').Campaign} c */
export const campaignSummary = (c) => ({ id: c.id, name: c.name, channel: c.channel, status: c.status, budget: c.budget, spent: c.spent,
  audience: c.audience, start_date: c.start_date, end_date: c.end_date });

/** @param {import('../store.js').Campaign} c */
export function campaignStats(c) {
  const s = c.stats;
  const pct = (/** @type {number} */ a, /** @type {number} */ b) => (b ? Math.round((a / b) * 1000) / 10 : 0);
  return { ...s, open_rate: pct(s.opens, s.sent), click_rate: pct(s.clicks, s.opens), conversion_rate: pct(s.conversions, s.clicks),
    cost_per_conversion: s.conversions ? Math.round((c.spent / s.conversions) * 100) / 100 : null };
}

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'marketing',
  title: 'Marketing campaigns',
  description: 'Email, social, ads and SMS campaigns plus discount codes: plan, edit, launch, pause and measure campaigns, create and disable codes.',
  tools: [
    tool({
      name: 'list_campaigns',
      title: 'List campaigns',
      description: 'List marketing campaigns with budget and spend, optionally by status or channel.',
      input: obj({ status: S.enum(CAMPAIGN_STATUSES, 'Only campaigns with this status.'), channel: S.enum(CAMPAIGN_CHANNELS, 'Only this channel.') }),
      annotations: READ,
      run: ({ status, channel }) => {
        const rows = db.campaigns.filter((c) => (!status || c.status === status) && (!channel || c.channel === channel));
        return { total: rows.length, campaigns: rows.map(campaignSummary) };
      },
    }),
    tool({
      name: 'get_campaign_stats',
      title: 'Campaign performance',
      description: 'Delivery and performance of one campaign: sent, opens, clicks, conversions, the rates between them and cost per conversion.',
      input: obj({ id: S.id('campaign') }, ['id']),
      annotations: READ,
      run: ({ id }) => {
        const c = byId(db.campaigns, id, 'campaign');
        return { ...campaignSummary(c), stats: campaignStats(c) };
      },
    }),
    tool({
      name: 'create_campaign',
      title: 'Plan a campaign',
      description: 'Create a campaign as a draft. Nothing is sent until launch_campaign.',
      input: obj({
        name: S.str('Campaign name.', { minLength: 3, maxLength: 80 }),
        channel: S.enum(CAMPAIGN_CHANNELS, 'Where it runs.'),
        budget: S.num('Budget in USD.', { minimum: 0, maximum: 1000000 }),
        audience: S.enum(AUDIENCES, 'Who receives it (default "All customers").'),
        start_date: S.date('Planned start date, YYYY-MM-DD.'),
        end_date: S.date('Optional end date, YYYY-MM-DD, on or after start_date.'),
      }, ['name', 'channel', 'budget', 'start_date']),
      annotations: WRITE,
      run: ({ name, channel, budget, audience = 'All customers', start_date, end_date = null }) => {
        if (end_date && end_date < start_date) throw new Error(`end_date ${end_date} is before start_date ${start_date}`);
        const c = { id: nextId(db.campaigns), name, channel, status: 'draft', budget, spent: 0, audience, start_date, end_date, stats: { sent: 0, opens: 0, clicks: 0, conversions: 0 } };
        db.campaigns.push(c);
        log(`planned campaign “${name}”`);
        toast(`Campaign “${name}” saved as draft.`, { title: 'Campaign created' });
        return { created: campaignSummary(c) };
      },
    }),
    tool({
      name: 'update_campaign',
      title: 'Edit a campaign',
      description: 'Change the name, budget, audience or dates of a campaign that has not completed. Give only the fields to change.',
      input: { ...obj({ id: S.id('campaign'), name: S.str('New name.', { minLength: 3, maxLength: 80 }), budget: S.num('New budget in USD; not below what is already spent.', { minimum: 0, maximum: 1000000 }),
        audience: S.enum(AUDIENCES, 'New audience.'), start_date: S.date('New start date.'), end_date: S.date('New end date.') }, ['id']), minProperties: 2 },
      annotations: IDEMPOTENT,
      run: ({ id, ...changes }) => {
        const c = byId(db.campaigns, id, 'campaign');
        if (c.status === 'completed') throw new Error(`Campaign ${id} is completed and can no longer be edited`);
        if (changes.budget !== undefined && changes.budget < c.spent) throw new Error(`Budget ${fmtMoney(changes.budget)} is below the ${fmtMoney(c.spent)} already spent`);
        Object.assign(c, changes);
        log(`edited campaign “${c.name}”`);
        toast(`Saved “${c.name}”.`);
        return { updated: campaignSummary(c) };
      },
    }),
    tool({
      name: 'launch_campaign',
      title: 'Launch a campaign',
      description: 'Start a draft, scheduled or paused campaign now: messages go out to the audience and budget starts being spent. Needs the user’s approval.',
      input: obj({ id: S.id('campaign') }, ['id']),
      annotations: { readOnlyHint: false, openWorldHint: true },
      scope: { dangerLevel: 'moderate', requiresApproval: true },
      run: ({ id }) => {
        const c = byId(db.campaigns, id, 'campaign');
        if (c.status === 'active') return { updated: campaignSummary(c), note: 'Campaign was already running' };
        if (c.status === 'completed') throw new Error(`Campaign ${id} is completed; create a new one`);
        c.status = 'active';
        if (!c.stats.sent) c.stats.sent = 1200;
        log(`launched campaign “${c.name}”`);
        toast(`“${c.name}” is live on ${c.channel}.`, { title: 'Campaign launched' });
        return { updated: campaignSummary(c) };
      },
    }),
    tool({
      name: 'pause_campaign',
      title: 'Pause a campaign',
      description: 'Pause a running or scheduled campaign; no more messages go out and spend stops until it is launched again.',
      input: obj({ id: S.id('campaign') }, ['id']),
      annotations: IDEMPOTENT,
      run: ({ id }) => {
        const c = byId(db.campaigns, id, 'campaign');
        if (c.status === 'paused') return { updated: campaignSummary(c), note: 'Campaign was already paused' };
        if (!['active', 'scheduled'].includes(c.status)) throw new Error(`Campaign ${id} is ${c.status}; only active or scheduled campaigns can be paused`);
        c.status = 'paused';
        log(`paused campaign “${c.name}”`);
        toast(`“${c.name}” paused.`, { kind: 'info' });
        return { updated: campaignSummary(c) };
      },
    }),
    tool({
      name: 'delete_campaign',
      title: 'Delete a campaign',
      description: 'Permanently delete a campaign that is not running, with its statistics. Cannot be undone.',
      input: obj({ id: S.id('campaign') }, ['id']),
      annotations: DESTRUCTIVE,
      scope: { dangerLevel: 'destructive' },
      run: ({ id }) => {
        const c = byId(db.campaigns, id, 'campaign');
        if (c.status === 'active') throw new Error(`Campaign ${id} is running; pause it before deleting`);
        removeById(db.campaigns, id, 'campaign');
        log(`deleted campaign “${c.name}”`);
        toast(`Campaign “${c.name}” deleted.`, { kind: 'warning' });
        return { deleted: campaignSummary(c) };
      },
    }),
    tool({
      name: 'create_discount_code',
      title: 'Create a discount code',
      description: 'Create a percentage discount code customers enter at checkout.',
      input: obj({
        code: S.str('The code, upper-case letters and digits, e.g. SUMMER20.', { pattern: '^[A-Z0-9]{4,20}$' }),
        percent_off: S.int('Discount in percent.', { minimum: 1, maximum: 90 }),
        max_uses: S.int('How many times it can be used in total (unlimited if omitted).', { minimum: 1, maximum: 100000 }),
        expires_at: S.date('Last day it is valid, YYYY-MM-DD (never expires if omitted).'),
      }, ['code', 'percent_off']),
      annotations: WRITE,
      run: ({ code, percent_off, max_uses = null, expires_at = null }) => {
        if (db.discounts.some((d) => d.code === code)) throw new Error(`Discount code ${code} already exists`);
        const d = { code, percent_off, uses: 0, max_uses, expires_at, active: true };
        db.discounts.push(d);
        log(`created discount code ${code} (${percent_off}% off)`);
        toast(`${code} gives ${percent_off}% off.`, { title: 'Discount code created' });
        return { created: d };
      },
    }),
    tool({
      name: 'disable_discount_code',
      title: 'Disable a discount code',
      description: 'Stop a discount code from being accepted at checkout (it stays in the list).',
      input: obj({ code: S.str('The code to disable.', { pattern: '^[A-Z0-9]{4,20}$' }) }, ['code']),
      annotations: IDEMPOTENT,
      run: ({ code }) => {
        const d = db.discounts.find((x) => x.code === code);
        if (!d) throw new Error(`No discount code ${code}; existing codes: ${db.discounts.map((x) => x.code).join(', ')}`);
        d.active = false;
        changed();
        log(`disabled discount code ${code}`);
        toast(`${code} no longer works at checkout.`, { kind: 'info' });
        return { updated: d };
      },
    }),
  ],
};
