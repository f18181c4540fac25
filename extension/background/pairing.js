// @ts-check
// The pairing ceremony (docs/security.md): an unpaired hello gets pair.required; the popup shows
// the person a code to type into `tabmcp pair`; the bridge then sends the secret, kept in
// chrome.storage.local by bridge URL (whose change reconnects with it).
import { OUT, STORAGE } from '../protocol.js';
import { state } from './state.js';
import { keepAlive, send } from './link.js';

/** Not paired (or the bridge forgot us): the link stays open for the ceremony only; the popup shows it. */
export function onPairRequired(msg) {
  state.status = 'pairing';
  state.pairRequired = { reason: String(msg.reason || 'unpaired'), message: String(msg.message || '') };
  state.pairCode = null;
  keepAlive();
}

/** The code the popup shows the person. */
export function onPairCode(msg) {
  if (state.status === 'pairing') {
    state.pairCode = { code: String(msg.code), expiresAt: Date.now() + (Number(msg.expiresMs) || 0) };
  }
}

/** The person typed our code into `tabmcp pair`: keep the secret for this bridge. */
export async function onPairDone(msg) {
  if (state.status === 'pairing' && typeof msg.pairingId === 'string' && typeof msg.secret === 'string') {
    state.pairCode = null;
    const stored = (await chrome.storage.local.get(STORAGE.bridgePairings))[STORAGE.bridgePairings] || {};
    await chrome.storage.local.set({
      [STORAGE.bridgePairings]: { ...stored, [state.url]: { id: msg.pairingId, secret: msg.secret } },
    });
  }
}

/** Ask the bridge for a pairing code (the popup shows it when pair.code comes back). */
export function requestPairingCode() {
  if (state.status !== 'pairing') return { ok: false, error: state.status === 'ready' ? 'already paired' : 'not connected to the bridge' };
  state.pairCode = null;
  return { ok: send({ type: OUT.pairRequest }) };
}
