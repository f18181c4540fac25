// tabmcp page channel (main world, document_start, before page/agent.js and page/forms.js): the
// page scripts' side of the window events to the content script. Keeps the browser's functions as
// they were before any page script ran, and writes JSON whatever `toJSON` a page put on the base
// prototypes (docs/architecture.md). Idempotent.
(() => {
  const KEY = Symbol.for('tabmcp.pageChannel');
  if (globalThis[KEY]) return;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const on = EventTarget.prototype.addEventListener;
  const Custom = CustomEvent;
  const { stringify, parse } = JSON;
  const getOwn = Object.getOwnPropertyDescriptor;
  const define = Object.defineProperty;
  const PROTOTYPES = [Object.prototype, Array.prototype];

  /**
   * Our own message as JSON text, any page `toJSON` on the base prototypes set aside while it is
   * written (and put back before this returns).
   * @param {unknown} msg
   * @returns {string}
   */
  function text(msg) {
    /** @type {[object, PropertyDescriptor][]} */
    const saved = [];
    for (const proto of PROTOTYPES) {
      const own = getOwn(proto, 'toJSON');
      if (own && own.configurable) {
        delete (/** @type {any} */ (proto)).toJSON;
        saved.push([proto, own]);
      }
    }
    try {
      return stringify(msg);
    } finally {
      for (const [proto, own] of saved) define(proto, 'toJSON', own);
    }
  }

  /**
   * Dispatch a message on the window as an event of ours; the content script's listener runs
   * before this returns. A string is sent as is (JSON text already).
   * @param {string} type @param {unknown} msg
   */
  function send(type, msg) {
    dispatch.call(window, new Custom(type, { detail: typeof msg === 'string' ? msg : text(msg) }));
  }

  /**
   * Take the messages of one event type: JSON text parsed, anything else ignored.
   * @param {string} type @param {(msg: any) => void} fn
   */
  function listen(type, fn) {
    on.call(window, type, (/** @type {any} */ event) => {
      if (typeof event.detail !== 'string') return;
      let msg;
      try {
        msg = parse(event.detail);
      } catch {
        return;
      }
      if (msg && typeof msg === 'object') fn(msg);
    });
  }

  define(globalThis, KEY, { value: Object.freeze({ text, send, listen }) });
})();
