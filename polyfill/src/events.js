/**
 * The standard's event classes (`ToolActivatedEvent`, `ToolCancelEvent`) and `on<type>` event
 * handler attributes.
 */

import { domString, isObjectLike } from './util.js';

class ToolActivatedEvent extends Event {
  #toolName;
  /** @param {string} type @param {EventInit & {toolName?: string}} [init] */
  constructor(type, init) {
    if (arguments.length < 1) {
      throw new TypeError("Failed to construct 'ToolActivatedEvent': 1 argument required, but only 0 present.");
    }
    super(type, init);
    this.#toolName = init && init.toolName !== undefined ? domString(init.toolName) : '';
  }
  get toolName() { return this.#toolName; }
}

class ToolCancelEvent extends Event {
  #toolName;
  /** @param {string} type @param {EventInit & {toolName?: string}} [init] */
  constructor(type, init) {
    if (arguments.length < 1) {
      throw new TypeError("Failed to construct 'ToolCancelEvent': 1 argument required, but only 0 present.");
    }
    super(type, init);
    this.#toolName = init && init.toolName !== undefined ? domString(init.toolName) : '';
  }
  get toolName() { return this.#toolName; }
}

/** @type {WeakMap<object, Map<string, {fn: any, listener: (e: Event) => void}>>} */
const handlerSlots = new WeakMap();
/**
 * Defines an `on<type>` event handler attribute (HTML semantics, simplified) on target.
 * @param {object} target @param {string} type
 */
function defineEventHandler(target, type) {
  Object.defineProperty(target, `on${type}`, {
    configurable: true,
    enumerable: true,
    get() {
      const slot = handlerSlots.get(this)?.get(type);
      return slot ? slot.fn : null;
    },
    /** @param {any} value */
    set(value) {
      let slots = handlerSlots.get(this);
      if (!slots) handlerSlots.set(this, (slots = new Map()));
      const slot = slots.get(type);
      if (!isObjectLike(value)) {
        if (slot) {
          this.removeEventListener(type, slot.listener);
          slots.delete(type);
        }
        return;
      }
      if (slot) {
        slot.fn = value;
        return;
      }
      const self = this;
      const fresh = {
        fn: value,
        listener(/** @type {Event} */ event) {
          const fn = fresh.fn;
          if (typeof fn === 'function' && fn.call(self, event) === false) event.preventDefault();
        },
      };
      slots.set(type, fresh);
      this.addEventListener(type, fresh.listener);
    },
  });
}

export { ToolActivatedEvent, ToolCancelEvent, defineEventHandler };
