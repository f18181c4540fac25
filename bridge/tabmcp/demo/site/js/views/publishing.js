// @ts-check
import { db, POST_STATUSES, TAGS, MEDIA_TYPES, MEDIA_FOLDERS, COMMENT_STATUSES } from '../store.js';
import { ui, esc, badge, fmtDate, fmtDateTime, fmtNum, fmtSize, emptyRow } from '../ui.js';
import { filterPosts } from '../tools/content.js';
import { filterMedia } from '../tools/media.js';
import { pageHeader, toolButton, formButton, searchInput, filterSelect, countLine, table, closeLink, dl } from './common.js';

const authorName = (/** @type {number} */ id) => db.users.find((u) => u.id === id)?.name ?? 'Unknown';

/** @param {import('../store.js').Post} p */
function postDetail(p) {
  const comments = db.comments.filter((c) => c.post_id === p.id);
  return `<aside class="card detail" data-testid="detail-panel" data-id="${p.id}" aria-label="Post details">
    <div class="card-head"><h2>${esc(p.title)}</h2>${closeLink('content')}</div>
    <p class="post-body">${esc(p.body)}</p>
    ${dl([['Status', badge(p.status)], ['Author', esc(authorName(p.author_id))], ['Tags', p.tags.map((t) => `<span class="tag">${esc(t)}</span>`).join(' ') || '—'],
      ['Views', fmtNum(p.views)], [p.status === 'scheduled' ? 'Goes live' : 'Published', esc(p.publish_at ? fmtDateTime(p.publish_at) : '—')],
      ['Comments', `<a href="#/comments">${comments.length} (${comments.filter((c) => c.status === 'pending').length} pending)</a>`]])}
    <div class="btn-row">${formButton('Edit', 'update_post', { id: p.id }, 'btn-sm')}${p.status === 'published' ? toolButton('Unpublish', 'unpublish_post', { id: p.id }) : toolButton('Publish now', 'publish_post', { id: p.id }, { cls: 'btn-sm btn-primary' })}</div>
  </aside>`;
}

