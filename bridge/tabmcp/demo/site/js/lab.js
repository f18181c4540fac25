// @ts-check
/**
 * Acme Back Office · Diagnostics lab (lab.html).
 *
 * Buttons that make the page log, throw, reject, fetch, open WebSockets, fill a sign-in form
 * and block the main thread, so browser telemetry has something to see. Each button has a
 * `data-action` (the scenario) and a `data-testid`; what happened is listed on the page.
 * The same scenarios are WebMCP tools (`lab_run`), with `lab_status` and `lab_reset`.
 * Talks to the demo server's JSON API (`/api/...`) and WebSocket echo (`/ws/echo`).
 */

/** @typedef {'info'|'ok'|'warn'|'error'} Level */
/** @typedef {{at: string, scenario: string, level: Level, text: string}} Entry */

const SCENARIOS = /** @type {const} */ ([
  'log-info', 'log-warn', 'log-error', 'throw-error', 'reject-promise',
  'fetch-users', 'fetch-create', 'fetch-missing', 'xhr-order',
  'ws-open', 'ws-send', 'ws-flood', 'ws-close', 'slow-task',
]);
const FLOOD = 200;
const SLOW_TASK_MS = 120;

const lab = {
  /** @type {Entry[]} newest last */
  entries: [],
  /** @type {WebSocket | null} */
  socket: null,
  sent: 0,
  received: 0,
  lastEcho: '',
  /** @type {(() => void) | null} resolves a flood when every echo came back */
  floodDone: null,
  floodTarget: 0,
  filter: new URL(location.href).searchParams.get('show') === 'problems' ? 'error' : 'all',
  signedInAs: '',
};

/** @param {string} testId */
const $ = (testId) => /** @type {HTMLElement} */ (document.querySelector(`[data-testid="${testId}"]`));

// ---------------------------------------------------------------- the list of what happened

/** @param {string} scenario @param {Level} level @param {string} text */
function note(scenario, level, text) {
  lab.entries.push({ at: new Date().toISOString().slice(11, 19), scenario, level, text });
  if (lab.entries.length > 100) lab.entries.shift();
  render();
}

function render() {
  const list = $('lab-log');
  const shown = lab.entries.filter((e) => lab.filter === 'all' || e.level === 'error' || e.level === 'warn');
  list.replaceChildren();
  if (!shown.length) {
    const empty = document.createElement('li');
    empty.className = 'lab-empty';
    empty.textContent = lab.entries.length ? 'No problems so far.' : 'Nothing yet: press a button above.';
    list.append(empty);
  }
  for (const e of shown.slice().reverse()) {
    const li = document.createElement('li');
    li.dataset.testid = 'lab-result';
    li.dataset.scenario = e.scenario;
    li.dataset.level = e.level;
    const time = document.createElement('time');
    time.textContent = e.at;
    const code = document.createElement('code');
    code.textContent = e.scenario;
    const what = document.createElement('span');
    what.className = 'what';
    what.textContent = e.text;
    li.append(time, code, what);
    list.append(li);
  }
  $('lab-count').textContent = String(lab.entries.length);
  for (const seg of document.querySelectorAll('[data-filter]')) {
    const on = /** @type {HTMLElement} */ (seg).dataset.filter === lab.filter;
    seg.classList.toggle('active', on);
    seg.setAttribute('aria-pressed', String(on));
  }
  const ws = lab.socket;
  $('ws-status').textContent = !ws ? 'closed' : ['connecting', 'open', 'closing', 'closed'][ws.readyState];
  $('ws-sent').textContent = String(lab.sent);
  $('ws-received').textContent = String(lab.received);
  $('ws-last').textContent = lab.lastEcho || '–';
}

// ---------------------------------------------------------------- scenarios

/** @param {string} path @param {RequestInit} [init] */
async function api(path, init) {
  const response = await fetch(path, init);
  const body = await response.json();
  return { response, body };
}

