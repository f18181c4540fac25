// Popup section "Reachable sites": the sites agents may open, their stored tools, a "forget"
// button, and "Agents may open this site" for the active tab. Only this popup can change them
// (the worker refuses content scripts).

import { RUNTIME } from '../protocol.js';

const SITES = RUNTIME.sites;
const PERMISSION = RUNTIME.sitePermission;
const FORGET = RUNTIME.siteForget;

/** @param {number | null} seconds @returns {string} */
function ago(seconds) {
  if (!seconds) return 'never';
  const s = Math.max(0, Date.now() / 1000 - seconds);
  if (s < 90) return 'just now';
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 129600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

/** @param {HTMLElement} root */
export async function renderSites(root) {
  /** @type {any} */
  const report = await chrome.runtime.sendMessage({ type: SITES });
  if (!report || !Array.isArray(report.sites)) return;
  const rows = report.sites.map((site) => {
    const li = document.createElement('li');
    li.dataset.testid = 'site';
    li.dataset.origin = site.origin;
    const name = document.createElement('span');
    const staleCount = site.tools.filter((t) => t.stale).length;
    name.textContent = `${site.origin} · ${site.tools.length} tools${staleCount ? ` (${staleCount} stale)` : ''} · ${ago(site.lastSeen)}`;
    const stale = new Set(site.tools.filter((t) => t.stale).map((t) => t.name));
    /** @type {{url: string, tools: string[]}[]} */
    const pages = Array.isArray(site.pages) ? site.pages : [];
    name.title = pages
      .map((p) => `${new URL(p.url).pathname}\n${p.tools.map((t) => `  ${t}${stale.has(t) ? ' (stale: its page no longer offers it)' : ''}`).join('\n')}`)
      .join('\n');
    const byPage = document.createElement('ul');
    byPage.className = 'site-pages';
    byPage.replaceChildren(...pages.map((p) => {
      const item = document.createElement('li');
      item.dataset.testid = 'site-page';
      item.dataset.url = p.url;
      item.textContent = `${new URL(p.url).pathname}: ${p.tools.map((t) => (stale.has(t) ? `${t} (stale)` : t)).join(', ')}`;
      return item;
    }));
    const forget = document.createElement('button');
    forget.type = 'button';
    forget.dataset.testid = 'forget-site';
    forget.textContent = 'Forget';
    forget.title = site.allowedBy === 'config' ? 'Forget its tools (the config file still allows the site)' : 'Forget the site and its tools';
    forget.addEventListener('click', async () => {
      await chrome.runtime.sendMessage({ type: FORGET, origin: site.origin });
      li.remove();
    });
    li.append(name, forget, byPage);
    return li;
  });
  const list = document.createElement('ul');
  list.className = 'sites';
  list.replaceChildren(...rows);
  const parts = [list];
  const active = report.active || {};
  const known = report.sites.find((s) => s.origin === active.origin);
  if (active.origin && (active.tools > 0 || known)) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.dataset.testid = 'site-reachable';
    box.checked = !!(known && known.reachable);
    box.disabled = !!(known && known.allowedBy === 'config') || !report.connected;
    box.addEventListener('change', () =>
      chrome.runtime.sendMessage({ type: PERMISSION, origin: active.origin, reachable: box.checked }),
    );
    label.append(box, ` Agents may open ${active.origin}`);
    parts.unshift(label);
  }
  root.replaceChildren(...parts);
}
