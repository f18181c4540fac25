// @ts-check
import { db, byId, nextId, log, changed, currentUser, TICKET_STATUSES, PRIORITIES } from '../store.js';
import { toast } from '../ui.js';
import { navigate } from '../router.js';
import { tool, obj, S, READ, WRITE, IDEMPOTENT } from './kit.js';

/** @param {import('../store.js').Ticket} t */
export const ticketSummary = (t) => ({ id: t.id, subject: t.subject, customer_email: t.customer_email, priority: t.priority, status: t.status,
  assignee: t.assignee_id ? db.users.find((u) => u.id === t.assignee_id)?.name ?? null : null, messages: t.messages.length, created_at: t.created_at });

/** @param {{status?:string,priority?:string,assignee_id?:number,unassigned?:boolean}} f */
export function filterTickets(f) {
  return db.tickets.filter((t) => (!f.status || t.status === f.status) && (!f.priority || t.priority === f.priority) &&
    (!f.assignee_id || t.assignee_id === f.assignee_id) && (!f.unassigned || t.assignee_id === null));
}

const PRIORITY_ORDER = { urgent: 0, high: 1, normal: 2, low: 3 };

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'support',
  title: 'Support tickets',
  description: 'The customer support inbox: list, read, open, answer, assign, prioritise, close and reopen tickets.',
  tools: [
    tool({
      name: 'list_tickets',
      title: 'List support tickets',
      description: 'List tickets, most urgent first, optionally by status, priority, assignee, or only unassigned ones.',
      input: obj({ status: S.enum(TICKET_STATUSES, 'Only tickets with this status.'), priority: S.enum(PRIORITIES, 'Only this priority.'), assignee_id: S.id('assigned support agent (a user)'), unassigned: S.bool('Only tickets nobody is assigned to.'), limit: S.limit(20) }),
      annotations: READ,
      run: ({ status, priority, assignee_id, unassigned, limit }) => {
        const rows = filterTickets({ status, priority, assignee_id, unassigned })
          .sort((a, b) => /** @type {any} */ (PRIORITY_ORDER)[a.priority] - /** @type {any} */ (PRIORITY_ORDER)[b.priority] || b.created_at.localeCompare(a.created_at));
        return { total: rows.length, tickets: rows.slice(0, limit).map(ticketSummary) };
      },
    }),
    tool({
      name: 'get_ticket',
      title: 'Read a ticket',
      description: 'One ticket with its whole conversation, including internal notes. Opens it on screen.',
      input: obj({ id: S.int('Ticket number, e.g. 503.', { minimum: 1 }) }, ['id']),
      annotations: READ,
      run: ({ id }) => {
        const t = byId(db.tickets, id, 'ticket');
        navigate('support', id);
        return { ...ticketSummary(t), conversation: structuredClone(t.messages) };
      },
    }),
    tool({
      name: 'create_ticket',
      title: 'Open a ticket',
      description: 'Open a new ticket on behalf of a customer, e.g. from a phone call.',
      input: obj({
        subject: S.str('One-line summary.', { minLength: 3, maxLength: 120 }),
        customer_email: S.email('Customer email; replies go there.'),
        body: S.str('What the customer needs.', { minLength: 1, maxLength: 5000 }),
        priority: S.enum(PRIORITIES, 'Priority (default "normal").'),
      }, ['subject', 'customer_email', 'body']),
      annotations: WRITE,
      run: ({ subject, customer_email, body, priority = 'normal' }) => {
        const now = new Date().toISOString();
        const t = { id: nextId(db.tickets), subject, customer_email: customer_email.toLowerCase(), priority, status: 'open', assignee_id: null, created_at: now,
          messages: [{ from: 'customer', body, at: now, internal: false }] };
        db.tickets.push(t);
        log(`opened ticket #${t.id} “${subject}”`);
        toast(`Ticket #${t.id} opened.`, { title: 'Ticket created' });
        return { created: ticketSummary(t) };
      },
    }),
    tool({
      name: 'reply_to_ticket',
      title: 'Answer a ticket',
      description: 'Send a reply to the customer, or add an internal note only staff can see. A public reply sets the ticket to "pending" (waiting for the customer).',
      input: obj({ id: S.int('Ticket number.', { minimum: 1 }), body: S.str('The message.', { minLength: 1, maxLength: 5000 }), internal: S.bool('true for an internal note instead of a reply (default false).') }, ['id', 'body']),
      annotations: WRITE,
      run: ({ id, body, internal = false }) => {
        const t = byId(db.tickets, id, 'ticket');
        if (t.status === 'closed') throw new Error(`Ticket #${id} is closed; reopen it first`);
        t.messages.push({ from: currentUser.name, body, at: new Date().toISOString(), internal });
        if (!internal) t.status = 'pending';
        if (!t.assignee_id) t.assignee_id = currentUser.id;
        log(`${internal ? 'added a note to' : 'replied to'} ticket #${id}`);
        toast(internal ? `Internal note added to #${id}.` : `Reply sent to ${t.customer_email}.`);
        changed();
        return { updated: ticketSummary(t) };
      },
    }),
    tool({
      name: 'assign_ticket',
      title: 'Assign a ticket',
      description: 'Assign a ticket to an active support agent (a user with the support or admin role), or remove the assignee with unassign=true.',
      input: obj({ id: S.int('Ticket number.', { minimum: 1 }), assignee_id: S.id('support agent (a user)'), unassign: S.bool('true to remove the assignee instead.') }, ['id']),
      annotations: IDEMPOTENT,
      run: ({ id, assignee_id, unassign = false }) => {
        const t = byId(db.tickets, id, 'ticket');
        if (unassign) {
          t.assignee_id = null;
          log(`unassigned ticket #${id}`);
          toast(`Ticket #${id} is unassigned.`, { kind: 'info' });
          return { updated: ticketSummary(t) };
        }
        if (!assignee_id) throw new Error('Give assignee_id, or unassign=true');
        const u = byId(db.users, assignee_id, 'user');
        if (!['support', 'admin'].includes(u.role)) throw new Error(`${u.name} is ${u.role === 'author' || u.role === 'admin' ? 'an' : 'a'} ${u.role}; tickets go to support agents or admins`);
        if (u.status !== 'active') throw new Error(`${u.name} is ${u.status} and cannot take tickets`);
        t.assignee_id = u.id;
        log(`assigned ticket #${id} to ${u.name}`);
        toast(`Ticket #${id} assigned to ${u.name}.`);
        return { updated: ticketSummary(t) };
      },
    }),
    tool({
      name: 'set_ticket_priority',
      title: 'Change ticket priority',
      description: 'Set the priority of a ticket; urgent tickets go to the top of the inbox.',
      input: obj({ id: S.int('Ticket number.', { minimum: 1 }), priority: S.enum(PRIORITIES, 'The new priority.') }, ['id', 'priority']),
      annotations: IDEMPOTENT,
      run: ({ id, priority }) => {
        const t = byId(db.tickets, id, 'ticket');
        t.priority = priority;
        log(`set ticket #${id} to ${priority}`);
        toast(`Ticket #${id} is now ${priority}.`, { kind: priority === 'urgent' ? 'warning' : 'success' });
        return { updated: ticketSummary(t) };
      },
    }),
    tool({
      name: 'close_ticket',
      title: 'Close a ticket',
      description: 'Close a ticket as solved (the customer can still reopen it by replying) or closed for good.',
      input: obj({ id: S.int('Ticket number.', { minimum: 1 }), resolution: S.enum(['solved', 'closed'], '"solved" (default) or "closed".'), note: S.str('Internal note on how it was resolved.', { maxLength: 1000 }) }, ['id']),
      annotations: IDEMPOTENT,
      run: ({ id, resolution = 'solved', note }) => {
        const t = byId(db.tickets, id, 'ticket');
        t.status = resolution;
        if (note) t.messages.push({ from: currentUser.name, body: note, at: new Date().toISOString(), internal: true });
        log(`marked ticket #${id} as ${resolution}`);
        toast(`Ticket #${id} ${resolution}.`);
        return { updated: ticketSummary(t) };
      },
    }),
    tool({
      name: 'reopen_ticket',
      title: 'Reopen a ticket',
      description: 'Reopen a solved or closed ticket so it shows up in the inbox again.',
      input: obj({ id: S.int('Ticket number.', { minimum: 1 }) }, ['id']),
      annotations: IDEMPOTENT,
      run: ({ id }) => {
        const t = byId(db.tickets, id, 'ticket');
        if (t.status === 'open') return { updated: ticketSummary(t), note: 'Ticket was already open' };
        t.status = 'open';
        log(`reopened ticket #${id}`);
        toast(`Ticket #${id} reopened.`, { kind: 'info' });
        return { updated: ticketSummary(t) };
      },
    }),
  ],
};
