// GENERATED from bridge/tabmcp/protocol.py and errors.ErrorCode by `python -m tabmcp.protocol_js`.
// Do not edit: change the Python side and regenerate (bridge/tests/test_protocol_js.py checks it).
// docs/protocol.md describes every message for humans.
//
// A classic script with no exports, safe to load twice: listed before the page scripts in
// manifest.json, imported for its effect by protocol.js (service worker, extension pages).
// Every context reads the same frozen names from globalThis[Symbol.for('tabmcp.protocol')]. It ends with
// a copy of messages.js, for the page's main world (see tabmcp/protocol_js.py for why).
(() => {
  const KEY = Symbol.for('tabmcp.protocol');
  if (globalThis[KEY]) return;

  /** Bumped whenever a message or a field changes meaning. @type {number} */
  const PROTOCOL_VERSION = 1;

  /** Extension → bridge message types. */
  const OUT = Object.freeze({
    hello: 'hello',
    tabsSync: 'tabs.sync',
    tabUpdate: 'tab.update',
    tabClosed: 'tab.closed',
    callResult: 'call.result',
    approvalResult: 'approval.result',
    formsSet: 'forms.set',
    telemetry: 'telemetry',
    pageResult: 'page.result',
    siteStatus: 'site.status',
    sitePermission: 'site.permission',
    siteForget: 'site.forget',
    panelQuery: 'panel.query',
    controlSet: 'control.set',
    ping: 'ping',
    pong: 'pong',
    error: 'error',
  });

  /** Bridge → extension message types. */
  const IN = Object.freeze({
    welcome: 'welcome',
    callStart: 'call.start',
    callCancel: 'call.cancel',
    approvalRequest: 'approval.request',
    approvalWithdraw: 'approval.withdraw',
    telemetryConfig: 'telemetry.config',
    formsPolicy: 'forms.policy',
    pageQuery: 'page.query',
    siteOpen: 'site.open',
    sitesList: 'sites.list',
    panelState: 'panel.state',
    ping: 'ping',
    pong: 'pong',
    error: 'error',
  });

  /** Every error code on the wire and in tool results. */
  const ERROR = Object.freeze({
    PROTOCOL_ERROR: 'PROTOCOL_ERROR',
    MALFORMED_MESSAGE: 'MALFORMED_MESSAGE',
    UNKNOWN_TYPE: 'UNKNOWN_TYPE',
    PROTOCOL_MISMATCH: 'PROTOCOL_MISMATCH',
    NOT_READY: 'NOT_READY',
    UNAUTHORIZED: 'UNAUTHORIZED',
    FLOODED: 'FLOODED',
    TAB_FLOODED: 'TAB_FLOODED',
    TOO_LARGE: 'TOO_LARGE',
    INVALID_TOOL: 'INVALID_TOOL',
    INTERNAL_ERROR: 'INTERNAL_ERROR',
    TOOL_ERROR: 'TOOL_ERROR',
    TOOL_NOT_FOUND: 'TOOL_NOT_FOUND',
    VALIDATION_ERROR: 'VALIDATION_ERROR',
    WRITES_DISABLED: 'WRITES_DISABLED',
    APPROVAL_DENIED: 'APPROVAL_DENIED',
    OUT_OF_SCOPE: 'OUT_OF_SCOPE',
    TIMEOUT: 'TIMEOUT',
    TAB_CLOSED: 'TAB_CLOSED',
    TAB_NAVIGATED: 'TAB_NAVIGATED',
    EXTENSION_DISCONNECTED: 'EXTENSION_DISCONNECTED',
    CANCELLED: 'CANCELLED',
    PAGE_ERROR: 'PAGE_ERROR',
    BAD_RESULT: 'BAD_RESULT',
    AXE_MISSING: 'AXE_MISSING',
    SITE_NOT_REACHABLE: 'SITE_NOT_REACHABLE',
    SITE_NOT_REGISTERED: 'SITE_NOT_REGISTERED',
    SITE_TOOL_GONE: 'SITE_TOOL_GONE',
    SITE_REDIRECTED: 'SITE_REDIRECTED',
    PAUSED: 'PAUSED',
    AXE_FAILED: 'AXE_FAILED',
    INVALID_SELECTOR: 'INVALID_SELECTOR',
    UNKNOWN_QUERY: 'UNKNOWN_QUERY',
    QUERY_FAILED: 'QUERY_FAILED',
  });

  /** The kinds of live page queries. */
  const QUERY = Object.freeze({
    dom: 'dom',
    page: 'page',
    axe: 'axe',
    vitals: 'vitals',
  });

  Object.defineProperty(globalThis, KEY, {
    value: Object.freeze({ PROTOCOL_VERSION, OUT, IN, ERROR, QUERY }),
  });
})();

