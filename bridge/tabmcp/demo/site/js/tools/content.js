// @ts-check
import { db, byId, nextId, removeById, log, changed, currentUser, slugify, POST_STATUSES, TAGS } from '../store.js';
import { ui, toast } from '../ui.js';
import { navigate } from '../router.js';
import { tool, obj, S, READ, WRITE, IDEMPOTENT, DESTRUCTIVE, onRoute } from './kit.js';

/** @param {import('../store.js').Post} p */
export const postSummary = (p) => ({
  id: p.id, title: p.title, status: p.status, author: db.users.find((u) => u.id === p.author_id)?.name ?? 'Unknown',
  tags: p.tags, views: p.views, publish_at: p.publish_at,
});

/** @param {{query?:string,status?:string,tag?:string,author_id?:number}} f */
export function filterPosts(f) {
  const q = (f.query ?? '').toLowerCase();
  return db.posts.filter((p) => (!f.status || p.status === f.status) && (!f.tag || p.tags.includes(f.tag)) &&
    (!f.author_id || p.author_id === f.author_id) && (!q || p.title.toLowerCase().includes(q) || p.body.toLowerCase().includes(q)));
}

const tagList = S.arr(S.enum(TAGS, 'A tag.'), 'Tags for the post.', { uniqueItems: true, maxItems: 5 });

