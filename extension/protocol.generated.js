// GENERATED from bridge/tabmcp/protocol.py and errors.REGISTRY by `python -m tabmcp.protocol_js`.
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
  const PROTOCOL_VERSION = 2;

  /** Extension → bridge message types. */
  const OUT = Object.freeze({
    hello: 'hello',
    pairRequest: 'pair.request',
    tabsSync: 'tabs.sync',
    tabUpdate: 'tab.update',
    chunk: 'chunk',
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
    pairRequired: 'pair.required',
    pairCode: 'pair.code',
    pairDone: 'pair.done',
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
    chunkRead: 'chunk.read',
    ping: 'ping',
    pong: 'pong',
    error: 'error',
  });

  /** Every error code on the wire and in tool results (tabmcp/errors.py; docs/protocol.md#error-codes). */
  const ERROR = Object.freeze({
    PROTOCOL_ERROR: 'PROTOCOL_ERROR', // The extension sent something the wire protocol does not allow.
    MALFORMED_MESSAGE: 'MALFORMED_MESSAGE', // Not JSON, not an object, or fields of the wrong shape.
    UNKNOWN_TYPE: 'UNKNOWN_TYPE', // A `type` this protocol version does not define.
    PROTOCOL_MISMATCH: 'PROTOCOL_MISMATCH', // The extension speaks another protocol version (the connection is closed).
    NOT_READY: 'NOT_READY', // A message before the `hello` handshake.
    UNAUTHORIZED: 'UNAUTHORIZED', // A wrong or missing extension token or control key (the connection is closed).
    NOT_PAIRED: 'NOT_PAIRED', // A message other than pairing from a link the person never paired (`tabmcp pair`).
    FLOODED: 'FLOODED', // A connection sent more messages than any tab rule explains: told so, then closed (1008).
    TAB_FLOODED: 'TAB_FLOODED', // One tab sent past its rate: throttled, then cut off alone (its tools kept, the link untouched).
    TOO_LARGE: 'TOO_LARGE', // A definition, a tab or a result over its size limit: refused by name before it was sent.
    INVALID_TOOL: 'INVALID_TOOL', // A tool definition the bridge refuses (its neighbours kept).
    UNKNOWN_REVISION: 'UNKNOWN_REVISION', // A sync kept a tab by a revision the bridge does not hold: the sync is refused whole, the extension sends every tab.
    INTERNAL_ERROR: 'INTERNAL_ERROR', // A bug in the bridge: logged with its traceback; the agent gets the exception's type only.
    TOOL_ERROR: 'TOOL_ERROR', // A tool call failed; `code` is what the agent sees.
    TOOL_NOT_FOUND: 'TOOL_NOT_FOUND', // No tool has this name (with the closest names).
    TOOL_GONE: 'TOOL_GONE', // The name meant an origin's tool that left; names never move to another origin, so nothing ran.
    VALIDATION_ERROR: 'VALIDATION_ERROR', // The arguments do not match the schema (which field, what was expected).
    WRITES_DISABLED: 'WRITES_DISABLED', // Writes are off (with the setting that enables them).
    APPROVAL_DENIED: 'APPROVAL_DENIED', // The person said no, or could not be asked.
    PAUSED: 'PAUSED', // The person paused all agent access (the popup, or `tabmcp controls pause`).
    OUT_OF_SCOPE: 'OUT_OF_SCOPE', // Page state, route or policy rules the call out.
    TIMEOUT: 'TIMEOUT', // The request's deadline passed.
    TAB_CLOSED: 'TAB_CLOSED', // The request's tab closed.
    TAB_NAVIGATED: 'TAB_NAVIGATED', // The page unloaded or the tab moved to another document during the request.
    EXTENSION_DISCONNECTED: 'EXTENSION_DISCONNECTED', // The link the request was sent on closed or was replaced.
    CANCELLED: 'CANCELLED', // The asker gave up (the MCP client cancelled).
    PAGE_ERROR: 'PAGE_ERROR', // The page's tool or query failed: its message, code and details, as page data.
    BAD_RESULT: 'BAD_RESULT', // The page returned something unusable.
    SITE_NOT_REACHABLE: 'SITE_NOT_REACHABLE', // The person did not let agents open this site (popup, or `[[policy.origins]] reachable`).
    SITE_NOT_REGISTERED: 'SITE_NOT_REGISTERED', // The page opened for a call did not register the tool within `sites.open_timeout_s`.
    SITE_TOOL_GONE: 'SITE_TOOL_GONE', // The page opened for a call loaded and settled without the tool (marked stale).
    SITE_REDIRECTED: 'SITE_REDIRECTED', // The page went to another origin: its tab was closed, nothing was called.
    SECRET_NOT_BOUND: 'SECRET_NOT_BOUND', // A `{{secret:NAME}}` argument names a secret not bound to the tool's origin; nothing was sent.
    SECRET_TOOL_CHANGED: 'SECRET_TOOL_CHANGED', // The tool's definition changed since the person accepted it: no secret goes into it.
    AXE_MISSING: 'AXE_MISSING', // The extension could not load axe-core into the page (an accessibility audit).
    AXE_FAILED: 'AXE_FAILED', // axe-core ran in the page and threw.
    INVALID_SELECTOR: 'INVALID_SELECTOR', // A page query's selector is empty or not valid CSS.
    UNKNOWN_QUERY: 'UNKNOWN_QUERY', // A page query of a kind the page does not answer.
    QUERY_FAILED: 'QUERY_FAILED', // The page could not answer a query (or send its answer).
    SNAPSHOT_NOT_FOUND: 'SNAPSHOT_NOT_FOUND', // `configure(load_snapshot)` named a snapshot that is not in the session store.
    SNAPSHOT_UNREADABLE: 'SNAPSHOT_UNREADABLE', // A stored snapshot is corrupt or was written by an incompatible version.
    SESSION_STORE_ERROR: 'SESSION_STORE_ERROR', // The SQLite session store failed, or none was configured for a snapshot action.
    PAIRING_CODE_WRONG: 'PAIRING_CODE_WRONG', // No pending pairing request has the code typed (or it expired).
    PAIRING_LOCKED: 'PAIRING_LOCKED', // Too many wrong codes in a row: every pending code is void (ask for a new one in the popup).
    PAIRING_BUSY: 'PAIRING_BUSY', // Too many pairing requests are pending at once (ask again in a few minutes).
    PAIRING_UNKNOWN: 'PAIRING_UNKNOWN', // No pairing has this id (`tabmcp pair --forget`).
  });

  /** The kinds of live page queries. */
  const QUERY = Object.freeze({
    dom: 'dom',
    page: 'page',
    axe: 'axe',
    vitals: 'vitals',
  });

  /** The capture kinds (tabmcp/capture/kinds.py): where each is kept, and how many events of it
   * the page holds between two batches (beyond, they are counted as dropped). */
  const KINDS = Object.freeze({
    error: Object.freeze({ buffer: 'errors', pageCap: 100 }),
    console: Object.freeze({ buffer: 'logs', pageCap: 300 }),
    network: Object.freeze({ buffer: 'network', pageCap: 100 }),
    websocket: Object.freeze({ buffer: 'websocket', pageCap: 300 }),
    action: Object.freeze({ buffer: 'actions', pageCap: 100 }),
    vitals: Object.freeze({ buffer: 'vitals', pageCap: 10 }),
    longtask: Object.freeze({ buffer: 'longtasks', pageCap: 50 }),
    navigation: Object.freeze({ buffer: 'navigations', pageCap: 30 }),
  });

  /** The fixed shapes both sides redact by (tabmcp/core/telemetry/redact.py PAGE_PATTERNS):
   * `new RegExp(source, flags)`. */
  const PATTERNS = Object.freeze({
    cardRun: Object.freeze({"source": "(?<![\\d-])(?:\\d[ \u00a0\u1680\u2000-\u200d\u2060\u202f\u205f\u3000\ufeff-]?){12,18}\\d(?![\\d-])", "flags": ""}),
    cardPrefix: Object.freeze({"source": "^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|35|6(?:011|5|4[4-9]|22))", "flags": ""}),
    sensitiveHint: Object.freeze({"source": "pass(?:word|wd|code|phrase)?|secret|token|card|cvv|cvc|ssn|pin\\b|otp|mfa|(?<![a-z])pw(?![a-z])", "flags": "i"}),
    form: Object.freeze({"source": "^[\\w.\\-\\[\\]%+]+=[^&\\s]*(?:&[\\w.\\-\\[\\]%+]+=[^&\\s]*)*$", "flags": ""}),
    fieldGaps: Object.freeze({"source": "[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200d\\u2028\\u2029\\u202f\\u205f\\u2060\\u3000\\ufeff-]+", "flags": ""}),
    fieldCard: Object.freeze({"source": "^[0-9]{13,19}$", "flags": ""}),
    keyGaps: Object.freeze({"source": "[-_.\\s\\x1c-\\x1f\\x85]", "flags": ""}),
    jsonStart: Object.freeze({"source": "^\\s*(?:\\{\\s*(?:\"|\\})|\\[\\s*(?:[\\][\"{\\d-]|true|false|null))", "flags": ""}),
    jsonEnd: Object.freeze({"source": "[}\\]]\\s*$", "flags": ""}),
    urlPassword: Object.freeze({"source": "^(?<scheme>(?:[a-z][a-z0-9+.\\-]*:)?//)(?<user>[^/?#:]*):(?<password>[^/?#]*)@", "flags": "i"}),
  });

  /** The rules that end a pending request before its answer (tabmcp/core/end_rules.py, one table
   * with the bridge's session): the code it ends with, and whether the worker reports that end. */
  const END_RULES = Object.freeze({
    timeout: Object.freeze({ code: 'TIMEOUT', reported: true }), // its deadline passed
    cancel: Object.freeze({ code: 'CANCELLED', reported: false }), // the asker gave up (the MCP client; for the worker, the bridge's call.cancel or approval.withdraw)
    tabClosed: Object.freeze({ code: 'TAB_CLOSED', reported: true }), // its tab closed
    navigated: Object.freeze({ code: 'TAB_NAVIGATED', reported: true }), // its page or frame unloaded or was replaced by another document
    bridgeGone: Object.freeze({ code: 'EXTENSION_DISCONNECTED', reported: false }), // the link between the bridge and the extension dropped
    leftOrigin: Object.freeze({ code: 'SITE_REDIRECTED', reported: true }), // its tab is an agent tab that left the origin it was opened for (closed)
  });

  /** What makes a form field a secret or payment one (tabmcp/core/sensitive_fields.py). */
  const freeze = (o) => {
    for (const v of Object.values(o)) if (v && typeof v === 'object') freeze(v);
    return Object.freeze(o);
  };
  const FIELDS = freeze(JSON.parse("{\"secretAutocomplete\":[\"current-password\",\"new-password\",\"one-time-code\"],\"autocompleteGaps\":{\"source\":\"[\\\\s\\\\x1c-\\\\x1f\\\\x85]+\",\"flags\":\"\"},\"paymentAutocompletePrefix\":\"cc-\",\"cardShape\":\"^(?:[0-9\\\\u2022*xX]{4}[ -]?){3}[0-9\\\\u2022*xX]{1,7}$\",\"cardDigits\":\"\\\\{1[3-9](,\\\\d*)?\\\\}|\\\\{\\\\d*,1[3-9]\\\\}\",\"payment\":{\"words\":[\"card\",\"cards\",\"card number\",\"card no\",\"card num\",\"card holder\",\"cardholder\",\"name on card\",\"credit card\",\"debit card\",\"cvv\",\"cvv2\",\"cvc\",\"cvc2\",\"csc\",\"cid\",\"security code\",\"card security code\",\"card verification\",\"expiry\",\"expiry date\",\"expiration\",\"expiration date\",\"expires\",\"exp date\",\"exp month\",\"exp year\",\"exp mm\",\"exp yy\",\"mm yy\",\"mm yyyy\",\"valid thru\",\"mm jj\",\"mm aa\",\"mm rr\",\"mm jjjj\",\"mm aaaa\",\"valid through\",\"iban\",\"bic\",\"swift\",\"swift code\",\"routing number\",\"sort code\",\"account number\",\"cc number\",\"cc num\",\"cc no\",\"cc exp\",\"cc csc\",\"cc cvv\",\"cc cvc\",\"karte\",\"kartennummer\",\"kreditkarte\",\"karteninhaber\",\"prufnummer\",\"prufziffer\",\"kartenprufnummer\",\"ablaufdatum\",\"gultig bis\",\"sicherheitscode\",\"kontonummer\",\"bankleitzahl\",\"blz\",\"carte\",\"numero de carte\",\"n de carte\",\"carte bancaire\",\"carte de credit\",\"cryptogramme\",\"cryptogramme visuel\",\"date d expiration\",\"date de validite\",\"titulaire de la carte\",\"code de securite\",\"rib\",\"tarjeta\",\"numero de tarjeta\",\"tarjeta de credito\",\"tarjeta de debito\",\"codigo de seguridad\",\"fecha de caducidad\",\"fecha de vencimiento\",\"caducidad\",\"vencimiento\",\"titular de la tarjeta\",\"numero de cuenta\",\"carta\",\"numero carta\",\"numero di carta\",\"carta di credito\",\"scadenza\",\"codice di sicurezza\",\"titolare della carta\",\"cartao\",\"numero do cartao\",\"cartao de credito\",\"validade\",\"codigo de seguranca\",\"kaartnummer\",\"bankkaart\",\"creditcard\",\"vervaldatum\",\"beveiligingscode\",\"rekeningnummer\",\"karta\",\"karty\",\"numer karty\",\"karta kredytowa\",\"data waznosci\",\"kod bezpieczenstwa\",\"kortnummer\",\"kreditkort\",\"betalkort\",\"kortet\",\"utgangsdatum\",\"utl\\u00f8psdato\",\"udl\\u00f8bsdato\",\"kart numaras\\u0131\",\"kredi kart\\u0131\",\"son kullanma\",\"son kullanma tarihi\",\"guvenlik kodu\",\"kartu\",\"nomor kartu\",\"kartu kredit\",\"nombor kad\",\"so the\",\"the tin dung\",\"\\u043a\\u0430\\u0440\\u0442\\u0430\",\"\\u043a\\u0430\\u0440\\u0442\\u044b\",\"\\u043d\\u043e\\u043c\\u0435\\u0440 \\u043a\\u0430\\u0440\\u0442\\u044b\",\"\\u0441\\u0440\\u043e\\u043a \\u0434\\u0435\\u0438\\u0441\\u0442\\u0432\\u0438\\u044f\",\"\\u043a\\u0430\\u0440\\u0442\\u043a\\u0430\",\"\\u043d\\u043e\\u043c\\u0435\\u0440 \\u043a\\u0430\\u0440\\u0442\\u043a\\u0438\",\"\\u03ba\\u03b1\\u03c1\\u03c4\\u03b1\",\"\\u03b1\\u03c1\\u03b9\\u03b8\\u03bc\\u03bf\\u03c2 \\u03ba\\u03b1\\u03c1\\u03c4\\u03b1\\u03c2\",\"\\u0628\\u0637\\u0627\\u0642\\u0629\",\"\\u0627\\u0644\\u0628\\u0637\\u0627\\u0642\\u0629\",\"\\u0631\\u0642\\u0645 \\u0627\\u0644\\u0628\\u0637\\u0627\\u0642\\u0629\",\"\\u05db\\u05e8\\u05d8\\u05d9\\u05e1 \\u05d0\\u05e9\\u05e8\\u05d0\\u05d9\",\"\\u05de\\u05e1\\u05e4\\u05e8 \\u05db\\u05e8\\u05d8\\u05d9\\u05e1\",\"\\u0915\\u0930\\u0921\",\"\\u0e1a\\u0e15\\u0e23\",\"\\u0e2b\\u0e21\\u0e32\\u0e22\\u0e40\\u0e25\\u0e02\\u0e1a\\u0e15\\u0e23\"],\"parts\":[\"cardnumber\",\"cardholder\",\"creditcard\",\"debitcard\",\"cardverification\",\"cardsecurity\",\"cardexp\",\"ccnumber\",\"ccnum\",\"ccexp\",\"cccsc\",\"cccvv\",\"cccvc\",\"kartennummer\",\"kreditkarte\",\"karteninhaber\",\"kartenpruf\",\"kaartnummer\",\"kortnummer\",\"kreditkort\",\"numerodecarte\",\"numerodetarjeta\",\"numerodocartao\",\"numerocarta\",\"\\u30ab\\u30fc\\u30c8\",\"\\u30af\\u30ec\\u30b7\\u30c3\\u30c8\",\"\\u30bb\\u30ad\\u30e5\\u30ea\\u30c6\\u30a3\\u30b3\\u30fc\\u30c8\",\"\\u6709\\u52b9\\u671f\\u9650\",\"\\u5361\\u53f7\",\"\\u5361\\u865f\",\"\\u4fe1\\u7528\\u5361\",\"\\u94f6\\u884c\\u5361\",\"\\u9280\\u884c\\u5361\",\"\\u501f\\u8bb0\\u5361\",\"\\u50a8\\u84c4\\u5361\",\"\\u5b89\\u5168\\u7801\",\"\\u5b89\\u5168\\u78bc\",\"\\u6709\\u6548\\u671f\",\"\\u110f\\u1161\\u1103\\u1173\",\"\\u110b\\u1172\\u1112\\u116d\\u1100\\u1175\\u1100\\u1161\\u11ab\",\"\\u1107\\u1169\\u110b\\u1161\\u11ab\\u110f\\u1169\\u1103\\u1173\"]},\"secret\":{\"words\":[\"password\",\"pass word\",\"passwd\",\"pwd\",\"pw\",\"passphrase\",\"pass phrase\",\"passcode\",\"pin\",\"pin code\",\"otp\",\"one time code\",\"one time password\",\"2fa\",\"mfa\",\"totp\",\"security answer\",\"verification code\",\"auth code\",\"authentication code\",\"sms code\",\"mtan\",\"sms tan\",\"passwort\",\"kennwort\",\"geheimzahl\",\"geheimnummer\",\"bestatigungscode\",\"mot de passe\",\"code secret\",\"code pin\",\"code de verification\",\"contrasena\",\"clave de acceso\",\"clave secreta\",\"codigo de verificacion\",\"senha\",\"codigo de verificacao\",\"wachtwoord\",\"has\\u0142o\",\"losenord\",\"passord\",\"adgangskode\",\"salasana\",\"sifre\",\"mat khau\",\"kata sandi\",\"\\u043f\\u0430\\u0440\\u043e\\u043b\\u044c\",\"\\u03ba\\u03c9\\u03b4\\u03b9\\u03ba\\u03bf\\u03c2\",\"\\u0643\\u0644\\u0645\\u0629 \\u0627\\u0644\\u0645\\u0631\\u0648\\u0631\",\"\\u0643\\u0644\\u0645\\u0629 \\u0627\\u0644\\u0633\\u0631\",\"\\u05e1\\u05d9\\u05e1\\u05de\\u05d4\",\"\\u092a\\u0938\\u0935\\u0930\\u0921\",\"\\u0e23\\u0e2b\\u0e2a\\u0e1c\\u0e32\\u0e19\"],\"parts\":[\"password\",\"passwort\",\"passwd\",\"passcode\",\"passphrase\",\"kennwort\",\"wachtwoord\",\"contrasena\",\"onetimecode\",\"onetimepassword\",\"\\u30cf\\u30b9\\u30ef\\u30fc\\u30c8\",\"\\u6697\\u8a3c\\u756a\\u53f7\",\"\\u8a8d\\u8a3c\\u30b3\\u30fc\\u30c8\",\"\\u5bc6\\u7801\",\"\\u5bc6\\u78bc\",\"\\u9a8c\\u8bc1\\u7801\",\"\\u9a57\\u8b49\\u78bc\",\"\\u1107\\u1175\\u1106\\u1175\\u11af\\u1107\\u1165\\u11ab\\u1112\\u1169\",\"\\u110b\\u1175\\u11ab\\u110c\\u1173\\u11bc\\u1107\\u1165\\u11ab\\u1112\\u1169\"]},\"paymentContext\":{\"words\":[\"pay\",\"payment\",\"payments\",\"checkout\",\"check out\",\"order\",\"place order\",\"purchase\",\"buy\",\"billing\",\"donate\",\"donation\",\"subscribe and pay\",\"complete purchase\",\"zahlen\",\"bezahlen\",\"zahlung\",\"zahlungspflichtig bestellen\",\"kasse\",\"kaufen\",\"jetzt kaufen\",\"payer\",\"paiement\",\"commander\",\"acheter\",\"regler\",\"pagar\",\"pago\",\"comprar\",\"finalizar compra\",\"paga\",\"pagamento\",\"acquista\",\"ordina\",\"betalen\",\"betaling\",\"afrekenen\",\"bestellen\",\"kopen\",\"zap\\u0142ac\",\"p\\u0142atnosc\",\"kup\",\"kupuje\",\"betala\",\"kop\",\"odeme\",\"ode\",\"sat\\u0131n al\",\"\\u043e\\u043f\\u043b\\u0430\\u0442\\u0430\",\"\\u043e\\u043f\\u043b\\u0430\\u0442\\u0438\\u0442\\u044c\",\"\\u043a\\u0443\\u043f\\u0438\\u0442\\u044c\",\"\\u0437\\u0430\\u043a\\u0430\\u0437\\u0430\\u0442\\u044c\",\"stripe\",\"braintree\",\"adyen\",\"paypal\",\"klarna\",\"square\",\"worldpay\",\"mollie\",\"checkout com\",\"cybersource\",\"authorize net\",\"paddle\",\"recurly\",\"chargebee\",\"razorpay\",\"mercadopago\"],\"parts\":[\"payment\",\"checkout\",\"\\u652f\\u6255\",\"\\u8cfc\\u5165\",\"\\u6ce8\\u6587\",\"\\u6c7a\\u6e08\",\"\\u652f\\u4ed8\",\"\\u4ed8\\u6b3e\",\"\\u8d2d\\u4e70\",\"\\u8cfc\\u8cb7\",\"\\u7ed3\\u8d26\",\"\\u7d50\\u5e33\",\"\\u1100\\u1167\\u11af\\u110c\\u1166\",\"\\u1100\\u116e\\u1106\\u1162\",\"\\u110c\\u116e\\u1106\\u116e\\u11ab\"]}}"));

  Object.defineProperty(globalThis, KEY, {
    value: Object.freeze({ PROTOCOL_VERSION, OUT, IN, ERROR, QUERY, KINDS, PATTERNS, END_RULES, FIELDS }),
  });
})();

