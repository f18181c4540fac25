// @ts-check
/**
 * The dialogs behind buttons like "Invite user": each form collects fields and then runs the
 * tool of the same name, so a human and an agent go through identical validation.
 */
import { db, ROLES, DEPARTMENTS, TAGS, MEDIA_TYPES, MEDIA_FOLDERS, PRODUCT_CATEGORIES, PRIORITIES, CARRIERS, API_SCOPES } from './store.js';
import { openForm } from './ui.js';

/**
 * @typedef {import('./ui.js').Field} Field
 * @typedef {{title: string, submitLabel?: string, danger?: boolean, fields: (args: any) => Field[], map?: (v: Record<string,string>, args: any) => Record<string, unknown>}} FormSpec
 */

/** Drop empty strings so optional fields stay optional. @param {Record<string,string>} v */
const compact = (v) => Object.fromEntries(Object.entries(v).filter(([, x]) => x !== ''));
const user = (/** @type {number} */ id) => db.users.find((u) => u.id === id);
const product = (/** @type {number} */ id) => db.products.find((p) => p.id === id);
const post = (/** @type {number} */ id) => db.posts.find((p) => p.id === id);
const media = (/** @type {number} */ id) => db.media.find((m) => m.id === id);
const tags = (/** @type {string} */ s) => s.split(',').map((t) => t.trim()).filter(Boolean);

