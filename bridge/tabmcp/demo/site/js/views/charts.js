// @ts-check
/** Tiny SVG charts (no library): bars and a line with area, both scaled to their container. */
import { esc } from '../ui.js';

/**
 * @param {number[]} values
 * @param {{label: string, height?: number, format?: (n:number)=>string, dates?: string[]}} o
 */
export function barChart(values, o) {
  const h = o.height ?? 160;
  const w = 600;
  const max = Math.max(...values, 1);
  const bw = w / values.length;
  const bars = values.map((v, i) => {
    const bh = Math.max(2, (v / max) * (h - 8));
    const tip = `${o.dates?.[i] ?? ''} ${o.format ? o.format(v) : v}`.trim();
    return `<rect x="${(i * bw + bw * 0.15).toFixed(1)}" y="${(h - bh).toFixed(1)}" width="${(bw * 0.7).toFixed(1)}" height="${bh.toFixed(1)}" rx="2"><title>${esc(tip)}</title></rect>`;
  }).join('');
  return `<svg class="chart chart-bars" viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" role="img" aria-label="${esc(o.label)}">${bars}</svg>`;
}

/**
 * @param {number[]} values
 * @param {{label: string, height?: number}} o
 */
export function lineChart(values, o) {
  const h = o.height ?? 160;
  const w = 600;
  const max = Math.max(...values) * 1.08 || 1;
  const min = Math.min(...values) * 0.85;
  const x = (/** @type {number} */ i) => (values.length === 1 ? w / 2 : (i / (values.length - 1)) * w);
  const y = (/** @type {number} */ v) => h - ((v - min) / (max - min || 1)) * (h - 6) - 3;
  const pts = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  const grid = [0.25, 0.5, 0.75].map((f) => `<line x1="0" x2="${w}" y1="${(h * f).toFixed(1)}" y2="${(h * f).toFixed(1)}" class="grid"/>`).join('');
  return `<svg class="chart chart-line" viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" role="img" aria-label="${esc(o.label)}">
    ${grid}<polygon class="area" points="0,${h} ${pts.join(' ')} ${w},${h}"/><polyline class="line" points="${pts.join(' ')}" vector-effect="non-scaling-stroke"/></svg>`;
}

/**
 * A horizontal bar list, e.g. top products.
 * @param {{label:string, value:number, display:string}[]} rows
 */
export function barList(rows) {
  const max = Math.max(...rows.map((r) => r.value), 1);
  return `<ul class="bar-list">${rows.map((r) => `<li><span class="bar-label">${esc(r.label)}</span><span class="bar-track"><span class="bar-fill" style="width:${((r.value / max) * 100).toFixed(1)}%"></span></span><span class="bar-value">${esc(r.display)}</span></li>`).join('')}</ul>`;
}
