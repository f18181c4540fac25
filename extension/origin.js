// One rule for "which site is this URL", shared by the worker and the approval window: both must
// name the same origin for a tab, or a per-origin decision made in one is not found by the other.

/** `scheme://host[:port]` of a URL as Chrome spells it; 'file://' for file pages; '' when it has
 * none (opaque, about:blank, not a URL).
 * @param {string} url @returns {string} */
export function originOf(url) {
  if (/^file:/i.test(url)) return 'file://';
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? '' : origin;
  } catch {
    return '';
  }
}
