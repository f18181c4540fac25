// @ts-check
// The approval window: shows one question from the service worker and sends the person's answer.
import { RUNTIME } from '../protocol.js';

/**
 * How long Allow stays disabled after the window is shown or refocused: it opens under the
 * person's pointer, so a page's double-click request could land on Allow (as browsers guard
 * their own prompts).
 */
const ARM_DELAY_MS = 1000;

const id = new URLSearchParams(location.search).get('id') || '';

/** @param {string} elementId @param {string} text */
const show = (elementId, text) => {
  const el = document.getElementById(elementId);
  if (el) el.textContent = text;
};

/**
 * Allow takes effect only once the window has been shown, and focused, for ARM_DELAY_MS without
 * interruption: losing the focus disarms it, getting it back starts the delay again.
 * @param {HTMLButtonElement} allow
 * @returns {() => boolean} whether Allow is armed now
 */
function armAfterDelay(allow) {
  let armed = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const disarm = () => {
    clearTimeout(timer);
    armed = false;
    allow.disabled = true;
    allow.dataset.armed = 'no';
  };
  const arm = () => {
    disarm();
    if (document.visibilityState !== 'visible') return;
    timer = setTimeout(() => {
      armed = true;
      allow.disabled = false;
      allow.dataset.armed = 'yes';
    }, ARM_DELAY_MS);
  };
  window.addEventListener('blur', disarm);
  window.addEventListener('focus', arm);
  document.addEventListener('visibilitychange', arm);
  arm();
  return () => armed;
}

/** How long a window that says why its question ended stays before it closes itself. */
const ENDED_CLOSE_MS = 10_000;

async function main() {
  const ended = new URLSearchParams(location.search).get('ended');
  if (ended !== null) { // the question ended without the person: say why, then go
    show('ended-why', ended);
    /** @type {HTMLElement} */ (document.getElementById('ended')).hidden = false;
    document.title = 'tabmcp: the question ended';
    setTimeout(() => window.close(), ENDED_CLOSE_MS);
    return;
  }
  const q = await chrome.runtime.sendMessage({ type: RUNTIME.approvalGet, approvalId: id });
  if (!q) {
    /** @type {HTMLElement} */ (document.getElementById('gone')).hidden = false;
    return;
  }
  // The origin that owns the tool: a frame's own for a frame's tool, with the page it sits in.
  show('origin', q.origin || '(unknown site)');
  const framed = q.frameId && q.topOrigin && q.topOrigin !== q.origin;
  /** @type {HTMLElement} */ (document.getElementById('frame-of-row')).hidden = !framed;
  show('frame-of', framed ? q.topOrigin : '');
  show('title', q.title || q.tool);
  show('tool', q.tool);
  show('reason', q.reason || 'The tool needs approval.');
  show('description', q.description || '');
  show('arguments', JSON.stringify(q.arguments, null, 2));
  /** @type {HTMLElement} */ (document.getElementById('may-give-up')).hidden = !q.mayGiveUp;
  document.title = `Allow ${q.tool} on ${q.origin}?`;
  /** @type {HTMLElement} */ (document.getElementById('question')).hidden = false;
  const remember = /** @type {HTMLInputElement} */ (document.getElementById('remember'));
  const allow = /** @type {HTMLButtonElement} */ (document.getElementById('allow'));
  const armed = armAfterDelay(allow);
  /** @param {boolean} approved */
  const answer = async (approved) => {
    for (const b of document.querySelectorAll('button')) /** @type {HTMLButtonElement} */ (b).disabled = true;
    await chrome.runtime.sendMessage({ type: RUNTIME.approvalAnswer, approvalId: id, approved, remember: remember.checked });
    window.close();
  };
  allow.addEventListener('click', () => {
    if (armed()) answer(true);
  });
  /** @type {HTMLElement} */ (document.getElementById('deny')).addEventListener('click', () => answer(false));
}

main();
