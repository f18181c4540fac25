// Options page: the bridge URL (chrome.storage.local "bridgeUrl"), an optional token, and the
// pairing with the bridge (shown; forgetting it starts the pairing again, in the popup).
import { DEFAULT_BRIDGE_URL, RUNTIME, STORAGE, normalizeBridgeUrl } from '../protocol.js';

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

const pairingState = /** @type {HTMLElement} */ (document.getElementById('pairing-state'));

async function showPairing() {
  const report = await chrome.runtime.sendMessage({ type: RUNTIME.status }).catch(() => null);
  const pairing = report && report.pairing;
  pairingState.textContent = !report ? 'unknown'
    : pairing && pairing.paired ? 'Paired with the bridge.'
    : report.status === 'pairing' ? (pairing && pairing.code
      ? `Not paired: run tabmcp pair ${pairing.code} in a terminal.` : 'Not paired: open the tabmcp popup to get a code.')
    : `Not connected to the bridge (${report.status}).`;
}

document.getElementById('forget-pairing').addEventListener('click', async () => {
  const { [STORAGE.bridgeUrl]: url, [STORAGE.bridgePairings]: pairings } =
    await chrome.storage.local.get([STORAGE.bridgeUrl, STORAGE.bridgePairings]);
  const rest = { ...(pairings || {}) };
  delete rest[normalizeBridgeUrl(url || DEFAULT_BRIDGE_URL)];
  await chrome.storage.local.set({ [STORAGE.bridgePairings]: rest });
  await showPairing();
});
showPairing();
setInterval(showPairing, 1000);
