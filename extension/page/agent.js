// tabmcp page agent (page's main world, document_start, after webmcp-polyfill.js).
// Watches the page's WebMCP tools, categories and states through the polyfill's internal hook
// and reports snapshots; runs tool calls the bridge routes here. Talks to the content script
// with window.postMessage ({__tabmcp: 'page'} out, {__tabmcp: 'content'} in), except calls, cancels
// and their results: synchronous window events (CALL_EVENT in messages.js). Idempotent.
// Message names and error codes come from messages.js and protocol.generated.js, which
// manifest.json injects before this script.
(() => {
  const AGENT = Symbol.for('tabmcp.agent');
  if (window[AGENT]) {
    window[AGENT].resync();
    return;
  }
  const { PAGE, ENVELOPE, CALL_EVENT } = globalThis[Symbol.for('tabmcp.messages')];
  const { ERROR } = globalThis[Symbol.for('tabmcp.protocol')];
  /** @type {{native:boolean, snapshot():Promise<any>, call(name:string,args:object,opts?:{signal?:AbortSignal}):Promise<any>, subscribe(cb:()=>void):()=>void} | undefined} */
  const hook = globalThis[Symbol.for('tabmcp.webmcp')];

  const post = (msg) => window.postMessage({ [ENVELOPE.key]: ENVELOPE.page, msg }, '*');
  const isTop = window.top === window;

  /**
   * The origins whose frames the top page lets offer tools, from its iframes' Permissions Policy
   * `allow` attribute, as Chromium's native WebMCP reads it: `allow="tools"` names the frame's own
   * src origin, `allow="tools *"` any origin, `allow="tools https://a.test"` the listed ones,
   * `'none'` none. Frames of the top page's own origin need no attribute (default 'self').
   * @returns {string[]}
   */
  function frameToolOrigins() {
    const out = new Set();
    for (const frame of document.querySelectorAll('iframe[allow]')) {
      for (const directive of String(frame.getAttribute('allow')).split(';')) {
        const [feature, ...list] = directive.trim().split(/\s+/);
        if (feature !== 'tools') continue;
        const targets = list.length ? list : ["'src'"];
        for (const target of targets) {
          if (target === '*') out.add('*');
          else if (target === "'self'") out.add(location.origin);
          else if (target === "'src'") {
            try {
              out.add(new URL(frame.getAttribute('src') || 'about:blank', location.href).origin);
            } catch {
              /* not a URL: no origin */
            }
          } else if (target !== "'none'") {
            try {
              out.add(new URL(target).origin);
            } catch {
              /* not an origin */
            }
          }
        }
      }
    }
    out.delete('null');
    return [...out].sort();
  }

  let timer = 0;
  let lastSent = '';

  async function sendSnapshot(force) {
    timer = 0;
    let snap = { tools: [], categories: [], states: [] };
    if (hook) {
      try {
        snap = await hook.snapshot();
      } catch (err) {
        console.warn('[tabmcp] could not read the page tools:', err);
      }
    }
    const msg = {
      type: PAGE.snapshot,
      url: location.href,
      title: document.title,
      native: !!(hook && hook.native),
      tools: snap.tools || [],
      categories: snap.categories || [],
      states: snap.states || [],
    };
    if (isTop) msg.frameTools = frameToolOrigins();
    let key;
    try {
      key = JSON.stringify(msg);
    } catch {
      key = String(Math.random());
    }
    if (!force && key === lastSent) return;
    lastSent = key;
    post(msg);
  }

  // Snapshots are coalesced for 25 ms in a visible page. A hidden page (a background tab an agent
  // opened) gets no timer: Chrome runs hidden tabs' timers at most once a second (and chained ones
  // once a minute), so registration would crawl; a message-channel task is not throttled, and it
  // still coalesces every registration made in the same task.
  let channel = null;
  function schedule() {
    if (timer) return;
    if (!document.hidden) {
      timer = setTimeout(() => sendSnapshot(false), 25);
      return;
    }
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => sendSnapshot(false);
    }
    timer = -1;
    channel.port2.postMessage(null);
  }

  if (hook) hook.subscribe(schedule);

  // SPA route changes: the Navigation API sees pushState, replaceState and hash changes.
  if (window.navigation && typeof window.navigation.addEventListener === 'function') {
    window.navigation.addEventListener('navigatesuccess', schedule);
  }
  window.addEventListener('popstate', schedule);
  window.addEventListener('hashchange', schedule);
  document.addEventListener('DOMContentLoaded', () => {
    schedule();
    const title = document.querySelector('title');
    if (title) new MutationObserver(schedule).observe(title, { childList: true, characterData: true, subtree: true });
    if (isTop) {
      // Frame permissions change when an iframe comes, goes, or changes its allow or src.
      const isFrame = (/** @type {Node} */ n) =>
        n.nodeName === 'IFRAME' || (n.nodeType === 1 && !!(/** @type {Element} */ (n)).querySelector('iframe'));
      new MutationObserver((records) => {
        for (const r of records) {
          if (r.type === 'attributes' ? r.target.nodeName === 'IFRAME' : [...r.addedNodes, ...r.removedNodes].some(isFrame)) {
            schedule();
            return;
          }
        }
      }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['allow', 'src'] });
    }
  });
  window.addEventListener('load', schedule);

  /** @type {Map<string, AbortController>} */
  const running = new Map();

  async function runCall(msg) {
    const controller = new AbortController();
    running.set(msg.callId, controller);
    let outcome;
    if (!hook) {
      outcome = { ok: false, error: { code: ERROR.TOOL_NOT_FOUND, message: 'this page has no WebMCP tools' } };
    } else {
      try {
        outcome = await hook.call(msg.tool, msg.arguments || {}, { signal: controller.signal });
      } catch (err) {
        outcome = { ok: false, error: { code: ERROR.PAGE_ERROR, message: String((err && err.message) || err) } };
      }
    }
    running.delete(msg.callId);
    let detail;
    try {
      detail = JSON.stringify({ type: PAGE.result, callId: msg.callId, ok: !!outcome.ok, result: outcome.result,
        error: outcome.error });
    } catch (err) {
      const message = `the tool's result is not JSON: ${String((err && err.message) || err)}`;
      detail = JSON.stringify({ type: PAGE.result, callId: msg.callId, ok: false, error: { code: ERROR.PAGE_ERROR, message } });
    }
    window.dispatchEvent(new CustomEvent(CALL_EVENT.toContent, { detail }));
  }

  // Calls and cancels from the content script (CALL_EVENT: a synchronous event, not a message).
  window.addEventListener(CALL_EVENT.toPage, (event) => {
    if (typeof event.detail !== 'string') return;
    let msg;
    try {
      msg = JSON.parse(event.detail);
    } catch {
      return;
    }
    if (!msg || typeof msg.callId !== 'string') return;
    if (msg.type === PAGE.call) {
      runCall(msg);
    } else if (msg.type === PAGE.cancel) {
      const controller = running.get(msg.callId);
      if (controller) controller.abort(new DOMException(msg.reason || 'cancelled by the agent', 'AbortError'));
    }
  });

  window.addEventListener('message', (event) => {
    if (event.source !== window) return;
    const data = event.data;
    if (!data || data[ENVELOPE.key] !== ENVELOPE.content || !data.msg) return;
    const msg = data.msg;
    if (msg.type === PAGE.resync) {
      lastSent = '';
      schedule();
    } else if (msg.type === PAGE.refused && typeof msg.message === 'string') {
      // Where the page's author looks: what the bridge would not relay, and why.
      console.warn('[tabmcp] the bridge refused some of this page\'s tools:', msg.message);
    }
  });

  Object.defineProperty(window, AGENT, { value: Object.freeze({ resync: () => sendSnapshot(true) }) });
  schedule();
})();