/** @type {Record<string, FormSpec>} */
export const FORMS = {
  create_user: {
    title: 'Invite a user', submitLabel: 'Send invitation',
    fields: () => [{ name: 'name', label: 'Full name', required: true }, { name: 'email', label: 'Email', type: 'email', required: true },
      { name: 'role', label: 'Role', type: 'select', options: ROLES, value: 'viewer' }, { name: 'department', label: 'Department', type: 'select', options: DEPARTMENTS, value: 'Support' }],
  },
  update_user: {
    title: 'Edit user',
    fields: ({ id }) => [{ name: 'name', label: 'Full name', required: true, value: user(id)?.name }, { name: 'email', label: 'Email', type: 'email', required: true, value: user(id)?.email },
      { name: 'department', label: 'Department', type: 'select', options: DEPARTMENTS, value: user(id)?.department }],
    map: (v, { id }) => ({ id, ...compact(v) }),
  },
  assign_user_role: {
    title: 'Change role', submitLabel: 'Change role',
    fields: ({ id }) => [{ name: 'role', label: `Role of ${user(id)?.name}`, type: 'select', options: ROLES, value: user(id)?.role }],
    map: (v, { id }) => ({ id, role: v.role }),
  },
  create_post: {
    title: 'New post', submitLabel: 'Save draft',
    fields: () => [{ name: 'title', label: 'Title', required: true }, { name: 'body', label: 'Text', type: 'textarea', required: true },
      { name: 'tags', label: `Tags (comma-separated: ${TAGS.join(', ')})` }],
    map: (v) => ({ ...compact(v), tags: tags(v.tags) }),
  },
  update_post: {
    title: 'Edit post',
    fields: ({ id }) => [{ name: 'title', label: 'Title', required: true, value: post(id)?.title }, { name: 'body', label: 'Text', type: 'textarea', required: true, value: post(id)?.body },
      { name: 'tags', label: 'Tags (comma-separated)', value: post(id)?.tags.join(', ') }],
    map: (v, { id }) => ({ id, ...compact(v), tags: tags(v.tags) }),
  },
  upload_media: {
    title: 'Upload a file', submitLabel: 'Upload',
    fields: () => [{ name: 'filename', label: 'File name', required: true, value: 'new-image.jpg' }, { name: 'type', label: 'Type', type: 'select', options: MEDIA_TYPES },
      { name: 'folder', label: 'Folder', type: 'select', options: MEDIA_FOLDERS, value: 'Uploads' }, { name: 'alt_text', label: 'Alt text (images)' }],
  },
  rename_media: {
    title: 'Rename file', submitLabel: 'Rename',
    fields: ({ id }) => [{ name: 'filename', label: 'File name', required: true, value: media(id)?.filename }],
    map: (v, { id }) => ({ id, filename: v.filename }),
  },
  set_media_alt_text: {
    title: 'Alt text',
    fields: ({ id }) => [{ name: 'alt_text', label: 'Describe what the image shows', type: 'textarea', required: true, value: media(id)?.alt_text }],
    map: (v, { id }) => ({ id, alt_text: v.alt_text }),
  },
  reply_to_comment: {
    title: 'Reply to comment', submitLabel: 'Post reply',
    fields: () => [{ name: 'body', label: 'Your reply', type: 'textarea', required: true }],
    map: (v, { id }) => ({ id, body: v.body }),
  },
  ship_order: {
    title: 'Ship order', submitLabel: 'Mark shipped',
    fields: () => [{ name: 'carrier', label: 'Carrier', type: 'select', options: CARRIERS }, { name: 'tracking_number', label: 'Tracking number (optional)' }],
    map: (v, { id }) => ({ id, ...compact(v) }),
  },
  add_order_note: {
    title: 'Add note', submitLabel: 'Add note',
    fields: () => [{ name: 'note', label: 'Internal note', type: 'textarea', required: true }],
    map: (v, { id }) => ({ id, note: v.note }),
  },
  refund_order: {
    title: 'Refund order', submitLabel: 'Refund', danger: true,
    fields: ({ id }) => {
      const o = db.orders.find((x) => x.id === id);
      return [{ name: 'amount', label: `Amount in USD (up to ${o ? (o.total - o.refunded_amount).toFixed(2) : '?'})`, type: 'number', step: '0.01', min: 0.01, value: o ? (o.total - o.refunded_amount).toFixed(2) : '' },
        { name: 'reason', label: 'Reason', required: true }];
    },
    map: (v, { id }) => ({ id, ...compact(v) }),
  },
  create_product: {
    title: 'Add product', submitLabel: 'Add product',
    fields: () => [{ name: 'name', label: 'Name', required: true }, { name: 'category', label: 'Category', type: 'select', options: PRODUCT_CATEGORIES },
      { name: 'price', label: 'Price (USD)', type: 'number', step: '0.01', min: 0.5, required: true }, { name: 'stock', label: 'Stock', type: 'number', min: 0, value: 0 }],
  },
  update_product: {
    title: 'Edit product',
    fields: ({ id }) => [{ name: 'name', label: 'Name', required: true, value: product(id)?.name }, { name: 'price', label: 'Price (USD)', type: 'number', step: '0.01', value: product(id)?.price },
      { name: 'category', label: 'Category', type: 'select', options: PRODUCT_CATEGORIES, value: product(id)?.category }, { name: 'description', label: 'Description', type: 'textarea', value: product(id)?.description }],
    map: (v, { id }) => ({ id, ...compact(v) }),
  },
  adjust_stock: {
    title: 'Adjust stock', submitLabel: 'Apply',
    fields: ({ id }) => [{ name: 'delta', label: `Units to add or remove (now ${product(id)?.stock})`, type: 'number', required: true },
      { name: 'reason', label: 'Reason', type: 'select', options: ['delivery', 'stock_count', 'damaged', 'returned', 'other'] }],
    map: (v, { id }) => ({ id, ...compact(v) }),
  },
  create_ticket: {
    title: 'New ticket', submitLabel: 'Open ticket',
    fields: () => [{ name: 'subject', label: 'Subject', required: true }, { name: 'customer_email', label: 'Customer email', type: 'email', required: true },
      { name: 'body', label: 'Message', type: 'textarea', required: true }, { name: 'priority', label: 'Priority', type: 'select', options: PRIORITIES, value: 'normal' }],
  },
  create_campaign: {
    title: 'New campaign', submitLabel: 'Save draft',
    fields: () => [{ name: 'name', label: 'Name', required: true }, { name: 'channel', label: 'Channel', type: 'select', options: ['email', 'social', 'ads', 'sms'] },
      { name: 'budget', label: 'Budget (USD)', type: 'number', min: 0, required: true, value: 1000 }, { name: 'start_date', label: 'Start date', type: 'date', required: true }],
  },
  create_discount_code: {
    title: 'New discount code', submitLabel: 'Create code',
    fields: () => [{ name: 'code', label: 'Code (A–Z, 0–9)', required: true }, { name: 'percent_off', label: 'Percent off', type: 'number', min: 1, required: true, value: 10 },
      { name: 'expires_at', label: 'Expires (optional)', type: 'date' }],
    map: (v) => ({ ...compact(v), code: v.code.toUpperCase() }),
  },
  create_api_key: {
    title: 'Create API key', submitLabel: 'Create key',
    fields: () => [{ name: 'label', label: 'What is it for?', required: true }, { name: 'scopes', label: `Scopes (comma-separated: ${API_SCOPES.join(', ')})`, required: true, value: 'read:orders' }],
    map: (v) => ({ label: v.label, scopes: tags(v.scopes) }),
  },
};

/**
 * Open the form for a tool; on submit, run the tool with the mapped values.
 * @param {string} name @param {any} args @param {(tool: string, args: Record<string, unknown>) => unknown} run
 */
export function showForm(name, args, run) {
  const spec = FORMS[name];
  if (!spec) throw new Error(`No form ${name}`);
  openForm({
    title: spec.title, submitLabel: spec.submitLabel, danger: spec.danger, fields: spec.fields(args),
    submit: (values) => { run(name, spec.map ? spec.map(values, args) : compact(values)); },
  });
}
