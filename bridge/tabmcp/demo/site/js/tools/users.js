// @ts-check
import { db, byId, nextId, removeById, log, changed, currentUser, ROLES, USER_STATUSES, DEPARTMENTS } from '../store.js';
import { ui, toast } from '../ui.js';
import { navigate } from '../router.js';
import { tool, obj, S, READ, WRITE, IDEMPOTENT, DESTRUCTIVE, requireAdmin, onRoute } from './kit.js';

/** @param {import('../store.js').User} u */
export const userSummary = (u) => ({ id: u.id, name: u.name, email: u.email, role: u.role, status: u.status, department: u.department });

/** @param {string} email @param {number} [exceptId] */
function assertEmailFree(email, exceptId) {
  const other = db.users.find((u) => u.email.toLowerCase() === email.toLowerCase() && u.id !== exceptId);
  if (other) throw new Error(`Email ${email} is already used by user ${other.id} (${other.name})`);
}

/** @param {{query?:string, role?:string, status?:string}} f */
export function filterUsers(f) {
  const q = (f.query ?? '').toLowerCase();
  return db.users.filter((u) => (!f.role || u.role === f.role) && (!f.status || u.status === f.status) &&
    (!q || u.name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q) || u.department.toLowerCase().includes(q)));
}

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'user_management',
  title: 'User management',
  description: 'Staff accounts of the back office: list, look up, invite, edit, suspend, delete users and change their roles.',
  tools: [
    tool({
      name: 'list_users',
      title: 'List users',
      description: 'List staff accounts, optionally filtered by role, status or a text query (name, email, department). Returns id, name, email, role, status and department.',
      input: obj({ role: S.enum(ROLES, 'Only users with this role.'), status: S.enum(USER_STATUSES, 'Only users with this account status.'), query: S.query('name, email and department'), limit: S.limit(25) }),
      annotations: READ,
      scope: { core: true },
      run: ({ role, status, query, limit }) => {
        const rows = filterUsers({ role, status, query });
        return { total: rows.length, users: rows.slice(0, limit).map(userSummary) };
      },
    }),
    tool({
      name: 'get_user',
      title: 'Get user details',
      description: 'Full record of one user, including sign-up date, last login, and how many posts and assigned support tickets they have.',
      input: obj({ id: S.id('user') }, ['id']),
      annotations: READ,
      run: ({ id }) => {
        const u = byId(db.users, id, 'user');
        return { ...u, posts: db.posts.filter((p) => p.author_id === id).length, open_tickets: db.tickets.filter((t) => t.assignee_id === id && t.status === 'open').length };
      },
    }),
    tool({
      name: 'create_user',
      title: 'Invite a new user',
      description: 'Create a staff account and send the invitation email. The new user starts with status "invited" and appears at the top of the Users table.',
      input: obj({
        name: S.str('Full name.', { minLength: 1, maxLength: 80 }),
        email: S.email('Work email address; must be unique.'),
        role: S.enum(ROLES, 'Role that sets the permissions (default "viewer").'),
        department: S.enum(DEPARTMENTS, 'Department (default "Support").'),
      }, ['name', 'email']),
      annotations: WRITE,
      run: ({ name, email, role = 'viewer', department = 'Support' }) => {
        assertEmailFree(email);
        const user = { id: nextId(db.users), name: name.trim(), email: email.toLowerCase(), role, department, status: 'invited', created_at: new Date().toISOString(), last_login: null };
        db.users.push(user);
        log(`invited ${user.name} as ${role}`);
        toast(`${user.name} was invited as ${role}.`, { title: 'User created' });
        return { created: userSummary(user) };
      },
    }),
    tool({
      name: 'update_user',
      title: 'Edit a user',
      description: 'Change the name, email or department of a user. Give only the fields to change. Use assign_user_role to change the role.',
      input: { ...obj({ id: S.id('user'), name: S.str('New full name.', { minLength: 1, maxLength: 80 }), email: S.email('New email address.'), department: S.enum(DEPARTMENTS, 'New department.') }, ['id']), minProperties: 2 },
      annotations: IDEMPOTENT,
      run: ({ id, ...changes }) => {
        const u = byId(db.users, id, 'user');
        if (changes.email) assertEmailFree(changes.email, id);
        Object.assign(u, changes);
        log(`updated user ${u.name} (${Object.keys(changes).join(', ')})`);
        toast(`Saved changes to ${u.name}.`);
        return { updated: userSummary(u) };
      },
    }),
    tool({
      name: 'set_user_status',
      title: 'Activate or suspend a user',
      description: 'Set the account status of a user: "active" lets them sign in, "suspended" blocks sign-in but keeps their data. You cannot suspend yourself.',
      input: obj({ id: S.id('user'), status: S.enum(['active', 'suspended'], 'New account status.') }, ['id', 'status']),
      annotations: IDEMPOTENT,
      scope: { dangerLevel: 'moderate' },
      run: ({ id, status }) => {
        const u = byId(db.users, id, 'user');
        if (u.id === currentUser.id && status === 'suspended') throw new Error('You cannot suspend your own account');
        u.status = status;
        log(`${status === 'active' ? 'activated' : 'suspended'} ${u.name}`);
        toast(`${u.name} is now ${status}.`, { kind: status === 'suspended' ? 'warning' : 'success' });
        return { updated: userSummary(u) };
      },
    }),
    tool({
      name: 'assign_user_role',
      title: 'Change a user’s role',
      description: 'Give a user a different role (admin, editor, author, support, viewer). Admin only: needs admin mode.',
      input: obj({ id: S.id('user'), role: S.enum(ROLES, 'The new role.') }, ['id', 'role']),
      annotations: IDEMPOTENT,
      scope: { states: ['admin-mode'], dangerLevel: 'moderate' },
      run: ({ id, role }) => {
        requireAdmin(ui);
        const u = byId(db.users, id, 'user');
        if (u.id === currentUser.id && role !== 'admin') throw new Error('You cannot remove your own admin role');
        const before = u.role;
        u.role = role;
        log(`changed ${u.name}'s role from ${before} to ${role}`);
        toast(`${u.name} is now ${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}.`);
        return { updated: userSummary(u), previous_role: before };
      },
    }),
    tool({
      name: 'send_password_reset',
      title: 'Send password reset link',
      description: 'Email a user a one-time link to choose a new password. Their current password keeps working until they use it.',
      input: obj({ id: S.id('user') }, ['id']),
      annotations: WRITE,
      run: ({ id }) => {
        const u = byId(db.users, id, 'user');
        if (u.status === 'suspended') throw new Error(`${u.name} is suspended; activate the account before sending a reset link`);
        log(`sent a password reset link to ${u.email}`);
        toast(`Password reset link sent to ${u.email}.`, { kind: 'info' });
        return { sent_to: u.email, expires_in_minutes: 60 };
      },
    }),
    tool({
      name: 'delete_user',
      title: 'Delete a user',
      description: 'Permanently delete a staff account. Their posts are reassigned to you and their tickets become unassigned. Cannot be undone. Admin only: needs admin mode.',
      input: obj({ id: S.id('user') }, ['id']),
      annotations: DESTRUCTIVE,
      scope: { states: ['admin-mode'], dangerLevel: 'destructive', requiresApproval: true },
      run: ({ id }) => {
        requireAdmin(ui);
        if (id === currentUser.id) throw new Error('You cannot delete your own account');
        const u = removeById(db.users, id, 'user');
        db.posts.forEach((p) => { if (p.author_id === id) p.author_id = currentUser.id; });
        db.tickets.forEach((t) => { if (t.assignee_id === id) t.assignee_id = null; });
        log(`deleted user ${u.name}`);
        toast(`${u.name} was deleted.`, { kind: 'warning', title: 'User deleted' });
        return { deleted: userSummary(u) };
      },
    }),
    tool({
      name: 'filter_users_table',
      title: 'Filter the Users table',
      description: 'Show the Users page with the given filters applied, so the person at the screen sees the result. Omitted filters are cleared.',
      input: obj({ role: S.enum(ROLES, 'Show only this role.'), status: S.enum(USER_STATUSES, 'Show only this status.'), query: S.query('name, email and department') }),
      annotations: IDEMPOTENT,
      scope: { routes: onRoute('users') },
      run: ({ role = '', status = '', query = '' }) => {
        ui.filters.users = { role, status, query };
        if (ui.route !== 'users' || ui.param) navigate('users');
        changed();
        return { visible_rows: filterUsers(ui.filters.users).length, filters: ui.filters.users };
      },
    }),
  ],
};
