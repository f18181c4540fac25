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
  } catch (_) { schema = null; }
  try { annotations = t.annotations ? JSON.parse(JSON.stringify(t.annotations)) : {}; } catch (_) { annotations = {}; }
  let output = null;
  try {
    const given = t.outputSchema; // Chrome 159+, an object or its JSON text
    output = given == null ? null : typeof given === 'string' ? JSON.parse(given) : JSON.parse(JSON.stringify(given));
  } catch (_) { output = null; }
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

async function snapshot() {
  const others = await foreignTools();
  const toolList = [];
  for (const rec of tools.values()) toolList.push({ ...toolInfo(rec), category: rec.category, scope: rec.scope });
  for (const t of others.values()) {
    if (!tools.has(t.name)) toolList.push({ ...foreignInfo(t), category: null, scope: null });
  }
  toolList.sort((a, b) => byName(a.name, b.name));
  const snap = {
    tools: toolList,
    categories: Array.from(categories.values())
      .sort((a, b) => byName(a.name, b.name))
      .map((c) => ({ name: c.name, description: c.description, tools: c.members.slice(), scope: c.scope })),
    states: getStates(),
  };
  return JSON.parse(JSON.stringify(snap)); // guaranteed JSON- and structured-clone-safe
}

export { expandCategory, getCategories, list, snapshot };
