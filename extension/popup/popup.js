// @ts-check
// The popup: what agents do in the person's tabs, and the switches to steer them. Each second it
// asks the worker's report and the bridge's panel state (panel.js) in parallel, and rebuilds only
// the sections whose data changed, keeping open sections and keyboard focus.

import { ERROR, RUNTIME } from '../protocol.js';
import { renderSites } from './sites.js';

const MSG = Object.freeze({
  status: RUNTIME.status,
  reconnect: RUNTIME.reconnect,
  panel: RUNTIME.panelQuery,
  control: RUNTIME.controlSet,
  answer: RUNTIME.approvalAnswer,
  focus: RUNTIME.approvalFocus,
  pair: RUNTIME.pairRequest,
});
const LABELS = { ready: 'connected', open: 'handshaking', pairing: 'not paired', connecting: 'connecting', disconnected: 'disconnected' };
const REFRESH_MS = 1000;
/** Activity rows shown (newest first); `?rows=N` (1-1000) asks for more, as the benchmark does. */
const ACTIVITY_ROWS = Math.min(1000, Math.max(1, Number(new URLSearchParams(location.search).get('rows')) || 100));

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * A new element with attributes (`text` sets its text, `testid` its data-testid, `key` its data-key).
 * @param {string} tag @param {Record<string, any>} [attrs] @param {Array<Node | string | null | undefined | false>} [children]
 */
function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') node.textContent = String(v);
    else if (k === 'testid') node.dataset.testid = String(v);
    else if (k === 'key') node.dataset.key = String(v);
    else if (k === 'className') node.className = String(v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, '');
    else node.setAttribute(k, String(v));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/** What each section was last built from, so an unchanged one is left alone. @type {Record<string, string>} */
const shown = {};

/**
 * Replace a container's children if `data` changed, keeping which `<details>` were open and which
 * control had focus (matched by data-key).
 * @param {HTMLElement} container @param {string} section @param {any} data @param {() => Node[]} build
 */
function update(container, section, data, build) {
  const sig = JSON.stringify(data);
  if (shown[section] === sig) return;
  shown[section] = sig;
  const open = new Set([...container.querySelectorAll('details[open]')].map((d) => /** @type {HTMLElement} */ (d).dataset.key));
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  const focusKey = active && container.contains(active) ? active.dataset.key : undefined;
  container.replaceChildren(...build());
  for (const d of container.querySelectorAll('details')) {
    if (open.has(/** @type {HTMLElement} */ (d).dataset.key)) /** @type {HTMLDetailsElement} */ (d).open = true;
  }
  if (focusKey) /** @type {HTMLElement | null} */ (container.querySelector(`[data-key="${CSS.escape(focusKey)}"]`))?.focus();
}

// ---- asking the worker ---------------------------------------------------------------------

/** @param {object} msg */
const ask = (msg) => chrome.runtime.sendMessage(msg).catch((err) => ({ ok: false, error: { message: String(err.message || err) } }));

/** What went wrong with the person's last action; shown until the next one succeeds. */
let notice = '';

/** @param {Record<string, any>} fields */
async function control(fields) {
  const answer = await ask({ type: MSG.control, ...fields });
  notice = !answer || answer.ok === false
    ? `Not done: ${answer?.error ? `${answer.error.code || ''} ${answer.error.message}` : 'no answer'}` : '';
  if (answer?.ok && answer.state) renderPanel(answer.state);
  await refresh();
}

/** The connection's problem (when not connected), else the last action's. @param {string} connection */
function showError(connection) {
  const text = connection || notice;
  const error = $('error');
  error.textContent = text;
  error.hidden = !text;
}

/** The activity filter as query fields. */
function filter() {
  const value = /** @type {HTMLSelectElement} */ ($('filter')).value;
  if (value.startsWith('tab:')) return { tabId: Number(value.slice(4)) };
  if (value.startsWith('origin:')) return { origin: value.slice(7) };
  return {};
}

