// tabmcp content script (isolated world): a tiny relay between the page-world agent and the
// service worker. Page → worker over one long-lived port (about twice as fast per message as
// sendMessage); worker → page over window.postMessage. Safe to inject twice; reconnects when
// the service worker restarts and asks the page for a fresh snapshot.
(() => {
  const previous = globalThis.__tabmcpContent;
  if (previous && previous.alive()) return;

  /** @type {chrome.runtime.Port | null} */
  let port = null;
  let dead = false;
  /** @type {object[]} */
  const backlog = [];

  const toPage = (msg) => window.postMessage({ __tabmcp: 'content', msg }, '*');

  function connect() {
    if (!chrome.runtime?.id) {
      dead = true; // the extension was reloaded or removed: this copy is orphaned
      return;
    }
    try {
      port = chrome.runtime.connect({ name: 'tabmcp-page' });
    } catch {
      dead = true;
      return;
    }
    port.onMessage.addListener(toPage);
    port.onDisconnect.addListener(() => {
      port = null;
      if (!chrome.runtime?.id) {
        dead = true;
        return;
      }
      // The service worker went away (stopped or restarted): come back and resync.
      setTimeout(() => {
        connect();
        toPage({ type: 'resync' });
      }, 50);
    });
    for (const msg of backlog.splice(0)) port.postMessage(msg);
  }

  window.addEventListener('message', (event) => {
    if (dead || event.source !== window) return;
    const data = event.data;
    if (!data || data.__tabmcp !== 'page' || !data.msg || typeof data.msg.type !== 'string') return;
    if (!port) {
      backlog.push(data.msg);
      if (backlog.length > 200) backlog.shift();
      return;
    }
    try {
      port.postMessage(data.msg);
    } catch {
      port = null;
      backlog.push(data.msg);
    }
  });

  globalThis.__tabmcpContent = { alive: () => !dead && !!chrome.runtime?.id };
  connect();
  toPage({ type: 'resync' }); // the agent may have spoken before this relay existed
})();