// ---- payloads ----

/**
 * Why something failed: a named ``code`` (``ErrorCode``), a message, optional details.
 * @typedef {object} ErrorBody
 * @property {string} code
 * @property {string} message The worker's words for its own codes; any other code's message is the page's (page text either way).
 * @property {Object<string, *>} [details]
 * @property {boolean} [fromPage] The worker relays this error from the page (its code, message and details are the page's words): the bridge reports it as ``PAGE_ERROR`` with them as page data, never as its own code.
 */

/**
 * A child frame's document, reported only when the top page allows its origin to offer tools (same origin, or ``<iframe allow="tools ...">``); ``origin`` comes from Chrome, not the frame.
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
 * A page's ordinary forms described as tools, sent only for origins with forms-as-tools on; ``origin`` is Chrome's word, and the bridge decides on it again (``core/page_forms.py``).
 * @typedef {object} PageForms
 * @property {string} [origin]
 * @property {Array<*>} [tools]
 */

/**
 * A tab by its revision: in ``welcome.held``, the tabs the bridge holds in that revision; in ``tabs.sync.kept``, a tab unchanged since the worker sent it in that revision (not sent again).
 * @typedef {object} TabRef
 * @property {number} tabId
 * @property {string} revision
 */

/**
 * Everything the bridge needs to know about one tab's top-level document; ``tools`` and ``categories`` stay raw so the registry rejects a bad tool alone, not the tab.
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
 * @property {string} [revision] Opaque, made by the worker for this state of the tab (its instance id and a counter), sent to a bridge whose ``welcome`` said ``revisions``: a later sync may keep the tab by it (:class:`TabRef`).
 */

