// @ts-check
// The approval window: shows one question from the service worker and sends the person's answer.
import { RUNTIME } from '../protocol.js';

const id = new URLSearchParams(location.search).get('id') || '';

/** @param {string} elementId @param {string} text */
const show = (elementId, text) => {
  const el = document.getElementById(elementId);
  if (el) el.textContent = text;
};

async function main() {
  const q = await chrome.runtime.sendMessage({ type: RUNTIME.approvalGet, approvalId: id });
  if (!q) {
    /** @type {HTMLElement} */ (document.getElementById('gone')).hidden = false;
    return;
  }
  show('origin', q.origin || '(unknown site)');
  show('title', q.title || q.tool);
  show('tool', q.tool);
  show('reason', q.reason || 'The tool needs approval.');
  show('description', q.description || '');
  show('arguments', JSON.stringify(q.arguments, null, 2));
  document.title = `Allow ${q.tool} on ${q.origin}?`;
  /** @type {HTMLElement} */ (document.getElementById('question')).hidden = false;
  const remember = /** @type {HTMLInputElement} */ (document.getElementById('remember'));
  /** @param {boolean} approved */
  const answer = async (approved) => {
    for (const b of document.querySelectorAll('button')) /** @type {HTMLButtonElement} */ (b).disabled = true;
    await chrome.runtime.sendMessage({ type: RUNTIME.approvalAnswer, approvalId: id, approved, remember: remember.checked });
    window.close();
  };
  /** @type {HTMLElement} */ (document.getElementById('allow')).addEventListener('click', () => answer(true));
  /** @type {HTMLElement} */ (document.getElementById('deny')).addEventListener('click', () => answer(false));
}

main();
