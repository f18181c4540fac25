// Popup section: forms-as-tools, the person's switch per origin (docs/security.md, "Page forms as
// tools"): which origins have it on, and a switch for the current tab's origin. The bridge keeps
// the choice and decides every listing and call. Needs only an element with id "forms-as-tools".

import { RUNTIME } from '../protocol.js';

/** The web page this popup is about: the active tab of its window, or `?tab=<id>` when the popup is opened as a page. */
async function currentOrigin() {
  const asked = Number(new URLSearchParams(location.search).get('tab'));
  const [tab] = Number.isInteger(asked) && asked > 0
    ? [await chrome.tabs.get(asked).catch(() => undefined)]
    : await chrome.tabs.query({ active: true, currentWindow: true });
  try {
    const url = new URL(tab?.url || '');
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : '';
  } catch {
    return '';
  }
}

function el(tag, { dataset = {}, ...props } = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  for (const [k, v] of Object.entries(dataset)) node.dataset[k] = v;
  node.append(...children);
  return node;
}

/** @param {HTMLElement} root */
export async function renderFormsSection(root) {
  const origin = await currentOrigin();
  /** @type {any} */
  const status = await chrome.runtime.sendMessage({ type: RUNTIME.formsStatus, origin });
  // What is on (config globs, origins turned on here), and the origins turned off here (they win).
  const shown = (status.rules || []).filter((r) => r.enabled || r.source === 'person');
  const on = shown.filter((r) => r.enabled);
  const list = el('ul', { className: 'forms-origins', dataset: { testid: 'forms-origins' } },
    ...shown.map((r) => el('li', {
      textContent: r.enabled ? r.match : `${r.match} (turned off here)`,
      title: r.source === 'person' ? 'your choice in this popup' : 'from the config file',
      dataset: { testid: 'forms-origin', state: r.enabled ? 'on' : 'off' },
    })));
  const parts = [el('h2', { textContent: 'Page forms as tools' })];
  if (origin) {
    const box = el('input', { type: 'checkbox', checked: !!status.enabled, disabled: !status.connected,
      dataset: { testid: 'forms-switch' } });
    const note = el('span', { className: 'muted', dataset: { testid: 'forms-note' } });
    box.addEventListener('change', async () => {
      box.disabled = true;
      /** @type {any} */
      const answer = await chrome.runtime.sendMessage({ type: RUNTIME.formsSet, origin, enabled: box.checked });
      note.textContent = answer.ok ? '' : answer.error;
      await renderFormsSection(root);
    });
    parts.push(el('label', { className: 'forms-switch' }, box, ` Offer the ordinary forms of ${origin} to agents`), note);
  }
  if (!on.length) parts.push(el('p', { className: 'muted', textContent: 'Off for every site.', dataset: { testid: 'forms-none' } }));
  if (shown.length) parts.push(list);
  root.replaceChildren(...parts);
}

const root = document.getElementById('forms-as-tools');
if (root) renderFormsSection(root);
