// Floor service worker: one WebSocket to the bench's echo server, one Port per tab. Up: the
// message gets its tab id and goes out as JSON; down: JSON in, routed to the tab's Port. The
// bench calls connectTo(url) through Playwright before measuring.
/** @type {WebSocket | null} */
let ws = null;
/** @type {Map<number, chrome.runtime.Port>} */
const ports = new Map();

chrome.runtime.onConnect.addListener((port) => {
  const tab = port.sender?.tab?.id ?? -1;
  ports.set(tab, port);
  port.onDisconnect.addListener(() => ports.delete(tab));
  port.onMessage.addListener((msg) => {
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
      ports.get(msg.tab)?.postMessage(msg);
    };
  });

/** The tab ids whose content script is connected. */
globalThis.floorTabs = () => [...ports.keys()];
