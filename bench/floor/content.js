// Floor content script (isolated world): page ⇄ long-lived Port ⇄ service worker, the shape
// extension/content.js has, with nothing else. Page → worker: window message → port.postMessage;
// worker → page: port message → window.postMessage.
(() => {
  const port = chrome.runtime.connect({ name: 'floor' });
  port.onMessage.addListener((msg) => window.postMessage({ __floor: 'content', msg }, '*'));
  window.addEventListener('message', (event) => {
    if (event.source !== window) return;
    const data = event.data;
    if (data && data.__floor === 'page' && data.msg) port.postMessage(data.msg);
  });
})();