// ---- sections --------------------------------------------------------------------------------

/** @type {any} */ let lastStatus = null;
/** @type {any} */ let lastPanel = null;

/** @param {any} report */
function renderStatus(report) {
  lastStatus = report;
  const status = $('status');
  status.textContent = LABELS[report.status] || report.status;
  status.className = `pill ${report.status}`;
  $('bridge').textContent = `Bridge: ${report.url}`;
  $('paired').textContent = report.pairing?.paired ? '· paired' : report.status === 'pairing' ? '· not paired' : '';
  showError(report.status !== 'ready' ? report.lastError || '' : '');
  renderPairing(report);
  renderApprovals(report.approvals || []);
}

/** When the last code was asked for (one request per few seconds while the popup is open). */
let askedCodeAt = 0;

/**
 * Not paired: show the code the bridge gave this browser and the command that confirms it. The code
 * comes only over this browser's own link, so typing it in the person's terminal is the confirmation.
 * @param {any} report
 */
function renderPairing(report) {
  const pairing = report.pairing || {};
  const open = report.status === 'pairing';
  $('pairing').hidden = !open;
  if (!open) return;
  $('pair-why').textContent = pairing.reason === 'unknown'
    ? 'The bridge does not know this browser\'s pairing (it was forgotten, or this is another bridge). To pair again, run this in a terminal:'
    : 'This browser is not paired with the bridge, so agents cannot use it yet. To pair, run this in a terminal:';
  if (pairing.code) {
    $('pair-command').textContent = `tabmcp pair ${pairing.code}`;
    const left = Math.max(0, Math.round((pairing.expiresAt - Date.now()) / 1000));
    $('pair-expiry').textContent = `The code is valid for ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} more.`;
  } else {
    $('pair-command').textContent = 'tabmcp pair …';
    $('pair-expiry').textContent = 'Asking the bridge for a code…';
    if (Date.now() - askedCodeAt > 3000) askCode();
  }
}

async function askCode() {
  askedCodeAt = Date.now();
  await ask({ type: MSG.pair });
}

/** @param {any[]} approvals */
function renderApprovals(approvals) {
  $('approvals').hidden = !approvals.length;
  update($('approval-list'), 'approvals', approvals, () =>
    approvals.map((q) =>
      el('li', { className: 'card', testid: 'approval', key: q.approvalId }, [
        el('p', {}, [el('strong', { text: q.title || q.tool }), ' ', el('code', { text: q.tool }),
          ` on ${q.origin}` + (q.frameId && q.topOrigin && q.topOrigin !== q.origin ? `, in a frame of ${q.topOrigin}` : '')]),
        el('p', { className: 'reason', text: q.reason }),
        el('pre', { className: 'args', text: JSON.stringify(q.arguments, null, 1) }),
        el('div', { className: 'buttons' }, [
          el('button', { type: 'button', testid: 'approval-deny', key: `deny:${q.approvalId}`, text: 'Deny',
            onclick: () => answerApproval(q.approvalId, false) }),
          el('button', { type: 'button', className: 'primary', testid: 'approval-allow', key: `allow:${q.approvalId}`,
            text: 'Allow', onclick: () => answerApproval(q.approvalId, true) }),
          q.hasWindow && el('button', { type: 'button', className: 'link', key: `win:${q.approvalId}`, text: 'Show window',
            onclick: () => ask({ type: MSG.focus, approvalId: q.approvalId }) }),
        ]),
      ]),
    ),
  );
}

/** @param {string} approvalId @param {boolean} approved */
async function answerApproval(approvalId, approved) {
  const answer = await ask({ type: MSG.answer, approvalId, approved });
  notice = !answer || !answer.ok ? 'That question was already answered or withdrawn.' : '';
  await refresh();
}