// ---- payloads ----

/**
 * Why something failed: a named ``code`` (``ErrorCode``), a message, optional details.
 * @typedef {object} ErrorBody
 * @property {string} code
 * @property {string} message
 * @property {Object<string, *>} [details]
 */

/**
 * A child frame's document, reported only when the top page allows its origin to offer tools. The extension decides that (the frame is same-origin with the top page, or the top page's ``<iframe allow="tools ...">`` names its origin); ``origin`` comes from Chrome, not the frame.
 * @typedef {object} FrameSnapshot
 * @property {number} frameId
 * @property {string} [documentId]
 * @property {string} [origin]
 * @property {string} [url]
 * @property {string} [title]
 * @property {Array<*>} [tools]
 * @property {Array<*>} [categories]
 * @property {Array<*>} [states]
 */

/**
 * A page's ordinary forms described as tools by the extension's page script, sent only for origins whose forms-as-tools switch the bridge said is on (``forms.policy``). ``origin`` is Chrome's word for the page's origin (its port's ``sender.origin``), not the page's; the bridge decides on it again (``core/page_forms.py``). ``tools`` stay raw, like ``tools``.
 * @typedef {object} PageForms
 * @property {string} [origin]
 * @property {Array<*>} [tools]
 */

/**
 * Everything the bridge needs to know about one tab's top-level document. ``tools`` and ``categories`` stay raw dicts here: the registry validates each one on its own so that a single bad tool is rejected without losing the rest of the tab.
 * @typedef {object} TabSnapshot
 * @property {number} tabId
 * @property {number} [windowId]
 * @property {string} [origin] Chrome's word for the top document's origin (its port's ``sender.origin``), never the page's: the bridge decides per-origin rules on it, and does not trust a ``url`` of another origin (a page script can post a snapshot claiming any URL).
 * @property {string} [url]
 * @property {string} [title]
 * @property {string} [documentId]
 * @property {boolean} [active]
 * @property {boolean} [focused] Active in the browser's focused window: the tab the person looks at.
 * @property {boolean} [native] True when the page runs Chromium's native ``document.modelContext``.
 * @property {Array<*>} [tools]
 * @property {Array<*>} [categories]
 * @property {Array<*>} [states]
 * @property {Array<FrameSnapshot>} [frames] Child frames whose tools the top page allows (see :class:`FrameSnapshot`); at most ``MAX_FRAMES_PER_TAB``, the rest are ignored.
 * @property {PageForms} [forms] The top document's ordinary forms as tools, when its origin's forms-as-tools switch is on.
 */

/**
 * One say about forms-as-tools, applied in order (the last match wins).
 * @typedef {object} FormsPolicyRule
 * @property {string} match An origin glob from ``[[policy.origins]]`` or an exact origin the person chose.
 * @property {boolean} enabled
 * @property {'config'|'person'} source
 */

// ---- extension → bridge ----

/**
 * The extension's first message on a connection; the bridge answers ``welcome`` or an error.
 * @typedef {object} Hello
 * @property {'hello'} type
 * @property {number} protocol
 * @property {string} [extensionVersion]
 * @property {string} [extensionId]
 * @property {string} [browser]
 * @property {string} [instanceId] Random per service-worker start: tells a reconnect from a restart in the logs.
 * @property {string} [token]
 * @property {boolean} [batch] The extension reads frames holding several messages, one per line, and would send such frames too (the bridge says in ``welcome`` whether it reads them).
 */

