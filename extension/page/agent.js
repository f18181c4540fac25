// tabmcp page agent (main world, document_start, after webmcp-polyfill.js and page/channel.js).
// Watches the page's tools, categories and states through the polyfill's internal hook, reports
// snapshots and runs the calls routed here, over page/channel.js's window events (never
// window.postMessage, which the page's own listeners would hear). Idempotent.
(() => {
  const AGENT = Symbol.for('tabmcp.agent');
  if (window[AGENT]) {
    window[AGENT].resync();
    return;
  }
  const { PAGE, PAGE_EVENT, CALL_EVENT } = globalThis[Symbol.for('tabmcp.messages')];
  const { ERROR } = globalThis[Symbol.for('tabmcp.protocol')];
  /** @type {{native:boolean, snapshot():Promise<any>, call(name:string,args:object,opts?:{signal?:AbortSignal}):Promise<any>, subscribe(cb:()=>void):()=>void} | undefined} */
  const hook = globalThis[Symbol.for('tabmcp.webmcp')];

  const events = globalThis[Symbol.for('tabmcp.pageChannel')];
  /** To the content script, at once (its listener runs before this returns). */
  const post = (msg) => events.send(PAGE_EVENT.toContent, msg);
  const isTop = window.top === window;

  /**
   * The origins whose frames the top page lets offer tools, from its iframes' `allow` attribute as
   * Chromium's native WebMCP reads it (docs/security.md 3); same-origin frames need none.
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

  /**
   * Snapshot pacing (visible pages): sent once the tools were QUIET_MS without a change, or at the
   * latest MAX_WAIT_MS (at least SPACING times the last one's cost) after the first change, so a
   * burst of registrations pays for few snapshots and a page that never stops changing still gets one.
   */
  const QUIET_MS = 25;
  const MAX_WAIT_MS = 250;
  const SPACING = 8;
  let timer = 0;
  /** The last snapshot posted: its tool entries (the hook shares an unchanged tool's entry between
   * snapshots, so a change shows by identity) and the rest of it as JSON. */
  let lastTools = null;
  let lastRest = '';
  /** What the last snapshot took on this thread, in ms (SPACING). */
  let lastCost = 0;

  async function sendSnapshot(force) {
    timer = 0; // a change from here on gets a snapshot after this one
    let snap = { tools: [], categories: [], states: [] };
    if (hook) {
      try {
        snap = await hook.snapshot();
      } catch (err) {
        console.warn('[tabmcp] could not read the page tools:', err);
      }
    }
    const started = performance.now(); // the work on this thread (not the wait for the browser's getTools)
    const { tools = [], categories = [], states = [] } = snap;
    const rest = {
      type: PAGE.snapshot,
      url: location.href,
      title: document.title,
      native: !!(hook && hook.native),
      categories,
      states,
    };
    if (isTop) rest.frameTools = frameToolOrigins();
    let key;
    try {
      key = events.text(rest);
    } catch {
      key = String(Math.random());
    }
    const sameTools = lastTools !== null && lastTools.length === tools.length && tools.every((t, i) => t === lastTools[i]);
    if (!force && sameTools && key === lastRest) return;
    lastTools = tools;
    lastRest = key;
    post({ ...rest, tools });
    lastCost = performance.now() - started;
  }

  // A hidden page (a background agent tab) gets no timer: Chrome runs hidden tabs' timers at most
  // once a second, while a message-channel task is not throttled and still coalesces a task's
  // registrations.
  let channel = null;
  /** When the change the pending snapshot waits for first came, and the last change since. */
  let firstChange = 0;
  let lastChange = 0;
  function schedule() {
    lastChange = performance.now();
    if (timer) return;
    if (!document.hidden) {
      firstChange = lastChange;
      timer = setTimeout(whenQuiet, QUIET_MS);
      return;
    }
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => sendSnapshot(false);
    }
    timer = -1;
    channel.port2.postMessage(null);
  }

  /** The pending snapshot's timer: sent when the tools were quiet or it waited long enough, else waits on. */
  function whenQuiet() {
    const now = performance.now();
    const latest = firstChange + Math.max(MAX_WAIT_MS, SPACING * lastCost);
    if (now - lastChange >= QUIET_MS || now >= latest) {
      sendSnapshot(false);
      return;
    }
    timer = setTimeout(whenQuiet, Math.min(QUIET_MS - (now - lastChange), latest - now));
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
      detail = events.text({ type: PAGE.result, callId: msg.callId, ok: !!outcome.ok, result: outcome.result,
        error: outcome.error });
    } catch (err) {
      const message = `the tool's result is not JSON: ${String((err && err.message) || err)}`;
      detail = events.text({ type: PAGE.result, callId: msg.callId, ok: false, error: { code: ERROR.PAGE_ERROR, message } });
    }
    events.send(CALL_EVENT.toContent, detail);
  }

  // Calls and cancels from the content script (CALL_EVENT: a synchronous event, not a message).
  events.listen(CALL_EVENT.toPage, (msg) => {
    if (typeof msg.callId !== 'string') return;
    if (msg.type === PAGE.call) {
      runCall(msg);
    } else if (msg.type === PAGE.cancel) {
      const controller = running.get(msg.callId);
      if (controller) controller.abort(new DOMException(msg.reason || 'cancelled by the agent', 'AbortError'));
    }
  });

  // The content script's word (PAGE_EVENT): a new relay asks for a fresh snapshot, the bridge's refusals.
  events.listen(PAGE_EVENT.toPage, (msg) => {
    if (msg.type === PAGE.resync) {
      lastTools = null; // a new content script (the extension reloaded) gets the whole snapshot again
      lastRest = '';
      schedule();
    } else if (msg.type === PAGE.refused && typeof msg.message === 'string') {
      // Where the page's author looks: what the bridge would not relay, and why.
      console.warn('[tabmcp] the bridge refused some of this page\'s tools:', msg.message);
    }
  });

  Object.defineProperty(window, AGENT, { value: Object.freeze({ resync: () => sendSnapshot(true) }) });
  schedule();
})();