/** @param {any} state */
function renderPanel(state) {
  lastPanel = state;
  const c = state.controls;
  const pause = $('pause');
  pause.setAttribute('aria-pressed', String(c.paused)); // a toggle button: its label stays, its state is pressed
  $('paused-note').hidden = !c.paused;
  const writes = /** @type {HTMLInputElement} */ ($('writes'));
  writes.checked = c.writes ?? c.writesByConfig;
  writes.disabled = false;
  writes.title = c.writes === null ? 'as the bridge config says' : 'set by you';
  renderTrust(state.trust);
  renderActivity(state.activity);
}

/** @param {any} trust */
function renderTrust(trust) {
  const flags = trust.lockdown || [];
  const changed = trust.changed || [];
  $('trust').hidden = !flags.length && !changed.length;
  $('lockdown').hidden = !flags.length;
  if (flags.length) {
    const last = flags[flags.length - 1];
    $('lockdown-text').textContent =
      `Lockdown: a result of ${last.tool} on ${last.origin} looked like orders to the agent` +
      `${flags.length > 1 ? ` (and ${flags.length - 1} more)` : ''}: ${last.reasons.join('; ')}. ` +
      'Tools that may write need your approval until you clear it.';
  }
  update($('changed-list'), 'changed', changed, () =>
    changed.map((/** @type {any} */ r) => {
      const key = `${r.origin} ${r.tool}`;
      return el('li', { className: 'card', testid: 'changed-definition', key }, [
        el('p', {}, [el('code', { text: r.tool }), ` on ${r.origin} changed since it was first seen; it needs approval until you accept it.`]),
        el('details', { key: `diff:${key}` }, [
          el('summary', { text: 'Show the change', key: `sum:${key}` }),
          el('pre', { className: 'diff', testid: 'diff' }, diffLines(r.diff)),
        ]),
        el('button', { type: 'button', testid: 'accept', key: `accept:${key}`, text: 'Accept the change',
          onclick: () => control({ action: 'accept', origin: r.origin, tool: r.tool }) }),
      ]);
    }),
  );
}

/** @param {string} diff */
function diffLines(diff) {
  return diff.split('\n').map((line) => {
    const kind = line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : '';
    return el('span', { className: kind, text: `${line}\n` });
  });
}

/** @param {any[]} rows */
function renderActivity(rows) {
  $('no-activity').hidden = rows.length > 0;
  update($('activity'), 'activity', rows, () =>
    rows.map((r) => {
      const ok = r.outcome === 'ok';
      const when = clock(r.at);
      return el('li', { testid: 'activity-row', className: ok ? 'ok' : 'failed', title: `arguments: ${r.arguments}\nresult: ${r.result}` }, [
        el('span', { className: 'when', text: when }),
        el('span', { className: 'tool', text: r.tool }),
        el('span', { className: `outcome ${ok ? 'ok' : 'failed'}`, testid: 'activity-outcome', text: r.outcome }),
        el('span', { className: 'ms', text: `${Math.round(r.durationMs)} ms` }),
        el('span', { className: 'where muted', testid: 'activity-where', text: `${hostOf(r.origin)}${where(r)}${r.client ? ` · ${r.client}` : ''}` }),
        r.arguments && el('span', { className: 'args muted', text: r.arguments }),
      ]);
    }),
  );
}

/** A row's tab as this browser numbers it; a tab of another browser says which (the bridge names it),
 * and a call from before the bridge restarted says so (its browser is not known any more).
 * @param {{tabId: number | null, browser?: string, earlier?: boolean}} r */
function where(r) {
  if (r.earlier) return ' · before the bridge restarted, in any browser';
  if (r.tabId === null) return '';
  return ` · ${r.browser ? `${r.browser} tab` : 'tab'} ${r.tabId}`;
}