/**
 * A regular expression the bridge compiled for the extension: ``new RegExp(source, flags)``.
 * @typedef {object} JsRegExp
 * @property {string} source
 * @property {string} [flags]
 */

/**
 * One say about forms-as-tools, applied in order (the last match wins).
 * @typedef {object} FormsPolicyRule
 * @property {string} match An origin glob from ``[[policy.origins]]`` or an exact origin the person chose.
 * @property {boolean} enabled
 * @property {'config'|'person'} source
 * @property {JsRegExp} [pattern] A config rule's glob compiled by the bridge for ``new RegExp(source, flags)`` (fnmatch's reading of it, ``core/js_regex.py``); unset for the person's exact origins.
 */

/**
 * What a paired extension presents in every ``hello``: the pairing's id and its secret (``pair.done`` gave both; the extension keeps them in ``chrome.storage.local``).
 * @typedef {object} PairingCredential
 * @property {string} id
 * @property {string} secret
 */

/**
 * SourceLocation
 * @typedef {object} SourceLocation
 * @property {string} [url]
 * @property {number} [line]
 * @property {number} [col]
 */

/**
 * Every way the page could name the element acted on, best first (see generate/locators).
 * @typedef {object} Selectors
 * @property {string} [testId]
 * @property {string} [role]
 * @property {string} [name]
 * @property {string} [label]
 * @property {string} [text]
 * @property {string} [css]
 */

