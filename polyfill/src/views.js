/**
 * Read-only views of the registry: list(), expandCategory(), getCategories() and the hook's
 * snapshot().
 */

import { EMPTY_SCHEMA_JSON } from './constants.js';
import { byName, domError, domString, isPlainObject } from './util.js';
import { categories, foreign, tools } from './registry.js';
import { foreignTools } from './native.js';
import { getStates } from './states.js';

/** @param {ToolRecord} rec */
function toolInfo(rec) {
  return {
    name: rec.name,
    title: rec.title,
    description: rec.description,
    inputSchema: JSON.parse(rec.schemaJSON !== undefined ? rec.schemaJSON : EMPTY_SCHEMA_JSON),
    ...(rec.outputJSON !== undefined ? { outputSchema: JSON.parse(rec.outputJSON) } : {}),
    annotations: { ...(rec.hints || {}) },
  };
}

/** A native tool we did not register, as a JSON-safe info. @param {any} t */
function foreignInfo(t) {
  let schema = null;
  let annotations = {};
  try {
    const given = t.inputSchema;
    // an object, or (as the draft's getTools() gives it) the schema's JSON text
    schema = given === undefined || given === null ? null
      : typeof given === 'string' ? JSON.parse(given) : JSON.parse(JSON.stringify(given));
    if (!isPlainObject(schema)) schema = null;
  } catch { schema = null; }
  try { annotations = t.annotations ? JSON.parse(JSON.stringify(t.annotations)) : {}; } catch { annotations = {}; }
  let output = null;
  try {
    const given = t.outputSchema; // Chrome 159+, an object or its JSON text
    output = given == null ? null : typeof given === 'string' ? JSON.parse(given) : JSON.parse(JSON.stringify(given));
  } catch { output = null; }
  return {
    ...(isPlainObject(output) ? { outputSchema: output } : {}),
    name: String(t.name),
    title: t.title == null ? '' : String(t.title),
    description: t.description == null ? '' : String(t.description),
    inputSchema: schema || JSON.parse(EMPTY_SCHEMA_JSON),
    annotations,
  };
}

function list() {
  /** @type {any[]} */
  const entries = [];
  for (const cat of categories.values()) {
    entries.push({ name: cat.name, description: cat.description, isCategory: true, toolCount: cat.members.length });
  }
  for (const rec of tools.values()) if (!rec.category) entries.push(toolInfo(rec));
  for (const t of foreign.values()) if (!tools.has(t.name)) entries.push(foreignInfo(t));
  return entries.sort((a, b) => byName(a.name, b.name));
}

/** @param {any} name */
function expandCategory(name) {
  const cat = categories.get(domString(name));
  if (!cat) throw domError(`No category named ${JSON.stringify(domString(name))}.`, 'NotFoundError');
  return cat.members.map((n) => tools.get(n)).filter((r) => !!r).map((r) => toolInfo(/** @type {ToolRecord} */ (r)));
}

function getCategories() {
  return Array.from(categories.values())
    .sort((a, b) => byName(a.name, b.name))
    .map((c) => ({ name: c.name, description: c.description, tools: c.members.slice(),
      ...(c.refused && c.refused.length ? { refused: c.refused.map((r) => ({ ...r })) } : {}) }));
}

/** @param {any} value a JSON-safe value, frozen all the way down (shared by every snapshot after) */
function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * Each of our records' snapshot entry, built (parsed, frozen) once: a record never changes after it
 * is added, so a snapshot during a burst of n registrations reads no schema again. It is JSON-safe
 * as built: its schemas are parsed from their JSON text, the rest strings, booleans and null (a
 * second serialization round trip cost a heavy tab's megabytes twice more in the page's renderer).
 * @type {WeakMap<ToolRecord, any>}
 */
const ownEntries = new WeakMap();
/** @param {ToolRecord} rec */
function ownEntry(rec) {
  let entry = ownEntries.get(rec);
  if (!entry) {
    // The scope is the record's own (a few strings): copied whole, so freezing the entry leaves it as it was.
    entry = { ...toolInfo(rec), category: rec.category, scope: rec.scope ? JSON.parse(JSON.stringify(rec.scope)) : rec.scope };
    for (const key of Object.keys(entry)) if (entry[key] === undefined) delete entry[key]; // as JSON leaves them out
    entry = deepFreeze(entry);
    ownEntries.set(rec, entry);
  }
  return entry;
}

/**
 * The browser's tools we did not register, by name: the Tool last seen and its entry (a new
 * object for the name is read once and keeps its entry when nothing changed).
 * @type {Map<string, {tool: any, text: string, entry: any}>}
 */
const foreignEntries = new Map();
/** @param {any} t */
function foreignEntry(t) {
  const name = String(t.name);
  const known = foreignEntries.get(name);
  if (known && known.tool === t) return known.entry;
  const text = JSON.stringify({ ...foreignInfo(t), category: null, scope: null });
  const entry = known && known.text === text ? known.entry : deepFreeze(JSON.parse(text));
  foreignEntries.set(name, { tool: t, text, entry });
  return entry;
}

/**
 * What the extension relays: every tool (ours and the browser's others), the categories and the
 * states, JSON- and clone-safe. Unchanged tools keep their frozen entry (readers compare by
 * identity); in native mode the browser's list is read only after a toolchange with no refresh
 * under way, so a burst of registrations does not read every schema per snapshot.
 */
async function snapshot() {
  const others = await foreignTools();
  const toolList = [];
  for (const rec of tools.values()) toolList.push(ownEntry(rec));
  for (const t of others.values()) if (!tools.has(t.name)) toolList.push(foreignEntry(t));
  for (const name of foreignEntries.keys()) if (!others.has(name)) foreignEntries.delete(name);
  toolList.sort((a, b) => byName(a.name, b.name));
  const rest = JSON.parse(JSON.stringify({
    categories: Array.from(categories.values())
      .sort((a, b) => byName(a.name, b.name))
      .map((c) => ({ name: c.name, description: c.description, tools: c.members.slice(), scope: c.scope })),
    states: getStates(),
  }));
  return { tools: toolList, categories: rest.categories, states: rest.states };
}

export { expandCategory, getCategories, list, snapshot };