/** HH:MM:SS of an epoch-seconds time, local (Intl's formatter costs more than the row's DOM). @param {number} at */
function clock(at) {
  const d = new Date(at * 1000);
  const two = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** @param {string} origin */
function hostOf(origin) {
  try {
    return new URL(origin).host || origin;
  } catch {
    return origin || '?';
  }
}

/** The activity filter's choices: every tab with tools and every origin. */
function renderFilter() {
  const select = /** @type {HTMLSelectElement} */ ($('filter'));
  const tabs = (lastStatus?.tabs || []).filter((/** @type {any} */ t) => t.tools);
  const origins = [...new Set((lastPanel?.tabs || []).map((/** @type {any} */ d) => d.origin).filter(Boolean))].sort();
  const choices = [['', 'all tabs'], ...tabs.map((/** @type {any} */ t) => [`tab:${t.tabId}`, `tab: ${t.title || t.url}`]),
    ...origins.map((o) => [`origin:${o}`, `site: ${o}`])];
  const sig = JSON.stringify(choices);
  if (shown.filter === sig) return;
  shown.filter = sig;
  const value = select.value;
  select.replaceChildren(...choices.map(([v, label]) => el('option', { value: v, text: label })));
  select.value = choices.some(([v]) => v === value) ? value : '';
}

/** Per tab: counts, the origin's switch, and (expanded) every tool with why it is hidden. */
function renderTabs() {
  const tabs = [...(lastStatus?.tabs || [])].sort((a, b) => b.tools - a.tools || a.tabId - b.tabId);
  const docs = lastPanel?.tabs || [];
  const off = lastPanel?.controls.originsOff || [];
  const withTools = tabs.filter((t) => t.tools || (t.frames || []).some((/** @type {any} */ f) => f.tools));
  const empty = tabs.length - withTools.length;
  const open = new Set(docs.map((/** @type {any} */ d) => d.origin));
  const closedOff = off.filter((/** @type {string} */ o) => !open.has(o));
  const secrets = lastPanel?.secrets || {};
  update($('tabs'), 'tabs', { withTools, docs, off, empty, secrets }, () => [
    ...withTools.map((tab) => tabItem(tab, docs.filter((/** @type {any} */ d) => d.tabId === tab.tabId))),
    ...closedOff.map((/** @type {string} */ origin) => el('li', { className: 'tab', testid: 'origin-off', key: `off:${origin}` }, [
      originSwitch({ tabId: 'closed', origin, originOn: false }),
    ])),
    empty ? el('li', { className: 'muted', text: `${empty} other tab${empty > 1 ? 's' : ''} without tools` }) : null,
  ].filter((n) => n !== null));
}

/** @param {any} tab @param {any[]} docs */
function tabItem(tab, docs) {
  const framed = (tab.frames || []).filter((/** @type {any} */ f) => f.allowed && f.tools);
  const inFrames = framed.reduce((/** @type {number} */ n, /** @type {any} */ f) => n + f.tools, 0);
  const hidden = docs.reduce((n, d) => n + d.hiddenCount, 0);
  const top = docs.find((d) => d.frameId === 0);
  const summary = el('summary', { key: `sum:${tab.tabId}` }, [
    el('span', { className: `title${tab.active ? ' active' : ''}`, text: tab.title || tab.url || `tab ${tab.tabId}`, title: tab.url }),
    tab.running && el('span', { className: 'running', testid: 'running', text: '▶ running' }),
    tab.refused && el('span', { className: 'refused', testid: 'refused', text: ' ⚠ some tools refused', title: tab.refused }),
    tab.limits && tab.limits.length ? el('span', { className: 'refused', testid: 'limited',
      text: tab.limits.some((/** @type {any} */ l) => l.code === ERROR.TAB_FLOODED) ? ' ⚠ flooding: cut off' : ' ⚠ too large: refused',
      title: tab.limits.map((/** @type {any} */ l) => `${l.code}: ${l.message}`).join('\n') }) : null,
    el('span', { className: 'counts' }, [
      el('span', { testid: 'tool-count', className: 'n', text: inFrames ? `${tab.tools} + ${inFrames}` : String(tab.tools),
        title: framed.length ? framed.map((/** @type {any} */ f) => `${f.tools} in a frame of ${f.origin}`).join('\n') : 'tools' }),
      tab.tools + inFrames === 1 ? ' tool' : ' tools',
      ...(tab.categories ? [' in ', el('span', { testid: 'category-count', className: 'n', text: String(tab.categories) }),
        tab.categories === 1 ? ' category' : ' categories'] : []),
      hidden ? el('span', { className: 'hidden-count', testid: 'hidden-count', text: ` · ${hidden} hidden` }) : null,
    ]),
  ]);
  const body = docs.map((d) => d.detailed === false ? el('p', { className: 'muted', text: 'Loading…' }) : docInsight(d));
  if (!docs.length && tab.tools) body.push(el('p', { className: 'muted', text: 'The bridge is not connected: no details.' }));
  return el('li', { className: 'tab', testid: 'tab', key: `tab:${tab.tabId}` }, [
    el('details', { key: `tab:${tab.tabId}` }, [summary, ...body]),
    top && /^https?:/.test(top.origin) && originSwitch(top),
    top && secretNames(top.origin),
  ]);
}

/**
 * The secret names bound to a site (names only: the bridge never sends a value), each with a
 * button that unbinds it from this site (`control.set` unbind).
 * @param {string} origin
 */
function secretNames(origin) {
  const names = lastPanel?.secrets?.[origin] || [];
  if (!names.length) return null;
  return el('div', { className: 'secrets', testid: 'secrets', key: `secrets:${origin}` }, [
    el('span', { className: 'muted', text: `Secrets agents may name on ${origin}: ` }),
    ...names.map((/** @type {string} */ name) => el('span', { className: 'secret', testid: 'secret', key: `secret:${origin}:${name}` }, [
      el('code', { text: name }),
      el('button', { type: 'button', testid: 'unbind', key: `unbind:${origin}:${name}`, text: 'Unbind',
        'aria-label': `Unbind secret ${name} from ${origin}`,
        onclick: () => control({ action: 'unbind', origin, secret: name }) }),
    ])),
  ]);
}

/** @param {any} doc */
function originSwitch(doc) {
  const input = el('input', { type: 'checkbox', role: 'switch', testid: 'origin-switch', key: `origin:${doc.tabId}:${doc.origin}`,
    checked: doc.originOn || undefined,
    onchange: (/** @type {Event} */ e) =>
      control({ action: 'origin', origin: doc.origin, enabled: /** @type {HTMLInputElement} */ (e.target).checked }) });
  return el('label', { className: 'switch origin' }, [input, ` Agents may use ${doc.origin}`]);
}

/** @param {any} doc */
function docInsight(doc) {
  const byCategory = new Map();
  for (const t of doc.tools) {
    const list = byCategory.get(t.category) || [];
    list.push(t);
    byCategory.set(t.category, list);
  }
  if (!doc.originOn) {
    return el('div', { className: 'doc', testid: 'insight' }, [
      el('p', { className: 'banner paused', text: `You switched ${doc.origin} off: agents see none of its tools.` }),
      el('ul', { className: 'tools' }, doc.tools.map((/** @type {any} */ t) => toolItem(t, 'site switched off'))),
    ]);
  }
  const groups = [...byCategory].map(([cat, tools]) => {
    const info = doc.categories.find((/** @type {any} */ c) => c.name === cat);
    return el('li', { className: 'group' }, [
      cat ? el('p', { className: 'cat' }, [el('strong', { text: cat }), info ? ` — ${info.description}` : '']) : null,
      el('ul', { className: 'tools' }, tools.map((/** @type {any} */ t) => toolItem(t))),
    ]);
  });
  return el('div', { className: 'doc', testid: 'insight' }, [
    doc.frameId ? el('p', { className: 'muted', text: `In a frame of ${doc.origin}` }) : null,
    el('ul', { className: 'groups' }, groups),
    doc.toolCount > doc.tools.length ? el('p', { className: 'muted', text: `… and ${doc.toolCount - doc.tools.length} more` }) : null,
  ]);
}

/** @param {any} t @param {string} [why] the reason to show instead of the bridge's */
function toolItem(t, why) {
  const marks = [];
  if (!t.visible) marks.push(el('span', { className: 'mark hidden', testid: 'hidden-reason', text: `hidden: ${why || t.reason}` }));
  else if (t.code === ERROR.WRITES_DISABLED) marks.push(el('span', { className: 'mark warn', text: 'writes off' }));
  if (t.visible && t.needsApproval) marks.push(el('span', { className: 'mark warn', text: 'asks you first' }));
  if (t.changed) marks.push(el('span', { className: 'mark warn', text: 'definition changed' }));
  return el('li', { testid: 'insight-tool', className: t.visible ? '' : 'is-hidden', title: t.description }, [
    el('code', { text: t.publicName }), t.title ? ` ${t.title}` : '', ...marks,
  ]);
}

// ---- refresh ---------------------------------------------------------------------------------

/** Tabs the person opened: the bridge lists their tools one by one (the others: counts only). */
const expanded = new Set();
$('tabs').addEventListener('toggle', (e) => {
  const details = /** @type {HTMLDetailsElement} */ (e.target);
  const key = details.dataset.key || '';
  if (!key.startsWith('tab:')) return;
  const tabId = Number(key.slice(4));
  const had = expanded.has(tabId);
  if (details.open) expanded.add(tabId);
  else expanded.delete(tabId);
  if (had !== details.open) refresh();
}, true);

let refreshing = null;

/** One refresh at a time; a refresh asked meanwhile runs after it. */
function refresh() {
  refreshing = (refreshing || Promise.resolve()).then(refreshNow, refreshNow);
  return refreshing;
}

async function refreshNow() {
  const [report, panel] = await Promise.all([
    ask({ type: MSG.status }),
    ask({ type: MSG.panel, limit: ACTIVITY_ROWS, expanded: [...expanded], ...filter() }),
  ]);
  if (!document.body.dataset.ready) performance.mark('tabmcp-popup-data');
  if (report && report.status) renderStatus(report);
  // The switches act on the bridge: shown only once this browser is paired and the bridge answers.
  $('controls').hidden = !panel?.ok;
  if (panel && panel.ok && panel.state) {
    renderPanel(panel.state);
  } else {
    lastPanel = null;
    for (const id of ['pause', 'writes']) /** @type {HTMLButtonElement} */ ($(id)).disabled = true;
  }
  if (panel?.ok) for (const id of ['pause', 'writes']) /** @type {HTMLButtonElement} */ ($(id)).disabled = false;
  renderTabs();
  renderFilter();
  if (!document.body.dataset.ready) {
    document.body.dataset.ready = '1';
    performance.mark('tabmcp-popup-ready');
  }
}

$('pause').addEventListener('click', () => control({ action: $('pause').getAttribute('aria-pressed') === 'true' ? 'resume' : 'pause' }));
$('writes').addEventListener('change', (e) => control({ action: 'writes', enabled: /** @type {HTMLInputElement} */ (e.target).checked }));
$('clear-lockdown').addEventListener('click', () => control({ action: 'clear' }));
$('filter').addEventListener('change', () => refresh());
$('pair-new').addEventListener('click', async () => {
  await askCode();
  refresh();
});
$('reconnect').addEventListener('click', async () => {
  await ask({ type: MSG.reconnect });
  refresh();
});
$('options').addEventListener('click', (e) => {
  e.preventDefault();
  chrome.runtime.openOptionsPage();
});

refresh();
setInterval(refresh, REFRESH_MS);
const sitesSection = document.getElementById('sites');
if (sitesSection) {
  renderSites(sitesSection);
  setInterval(() => renderSites(sitesSection), REFRESH_MS);
}
