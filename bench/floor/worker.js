// Floor service worker: one WebSocket to the bench's echo server, one Port per tab. Up: the
// message gets its tab id and goes out as JSON; down: JSON in, routed to the tab's Port. The
// bench calls connectTo(url) through Playwright before measuring.
/** @type {WebSocket | null} */
let ws = null;
/** @type {Map<number, chrome.runtime.Port>} */
const ports = new Map();
/** Only while bench/browser_half.py asks (`timeSpans(true)`): each call's span in this worker,
 * from its frame to its result back from the page (ms), and when each call came. */
let spans = null;
const started = new Map();

chrome.runtime.onConnect.addListener((port) => {
  const tab = port.sender?.tab?.id ?? -1;
  ports.set(tab, port);
  port.onDisconnect.addListener(() => ports.delete(tab));
  port.onMessage.addListener((msg) => {
    if (spans && started.has(msg.callId)) {
      spans.push(performance.now() - started.get(msg.callId));
      started.delete(msg.callId);
    }
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ ...msg, tab }));
  });
});

/** Connect (or reconnect) to the echo server; resolves once open. @param {string} url */
globalThis.connectTo = (url) =>
  new Promise((resolve, reject) => {
    if (ws) ws.close();
    ws = new WebSocket(url);
    ws.onopen = () => resolve(true);
    ws.onerror = () => reject(new Error(`floor: cannot connect to ${url}`));
    ws.onmessage = (event) => {
      const msg = JSON.parse(event.data);
      if (spans && msg.type === 'call') started.set(msg.callId, performance.now());
      ports.get(msg.tab)?.postMessage(msg);
    };
  });

/** The tab ids whose content script is connected. */
globalThis.floorTabs = () => [...ports.keys()];

/** Start (true: an empty list) or stop keeping spans; returns the spans kept so far. @param {boolean} on */
globalThis.timeSpans = (on) => {
  const out = spans || [];
  spans = on ? [] : null;
  started.clear();
  return out;
};