export function renderContent() {
  const f = ui.filters.posts;
  const rows = filterPosts(f).sort((a, b) => b.created_at.localeCompare(a.created_at));
  const selected = ui.param ? db.posts.find((p) => String(p.id) === ui.param) : null;
  const body = rows.map((p) => `
    <tr data-testid="post-row" data-id="${p.id}"${selected?.id === p.id ? ' class="selected" aria-current="true"' : ''}>
      <td><a href="#/content/${p.id}" class="strong">${esc(p.title)}</a><div class="muted small">${p.tags.map((t) => `#${esc(t)}`).join(' ')}</div></td>
      <td class="hide-narrow">${esc(authorName(p.author_id))}</td>
      <td>${badge(p.status)}</td>
      <td class="num">${p.views ? fmtNum(p.views) : '—'}</td>
      <td class="muted date hide-narrow">${esc(fmtDate(p.created_at))}</td>
      <td class="actions">
        ${p.status === 'published' ? toolButton('Unpublish', 'unpublish_post', { id: p.id }) : toolButton('Publish', 'publish_post', { id: p.id })}
        ${toolButton('Delete', 'delete_post', { id: p.id }, { cls: 'btn-sm btn-danger-ghost', confirm: `Delete “${p.title}” and its comments? This cannot be undone.` })}
      </td>
    </tr>`).join('');
  return `
    ${pageHeader('Content', 'Blog posts and articles.', formButton('New post', 'create_post'))}
    <div class="toolbar">
      ${searchInput('posts.query', f.query, 'Search titles and text')}
      ${filterSelect('posts.status', POST_STATUSES, f.status, 'Status', 'All statuses')}
      ${filterSelect('posts.tag', TAGS, f.tag, 'Tag', 'All tags')}
    </div>
    <div class="${selected ? 'with-detail' : ''}">
      <div>${table('<th>Title</th><th class="hide-narrow">Author</th><th>Status</th><th class="num">Views</th><th class="hide-narrow">Created</th><th><span class="sr-only">Actions</span></th>',
        body || emptyRow(6, 'No posts match these filters.'), 'posts-table')}
      ${countLine(rows.length, db.posts.length, 'posts')}</div>
      ${selected ? postDetail(selected) : ''}
    </div>`;
}

const TYPE_LABEL = /** @type {Record<string,string>} */ ({ image: 'IMG', video: 'VIDEO', document: 'PDF' });

/**
 * A generated preview tile (no image files needed).
 * @param {import('../store.js').Media} m @param {string} [cls] @param {boolean} [decorative] hidden from screen readers
 */
function thumb(m, cls = '', decorative = false) {
  const ratio = m.width && m.height ? `${m.width} / ${m.height}` : '4 / 3';
  const a11y = decorative ? 'aria-hidden="true"' : `role="img" aria-label="${esc(m.alt_text || `${m.type} ${m.filename}`)}"`;
  return `<div class="thumb thumb-${esc(m.type)} ${cls}" style="--hue:${m.hue};--ratio:${ratio}" ${a11y}>
    <span class="thumb-type" aria-hidden="true">${TYPE_LABEL[m.type] ?? 'FILE'}</span></div>`;
}

/** @param {import('../store.js').Media} m */
function mediaEditor(m) {
  const isImage = m.type === 'image';
  const crops = isImage && m.width && m.height ? [[Math.round(m.width * 0.75), Math.round(m.height * 0.75)], [Math.min(m.width, m.height), Math.min(m.width, m.height)]] : [];
  return `<aside class="card detail media-editor" data-testid="media-editor" data-id="${m.id}" aria-label="Edit ${esc(m.filename)}">
    <div class="card-head"><h2 data-testid="media-editor-filename">${esc(m.filename)}</h2>${closeLink('media')}</div>
    ${thumb(m, 'thumb-large')}
    ${dl([['Type', esc(m.type)], ['Folder', esc(m.folder)], ['Size', esc(fmtSize(m.size_kb))], ['Dimensions', m.width ? `<span data-testid="media-dimensions">${m.width}×${m.height}</span>` : '—'],
      ['Alt text', isImage ? (m.alt_text ? `<span data-testid="media-alt">${esc(m.alt_text)}</span>` : '<span class="warn">Missing</span>') : 'n/a'], ['Uploaded', esc(fmtDate(m.uploaded_at))]])}
    <div class="btn-row">
      ${formButton('Rename', 'rename_media', { id: m.id }, 'btn-sm')}
      ${isImage ? formButton('Alt text', 'set_media_alt_text', { id: m.id }, 'btn-sm') : ''}
      ${crops.map(([w, h]) => toolButton(`Crop ${w}×${h}`, 'crop_image', { id: m.id, width: w, height: h })).join('')}
      ${toolButton('Delete', 'delete_media', { id: m.id }, { cls: 'btn-sm btn-danger-ghost', confirm: `Delete ${m.filename}? Pages using it will show a broken image.` })}
    </div>
  </aside>`;
}

export function renderMedia() {
  const f = ui.filters.media;
  const rows = filterMedia(f);
  const selected = ui.param ? db.media.find((m) => String(m.id) === ui.param) : null;
  const missing = db.media.filter((m) => m.type === 'image' && !m.alt_text).length;
  const grid = rows.map((m) => `
    <li data-testid="media-card" data-id="${m.id}" class="media-card${selected?.id === m.id ? ' selected' : ''}">
      <a href="#/media/${m.id}"><span class="sr-only">Open ${esc(m.filename)}</span>${thumb(m, '', true)}</a>
      <div class="media-meta"><span class="media-name" title="${esc(m.filename)}">${esc(m.filename)}</span>
      <span class="muted small">${esc(m.folder)} · ${esc(fmtSize(m.size_kb))}${m.type === 'image' && !m.alt_text ? ' · <span class="warn">no alt text</span>' : ''}</span></div>
    </li>`).join('');
  return `
    ${pageHeader('Media library', `${db.media.length} files · ${missing} image${missing === 1 ? '' : 's'} without alt text`, formButton('Upload', 'upload_media'))}
    <div class="toolbar">
      ${searchInput('media.query', f.query, 'Search file names and alt text')}
      ${filterSelect('media.type', MEDIA_TYPES, f.type, 'Type', 'All types')}
      ${filterSelect('media.folder', MEDIA_FOLDERS, f.folder, 'Folder', 'All folders')}
    </div>
    <div class="${selected ? 'with-detail' : ''}">
      <div><ul class="media-grid" data-testid="media-grid">${grid || '<li class="empty">No files match.</li>'}</ul>${countLine(rows.length, db.media.length, 'files')}</div>
      ${selected ? mediaEditor(selected) : ''}
    </div>`;
}

export function renderComments() {
  const status = ui.filters.comments.status;
  const counts = Object.fromEntries(COMMENT_STATUSES.map((s) => [s, db.comments.filter((c) => c.status === s).length]));
  const rows = db.comments.filter((c) => !status || c.status === status).sort((a, b) => b.created_at.localeCompare(a.created_at));
  const tabs = ['', ...COMMENT_STATUSES].map((s) => `<button type="button" role="tab" class="tab" aria-selected="${s === status}" data-set-filter="comments.status" data-value="${s}" data-testid="comments-tab-${s || 'all'}">
    ${s ? esc(s[0].toUpperCase() + s.slice(1)) : 'All'} <span class="count">${s ? counts[s] : db.comments.length}</span></button>`).join('');
  const list = rows.map((c) => {
    const post = db.posts.find((p) => p.id === c.post_id);
    return `<li class="comment" data-testid="comment-row" data-id="${c.id}" data-status="${esc(c.status)}">
      <div class="comment-head"><strong>${esc(c.author_name)}</strong> <span class="muted small">${esc(c.author_email)}</span> ${badge(c.status)}
        <span class="muted small">on <a href="#/content/${c.post_id}">${esc(post?.title ?? 'deleted post')}</a> · ${esc(fmtDateTime(c.created_at))}</span></div>
      <p>${esc(c.body)}</p>
      ${c.replies.map((r) => `<p class="reply"><span class="tag">your reply</span> ${esc(r.body)}</p>`).join('')}
      <div class="btn-row">
        ${c.status !== 'approved' ? toolButton('Approve', 'approve_comment', { id: c.id }, { cls: 'btn-sm btn-primary' }) : ''}
        ${c.status !== 'rejected' ? toolButton('Reject', 'reject_comment', { id: c.id }) : ''}
        ${c.status !== 'spam' ? toolButton('Spam', 'mark_comment_spam', { id: c.id }) : ''}
        ${c.status !== 'spam' && c.status !== 'rejected' ? formButton('Reply', 'reply_to_comment', { id: c.id }, 'btn-sm') : ''}
        ${toolButton('Delete', 'delete_comment', { id: c.id }, { cls: 'btn-sm btn-danger-ghost', confirm: 'Delete this comment? This cannot be undone.' })}
      </div></li>`;
  }).join('');
  const pendingIds = db.comments.filter((c) => c.status === 'pending').map((c) => c.id);
  return `
    ${pageHeader('Comments', 'Moderate what readers say under your posts.',
      pendingIds.length ? toolButton(`Approve all ${pendingIds.length} pending`, 'bulk_moderate_comments', { ids: pendingIds, action: 'approve' }, { cls: 'btn' }) : '')}
    <div class="tabs" role="tablist" aria-label="Moderation status">${tabs}</div>
    <ul class="comment-list card" data-testid="comments-list">${list || '<li class="empty">Nothing here. Inbox zero!</li>'}</ul>
    ${countLine(rows.length, db.comments.length, 'comments')}`;
}
