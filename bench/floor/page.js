// Floor page agent (page's main world), the shape of extension/page/agent.js with nothing else:
// answers the server's `call` messages at once, and can time round trips it starts itself
// (page → content script → Port → worker → WebSocket → echo server → back).
(() => {
  const post = (msg) => window.postMessage({ __floor: 'page', msg }, '*');
  /** @type {Map<number, () => void>} */
  const waiting = new Map();
  let next = 0;

  window.addEventListener('message', (event) => {
    if (event.source !== window) return;
    const data = event.data;
    if (!data || data.__floor !== 'content' || !data.msg) return;
    const msg = data.msg;
    if (msg.type === 'call') post({ type: 'result', callId: msg.callId, ok: true, result: 'ok' });
    else if (msg.type === 'echo') waiting.get(msg.id)?.();
  });

  /** One page-started round trip through the echo server. @returns {Promise<void>} */
  const roundTrip = () =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, () => {
        waiting.delete(id);
        resolve();
      });
      post({ type: 'echo', id });
    });

  /**
   * `n` sequential round trips after `warmup` untimed ones; milliseconds each.
   * @param {number} n @param {number} warmup @returns {Promise<number[]>}
   */
  async function run(n, warmup) {
    for (let i = 0; i < warmup; i++) await roundTrip();
    const out = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await roundTrip();
      out.push(performance.now() - t);
    }
    return out;
  }

  Object.defineProperty(window, '__floor', { value: Object.freeze({ run }) });
})();