/**
 * The full state of every tab; replaces whatever the bridge knew (sent after each connect). A sync too large for one frame comes in parts: each but the last says ``more``; the tabs of all of them together are the full state, applied when the last arrives.
 * @typedef {object} TabsSync
 * @property {'tabs.sync'} type
 * @property {Array<TabSnapshot>} tabs
 * @property {boolean} [more] More parts of this sync follow (the extension splits a sync that would not fit one frame).
 */

/**
 * One tab changed: opened, navigated (also SPA routes), tools, categories or states.
 * @typedef {object} TabUpdate
 * @property {'tab.update'} type
 * @property {TabSnapshot} tab
 */

/**
 * A tab closed: its tools go, and its pending requests end with ``TAB_CLOSED``.
 * @typedef {object} TabClosed
 * @property {'tab.closed'} type
 * @property {number} tabId
 */

/**
 * The outcome of a ``call.start``. ``result`` is an MCP CallToolResult object.
 * @typedef {object} CallResult
 * @property {'call.result'} type
 * @property {string} callId
 * @property {boolean} ok
 * @property {Object<string, *>} [result]
 * @property {ErrorBody} [error]
 * @property {Array<*>} [trace] The call's ``trace`` with the extension's stamps added (debug mode only, see ``CallStart``).
 */

/**
 * The person's answer to an ``approval.request`` (or why nobody answered).
 * @typedef {object} ApprovalResult
 * @property {'approval.result'} type
 * @property {string} approvalId
 * @property {boolean} approved
 * @property {string} [reason]
 */

/**
 * The person turned forms-as-tools on or off for one origin in the extension's popup; the bridge keeps the choice (SQLite) and answers every extension with a new ``forms.policy``.
 * @typedef {object} FormsSet
 * @property {'forms.set'} type
 * @property {string} origin
 * @property {boolean} enabled
 */

/**
 * A batch of captured events from one tab (the event shapes are in docs/telemetry.md).
 * @typedef {object} Telemetry
 * @property {'telemetry'} type
 * @property {number} tabId
 * @property {string} [documentId]
 * @property {string} [url]
 * @property {Array<*>} [events]
 * @property {Object<string, number>} [dropped]
 */

/**
 * The answer to a ``page.query`` (a live DOM query, page facts, an axe-core audit).
 * @typedef {object} PageResult
 * @property {'page.result'} type
 * @property {string} requestId
 * @property {boolean} ok
 * @property {*} [result]
 * @property {ErrorBody} [error]
 */

/**
 * How a ``site.open`` goes: the tab was ``opened`` (``tabId``), its page ``loaded``, it was ``redirected`` to another origin (the extension closed it), or opening ``failed``.
 * @typedef {object} SiteStatus
 * @property {'site.status'} type
 * @property {string} requestId
 * @property {'opened'|'loaded'|'redirected'|'failed'} state
 * @property {number} [tabId]
 * @property {string} [url]
 * @property {string} [message]
 */

/**
 * The person, in the extension's popup, lets agents open ``origin`` (or no longer does). Only the extension's own pages send it: a web page cannot make its site reachable.
 * @typedef {object} SitePermission
 * @property {'site.permission'} type
 * @property {string} origin
 * @property {boolean} reachable
 */

/**
 * The person, in the popup, forgets a site: its stored definitions, usage and permission.
 * @typedef {object} SiteForget
 * @property {'site.forget'} type
 * @property {string} origin
 */

/**
 * The popup asks what the person should see: their switches, activity (newest first, optionally of one tab or origin), per-tab insight, pending trust decisions. Answered by ``panel.state``. Only the extension link can ask (agents have no way to send it).
 * @typedef {object} PanelQuery
 * @property {'panel.query'} type
 * @property {string} requestId
 * @property {number} [tabId]
 * @property {string} [origin]
 * @property {number} [limit] How many activity rows, newest first.
 * @property {Array<number>} [expanded] Tabs whose tools to list one by one (the ones the person opened); the others get counts only.
 */