/**
 * Sampling
 * @typedef {object} Sampling
 * @property {number} every
 */

/**
 * VitalsMetrics
 * @typedef {object} VitalsMetrics
 * @property {number} [LCP]
 * @property {number} [CLS]
 * @property {number} [INP]
 * @property {number} [FCP]
 * @property {number} [TTFB]
 */

/**
 * ErrorEvent
 * @typedef {object} ErrorEvent
 * @property {'error'} [kind]
 * @property {number} ts When the page recorded the event, epoch milliseconds.
 * @property {boolean} [pageReported] True when written by the page's own scripts, not seen by the extension's capture: a batch the page posted itself, or a URL of another origin than the tab's document (see ``TelemetryState.ingest``). Set by the bridge only; whatever the event says about itself is overwritten.
 * @property {string} message
 * @property {string} [stack]
 * @property {SourceLocation} [source]
 * @property {'uncaught'|'unhandledrejection'|'console'} [errorType]
 */

/**
 * ConsoleEvent
 * @typedef {object} ConsoleEvent
 * @property {'console'} [kind]
 * @property {number} ts When the page recorded the event, epoch milliseconds.
 * @property {boolean} [pageReported] True when written by the page's own scripts, not seen by the extension's capture: a batch the page posted itself, or a URL of another origin than the tab's document (see ``TelemetryState.ingest``). Set by the bridge only; whatever the event says about itself is overwritten.
 * @property {'log'|'info'|'warn'|'error'|'debug'} level
 * @property {Array<string>} [args] Arguments already serialized to strings by the page.
 * @property {SourceLocation} [source]
 */