function openSocket() {
  if (lab.socket && lab.socket.readyState <= WebSocket.OPEN) return lab.socket;
  const url = new URL('/ws/echo', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(url);
  lab.socket = ws;
  ws.addEventListener('open', () => {
    note('ws-open', 'ok', `connected to ${url.pathname}`);
  });
  ws.addEventListener('message', (event) => {
    lab.received++;
    lab.lastEcho = String(event.data).slice(0, 60);
    if (lab.floodDone && lab.received >= lab.floodTarget) {
      const done = lab.floodDone;
      lab.floodDone = null;
      done();
    }
    render();
  });
  ws.addEventListener('close', (event) => {
    note('ws-close', 'info', `closed (code ${event.code}${event.reason ? `, ${event.reason}` : ''})`);
  });
  ws.addEventListener('error', () => note('ws-open', 'error', 'the WebSocket failed'));
  render();
  return ws;
}

/** @param {WebSocket} ws */
function whenOpen(ws) {
  if (ws.readyState === WebSocket.OPEN) return Promise.resolve(ws);
  return new Promise((resolve, reject) => {
    ws.addEventListener('open', () => resolve(ws), { once: true });
    ws.addEventListener('close', () => reject(new Error('the WebSocket closed before it opened')), { once: true });
  });
}

/** @param {WebSocket} ws @param {string} text */
function send(ws, text) {
  ws.send(text);
  lab.sent++;
}

/** @type {Record<string, () => Promise<string> | string>} */
const RUN = {
  'log-info': () => {
    console.info('[lab] info: inventory synced', { warehouse: 'north', items: 128, durationMs: 42 });
    return 'console.info';
  },
  'log-warn': () => {
    console.warn('[lab] warning: stock is low for %s (%d left)', 'SKU-101', 3);
    return 'console.warn';
  },
  'log-error': () => {
    console.error('[lab] error: payment failed for card 4111 1111 1111 1111', new Error('card declined'));
    return 'console.error (the card number must come out redacted)';
  },
  'throw-error': () => {
    setTimeout(() => {
      throw new Error('Lab: an uncaught exception from a button');
    });
    return 'threw an exception (see the browser console)';
  },
  'reject-promise': () => {
    Promise.reject(new Error('Lab: an unhandled promise rejection'));
    return 'rejected a promise nobody handles';
  },
  'fetch-users': async () => {
    const { response, body } = await api('/api/users');
    return `GET /api/users → ${response.status}, ${body.users.length} users`;
  },
  'fetch-create': async () => {
    const { response, body } = await api('/api/users', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer lab-demo-token-0123456789' },
      body: JSON.stringify({ name: 'Barbara Liskov', email: 'barbara@acme.test', password: 'correct horse battery staple' }),
    });
    return `POST /api/users → ${response.status}, created user ${body.user.id} (${body.user.name})`;
  },
  'fetch-missing': async () => {
    const { response, body } = await api('/api/missing-page');
    return `GET /api/missing-page → ${response.status} ${body.error}`;
  },
  'xhr-order': () => new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', '/api/orders/42');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.responseType = 'json';
    xhr.onload = () => resolve(`XHR GET /api/orders/42 → ${xhr.status}, ${xhr.response.order.status}, total ${xhr.response.order.total}`);
    xhr.onerror = () => reject(new Error('the XHR failed'));
    xhr.send();
  }),
  'ws-open': async () => {
    await whenOpen(openSocket());
    return 'the socket is open';
  },
  'ws-send': async () => {
    const ws = await whenOpen(openSocket());
    send(ws, JSON.stringify({ type: 'chat', text: 'hello from the lab', n: lab.sent + 1 }));
    return 'sent one message';
  },
  'ws-flood': async () => {
    const ws = await whenOpen(openSocket());
    const echoed = new Promise((resolve) => {
      lab.floodTarget = lab.received + FLOOD;
      lab.floodDone = () => resolve(undefined);
    });
    for (let i = 1; i <= FLOOD; i++) send(ws, `flood #${i}`);
    render();
    await echoed;
    return `sent ${FLOOD} messages, all ${FLOOD} echoed`;
  },
  'ws-close': () => {
    if (!lab.socket || lab.socket.readyState >= WebSocket.CLOSING) return 'no open socket';
    lab.socket.close(1000, 'closed from the lab');
    return 'closing the socket';
  },
  'slow-task': () => {
    const start = performance.now();
    while (performance.now() - start < SLOW_TASK_MS) {
      // busy: the main thread is blocked on purpose
    }
    return `blocked the main thread for ${Math.round(performance.now() - start)} ms`;
  },
};

/** Run one scenario and list its outcome. @param {string} scenario */
async function run(scenario) {
  const fn = RUN[scenario];
  if (!fn) throw new Error(`Unknown scenario "${scenario}"; one of: ${SCENARIOS.join(', ')}`);
  try {
    const text = await fn();
    const level = scenario.startsWith('log-error') || scenario === 'throw-error' || scenario === 'reject-promise' ? 'error'
      : scenario === 'log-warn' || scenario === 'fetch-missing' ? 'warn' : 'ok';
    note(scenario, level, text);
    return text;
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    note(scenario, 'error', text);
    throw e;
  }
}

