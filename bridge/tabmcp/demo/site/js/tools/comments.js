// @ts-check
import { db, byId, removeById, log, changed, COMMENT_STATUSES } from '../store.js';
import { ui, toast } from '../ui.js';
import { tool, obj, S, READ, IDEMPOTENT, DESTRUCTIVE, WRITE, requireAdmin } from './kit.js';

/** @param {import('../store.js').Comment} c */
export const commentSummary = (c) => ({ id: c.id, post_id: c.post_id, post_title: db.posts.find((p) => p.id === c.post_id)?.title ?? null,
  author_name: c.author_name, author_email: c.author_email, body: c.body, status: c.status, created_at: c.created_at, replies: c.replies.length });

/** Blocked commenter emails (ban_commenter). */
export const banned = new Set(/** @type {string[]} */ ([]));

/** @param {number} id @param {'approved'|'rejected'|'spam'} status */
function moderate(id, status) {
  const c = byId(db.comments, id, 'comment');
  c.status = status;
  changed();
  return { c };
}

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'comments',
  title: 'Comments & moderation',
  description: 'Reader comments on blog posts: review the moderation queue, approve, reject, mark spam, reply, bulk-moderate, delete and ban commenters.',
  tools: [
    tool({
      name: 'list_comments',
      title: 'List comments',
      description: 'List comments, newest first. Filter by moderation status (e.g. "pending" for the queue) and/or by post.',
      input: obj({ status: S.enum(COMMENT_STATUSES, 'Only comments with this moderation status.'), post_id: S.id('post'), limit: S.limit(20) }),
      annotations: READ,
      run: ({ status, post_id, limit }) => {
        const rows = db.comments.filter((c) => (!status || c.status === status) && (!post_id || c.post_id === post_id))
          .sort((a, b) => b.created_at.localeCompare(a.created_at));
        return { total: rows.length, comments: rows.slice(0, limit).map(commentSummary) };
      },
    }),
    tool({
      name: 'approve_comment',
      title: 'Approve a comment',
      description: 'Publish a comment under its post.',
      input: obj({ id: S.id('comment') }, ['id']),
      annotations: IDEMPOTENT,
      run: ({ id }) => {
        const { c } = moderate(id, 'approved');
        log(`approved a comment by ${c.author_name}`);
        toast(`Comment by ${c.author_name} approved.`);
        return { updated: commentSummary(c) };
      },
    }),
    tool({
      name: 'reject_comment',
      title: 'Reject a comment',
      description: 'Hide a comment from the post without marking it as spam, optionally noting why.',
      input: obj({ id: S.id('comment'), reason: S.str('Why it was rejected (kept in the audit log).', { maxLength: 200 }) }, ['id']),
      annotations: IDEMPOTENT,
      run: ({ id, reason }) => {
        const { c } = moderate(id, 'rejected');
        log(`rejected a comment by ${c.author_name}${reason ? ` (${reason})` : ''}`);
        toast(`Comment by ${c.author_name} rejected.`, { kind: 'info' });
        return { updated: commentSummary(c) };
      },
    }),
    tool({
      name: 'mark_comment_spam',
      title: 'Mark a comment as spam',
      description: 'Move a comment to spam; this also trains the spam filter on its text.',
      input: obj({ id: S.id('comment') }, ['id']),
      annotations: IDEMPOTENT,
      run: ({ id }) => {
        const { c } = moderate(id, 'spam');
        log(`marked a comment by ${c.author_name} as spam`);
        toast(`Comment by ${c.author_name} moved to spam.`, { kind: 'info' });
        return { updated: commentSummary(c) };
      },
    }),
    tool({
      name: 'reply_to_comment',
      title: 'Reply to a comment',
      description: 'Post a public reply as the signed-in user. Replying to a pending comment approves it first.',
      input: obj({ id: S.id('comment'), body: S.str('The reply text.', { minLength: 1, maxLength: 2000 }) }, ['id', 'body']),
      annotations: WRITE,
      run: ({ id, body }) => {
        const c = byId(db.comments, id, 'comment');
        if (c.status === 'spam' || c.status === 'rejected') throw new Error(`Comment ${id} is ${c.status}; approve it before replying`);
        c.status = 'approved';
        c.replies.push({ body, at: new Date().toISOString() });
        log(`replied to ${c.author_name}`);
        toast(`Reply posted under the comment by ${c.author_name.replace(/\.$/, '')}.`);
        return { updated: commentSummary(c) };
      },
    }),
    tool({
      name: 'bulk_moderate_comments',
      title: 'Moderate many comments',
      description: 'Approve, reject or mark as spam up to 50 comments at once, e.g. to clear the moderation queue.',
      input: obj({ ids: S.arr(S.id('comment'), 'Ids of the comments.', { minItems: 1, maxItems: 50, uniqueItems: true }), action: S.enum(['approve', 'reject', 'spam'], 'What to do with all of them.') }, ['ids', 'action']),
      annotations: IDEMPOTENT,
      scope: { dangerLevel: 'moderate' },
      run: ({ ids, action }) => {
        const status = /** @type {const} */ ({ approve: 'approved', reject: 'rejected', spam: 'spam' })[/** @type {'approve'|'reject'|'spam'} */ (action)];
        const missing = ids.filter((/** @type {number} */ id) => !db.comments.some((c) => c.id === id));
        if (missing.length) throw new Error(`No comment with id ${missing.join(', ')}`);
        for (const id of ids) byId(db.comments, id, 'comment').status = status;
        log(`bulk-${action === 'spam' ? 'marked as spam' : action + 'd'} ${ids.length} comments`);
        toast(`${ids.length} comment${ids.length === 1 ? '' : 's'} ${status === 'spam' ? 'marked as spam' : status}.`);
        changed();
        return { updated: ids.length, status };
      },
    }),
    tool({
      name: 'delete_comment',
      title: 'Delete a comment',
      description: 'Permanently delete a comment and its replies. Cannot be undone; reject_comment hides it instead.',
      input: obj({ id: S.id('comment') }, ['id']),
      annotations: DESTRUCTIVE,
      scope: { dangerLevel: 'destructive' },
      run: ({ id }) => {
        const c = removeById(db.comments, id, 'comment');
        log(`deleted a comment by ${c.author_name}`);
        toast(`Comment by ${c.author_name} deleted.`, { kind: 'warning' });
        return { deleted: commentSummary(c) };
      },
    }),
    tool({
      name: 'ban_commenter',
      title: 'Ban a commenter',
      description: 'Block an email address from commenting and move all of its comments to spam. Admin only: needs admin mode.',
      input: obj({ email: S.email('Email address of the commenter to ban.') }, ['email']),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      scope: { states: ['admin-mode'], dangerLevel: 'moderate' },
      run: ({ email }) => {
        requireAdmin(ui);
        const lower = email.toLowerCase();
        banned.add(lower);
        const hit = db.comments.filter((c) => c.author_email.toLowerCase() === lower);
        hit.forEach((c) => { c.status = 'spam'; });
        log(`banned commenter ${lower}`);
        toast(`${lower} can no longer comment (${hit.length} comment${hit.length === 1 ? '' : 's'} moved to spam).`, { kind: 'warning', title: 'Commenter banned' });
        changed();
        return { banned: lower, comments_moved_to_spam: hit.length };
      },
    }),
  ],
};
