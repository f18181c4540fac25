// @ts-check
import { db, currentUser, ROLES, USER_STATUSES, TICKET_STATUSES, PRIORITIES } from '../store.js';
import { ui, esc, badge, avatar, fmtDate, fmtDateTime, emptyRow } from '../ui.js';
import { filterUsers } from '../tools/users.js';
import { filterTickets } from '../tools/support.js';
import { pageHeader, toolButton, formButton, searchInput, filterSelect, countLine, table, card, closeLink, dl } from './common.js';

const ADMIN_ONLY = 'Switch on Admin mode to do this';

/** @param {import('../store.js').User} u */
function userDetail(u) {
  const posts = db.posts.filter((p) => p.author_id === u.id);
  const tickets = db.tickets.filter((t) => t.assignee_id === u.id && t.status !== 'closed');
  return `<aside class="card detail" data-testid="detail-panel" data-id="${u.id}" aria-label="User details">
    <div class="card-head"><h2>${avatar(u.name)} ${esc(u.name)}</h2>${closeLink('users')}</div>
    ${dl([['Email', `<a href="mailto:${esc(u.email)}">${esc(u.email)}</a>`], ['Role', badge(u.role)], ['Status', badge(u.status)], ['Department', esc(u.department)],
      ['Member since', esc(fmtDate(u.created_at))], ['Last sign-in', esc(u.last_login ? fmtDateTime(u.last_login) : 'never')],
      ['Posts', String(posts.length)], ['Open tickets', String(tickets.length)]])}
    <div class="btn-row">
      ${formButton('Edit', 'update_user', { id: u.id }, 'btn-sm')}
      ${formButton('Change role', 'assign_user_role', { id: u.id }, 'btn-sm')}
      ${toolButton('Send password reset', 'send_password_reset', { id: u.id })}
    </div>
  </aside>`;
}

export function renderUsers() {
  const f = ui.filters.users;
  const rows = filterUsers(f).slice().sort((a, b) => b.id - a.id);
  const selected = ui.param ? db.users.find((u) => String(u.id) === ui.param) : null;
  const body = rows.map((u) => `
    <tr data-testid="user-row" data-id="${u.id}"${selected?.id === u.id ? ' class="selected" aria-current="true"' : ''}>
      <td><a class="person" href="#/users/${u.id}">${avatar(u.name)}<span><span class="person-name">${esc(u.name)}</span><span class="muted small">${esc(u.email)}</span></span></a></td>
      <td>${badge(u.role)}</td>
      <td class="hide-narrow">${esc(u.department)}</td>
      <td>${badge(u.status)}</td>
      <td class="muted date hide-narrow">${esc(u.last_login ? fmtDate(u.last_login) : '—')}</td>
      <td class="actions">
        ${u.status === 'suspended' ? toolButton('Activate', 'set_user_status', { id: u.id, status: 'active' }) :
          toolButton('Suspend', 'set_user_status', { id: u.id, status: 'suspended' }, { disabled: u.id === currentUser.id, title: u.id === currentUser.id ? 'You cannot suspend yourself' : undefined })}
        ${toolButton('Delete', 'delete_user', { id: u.id }, { cls: 'btn-sm btn-danger-ghost', disabled: !ui.adminMode || u.id === currentUser.id, title: ui.adminMode ? undefined : ADMIN_ONLY, confirm: `Delete ${u.name}? Their posts move to you. This cannot be undone.` })}
      </td>
    </tr>`).join('');
  return `
    ${pageHeader('Users', 'Everyone with access to the back office.', formButton('Invite user', 'create_user'))}
    <div class="toolbar">
      ${searchInput('users.query', f.query, 'Search name, email, department')}
      ${filterSelect('users.role', ROLES, f.role, 'Role', 'All roles')}
      ${filterSelect('users.status', USER_STATUSES, f.status, 'Status', 'All statuses')}
    </div>
    <div class="${selected ? 'with-detail' : ''}">
      <div>${table('<th>Name</th><th>Role</th><th class="hide-narrow">Department</th><th>Status</th><th class="hide-narrow">Last sign-in</th><th><span class="sr-only">Actions</span></th>',
        body || emptyRow(6, 'No users match these filters.'), 'users-table')}
      ${countLine(rows.length, db.users.length, 'users')}</div>
      ${selected ? userDetail(selected) : ''}
    </div>`;
}

