// @ts-check
/**
 * Registers the app's tools with WebMCP.
 *
 * With our polyfill (or the extension that injects it) `document.modelContext` has
 * `registerCategory`, and each area of the app becomes one category. Without it, but with
 * native WebMCP, every tool is registered flat with `registerTool`. Without any WebMCP the
 * app still works and shows a banner.
 */
import { caller, changed } from './store.js';
import { ui } from './ui.js';

/** @typedef {import('./tools/kit.js').ToolDef} ToolDef */
/** @typedef {import('./tools/kit.js').CategoryDef} CategoryDef */

const mc = /** @type {any} */ (document).modelContext;

export const webmcp = {
  /** Some WebMCP (native or polyfill) is present. */
  available: Boolean(mc && typeof mc.registerTool === 'function'),
  /** Our category extension is present. */
  categories: Boolean(mc && typeof mc.registerCategory === 'function'),
  /** Our page-state extension is present. */
  states: Boolean(mc && typeof mc.setStates === 'function'),
  /** @type {Map<string, {def: ToolDef, category: string|null}>} tools this page has registered */
  tools: new Map(),
  /** @type {Map<string, CategoryDef & {dynamic?: boolean}>} categories this page has registered (or grouped tools under) */
  groups: new Map(),
  /** @type {string[]} registration problems, shown on the WebMCP tools page */
  errors: [],
  /** @type {string[]} the last states sent with setStates */
  pageStates: /** @type {string[]} */ ([]),
};

/**
 * The definition handed to WebMCP: same as ours, but `execute` records the call so the page
 * can show what the agent did, and marks log entries as coming from the agent.
 * @param {ToolDef} def
 * @returns {ToolDef}
 */
function forAgent(def) {
  return {
    ...def,
    async execute(input) {
      caller.agent = true;
      const entry = { name: def.name, at: new Date().toISOString(), ok: true, error: '' };
      ui.toolCalls.unshift(entry);
      ui.toolCalls.length = Math.min(ui.toolCalls.length, 30);
      try {
        return await def.execute(input);
      } catch (e) {
        entry.ok = false;
        entry.error = e instanceof Error ? e.message : String(e);
        throw e;
      } finally {
        caller.agent = false;
        if (ui.route === 'activity') changed(); // the call log is on screen; data changes render by themselves
      }
    },
  };
}

/** @param {unknown} e */
const message = (e) => (e instanceof Error ? e.message : String(e));

/**
 * Register one category (or, without the category extension, its tools one by one).
 * @param {CategoryDef} cat
 * @param {AbortSignal} [signal] aborting it unregisters the category
 */
async function registerGroup(cat, signal) {
  if (webmcp.categories) {
    await mc.registerCategory({ name: cat.name, description: cat.description, tools: cat.tools.map(forAgent) }, signal ? { signal } : undefined);
    for (const def of cat.tools) webmcp.tools.set(def.name, { def, category: cat.name });
  } else {
    for (const def of cat.tools) {
      try {
        await mc.registerTool(forAgent(def), signal ? { signal } : undefined);
        webmcp.tools.set(def.name, { def, category: cat.name });
      } catch (e) {
        webmcp.errors.push(`${def.name}: ${message(e)}`);
      }
    }
  }
  webmcp.groups.set(cat.name, cat);
}

/**
 * Register everything at start-up.
 * @param {CategoryDef[]} categories
 * @param {ToolDef[]} uncategorized
 */
export async function registerAll(categories, uncategorized) {
  if (!webmcp.available) return;
  await Promise.all(categories.map(async (cat) => {
    try {
      await registerGroup(cat);
    } catch (e) {
      webmcp.errors.push(`category ${cat.name}: ${message(e)}`);
      console.error(`[acme] could not register category ${cat.name}:`, e);
    }
  }));
  for (const def of uncategorized) {
    try {
      await mc.registerTool(forAgent(def));
      webmcp.tools.set(def.name, { def, category: null });
    } catch (e) {
      webmcp.errors.push(`${def.name}: ${message(e)}`);
      console.error(`[acme] could not register tool ${def.name}:`, e);
    }
  }
  changed();
}

/**
 * Register a category that can be removed later (the beta features). Returns the function
 * that unregisters it, by aborting the AbortController whose signal was passed along.
 * @param {CategoryDef} cat
 */
export async function registerRemovable(cat) {
  const controller = new AbortController();
  if (webmcp.available) await registerGroup(cat, controller.signal);
  webmcp.groups.set(cat.name, { ...cat, dynamic: true });
  changed();
  return () => {
    controller.abort();
    for (const def of cat.tools) webmcp.tools.delete(def.name);
    webmcp.groups.delete(cat.name);
    changed();
  };
}

/**
 * Tell WebMCP which states the page is in (our extension; ignored without it).
 * @param {string[]} states
 */
export function setPageStates(states) {
  webmcp.pageStates = states;
  if (webmcp.states) {
    try {
      mc.setStates(states);
    } catch (e) {
      console.error('[acme] setStates failed:', e);
    }
  }
}

/** How many categories the page has registered (0 without the category extension). */
export const categoryCount = () => (webmcp.categories ? webmcp.groups.size : 0);