/**
 * NetworkEvent
 * @typedef {object} NetworkEvent
 * @property {'network'} [kind]
 * @property {number} ts When the page recorded the event, epoch milliseconds.
 * @property {boolean} [pageReported] True when written by the page's own scripts, not seen by the extension's capture: a batch the page posted itself, or a URL of another origin than the tab's document (see ``TelemetryState.ingest``). Set by the bridge only; whatever the event says about itself is overwritten.
 * @property {string} requestId
 * @property {'fetch'|'xhr'} api
 * @property {string} method
 * @property {string} url
 * @property {number} [status] HTTP status; 0 when the request failed (see ``failure``).
 * @property {string} [statusText]
 * @property {number} [startTime] Epoch ms when the request started (a small value is read as relative, see :attr:`started_at`).
 * @property {number} [duration]
 * @property {Object<string, string>} [requestHeaders]
 * @property {Object<string, string>} [responseHeaders]
 * @property {string} [requestBody]
 * @property {string} [responseBody]
 * @property {boolean} [bodyTruncated]
 * @property {string} [mimeType]
 * @property {string} [failure]
 */

/**
 * WebSocketEvent
 * @typedef {object} WebSocketEvent
 * @property {'websocket'} [kind]
 * @property {number} ts When the page recorded the event, epoch milliseconds.
 * @property {boolean} [pageReported] True when written by the page's own scripts, not seen by the extension's capture: a batch the page posted itself, or a URL of another origin than the tab's document (see ``TelemetryState.ingest``). Set by the bridge only; whatever the event says about itself is overwritten.
 * @property {string} connectionId
 * @property {'open'|'close'|'error'|'message'} event
 * @property {string} url
 * @property {'in'|'out'} [direction]
 * @property {string} [data]
 * @property {number} [size]
 * @property {Sampling} [sampled] Set when the page kept only one message in ``every`` of a chatty socket.
 * @property {number} [code]
 * @property {string} [reason]
 */

