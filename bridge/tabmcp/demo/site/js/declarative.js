// @ts-check
/**
 * Declarative WebMCP tools: three ordinary HTML forms in index.html carry `toolname` and
 * `tooldescription`, so the browser (native WebMCP) or the polyfill offers each as a tool whose
 * input schema comes from the form's controls. Nothing here registers them: this module only
 * answers their submissions, from a person or from an agent (`SubmitEvent.agentInvoked`, whose
 * result goes back with `respondWith`).
 */

import { log } from './store.js';
import { toast } from './ui.js';
import { searchAll } from './tools/general.js';

/** The forms offered as tools (their toolname attributes). */
export const FORM_TOOLS = ['search_site', 'contact_support', 'subscribe_newsletter'];

/** @type {Array<{id: number, email: string, subject: string, category: string, priority: string, message: string}>} */
const supportRequests = [];
/** @type {Map<string, {email: string, topics: string[], frequency: string}>} */
const subscribers = new Map();

/** @type {Record<string, (data: FormData, form: HTMLFormElement) => any>} */
const handlers = {
  search_site(data) {
    const query = String(data.get('query') || '');
    const type = String(data.get('type') || '');
    const results = searchAll(query, type ? [type] : undefined);
    return { query, type: type || 'any', total: results.length, results: results.slice(0, 12) };
  },
  contact_support(data) {
    const request = {
      id: 1000 + supportRequests.length + 1,
      email: String(data.get('email') || '').toLowerCase(),
      subject: String(data.get('subject') || ''),
      category: String(data.get('category') || 'account'),
      priority: String(data.get('priority') || 'normal'),
      message: String(data.get('message') || ''),
    };
    supportRequests.push(request);
    log(`sent help-desk request #${request.id} “${request.subject}”`);
    toast(`Request #${request.id} sent to the help desk.`, { title: 'Support request' });
    return { request_id: request.id, status: 'received', reply_to: request.email };
  },
  subscribe_newsletter(data) {
    const email = String(data.get('email') || '').toLowerCase();
    const entry = { email, topics: data.getAll('topics').map(String), frequency: String(data.get('frequency') || 'monthly') };
    const already = subscribers.has(email);
    subscribers.set(email, entry);
    toast(`${email} ${already ? 'updated' : 'subscribed'}.`, { title: 'Newsletter' });
    return { subscribed: true, updated: already, ...entry };
  },
};

/** Answers every submission of a tool form: the result goes to the agent, or to the screen. */
export function bindToolForms() {
  document.addEventListener('submit', (event) => {
    const form = /** @type {HTMLFormElement} */ (event.target);
    const name = form.getAttribute('toolname') || '';
    const handler = handlers[name];
    if (!handler) return;
    event.preventDefault();
    const result = handler(new FormData(form), form);
    const ev = /** @type {SubmitEvent & {agentInvoked?: boolean, respondWith?: (p: Promise<any>) => void}} */ (event);
    if (ev.agentInvoked && typeof ev.respondWith === 'function') ev.respondWith(Promise.resolve(result));
    const out = form.querySelector('output');
    if (out) out.textContent = name === 'search_site' ? `${result.total} result${result.total === 1 ? '' : 's'}` : 'Sent.';
  });
}