/**
 * The person flipped a switch in the popup; answered by ``panel.state`` (the state after it). ``action``: ``pause`` / ``resume`` (every agent call answers ``PAUSED`` meanwhile), ``writes`` (``enabled``: true, false, or null for the config's setting), ``origin`` (``origin`` + ``enabled``: that origin's tools shown to agents or hidden), ``accept`` (``origin`` + ``tool``: pin a changed definition), ``clear`` (end the lockdown). Only the extension link can send it: no MCP tool changes these.
 * @typedef {object} ControlSet
 * @property {'control.set'} type
 * @property {string} requestId
 * @property {'pause'|'resume'|'writes'|'origin'|'accept'|'clear'} action
 * @property {boolean} [enabled]
 * @property {string} [origin]
 * @property {string} [tool]
 */

/**
 * Either side, any time; answered with a ``pong`` carrying the same ``ts``.
 * @typedef {object} Ping
 * @property {'ping'} type
 * @property {number} [ts]
 */

/**
 * The answer to a ``ping``.
 * @typedef {object} Pong
 * @property {'pong'} type
 * @property {number} [ts]
 */

/**
 * A named error about a frame the other side sent (``ref`` names it when possible).
 * @typedef {object} WireError
 * @property {'error'} type
 * @property {string} code
 * @property {string} message
 * @property {string} [ref]
 */

// ---- bridge → extension ----

/**
 * The bridge accepted the ``hello``: the link is ready (a ``tabs.sync`` should follow).
 * @typedef {object} Welcome
 * @property {'welcome'} type
 * @property {number} [protocol]
 * @property {string} bridgeVersion
 * @property {string} sessionId
 * @property {number} [heartbeatMs] How often the extension should ping: under MV3's 30 s idle limit, so the worker stays alive.
 * @property {boolean} [batch] Answers ``hello.batch``: from now on both sides may join messages into one frame, one per line (JSON text holds no raw newline), and split every frame they read.
 */

/**
 * Run a page tool in a tab (or one of its allowed frames); answered by ``call.result``.
 * @typedef {object} CallStart
 * @property {'call.start'} type
 * @property {string} callId
 * @property {number} tabId
 * @property {string} [documentId]
 * @property {number} [frameId] The child frame whose tool this is; absent for the tab's top-level document.
 * @property {string} tool The tool's name as the page registered it (not the bridge's public name).
 * @property {Object<string, *>} arguments
 * @property {number} timeoutMs
 * @property {'form'} [source] ``form``: a page form (``TabSnapshot.forms``), run by the extension's forms script; absent: a WebMCP tool, run through the page's ``document.modelContext``.
 * @property {Array<*>} [trace] Debug mode only (``TABMCP_TRACE=1``): ``[hop, epoch ms]`` stamps so far; each hop that relays the call appends its own and ``call.result`` carries the list back.
 */

/**
 * The bridge gave up on a call (timeout, the MCP client cancelled): the page gets ``toolcancel``.
 * @typedef {object} CallCancel
 * @property {'call.cancel'} type
 * @property {string} callId
 * @property {string} [reason]
 */

/**
 * Ask the person at a tab whether a tool may run (when the MCP client cannot ask).
 * @typedef {object} ApprovalRequest
 * @property {'approval.request'} type
 * @property {string} approvalId
 * @property {number} tabId
 * @property {string} tool
 * @property {string} title
 * @property {string} [description]
 * @property {Object<string, *>} arguments
 * @property {string} reason
 * @property {number} timeoutMs
 * @property {string} [origin] The origin of the document that offers the tool (a frame's own origin for frame tools).
 */

/**
 * An ``approval.request`` ended without the person's answer (timeout, the call was cancelled): the extension removes the question from the page.
 * @typedef {object} ApprovalWithdraw
 * @property {'approval.withdraw'} type
 * @property {string} approvalId
 * @property {string} [reason]
 */

