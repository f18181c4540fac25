// @ts-check
// After an install or reload, pages opened earlier have no (live) content scripts: add them.
import { state } from './state.js';

/** The scripts manifest.json injects with `file`, in their order (shared names first). @param {string} file */
const scriptsWith = (file) => (chrome.runtime.getManifest().content_scripts || []).find((c) => c.js?.includes(file))?.js || [file];

/** After an install or reload, pages opened earlier have no (live) content scripts: add them. */
export async function injectIntoOpenTabs() {
  const tabs = await chrome.tabs.query({ url: ['http://*/*', 'https://*/*', 'file://*/*'] });
  await Promise.all(
    tabs.map(async (tab) => {
      if (tab.id === undefined || state.ports.has(tab.id)) return;
      try {
        await chrome.scripting.executeScript({
          target: { tabId: tab.id, allFrames: true },
          files: scriptsWith('page/agent.js'),
          world: 'MAIN',
          injectImmediately: true,
        });
        // Its page scripts ran first: the content script takes no capture port from them (content.js).
        await chrome.scripting.executeScript({
          target: { tabId: tab.id, allFrames: true },
          func: () => {
            globalThis[Symbol.for('tabmcp.content.late')] = true;
          },
        });
        const injected = await chrome.scripting.executeScript({ target: { tabId: tab.id, allFrames: true }, files: scriptsWith('content.js') });
        const top = injected.find((r) => r.frameId === 0);
        if (top && top.documentId) state.lateDocuments.set(tab.id, top.documentId);
      } catch {
        /* pages the extension may not touch (the web store, chrome://) */
      }
    }),
  );
}
