// Popup: connection state and, per tab, how many tools and categories the page offers.
import { RUNTIME } from '../protocol.js';

const LABELS = { ready: 'connected', open: 'handshaking', connecting: 'connecting', disconnected: 'disconnected' };

async function render() {
  /** @type {any} */
  const report = await chrome.runtime.sendMessage({ type: RUNTIME.status });
  const status = document.getElementById('status');
  status.textContent = LABELS[report.status] || report.status;
  status.className = `pill ${report.status}`;
  document.getElementById('bridge').textContent = `Bridge: ${report.url}`;
  const error = document.getElementById('error');
  error.hidden = !report.lastError || report.status === 'ready';
  error.textContent = report.lastError || '';
  const body = document.getElementById('tabs');
  body.replaceChildren(
    ...report.tabs
      .sort((a, b) => b.tools - a.tools || a.tabId - b.tabId)
      .map((tab) => {
        const row = document.createElement('tr');
        row.dataset.tabId = String(tab.tabId);
        if (tab.active) row.className = 'active';
        const title = document.createElement('td');
        title.className = 'title';
        title.textContent = tab.title || tab.url || `tab ${tab.tabId}`;
        title.title = tab.url;
        if (tab.refused) {
          // Definitions the bridge would not relay: say so, with the bridge's reasons on hover.
          const refused = document.createElement('span');
          refused.className = 'refused';
          refused.dataset.testid = 'refused';
          refused.textContent = ' ⚠ some tools refused';
          refused.title = tab.refused;
          title.append(refused);
        }
        const tools = document.createElement('td');
        tools.className = 'n';
        tools.dataset.testid = 'tool-count';
        // Tools of child frames the page allows (their own origins) are counted apart.
        const framed = (tab.frames || []).filter((f) => f.allowed && f.tools);
        const inFrames = framed.reduce((n, f) => n + f.tools, 0);
        tools.textContent = inFrames ? `${tab.tools} + ${inFrames}` : String(tab.tools);
        if (framed.length) tools.title = framed.map((f) => `${f.tools} in a frame of ${f.origin}`).join('\n');
        const cats = document.createElement('td');
        cats.className = 'n';
        cats.dataset.testid = 'category-count';
        cats.textContent = String(tab.categories);
        row.append(title, tools, cats);
        return row;
      }),
  );
}

document.getElementById('reconnect').addEventListener('click', async () => {
  await chrome.runtime.sendMessage({ type: RUNTIME.reconnect });
  setTimeout(render, 300);
});
document.getElementById('options').addEventListener('click', (e) => {
  e.preventDefault();
  chrome.runtime.openOptionsPage();
});

render();
setInterval(render, 1000);