/** @type {import('./kit.js').CategoryDef} */
export default {
  name: 'content',
  title: 'Content',
  description: 'Blog posts and articles: list, read, write, edit, publish, schedule, unpublish and delete posts.',
  tools: [
    tool({
      name: 'list_posts',
      title: 'List posts',
      description: 'List blog posts, newest first, optionally filtered by status, tag, author or a text query on title and body.',
      input: obj({ status: S.enum(POST_STATUSES, 'Only posts with this status.'), tag: S.enum(TAGS, 'Only posts with this tag.'), author_id: S.id('author (a user)'), query: S.query('title and body'), limit: S.limit(20) }),
      annotations: READ,
      run: ({ status, tag, author_id, query, limit }) => {
        const rows = filterPosts({ status, tag, author_id, query }).sort((a, b) => b.created_at.localeCompare(a.created_at));
        return { total: rows.length, posts: rows.slice(0, limit).map(postSummary) };
      },
    }),
    tool({
      name: 'get_post',
      title: 'Read a post',
      description: 'The full post: title, body, status, author, tags, view count and its comment counts by status.',
      input: obj({ id: S.id('post') }, ['id']),
      annotations: READ,
      run: ({ id }) => {
        const p = byId(db.posts, id, 'post');
        const comments = db.comments.filter((c) => c.post_id === id);
        return { ...postSummary(p), slug: p.slug, body: p.body, created_at: p.created_at,
          comments: { total: comments.length, pending: comments.filter((c) => c.status === 'pending').length } };
      },
    }),
    tool({
      name: 'create_post',
      title: 'Write a new post',
      description: 'Create a blog post as a draft (or publish it right away with status "published"). The author defaults to the signed-in user.',
      input: obj({
        title: S.str('Headline of the post.', { minLength: 3, maxLength: 140 }),
        body: S.str('Body text (plain text or Markdown).', { minLength: 1, maxLength: 20000 }),
        tags: tagList,
        status: S.enum(['draft', 'published'], 'Initial status (default "draft").'),
        author_id: S.id('author (a user)'),
      }, ['title', 'body']),
      annotations: WRITE,
      run: ({ title, body, tags = [], status = 'draft', author_id = currentUser.id }) => {
        byId(db.users, author_id, 'user');
        const now = new Date().toISOString();
        const post = { id: nextId(db.posts), title: title.trim(), slug: slugify(title), body, status, author_id, tags, views: 0, created_at: now, publish_at: status === 'published' ? now : null };
        db.posts.push(post);
        log(`${status === 'published' ? 'published' : 'drafted'} “${post.title}”`);
        toast(`“${post.title}” saved as ${status}.`, { title: 'Post created' });
        return { created: postSummary(post) };
      },
    }),
    tool({
      name: 'update_post',
      title: 'Edit a post',
      description: 'Change the title, body or tags of a post. Give only the fields to change; the status is not touched.',
      input: { ...obj({ id: S.id('post'), title: S.str('New headline.', { minLength: 3, maxLength: 140 }), body: S.str('New body text.', { minLength: 1, maxLength: 20000 }), tags: tagList }, ['id']), minProperties: 2 },
      annotations: IDEMPOTENT,
      run: ({ id, ...changes }) => {
        const p = byId(db.posts, id, 'post');
        Object.assign(p, changes);
        if (changes.title) p.slug = slugify(changes.title);
        log(`edited “${p.title}”`);
        toast(`Saved “${p.title}”.`);
        return { updated: postSummary(p) };
      },
    }),
    tool({
      name: 'publish_post',
      title: 'Publish a post',
      description: 'Make a draft, scheduled or archived post public now. Publishing an already published post does nothing.',
      input: obj({ id: S.id('post') }, ['id']),
      annotations: IDEMPOTENT,
      scope: { dangerLevel: 'moderate' },
      run: ({ id }) => {
        const p = byId(db.posts, id, 'post');
        if (p.status === 'published') return { updated: postSummary(p), note: 'Post was already published' };
        p.status = 'published';
        p.publish_at = new Date().toISOString();
        log(`published “${p.title}”`);
        toast(`“${p.title}” is live.`, { title: 'Published' });
        return { updated: postSummary(p) };
      },
    }),
    tool({
      name: 'unpublish_post',
      title: 'Unpublish a post',
      description: 'Take a published or scheduled post off the site and turn it back into a draft.',
      input: obj({ id: S.id('post') }, ['id']),
      annotations: IDEMPOTENT,
      scope: { dangerLevel: 'moderate' },
      run: ({ id }) => {
        const p = byId(db.posts, id, 'post');
        if (p.status === 'draft') return { updated: postSummary(p), note: 'Post was already a draft' };
        p.status = 'draft';
        p.publish_at = null;
        log(`unpublished “${p.title}”`);
        toast(`“${p.title}” is a draft again.`, { kind: 'info' });
        return { updated: postSummary(p) };
      },
    }),
    tool({
      name: 'schedule_post',
      title: 'Schedule a post',
      description: 'Set a future date and time at which a draft post goes live. The time must be in the future.',
      input: obj({ id: S.id('post'), publish_at: S.dateTime('When to publish, ISO 8601, e.g. 2030-05-01T09:00:00Z.') }, ['id', 'publish_at']),
      annotations: IDEMPOTENT,
      run: ({ id, publish_at }) => {
        const p = byId(db.posts, id, 'post');
        const when = new Date(publish_at);
        if (when.getTime() <= Date.now()) throw new Error(`publish_at must be in the future, got ${publish_at}`);
        if (p.status === 'published') throw new Error(`Post ${id} is already published; unpublish it first`);
        p.status = 'scheduled';
        p.publish_at = when.toISOString();
        log(`scheduled “${p.title}” for ${when.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
        toast(`“${p.title}” will go live on ${when.toUTCString().slice(0, 22)}.`, { title: 'Scheduled', kind: 'info' });
        return { updated: postSummary(p) };
      },
    }),
    tool({
      name: 'delete_post',
      title: 'Delete a post',
      description: 'Permanently delete a post and all of its comments. Cannot be undone; prefer unpublish_post to hide a post.',
      input: obj({ id: S.id('post') }, ['id']),
      annotations: DESTRUCTIVE,
      scope: { dangerLevel: 'destructive' },
      run: ({ id }) => {
        const p = removeById(db.posts, id, 'post');
        const before = db.comments.length;
        db.comments = db.comments.filter((c) => c.post_id !== id);
        log(`deleted “${p.title}”`);
        toast(`“${p.title}” was deleted.`, { kind: 'warning', title: 'Post deleted' });
        return { deleted: postSummary(p), comments_deleted: before - db.comments.length };
      },
    }),
    tool({
      name: 'filter_posts_table',
      title: 'Filter the Content table',
      description: 'Show the Content page with these filters applied, so the person at the screen sees the result. Omitted filters are cleared.',
      input: obj({ status: S.enum(POST_STATUSES, 'Show only this status.'), tag: S.enum(TAGS, 'Show only this tag.'), query: S.query('title and body') }),
      annotations: IDEMPOTENT,
      scope: { routes: onRoute('content') },
      run: ({ status = '', tag = '', query = '' }) => {
        ui.filters.posts = { status, tag, query };
        if (ui.route !== 'content' || ui.param) navigate('content');
        changed();
        return { visible_rows: filterPosts(ui.filters.posts).length, filters: ui.filters.posts };
      },
    }),
  ],
};
