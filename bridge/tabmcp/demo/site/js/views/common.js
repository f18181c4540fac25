// @ts-check
/**
 * Markup helpers for views. Buttons do not carry their own handlers: a button with
 * `data-tool="approve_comment" data-args='{"id":3}'` runs that tool (the same code an agent
 * runs through WebMCP), so clicks and agent calls can never drift apart.
 */
import { esc } from '../ui.js';

/**
 * @param {string} title @param {string} subtitle @param {string} [actions] extra HTML on the right
 */
export const pageHeader = (title, subtitle, actions = '') => `
  <header class="page-header">
    <div><h1 data-testid="page-title">${esc(title)}</h1><p class="muted">${esc(subtitle)}</p></div>
    <div class="page-actions">${actions}</div>
  </header>`;

/**
 * A button that runs a tool.
 * @param {string} label @param {string} tool @param {Record<string, unknown>} args
 * @param {{cls?: string, title?: string, disabled?: boolean, confirm?: string, form?: string}} [o]
 *   confirm: ask first with this text; form: open the named form instead of running directly
 */
export function toolButton(label, tool, args, o = {}) {
  return `<button type="button" class="btn ${o.cls ?? 'btn-sm'}" data-tool="${esc(tool)}" data-args="${esc(JSON.stringify(args))}"` +
    `${o.confirm ? ` data-confirm="${esc(o.confirm)}"` : ''}${o.form ? ` data-form="${esc(o.form)}"` : ''}` +
    `${o.title ? ` title="${esc(o.title)}"` : ''}${o.disabled ? ' disabled' : ''}>${esc(label)}</button>`;
}

/** A button that opens a named form (see forms.js). @param {string} label @param {string} form @param {Record<string, unknown>} [args] @param {string} [cls] */
export const formButton = (label, form, args = {}, cls = 'btn-primary') =>
  `<button type="button" class="btn ${cls}" data-form="${esc(form)}" data-args="${esc(JSON.stringify(args))}">${esc(label)}</button>`;

/** A search box bound to ui.filters. @param {string} key e.g. "users.query" @param {string} value @param {string} label */
export const searchInput = (key, value, label) =>
  `<label class="search-field"><span class="sr-only">${esc(label)}</span><input type="search" id="filter-${esc(key.replace('.', '-'))}" data-filter="${esc(key)}" value="${esc(value)}" placeholder="${esc(label)}" aria-label="${esc(label)}"></label>`;

/**
 * A <select> bound to ui.filters. @param {string} key @param {string[]} options @param {string} value @param {string} label @param {string} all
 */
export function filterSelect(key, options, value, label, all) {
  return `<label class="field-inline"><span class="sr-only">${esc(label)}</span><select id="filter-${esc(key.replace('.', '-'))}" data-filter="${esc(key)}" aria-label="${esc(label)}">` +
    `<option value="">${esc(all)}</option>${options.map((v) => `<option value="${esc(v)}"${v === value ? ' selected' : ''}>${esc(v[0].toUpperCase() + v.slice(1).replace(/_/g, ' '))}</option>`).join('')}</select></label>`;
}

/** A row count line under tables. @param {number} shown @param {number} total @param {string} noun */
export const countLine = (shown, total, noun) =>
  `<p class="table-foot muted" data-testid="row-count" data-count="${shown}">${shown === total ? `${shown} ${noun}` : `${shown} of ${total} ${noun}`}</p>`;

/** Wrap a table (scrolls sideways on narrow screens). @param {string} head @param {string} body @param {string} [testid] */
export const table = (head, body, testid = '') =>
  `<div class="table-wrap"><table${testid ? ` data-testid="${esc(testid)}"` : ''}><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;

/** A titled card. @param {string} title @param {string} body @param {string} [extra] @param {string} [cls] */
export const card = (title, body, extra = '', cls = '') =>
  `<section class="card ${cls}"><div class="card-head"><h2>${esc(title)}</h2>${extra}</div>${body}</section>`;

/** A link to close the detail panel. @param {string} route */
export const closeLink = (route) => `<a class="btn btn-ghost btn-sm" href="#/${esc(route)}" aria-label="Close details">Close</a>`;

/** Definition list. @param {[string, string][]} rows label, HTML */
export const dl = (rows) => `<dl class="kv">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>`;