function reset() {
  if (lab.socket && lab.socket.readyState <= WebSocket.OPEN) lab.socket.close(1000, 'lab reset');
  lab.socket = null;
  lab.entries = [];
  lab.sent = lab.received = 0;
  lab.lastEcho = '';
  lab.signedInAs = '';
  /** @type {HTMLFormElement} */ (document.querySelector('[data-testid="login-form"]')).reset();
  render();
}

function status() {
  const problems = lab.entries.filter((e) => e.level === 'error').length;
  return {
    results: lab.entries.length,
    problems,
    last: lab.entries.slice(-10),
    websocket: { state: $('ws-status').textContent, sent: lab.sent, received: lab.received },
    signedInAs: lab.signedInAs || null,
  };
}

// ---------------------------------------------------------------- page events

document.addEventListener('click', (event) => {
  const target = /** @type {Element} */ (event.target);
  const button = /** @type {HTMLElement | null} */ (target.closest('[data-action], [data-filter]'));
  if (!button) return;
  const { action, filter } = button.dataset;
  if (filter) {
    lab.filter = filter;
    const url = new URL(location.href);
    if (filter === 'all') url.searchParams.delete('show');
    else url.searchParams.set('show', 'problems');
    history.pushState({ show: filter }, '', url);
    render();
  } else if (action === 'lab-reset') {
    reset();
  } else if (action === 'clear-log') {
    lab.entries = [];
    render();
  } else if (action) {
    run(action).catch(() => {}); // listed on the page already
  }
});

window.addEventListener('popstate', () => {
  lab.filter = new URL(location.href).searchParams.get('show') === 'problems' ? 'error' : 'all';
  render();
});

document.querySelector('[data-testid="login-form"]')?.addEventListener('submit', (event) => {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  const data = new FormData(form);
  const user = String(data.get('username') || '').trim();
  const card = String(data.get('card') || '').replace(/\D/g, '');
  if (!user || !data.get('password')) {
    note('login', 'warn', 'enter a username and a password');
    return;
  }
  lab.signedInAs = user;
  note('login', 'ok', `signed in as ${user}${card ? ` (card ending ${card.slice(-4)})` : ''}`);
});

// ---------------------------------------------------------------- WebMCP tools

const TOOLS = [
  {
    name: 'lab_status',
    title: 'Lab status',
    description: 'What the Diagnostics lab did so far: results listed, problems, the WebSocket state and counters.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true },
    execute: () => status(),
  },
  {
    name: 'lab_run',
    title: 'Run a lab scenario',
    description: 'Make the page do one thing a telemetry tool should see: log, throw, reject, fetch, XHR, WebSocket traffic or a long task.',
    inputSchema: {
      type: 'object',
      properties: { scenario: { type: 'string', enum: [...SCENARIOS], description: 'Which scenario to run (same as the buttons).' } },
      required: ['scenario'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false },
    execute: async (/** @type {{scenario?: string}} */ input) => {
      const scenario = String(input && input.scenario);
      if (!(/** @type {readonly string[]} */ (SCENARIOS)).includes(scenario)) {
        throw new Error(`Unknown scenario "${scenario}"; one of: ${SCENARIOS.join(', ')}`);
      }
      return { scenario, result: await run(scenario) };
    },
  },
  {
    name: 'lab_reset',
    title: 'Reset the lab',
    description: 'Close the WebSocket, clear the list of results and the sign-in form.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: false, idempotentHint: true },
    execute: () => {
      reset();
      return 'The lab is reset.';
    },
  },
];

async function registerTools() {
  const mc = /** @type {any} */ (document).modelContext;
  const chip = $('webmcp-status');
  if (!mc || typeof mc.registerTool !== 'function') {
    chip.classList.add('off');
    chip.textContent = 'No WebMCP';
    return 0;
  }
  let count = 0;
  for (const tool of TOOLS) {
    try {
      await mc.registerTool(tool);
      count++;
    } catch (e) {
      console.error(`[lab] could not register ${tool.name}:`, e);
    }
  }
  chip.textContent = `WebMCP · ${count} tools`;
  chip.dataset.tools = String(count);
  return count;
}

render();
registerTools().finally(() => {
  document.body.dataset.ready = 'true';
});
