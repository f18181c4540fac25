// Options page: the bridge URL (chrome.storage.local "bridgeUrl") and an optional token.
import { DEFAULT_BRIDGE_URL, STORAGE, normalizeBridgeUrl } from '../protocol.js';

const form = /** @type {HTMLFormElement} */ (document.getElementById('form'));
const urlInput = /** @type {HTMLInputElement} */ (document.getElementById('bridgeUrl'));
const tokenInput = /** @type {HTMLInputElement} */ (document.getElementById('bridgeToken'));
const saved = document.getElementById('saved');
const problem = document.getElementById('problem');

const stored = await chrome.storage.local.get([STORAGE.bridgeUrl, STORAGE.bridgeToken]);
urlInput.value = stored[STORAGE.bridgeUrl] || DEFAULT_BRIDGE_URL;
tokenInput.value = stored[STORAGE.bridgeToken] || '';

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  problem.hidden = true;
  let url;
  try {
    url = normalizeBridgeUrl(urlInput.value);
  } catch (err) {
    problem.textContent = err.message;
    problem.hidden = false;
    return;
  }
  urlInput.value = url;
  await chrome.storage.local.set({ [STORAGE.bridgeUrl]: url, [STORAGE.bridgeToken]: tokenInput.value.trim() });
  saved.hidden = false;
  setTimeout(() => (saved.hidden = true), 1500);
});