/**
 * The page-side capture's settings: sent after ``welcome`` and whenever they change; the extension keeps the latest and hands it to every page (see ``TelemetrySettings.page_config``).
 * @typedef {object} TelemetryConfig
 * @property {'telemetry.config'} type
 * @property {Object<string, *>} config
 */

/**
 * Which origins have forms-as-tools on: sent after ``welcome`` and whenever it changes. The extension scans ordinary forms only on matching pages; the bridge checks again on every listing and call.
 * @typedef {object} FormsPolicy
 * @property {'forms.policy'} type
 * @property {Array<FormsPolicyRule>} [rules]
 */

/**
 * Ask a tab's page something live: ``dom`` (query_dom), ``page`` (facts), ``axe`` (audit), ``vitals``.
 * @typedef {object} PageQuery
 * @property {'page.query'} type
 * @property {string} requestId
 * @property {number} tabId
 * @property {'dom'|'page'|'axe'|'vitals'} kind
 * @property {Object<string, *>} [args]
 * @property {number} timeoutMs
 */

/**
 * Open a reachable site's URL for the agent: a background tab (never focused, the window never raised) in the agent tabs' group; answered by ``site.status`` messages. The tab rules travel with it: at most ``maxAgentTabs`` agent tabs (least recently used closed first), each closed after ``idleCloseMs`` without a call unless the person took it over.
 * @typedef {object} SiteOpen
 * @property {'site.open'} type
 * @property {string} requestId
 * @property {string} url
 * @property {string} origin
 * @property {number} timeoutMs
 * @property {number} [maxAgentTabs]
 * @property {number} [idleCloseMs]
 * @property {string} [groupTitle]
 * @property {boolean} [focus] ``open_page(focus=true)``: bring an existing tab of the site to the front instead, if there is one.
 */

/**
 * The reachable sites and their stored tools (``Sites.list``), for the popup: sent after ``welcome`` and whenever they change.
 * @typedef {object} SitesList
 * @property {'sites.list'} type
 * @property {Array<Object<string, *>>} sites
 */

/**
 * The answer to ``panel.query`` and ``control.set``: ``state`` is what the popup shows (docs/protocol.md lists its fields), or ``error`` says why the request was refused.
 * @typedef {object} PanelState
 * @property {'panel.state'} type
 * @property {string} requestId
 * @property {boolean} [ok]
 * @property {Object<string, *>} [state]
 * @property {ErrorBody} [error]
 */

// ---- the extension's internal messages: a verbatim copy of messages.js ----