/**
 * ActionEvent
 * @typedef {object} ActionEvent
 * @property {'action'} [kind]
 * @property {number} ts When the page recorded the event, epoch milliseconds.
 * @property {boolean} [pageReported] True when written by the page's own scripts, not seen by the extension's capture: a batch the page posted itself, or a URL of another origin than the tab's document (see ``TelemetryState.ingest``). Set by the bridge only; whatever the event says about itself is overwritten.
 * @property {'click'|'input'|'change'|'submit'|'keydown'|'navigate'|'route'} action
 * @property {string} url
 * @property {Selectors} [selectors]
 * @property {string} [value] Already redacted by the page for password and card fields.
 * @property {string} [key]
 * @property {string} [tag]
 */

/**
 * VitalsEvent
 * @typedef {object} VitalsEvent
 * @property {'vitals'} [kind]
 * @property {number} ts When the page recorded the event, epoch milliseconds.
 * @property {boolean} [pageReported] True when written by the page's own scripts, not seen by the extension's capture: a batch the page posted itself, or a URL of another origin than the tab's document (see ``TelemetryState.ingest``). Set by the bridge only; whatever the event says about itself is overwritten.
 * @property {string} loadId
 * @property {VitalsMetrics} [metrics]
 * @property {Object<string, (number|number|string)>} [navigation] Navigation timing (``domContentLoaded``, ``load``, ``transferSize``, ...), ms.
 */

/**
 * LongTaskEvent
 * @typedef {object} LongTaskEvent
 * @property {'longtask'} [kind]
 * @property {number} ts When the page recorded the event, epoch milliseconds.
 * @property {boolean} [pageReported] True when written by the page's own scripts, not seen by the extension's capture: a batch the page posted itself, or a URL of another origin than the tab's document (see ``TelemetryState.ingest``). Set by the bridge only; whatever the event says about itself is overwritten.
 * @property {number} startTime
 * @property {number} duration
 */

/**
 * NavigationEvent
 * @typedef {object} NavigationEvent
 * @property {'navigation'} [kind]
 * @property {number} ts When the page recorded the event, epoch milliseconds.
 * @property {boolean} [pageReported] True when written by the page's own scripts, not seen by the extension's capture: a batch the page posted itself, or a URL of another origin than the tab's document (see ``TelemetryState.ingest``). Set by the bridge only; whatever the event says about itself is overwritten.
 * @property {string} loadId
 * @property {string} url
 * @property {'load'|'reload'|'back_forward'|'spa'} navType
 */

/**
 * An event the bridge could not accept: malformed, or of a kind it does not know.
 * @typedef {object} RejectedEvent
 * @property {string} [kind] The kind it claimed (``unknown`` when it named none).
 */

// ---- extension → bridge ----

