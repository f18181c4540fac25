// The polyfill as an ES module: importing it installs the polyfill (the classic script, which runs
// once however often it is loaded) and gives its API. The classic script stays the one source.
import './webmcp-polyfill.js';

/** The page's `document.modelContext` (native, with the polyfill's additions, or the polyfill's own). */
export const modelContext = globalThis.document ? globalThis.document.modelContext : undefined;

/** The polyfill's version (also `package.json`'s, and the tabmcp extension's it ships with). */
export const version = (globalThis[Symbol.for('tabmcp.webmcp')] || {}).version;

export default modelContext;
