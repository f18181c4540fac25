// @ts-check
// The person's settings the link needs, read from chrome.storage.local: the bridge URL, the token,
// the pairing with that bridge, and the bridge's last capture settings for pages.
import { DEFAULT_BRIDGE_URL, STORAGE, normalizeBridgeUrl } from '../protocol.js';
import { state } from './state.js';

export async function loadSettings() {
  const stored = await chrome.storage.local.get([STORAGE.bridgeUrl, STORAGE.bridgeToken, STORAGE.bridgePairings, STORAGE.telemetryConfig, STORAGE.profileId]);
  state.profileId = stored[STORAGE.profileId] || crypto.randomUUID();
  if (!stored[STORAGE.profileId]) await chrome.storage.local.set({ [STORAGE.profileId]: state.profileId });
  if (stored[STORAGE.telemetryConfig] && typeof stored[STORAGE.telemetryConfig] === 'object') {
    state.telemetryConfig = stored[STORAGE.telemetryConfig];
  }
  try {
    state.url = normalizeBridgeUrl(stored[STORAGE.bridgeUrl] || DEFAULT_BRIDGE_URL);
  } catch (err) {
    state.lastError = `invalid bridge URL in settings: ${err.message}`;
    state.url = DEFAULT_BRIDGE_URL;
  }
  state.token = stored[STORAGE.bridgeToken] || null;
  const pairings = stored[STORAGE.bridgePairings];
  const pairing = pairings && typeof pairings === 'object' ? pairings[state.url] : null;
  state.pairing = pairing && typeof pairing.id === 'string' && typeof pairing.secret === 'string'
    ? { id: pairing.id, secret: pairing.secret } : null;
}