/**
 * The extension's first message on a connection; the bridge answers ``welcome``, or ``pair.required`` when the hello carries no valid pairing (nor the pre-shared token), or an error.
 * @typedef {object} Hello
 * @property {'hello'} type
 * @property {number} protocol
 * @property {string} [extensionVersion]
 * @property {string} [extensionId]
 * @property {string} [browser] The browser's user agent (``tabmcp pair --list`` names the pairing with it).
 * @property {string} [brand] The browser's brand and major version from ``navigator.userAgentData`` ("Chromium 156", "Google Chrome 156"): every Chromium-based browser's user agent says "Chrome".
 * @property {string} [browserName] ``chromium`` or ``firefox``: what ``_meta["tabmcp/source"]["browser"]`` says of this link's tabs.
 * @property {string} [profileId] Random, made once per browser profile: links with the same one are the same browser (``tabmcp.core.browsers``).
 * @property {string} [instanceId] Random per service-worker start: tells a reconnect from a restart in the logs.
 * @property {string} [token] ``server.extension_token``, when the person set one (a pre-shared secret instead of pairing).
 * @property {PairingCredential} [pairing] The pairing the person confirmed once (``tabmcp pair``); without it (or ``token``) the link gets nothing but the pairing ceremony.
 * @property {boolean} [batch] The extension reads frames holding several messages, one per line, and would send such frames too (the bridge says in ``welcome`` whether it reads them).
 * @property {boolean} [revisions] The extension gives each tab state it sends a ``revision`` and can keep an unchanged tab in a sync by it (``tabs.sync.kept``): the bridge says in ``welcome`` whether it stores them.
 * @property {string} [sessionId] The ``welcome.sessionId`` of the bridge run this worker last synced with (none after a start): only to that run, with this ``instanceId``, does ``welcome`` list the tabs it holds.
 */

/**
 * An unpaired extension asks for a pairing code (the popup shows it; the person types ``tabmcp pair CODE`` in a terminal). Answered by ``pair.code``.
 * @typedef {object} PairRequest
 * @property {'pair.request'} type
 */

/**
 * The full state of every tab; replaces whatever the bridge knew (sent after each connect). A sync too large for one frame comes in parts, applied when the last arrives.
 * @typedef {object} TabsSync
 * @property {'tabs.sync'} type
 * @property {Array<TabSnapshot>} tabs
 * @property {boolean} [more] More parts of this sync follow (the extension splits a sync that would not fit one frame).
 * @property {Array<TabRef>} [kept] Tabs unchanged since the worker sent them in these revisions, which ``welcome.held`` said the bridge holds: not sent again, and not gone. A revision the bridge no longer holds refuses the whole sync (``UNKNOWN_REVISION``: the extension sends every tab).
 */

/**
 * One tab changed: opened, navigated (also SPA routes), tools, categories or states.
 * @typedef {object} TabUpdate
 * @property {'tab.update'} type
 * @property {TabSnapshot} tab
 */

/**
 * A piece of one big message of the tabs' lane (``tab.update``, a ``tabs.sync`` part, ``telemetry``): ``data`` is the next characters of its JSON text. Sent only to a bridge whose ``welcome`` said ``chunks``; a message's chunks come in order (``part`` 0, 1, …; the last says ``last``), other messages may come between them (answers go ahead of the tabs' data), and the message put together is read as if it were a frame (``tabmcp.core.chunks``).
 * @typedef {object} Chunk
 * @property {'chunk'} type
 * @property {number} id The message's number on this link (the worker counts them).
 * @property {number} part
 * @property {string} data
 * @property {boolean} [last]
 * @property {number} [tabId] The tab whose update this is (names it in an error about its chunks).
 */

/**
 * A tab closed: its tools go, and its pending requests end with ``TAB_CLOSED``.
 * @typedef {object} TabClosedMessage
 * @property {'tab.closed'} type
 * @property {number} tabId
 */

/**
 * The outcome of a ``call.start``. ``result`` is an MCP CallToolResult object.
 * @typedef {object} CallResult
 * @property {'call.result'} type
 * @property {string} callId
 * @property {boolean} ok
 * @property {Object<string, *>} [result] The page's own value: page text through and through (only the gate shows it to the agent).
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
 * @property {string} [origin] The document's origin by Chrome's word (its port's ``sender.origin``), never the page's: the bridge holds the events' own URLs to it.
 * @property {string} [url] Where the tab is as the batch leaves it: the page's claim only when of ``origin``.
 * @property {boolean} [pageReported] Posted by the page's own scripts on the window, not by the extension's capture (which has its own line to the content script): the events are what the page says, and are marked so.
 * @property {Array<((ConsoleEvent|ErrorEvent|NetworkEvent|WebSocketEvent|ActionEvent|VitalsEvent|LongTaskEvent|NavigationEvent)|RejectedEvent)>} [events] Typed by kind (``tabmcp/capture/kinds.py``); each parsed on its own, so a malformed event or one of a kind this bridge does not know is a ``RejectedEvent`` (counted), never the batch refused.
 * @property {Object<string, number>} [dropped] What the page had to drop since its previous batch, by event kind (counts above zero kept).
 */

