// tabmcp telemetry, 7 of 11: the network — fetch, XMLHttpRequest, WebSockets (after console.js).
// The wrappers give the page exactly what it would get without us (values, exceptions, `this`,
// prototypes, subclassing, a body stream it still owns: we read a capped clone). Text bodies are
// kept up to `bodyLimit`; a flooding socket is sampled.
(() => {
  'use strict';

  const T = /** @type {any} */ (window)[Symbol.for('tabmcp.telemetry.loading')];
  if (!T) return;
  const { W, N, now, noop, listen, oops, cap, nextId, guard, likeOriginal, install, cfg } = T;
  const { redactUrl, redactHeaders, redactBody, safeText } = T.redact;
  const { LIMITS, room, record, capture } = T.queue;

  const TEXTY = /^(?:text\/(?!event-stream)|application\/(?:[\w.+-]*\+)?(?:json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|x-ndjson)\b)/i;
  /** @param {string | null | undefined} contentType */
  const mimeOf = (contentType) => (contentType ? contentType.split(';')[0].trim().toLowerCase() : '');

  /** @param {unknown} url */
  function absoluteUrl(url) {
    try {
      return new URL(String(url), document.baseURI).href;
    } catch {
      return String(url);
    }
  }

  /** @param {any} headers @returns {Record<string, string>} */
  function headersObject(headers) {
    /** @type {Record<string, string>} */
    const out = {};
    if (!headers) return out;
    if (typeof headers.forEach === 'function' && !N.isArray(headers)) {
      headers.forEach((/** @type {string} */ value, /** @type {string} */ name) => {
        out[name] = String(value);
      });
    } else if (N.isArray(headers)) {
      for (const pair of headers) if (pair && pair.length >= 2) out[String(pair[0]).toLowerCase()] = String(pair[1]);
    } else if (typeof headers === 'object') {
      for (const name of N.keys(headers)) out[name.toLowerCase()] = String(headers[name]);
    }
    return out;
  }

  /** @param {Record<string, string>} headers @param {string} name */
  const headerValue = (headers, name) => {
    for (const k of N.keys(headers)) if (k.toLowerCase() === name) return headers[k];
    return undefined;
  };

  /**
   * A request body as text (capped), or a description of what it is.
   * @param {any} body
   * @returns {{text: string, truncated: boolean} | null}
   */
  function describeBody(body) {
    if (body == null) return null;
    let text;
    if (typeof body === 'string') text = body;
    else if (body instanceof URLSearchParams) text = body.toString();
    else if (typeof FormData === 'function' && body instanceof FormData) {
      const parts = [];
      for (const [k, v] of body.entries()) {
        parts.push(`${encodeURIComponent(k)}=${typeof v === 'string' ? encodeURIComponent(v) : `[File ${encodeURIComponent(v.name)} ${v.size} bytes]`}`);
      }
      text = parts.join('&');
    } else if (typeof Blob === 'function' && body instanceof Blob) text = `[Blob ${body.type || 'application/octet-stream'} ${body.size} bytes]`;
    else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) text = `[binary ${body.byteLength} bytes]`;
    else if (typeof ReadableStream === 'function' && body instanceof ReadableStream) text = '[stream]';
    else if (typeof Document === 'function' && body instanceof Document) text = '[document]';
    else return null;
    const truncated = text.length > cfg.bodyLimit;
    return { text: truncated ? text.slice(0, cfg.bodyLimit) : text, truncated };
  }

  /**
   * Read at most `limit` characters of a (cloned) body stream, then let go of it.
   * @param {ReadableStream<Uint8Array>} stream @param {number} limit
   * @returns {Promise<{text: string, truncated: boolean}>}
   */
  async function readCapped(stream, limit) {
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let truncated = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (text.length > limit) {
          truncated = true;
          break;
        }
      }
      if (!truncated) text += decoder.decode();
    } finally {
      if (truncated) N.then.call(reader.cancel(), noop, noop);
    }
    if (text.length > limit) {
      text = text.slice(0, limit);
      truncated = true;
    }
    return { text, truncated };
  }

  /**
   * @typedef {{requestId: string, api: 'fetch'|'xhr', method: string, url: string, start: number,
   *   t0: number, requestHeaders: Record<string, string>, requestBody: {text: string, truncated: boolean} | null,
   *   requestBodyPromise?: Promise<{text: string, truncated: boolean} | null>}} RequestRecord
   */

  /**
   * @param {RequestRecord} rec
   * @param {{status: number, statusText?: string, responseHeaders?: Record<string, string>, mimeType?: string,
   *   body?: {text: string, truncated: boolean} | null, failure?: string}} res
   */
  function emitRequest(rec, res) {
    if (!room('network')) return;
    const ts = now();
    const duration = Math.round((N.perfNow() - rec.t0) * 10) / 10;
    record('network', () => {
      const requestHeaders = rec.requestHeaders;
      const requestMime = mimeOf(headerValue(requestHeaders, 'content-type'));
      /** @type {Record<string, any> & {kind: string, ts: number}} */
      const ev = {
        kind: 'network',
        ts,
        requestId: rec.requestId,
        api: rec.api,
        method: rec.method,
        url: redactUrl(rec.url),
        status: res.status,
        statusText: safeText(res.statusText || '', 200),
        startTime: Math.round(rec.start * 10) / 10,
        duration,
        requestHeaders: redactHeaders(requestHeaders),
        responseHeaders: redactHeaders(res.responseHeaders || {}),
      };
      let truncated = false;
      if (rec.requestBody) {
        ev.requestBody = redactBody(rec.requestBody.text, requestMime);
        truncated = rec.requestBody.truncated;
      }
      if (res.body) {
        ev.responseBody = redactBody(res.body.text, res.mimeType);
        truncated = truncated || res.body.truncated;
      }
      if (truncated) ev.bodyTruncated = true;
      if (res.mimeType) ev.mimeType = res.mimeType;
      if (res.failure) ev.failure = safeText(res.failure, LIMITS.message);
      return ev;
    });
  }

  /** @param {any} err */
  const failureText = (err) => {
    try {
      return err && typeof err === 'object' ? `${err.name || 'Error'}: ${err.message}` : String(err);
    } catch {
      return 'failed';
    }
  };

  function wrapFetch() {
    const original = W.fetch;
    if (typeof original !== 'function') return;
    const NativeRequest = W.Request;

    /** @param {any} input @param {any} init @returns {RequestRecord} */
    function start(input, init) {
      const isRequest = typeof NativeRequest === 'function' && input instanceof NativeRequest;
      const url = absoluteUrl(isRequest ? input.url : input);
      const method = String((init && init.method) || (isRequest ? input.method : 'GET')).toUpperCase();
      const requestHeaders = { ...(isRequest ? headersObject(input.headers) : {}), ...headersObject(init && init.headers) };
      /** @type {RequestRecord} */
      const rec = { requestId: nextId('req'), api: 'fetch', method, url, start: now(), t0: N.perfNow(), requestHeaders, requestBody: null };
      if (init && init.body != null) {
        rec.requestBody = describeBody(init.body);
      } else if (isRequest && input.body && !input.bodyUsed && method !== 'GET' && method !== 'HEAD') {
        const mime = headerValue(requestHeaders, 'content-type');
        if (mime && TEXTY.test(mimeOf(mime))) {
          rec.requestBodyPromise = N.then.call(readCapped(input.clone().body, cfg.bodyLimit), undefined, () => null);
        }
      }
      return rec;
    }

    /** @param {RequestRecord} rec @param {Response} response */
    function done(rec, response) {
      const responseHeaders = headersObject(response.headers);
      const mimeType = mimeOf(response.headers.get('content-type'));
      const base = { status: response.status, statusText: response.statusText, responseHeaders, mimeType: mimeType || undefined };
      /** @type {Promise<{text: string, truncated: boolean} | null>} */
      let bodyPromise = N.Promise.resolve(null);
      if (response.body && mimeType && TEXTY.test(mimeType) && response.type !== 'opaque' && !response.bodyUsed) {
        // A clone: the page's own body stream stays untouched.
        bodyPromise = N.then.call(readCapped(response.clone().body, cfg.bodyLimit), undefined, () => null);
      }
      const finish = async () => {
        const [body, requestBody] = await N.Promise.all([bodyPromise, rec.requestBodyPromise || N.Promise.resolve(rec.requestBody)]);
        rec.requestBody = requestBody;
        emitRequest(rec, { ...base, body });
      };
      N.then.call(finish(), noop, oops);
    }

    /** @param {RequestRecord} rec @param {any} err */
    function failed(rec, err) {
      const finish = async () => {
        if (rec.requestBodyPromise) rec.requestBody = await rec.requestBodyPromise;
        emitRequest(rec, { status: 0, statusText: '', failure: failureText(err) });
      };
      N.then.call(finish(), noop, oops);
    }

    const wrapper = {
      /** @this {any} @param {any} input @param {any} [init] */
      fetch(input, init) {
        /** @type {RequestRecord | null} */
        let rec = null;
        if (cfg.enabled && !guard.busy) {
          try {
            rec = start(input, init);
          } catch {
            oops();
          }
        }
        const promise = original.apply(this, arguments);
        if (!rec) return promise;
        const r = rec;
        // The page gets a promise that settles with the same value or reason (one microtask
        // later), so an uncaught failure is still reported as an unhandled rejection.
        return N.then.call(
          promise,
          (/** @type {Response} */ response) => {
            try {
              done(r, response);
            } catch {
              oops();
            }
            return response;
          },
          (/** @type {any} */ err) => {
            try {
              failed(r, err);
            } catch {
              oops();
            }
            throw err;
          },
        );
      },
    }.fetch;
    W.fetch = likeOriginal(wrapper, original);
  }

  function wrapXhr() {
    const XHR = W.XMLHttpRequest;
    if (typeof XHR !== 'function') return;
    const proto = XHR.prototype;
    const { open, setRequestHeader, send } = proto;
    /** @type {WeakMap<XMLHttpRequest, RequestRecord & {listening?: boolean, failure?: string, handlers?: any}>} */
    const records = new WeakMap();

    proto.open = likeOriginal(
      {
        /** @this {XMLHttpRequest} @param {string} method @param {string | URL} url */
        open(method, url) {
          const result = open.apply(this, arguments);
          try {
            const old = records.get(this);
            if (old && old.listening) unlisten(this, old);
            if (cfg.enabled) {
              records.set(this, {
                requestId: '', api: 'xhr', method: String(method).toUpperCase(), url: absoluteUrl(url),
                start: 0, t0: 0, requestHeaders: {}, requestBody: null,
              });
            } else {
              records.delete(this);
            }
          } catch {
            oops();
          }
          return result;
        },
      }.open,
      open,
    );

    proto.setRequestHeader = likeOriginal(
      {
        /** @this {XMLHttpRequest} @param {string} name @param {string} value */
        setRequestHeader(name, value) {
          const result = setRequestHeader.apply(this, arguments);
          try {
            const rec = records.get(this);
            if (rec) {
              const key = String(name).toLowerCase();
              rec.requestHeaders[key] = key in rec.requestHeaders ? `${rec.requestHeaders[key]}, ${value}` : String(value);
            }
          } catch {
            oops();
          }
          return result;
        },
      }.setRequestHeader,
      setRequestHeader,
    );

    /** @param {XMLHttpRequest} xhr @param {any} rec */
    function unlisten(xhr, rec) {
      for (const type of N.keys(rec.handlers)) N.off.call(xhr, type, rec.handlers[type]);
      rec.listening = false;
    }

    /** @param {XMLHttpRequest} xhr @param {any} rec */
    function finish(xhr, rec) {
      unlisten(xhr, rec);
      if (!cfg.enabled) return;
      const status = xhr.status;
      /** @type {Record<string, string>} */
      const responseHeaders = {};
      for (const line of String(xhr.getAllResponseHeaders() || '').split(/\r?\n/)) {
        const i = line.indexOf(':');
        if (i > 0) responseHeaders[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const mimeType = mimeOf(xhr.getResponseHeader('content-type'));
      let body = null;
      if (status && mimeType && TEXTY.test(mimeType)) {
        let text = null;
        if (xhr.responseType === '' || xhr.responseType === 'text') text = xhr.responseText;
        else if (xhr.responseType === 'json' && xhr.response != null) text = N.stringify(xhr.response);
        if (text != null) body = { text: text.length > cfg.bodyLimit ? text.slice(0, cfg.bodyLimit) : text, truncated: text.length > cfg.bodyLimit };
      }
      const failure = status ? undefined : rec.failure || 'Error: the request failed';
      emitRequest(rec, { status, statusText: xhr.statusText, responseHeaders, mimeType: mimeType || undefined, body, failure });
    }

    proto.send = likeOriginal(
      {
        /** @this {XMLHttpRequest} @param {any} [body] */
        send(body) {
          const rec = records.get(this);
          if (rec && cfg.enabled && !guard.busy) {
            try {
              if (rec.listening) unlisten(this, rec);
              rec.requestId = nextId('req');
              rec.start = now();
              rec.t0 = N.perfNow();
              rec.requestBody = describeBody(body);
              rec.failure = undefined;
              const xhr = this;
              rec.handlers = {
                loadend: () => {
                  try {
                    finish(xhr, rec);
                  } catch {
                    oops();
                  }
                },
                error: () => {
                  rec.failure = 'NetworkError: the request failed';
                },
                abort: () => {
                  rec.failure = 'AbortError: the request was aborted';
                },
                timeout: () => {
                  rec.failure = 'TimeoutError: the request timed out';
                },
              };
              for (const type of N.keys(rec.handlers)) listen(this, type, rec.handlers[type]);
              rec.listening = true;
            } catch {
              oops();
            }
          }
          try {
            return send.apply(this, arguments);
          } catch (err) {
            try {
              if (rec && rec.listening) unlisten(this, rec);
            } catch {
              oops();
            }
            throw err;
          }
        },
      }.send,
      send,
    );
  }

  // --- WebSockets ---

  /** @typedef {{start: number, count: number}} SampleWindow */
  /** @typedef {{id: string, href: string, url: string, windows: {in: SampleWindow, out: SampleWindow}}} Socket */

  /** The socket's URL, redacted once the rules are known. @param {Socket} sock */
  const socketUrl = (sock) => sock.url || (sock.url = redactUrl(sock.href));

  /**
   * WebSocket sampling: keep every message up to the threshold in a one-second window, then 1 in 2,
   * 1 in 4..., each kept one standing for `every` so the bridge's counts stay close. 0 = skipped.
   * @param {SampleWindow} win
   */
  function sample(win) {
    const t = N.perfNow();
    if (t - win.start >= 1000) {
      win.start = t;
      win.count = 0;
    }
    const i = win.count++;
    const threshold = Math.max(1, cfg.wsSampleThreshold | 0);
    if (i < threshold) return 1;
    let lo = threshold;
    let every = 2;
    while (i >= lo + threshold * every && every < 1 << 20) {
      lo += threshold * every;
      every *= 2;
    }
    return (i - lo) % every === 0 ? every : 0;
  }

  /** @param {string} s */
  const utf8Length = (s) => {
    if (s.length > 65536) return s.length;
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        n += 4;
        i++;
      } else n += 3;
    }
    return n;
  };

  /** @param {Socket} sock @param {'in'|'out'} direction @param {any} data */
  function onFrame(sock, direction, data) {
    if (!cfg.enabled) return;
    const every = sample(sock.windows[direction]);
    if (!every || !room('websocket')) return;
    /** @type {string | null} */
    let raw = null;
    let text = '';
    /** @type {number | undefined} */
    let size;
    if (typeof data === 'string') {
      size = utf8Length(data);
      raw = data.length > LIMITS.wsData * 4 ? data.slice(0, LIMITS.wsData * 4) : data;
    } else if (typeof Blob === 'function' && data instanceof Blob) {
      size = data.size;
      text = `[Blob ${size} bytes]`;
    } else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
      size = data.byteLength;
      text = `[binary ${size} bytes]`;
    } else {
      raw = String(data);
      raw = raw.length > LIMITS.wsData * 2 ? raw.slice(0, LIMITS.wsData * 2) : raw;
    }
    const ts = now();
    const plain = typeof data !== 'string';
    record('websocket', () => {
      const shown = raw === null ? text : plain ? safeText(raw, LIMITS.wsData) : cap(redactBody(raw), LIMITS.wsData);
      /** @type {Record<string, any> & {kind: string, ts: number}} */
      const ev = { kind: 'websocket', ts, connectionId: sock.id, event: 'message', url: socketUrl(sock), direction, data: shown, size: size === undefined ? shown.length : size };
      if (every > 1) ev.sampled = { every };
      return ev;
    });
  }

  function wrapWebSocket() {
    const Native = W.WebSocket;
    if (typeof Native !== 'function') return;
    /** @type {WeakMap<object, Socket>} */
    const sockets = new WeakMap();

    /** @param {any} ws */
    function track(ws) {
      /** @type {Socket} */
      const sock = { id: nextId('ws'), href: String(ws.url), url: '', windows: { in: { start: 0, count: 0 }, out: { start: 0, count: 0 } } };
      sockets.set(ws, sock);
      /** @param {string} event @param {{code: number, reason: string}} [closed] */
      const lifecycle = (event, closed) => {
        try {
          const ts = now();
          const reason = closed ? closed.reason.slice(0, 1000) : '';
          capture('websocket', () => {
            /** @type {Record<string, any> & {kind: string, ts: number}} */
            const ev = { kind: 'websocket', ts, connectionId: sock.id, event, url: socketUrl(sock) };
            if (closed) Object.assign(ev, { code: closed.code, reason: safeText(reason, 500) });
            return ev;
          });
        } catch {
          oops();
        }
      };
      listen(ws, 'open', () => lifecycle('open'));
      listen(ws, 'message', (/** @type {MessageEvent} */ e) => {
        try {
          onFrame(sock, 'in', e.data);
        } catch {
          oops();
        }
      });
      listen(ws, 'error', () => lifecycle('error'));
      listen(ws, 'close', (/** @type {CloseEvent} */ e) => lifecycle('close', { code: e.code, reason: e.reason || '' }));
    }

    // A plain function (not a class) so it can return the native socket; `new.target` keeps
    // subclasses (`class X extends WebSocket`) working, and the prototype is the native one,
    // so instanceof, WebSocket.prototype patches and constants all behave as before.
    const WebSocket = /** @type {any} */ (function WebSocket() { // likeOriginal gives it the native's length
      if (!new.target) return Reflect.apply(Native, this, arguments); // throws the browser's own TypeError
      const ws = Reflect.construct(Native, arguments, new.target === WebSocket ? Native : new.target);
      if (cfg.enabled) {
        try {
          track(ws);
        } catch {
          oops();
        }
      }
      return ws;
    });
    try {
      const descriptors = Object.getOwnPropertyDescriptors(Native);
      for (const name of Reflect.ownKeys(descriptors)) {
        if (name === 'prototype' || name === 'length' || name === 'name' || name === 'arguments' || name === 'caller') continue;
        Object.defineProperty(WebSocket, name, /** @type {any} */ (descriptors)[name]);
      }
      WebSocket.prototype = Native.prototype;
      Object.defineProperty(WebSocket, 'prototype', { writable: false });
      Object.setPrototypeOf(WebSocket, Object.getPrototypeOf(Native));
      likeOriginal(WebSocket, Native);
      Object.defineProperty(Native.prototype, 'constructor', { value: WebSocket, writable: true, configurable: true, enumerable: false });
    } catch {
      oops();
      return;
    }

    const nativeSend = Native.prototype.send;
    Native.prototype.send = likeOriginal(
      {
        /** @this {any} @param {any} data */
        send(data) {
          const result = nativeSend.apply(this, arguments);
          try {
            const sock = sockets.get(this);
            if (sock) onFrame(sock, 'out', data);
          } catch {
            oops();
          }
          return result;
        },
      }.send,
      nativeSend,
    );
    W.WebSocket = WebSocket;
  }

  install(wrapFetch);
  install(wrapXhr);
  install(wrapWebSocket);
})();
