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
  /** Telemetry events dropped from a full backlog, reported with the next batch. @type {Record<string, number>} */
  let lostTelemetry = {};

  const toPage = (msg) => window.postMessage({ __tabmcp: 'content', msg }, '*');

  /** @type {Map<string, () => void>} */
  const approvals = new Map();

  /**
   * Ask the person on this page whether the agent may run a tool. Rendered by the extension in
   * its own shadow root; only trusted (real user) clicks count, so page scripts cannot answer.
   * @param {{approvalId:string, tool:string, title:string, description?:string, arguments:object,
   *   reason:string, timeoutMs:number}} msg
   */
  function askApproval(msg) {
    const host = document.createElement('tabmcp-approval');
    host.style.cssText = 'all: initial; position: fixed; z-index: 2147483647; right: 16px; bottom: 16px;';
    const root = host.attachShadow({ mode: 'open' });
    const box = document.createElement('div');
    box.setAttribute('role', 'alertdialog');
    box.setAttribute('aria-label', 'tabmcp approval');
    box.style.cssText =
      'font: 14px system-ui, sans-serif; color: #111827; background: #fff; border: 1px solid #d1d5db;' +
      'border-radius: 10px; box-shadow: 0 10px 30px rgba(0,0,0,.2); padding: 14px 16px; width: 360px;';
    const heading = document.createElement('div');
    heading.style.cssText = 'font-weight: 600; margin-bottom: 6px;';
    heading.textContent = `An AI agent wants to run “${msg.title}”`;
    const body = document.createElement('div');
    body.style.cssText = 'margin-bottom: 8px; color: #374151;';
    body.textContent = `${msg.tool}: ${msg.description || ''} ${msg.reason}`;
    const args = document.createElement('pre');
    args.style.cssText =
      'max-height: 140px; overflow: auto; background: #f3f4f6; padding: 6px 8px; border-radius: 6px; font-size: 12px;';
    args.textContent = JSON.stringify(msg.arguments, null, 2);
    const row = document.createElement('div');
    row.style.cssText = 'display: flex; gap: 8px; justify-content: flex-end; margin-top: 10px;';
    const deny = document.createElement('button');
    deny.textContent = 'Deny';
    deny.dataset.testid = 'tabmcp-deny';
    const allow = document.createElement('button');
    allow.textContent = 'Allow';
    allow.dataset.testid = 'tabmcp-approve';
    for (const b of [deny, allow]) b.style.cssText = 'font: inherit; padding: 5px 14px; border-radius: 6px; cursor: pointer;';
    allow.style.background = '#2563eb';
    allow.style.color = '#fff';
    allow.style.border = '1px solid #1d4ed8';
    row.append(deny, allow);
    box.append(heading, body, args, row);
    root.append(box);
    (document.body || document.documentElement).append(host);

    let done = false;
    const finish = (approved, reason) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      approvals.delete(msg.approvalId);
      host.remove();
      send({ type: 'approval', approvalId: msg.approvalId, approved, reason });
    };
    const timer = setTimeout(() => finish(false, 'nobody answered in time'), msg.timeoutMs || 120000);
    allow.addEventListener('click', (e) => e.isTrusted && finish(true, 'approved by the user'));
    deny.addEventListener('click', (e) => e.isTrusted && finish(false, 'denied by the user'));
    approvals.set(msg.approvalId, () => finish(false, 'withdrawn'));
    allow.focus();
  }

  function fromWorker(msg) {
    if (msg && msg.type === 'approval') askApproval(msg);
    else if (msg && msg.type === 'approval.withdraw') approvals.get(msg.approvalId)?.();
    else toPage(msg);
  }

  function send(msg) {
    if (!port) {
      backlog.push(msg);
      return;
    }
    try {
      port.postMessage(msg);
    } catch {
      port = null;
      backlog.push(msg);
    }
  }

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
    port.onMessage.addListener(fromWorker);
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
    if (data.msg.type === 'approval') return; // only the person, through our dialog, answers approvals
    let msg = data.msg;
    if (msg.type === 'telemetry' && Object.keys(lostTelemetry).length) {
      const dropped = { ...(msg.dropped || {}) };
      for (const [kind, n] of Object.entries(lostTelemetry)) dropped[kind] = (dropped[kind] || 0) + n;
      msg = { ...msg, dropped };
      lostTelemetry = {};
    }
    send(msg);
    if (backlog.length > 200) {
      // The worker is away for long: drop the oldest queued message, but count lost telemetry.
      const lost = backlog.shift();
      if (lost && lost.type === 'telemetry' && Array.isArray(lost.events)) {
        for (const e of lost.events) lostTelemetry[e && e.kind] = (lostTelemetry[e && e.kind] || 0) + 1;
      }
    }
  });

  globalThis.__tabmcpContent = { alive: () => !dead && !!chrome.runtime?.id };
  connect();
  toPage({ type: 'resync' }); // the agent may have spoken before this relay existed
})();