/**
 * The answer to a ``page.query`` (a live DOM query, page facts, an axe-core audit).
 * @typedef {object} PageResult
 * @property {'page.result'} type
 * @property {string} requestId
 * @property {boolean} ok
 * @property {*} [result] What the page answered: page text through and through (only the gate shows it to the agent).
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
 * The person flipped a switch in the popup (actions in docs/protocol.md); answered by ``panel.state``. Only the extension link can send it: no MCP tool changes these.
 * @typedef {object} ControlSet
 * @property {'control.set'} type
 * @property {string} requestId
 * @property {'pause'|'resume'|'writes'|'origin'|'accept'|'clear'|'unbind'} action
 * @property {boolean} [enabled]
 * @property {string} [origin]
 * @property {string} [tool]
 * @property {string} [secret]
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
 * @property {boolean} [chunks] The bridge puts ``chunk`` messages back together: the extension may send a big message of the tabs' lane in chunks (``tabmcp.core.chunks``).
 * @property {boolean} [revisions] Answers ``hello.revisions``: the bridge stores each tab's revision and takes ``tabs.sync.kept``.
 * @property {Array<TabRef>} [held] The tabs of this browser the bridge still holds (the reconnect grace) and the revision of each, only to the worker instance that sent them and that names this run's ``sessionId``: the sync may keep these by revision instead of sending them again.
 */

/**
 * The answer to a ``hello`` with no valid pairing: the link stays open for the pairing ceremony only (``pair.request``); ``reason`` is ``unpaired``, ``unknown`` or ``expired``.
 * @typedef {object} PairRequired
 * @property {'pair.required'} type
 * @property {'unpaired'|'unknown'|'expired'} reason
 * @property {string} [message]
 */

/**
 * The code for this link's pairing request: shown in the popup, typed by the person in ``tabmcp pair CODE``. Valid for ``expires_ms``; never sent to any other connection.
 * @typedef {object} PairCode
 * @property {'pair.code'} type
 * @property {string} code
 * @property {number} expiresMs
 */

/**
 * The person confirmed the code: the extension stores this pairing and presents it in every ``hello`` from now on (it sends a new ``hello`` at once).
 * @typedef {object} PairDone
 * @property {'pair.done'} type
 * @property {string} pairingId
 * @property {string} secret
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
 * @property {number} [frameId] The frame whose document offers the tool (0: the tab's top document). The extension asks, and remembers the answer, under that frame's origin as Chrome reports it.
 * @property {string} [toolName] The tool's name as its page registered it (``tool`` is the public name, which may be qualified): a remembered answer is per owning origin and this name.
 * @property {boolean} [mayGiveUp] The agent's call carries no progress token, so nothing keeps its client waiting: it may stop waiting (many clients after 60 s) before the deadline. The window says so.
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
 * @typedef {object} FormsPolicyMessage
 * @property {'forms.policy'} type
 * @property {Array<FormsPolicyRule>} [rules]
 * @property {Array<string>} [secretSites] The origins with at least one secret bound (never a name or a value): on them a sign-in form may be described, its password, one-time-code or card fields taking only a secret's name.
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
 * Open a reachable site's URL for the agent in a background tab of the agent group; answered by ``site.status``. The tab rules (``maxAgentTabs``, ``idleCloseMs``) travel with it.
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

/**
 * The bridge read a ``chunk`` (or refused it): the extension sends the tabs' lane on while at most two of its chunks are unread, so the tabs' data never piles up in the sockets ahead of an answer when the bridge reads slower than the browser sends (``tabmcp.core.chunks``).
 * @typedef {object} ChunkRead
 * @property {'chunk.read'} type
 * @property {number} id
 * @property {number} part
 */

// ---- the extension's internal messages: a verbatim copy of messages.js ----

// The extension's internal messages, named once: worker ⇄ content script ⇄ page scripts, and the
// extension's own pages ⇄ worker (the wire protocol and error codes are in protocol.generated.js).
// A classic script with no exports, safe to load twice, so every context can load it (manifest.json,
// protocol.js, and a copy at the end of protocol.generated.js for the main world, which cannot list
// it too); all read globalThis[Symbol.for('tabmcp.messages')].
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
   * The page ⇄ content script channel: a synchronous CustomEvent on the window whose `detail` is
   * the message as JSON text, one type per direction; never window.postMessage, which every
   * `message` listener of the page would hear (docs/protocol.md has why and the measurements).
   */
  const PAGE_EVENT = Object.freeze({ toContent: 'tabmcp-page', toPage: 'tabmcp-content' });

  /** The call path between content script and page/agent.js: `call`, `cancel` in, `result` out. */
  const CALL_EVENT = Object.freeze({ toPage: 'tabmcp-call', toContent: 'tabmcp-call-result' });

  /**
   * The telemetry capture's port handover (page/natives.js ⇄ content.js) at document_start: `offer`
   * is a cancelable MessageEvent of its own type carrying the port; a content script that comes
   * second dispatches `ask` and gets one more offer.
   */
  const CAPTURE_EVENT = Object.freeze({ offer: 'tabmcp-capture-port', ask: 'tabmcp-capture-ask' });

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
    /** The popup flips a switch {action, enabled?, origin?, tool?, secret?} (wire: control.set). */
    controlSet: 'tabmcp.control.set',
    /** The popup's forms-as-tools section: the rules and one origin's switch {origin}, and the
     * person turning it on or off {origin, enabled}. */
    formsStatus: 'tabmcp.forms.status',
    formsSet: 'tabmcp.forms.set',
    /** popup/options → worker: ask the bridge for a pairing code to show (wire: pair.request). */
    pairRequest: 'tabmcp.pair.request',
  });

  Object.defineProperty(globalThis, KEY, { value: Object.freeze({ PAGE, PAGE_EVENT, CALL_EVENT, CAPTURE_EVENT, PAGE_PORT, RUNTIME }) });
})();