// The extension's internal messages, named once: service worker ⇄ content script (over the
// page's port) ⇄ page scripts (window.postMessage), and the extension's own pages (popup,
// approval window) ⇄ service worker (chrome.runtime.sendMessage). The wire protocol with the
// bridge and every error code are in protocol.generated.js.
//
// A classic script with no exports, safe to load twice, so every context can load it: listed
// before content.js in manifest.json, imported for its effect by protocol.js (service worker,
// extension pages), copied at the end of protocol.generated.js for the page scripts (Chrome runs
// a file once per frame whatever the world, so the page's main world cannot list this one too;
// `python -m tabmcp.protocol_js` rewrites the copy, a test fails when it is stale). All read
// the same frozen names from globalThis[Symbol.for('tabmcp.messages')]; no other part of the
// extension spells a message type.
(() => {
  const KEY = Symbol.for('tabmcp.messages');
  if (globalThis[KEY]) return;

  /** Messages between the service worker, the content script and the page scripts. */
  const PAGE = Object.freeze({
    /** page → worker: the page's tools, categories and states. */
    snapshot: 'snapshot',
    /** worker → page: run a tool {callId, tool, arguments}; page → worker: its `result`. */
    call: 'call',
    result: 'result',
    /** worker → page: stop a running call {callId, reason}. */
    cancel: 'cancel',
    /** page → worker: a batch of captured events (relayed as the wire's `telemetry`). */
    telemetry: 'telemetry',
    /** worker → page: the bridge's capture settings and redaction rules. */
    telemetryConfig: 'telemetry.config',
    /** worker → page: a live query {requestId, kind, args}; page → worker: `page.result`. */
    pageQuery: 'page.query',
    pageResult: 'page.result',
    /** Never relayed: approvals are asked in the extension's own window (approval/approvals.js). */
    approval: 'approval',
    /** content script → page: the worker (re)connected, send a fresh snapshot. */
    resync: 'resync',
    /** worker → page: definitions the bridge refused {message}; the page logs why to its console. */
    refused: 'refused',
    /** worker → page (page/forms.js): whether this origin's forms-as-tools switch is on {enabled}. */
    formsPolicy: 'forms.policy',
    /** page → worker: the page's ordinary forms as tool definitions {tools} (only while the switch is on). */
    forms: 'forms',
    /** worker → page: fill in and submit a page form {callId, tool, arguments}; answered by `result`. */
    formCall: 'form.call',
    /** content script → worker (never a page's: content.js relays only what a page sends): the
     * frame's telemetry went past its rate for long and is cut off {reason: 'flood', rate, dropped}. */
    limited: 'limited',
  });

  /**
   * The window.postMessage envelope between the content script and the page scripts:
   * `{[ENVELOPE.key]: ENVELOPE.page | ENVELOPE.content, msg}`, named by who sends it.
   */
  const ENVELOPE = Object.freeze({ key: '__tabmcp', page: 'page', content: 'content' });

  /**
   * The call path between the content script and the page agent (page/agent.js): a CustomEvent
   * on the window, dispatched synchronously, its `detail` the message as JSON text (a string
   * crosses the two worlds as is). `toPage` carries `call` and `cancel`, `toContent` the agent's
   * `result`. A window.postMessage costs a task, a structured clone and every window `message`
   * listener of both worlds, each way, per call; an event costs a dispatch. Everything else
   * (snapshots, telemetry, queries, forms) keeps the envelope above.
   */
  const CALL_EVENT = Object.freeze({ toPage: 'tabmcp-call', toContent: 'tabmcp-call-result' });

  /** The name of the port each page's content script opens to the worker. */
  const PAGE_PORT = 'tabmcp-page';

  /** Messages from the extension's own pages (popup, approval window, options) and tests to the worker. */
  const RUNTIME = Object.freeze({
    status: 'tabmcp.status',
    reconnect: 'tabmcp.reconnect',
    /** The approval window asks for its question {approvalId} and gives the person's answer. */
    approvalGet: 'tabmcp.approval.get',
    approvalAnswer: 'tabmcp.approval.answer',
    /** popup → worker: the reachable sites (the bridge's sites.list) and the active tab's origin. */
    sites: 'tabmcp.sites',
    /** popup → worker: {origin, reachable}: agents may (not) open this site (relayed as site.permission). */
    sitePermission: 'tabmcp.site.permission',
    /** popup → worker: {origin}: forget the site (relayed as site.forget). */
    siteForget: 'tabmcp.site.forget',
    /** The popup lists the open questions, and brings a question's window to the front {approvalId}. */
    approvalList: 'tabmcp.approval.list',
    approvalFocus: 'tabmcp.approval.focus',
    /** The popup asks the bridge what to show {tabId?, origin?, limit, expanded} (wire: panel.query). */
    panelQuery: 'tabmcp.panel.query',
    /** The popup flips a switch {action, enabled?, origin?, tool?} (wire: control.set). */
    controlSet: 'tabmcp.control.set',
    /** The popup's forms-as-tools section: the rules and one origin's switch {origin}, and the
     * person turning it on or off {origin, enabled}. */
    formsStatus: 'tabmcp.forms.status',
    formsSet: 'tabmcp.forms.set',
  });

  Object.defineProperty(globalThis, KEY, { value: Object.freeze({ PAGE, ENVELOPE, CALL_EVENT, PAGE_PORT, RUNTIME }) });
})();