/** @param {import('../store.js').Ticket} t */
function ticketDetail(t) {
  const assignee = db.users.find((u) => u.id === t.assignee_id);
  const agents = db.users.filter((u) => ['support', 'admin'].includes(u.role) && u.status === 'active');
  return `<section class="card detail ticket-detail" data-testid="detail-panel" data-id="${t.id}" aria-label="Ticket #${t.id}">
    <div class="card-head"><h2>#${t.id} ${esc(t.subject)}</h2>${closeLink('support')}</div>
    <div class="ticket-meta">${badge(t.status)} ${badge(t.priority)} <span class="muted">from ${esc(t.customer_email)} · ${assignee ? `assigned to ${esc(assignee.name)}` : 'unassigned'}</span></div>
    <ol class="conversation" data-testid="conversation">${t.messages.map((m) => `
      <li class="msg ${m.from === 'customer' ? 'msg-customer' : 'msg-staff'}${m.internal ? ' msg-internal' : ''}">
        <div class="msg-head"><strong>${esc(m.from === 'customer' ? t.customer_email : m.from)}</strong>${m.internal ? ' <span class="tag">internal note</span>' : ''}<time class="muted small">${esc(fmtDateTime(m.at))}</time></div>
        <p>${esc(m.body)}</p></li>`).join('')}</ol>
    <form class="reply-form" data-reply-ticket="${t.id}">
      <label for="reply-body" class="sr-only">Reply</label>
      <textarea id="reply-body" name="body" rows="3" placeholder="Write a reply to the customer…" required></textarea>
      <div class="btn-row">
        <label class="check"><input type="checkbox" name="internal"> Internal note</label>
        <span class="spacer"></span>
        <label class="field-inline"><span class="sr-only">Assign to</span><select data-assign-ticket="${t.id}" aria-label="Assign to">
          <option value="">Unassigned</option>${agents.map((a) => `<option value="${a.id}"${a.id === t.assignee_id ? ' selected' : ''}>${esc(a.name)}</option>`).join('')}</select></label>
        ${t.status === 'solved' || t.status === 'closed' ? toolButton('Reopen', 'reopen_ticket', { id: t.id }) : toolButton('Mark solved', 'close_ticket', { id: t.id, resolution: 'solved' })}
        <button type="submit" class="btn btn-primary btn-sm">Send</button>
      </div>
    </form>
  </section>`;
}

export function renderSupport() {
  const f = ui.filters.tickets;
  const order = { urgent: 0, high: 1, normal: 2, low: 3 };
  const rows = filterTickets(f).sort((a, b) => /** @type {any} */ (order)[a.priority] - /** @type {any} */ (order)[b.priority] || b.id - a.id);
  const selected = ui.param ? db.tickets.find((t) => String(t.id) === ui.param) : null;
  const list = rows.map((t) => `
    <li data-testid="ticket-row" data-id="${t.id}"${selected?.id === t.id ? ' class="selected" aria-current="true"' : ''}>
      <a href="#/support/${t.id}"><span class="ticket-subject">#${t.id} ${esc(t.subject)}</span>
      <span class="ticket-line">${badge(t.priority)} ${badge(t.status)} <span class="muted small">${esc(t.customer_email)}</span></span></a></li>`).join('');
  return `
    ${pageHeader('Support', 'Customer conversations, most urgent first.', formButton('New ticket', 'create_ticket'))}
    <div class="toolbar">
      ${filterSelect('tickets.status', TICKET_STATUSES, f.status, 'Status', 'All statuses')}
      ${filterSelect('tickets.priority', PRIORITIES, f.priority, 'Priority', 'All priorities')}
    </div>
    <div class="split">
      <div class="card list-card"><ul class="ticket-list" data-testid="tickets-list">${list || '<li class="empty">No tickets match.</li>'}</ul>${countLine(rows.length, db.tickets.length, 'tickets')}</div>
      ${selected ? ticketDetail(selected) : card('No ticket selected', '<p class="muted">Pick a ticket on the left to read the conversation and reply.</p>', '', 'detail placeholder')}
    </div>`;
}
