// @ts-check
// Forms as tools: the bridge's switch per origin (forms-policy.js), told to each page, and the
// popup's view and flip of it.
import { OUT, PAGE } from '../protocol.js';
import { cleanRules, formsEnabled } from '../forms-policy.js';
import { state } from './state.js';
import { send } from './link.js';
import { scheduleTabUpdate } from './tabs.js';

/** Tell a page whether its forms may be offered (page/forms.js scans only while they may). */
export function tellFormsPolicy(entry) {
  try {
    entry.port.postMessage({ type: PAGE.formsPolicy, enabled: formsEnabled(state.formsRules, entry.origin),
      secrets: state.secretSites.has(entry.origin) });
  } catch {
    /* the page is gone */
  }
}

/**
 * The bridge's rules changed: every page hears its switch (and whether a secret is bound to its
 * origin, so a sign-in form may be offered); forms of origins now off are dropped.
 * @param {unknown} rules @param {unknown} secretSites
 */
export function setFormsPolicy(rules, secretSites) {
  state.formsRules = cleanRules(rules);
  state.secretSites = new Set(Array.isArray(secretSites) ? secretSites.filter((o) => typeof o === 'string') : []);
  for (const [tabId, entry] of state.ports) {
    tellFormsPolicy(entry);
    if (state.forms.has(tabId) && !formsEnabled(state.formsRules, entry.origin)) {
      state.forms.delete(tabId);
      scheduleTabUpdate(tabId);
    }
  }
  for (const wake of state.formsWaiters.splice(0)) wake();
}

/** The popup's view: the rules, and the switch of one origin. */
export function formsStatus(origin) {
  return {
    connected: state.status === 'ready',
    rules: state.formsRules,
    origin: String(origin || ''),
    enabled: formsEnabled(state.formsRules, String(origin || '')),
  };
}

/** The person flipped the switch in the popup: the bridge keeps it and answers with new rules. */
export async function setFormsSwitch(origin, enabled) {
  if (typeof origin !== 'string' || !/^https?:\/\//.test(origin)) return { ok: false, error: 'not a web page origin' };
  const announced = new Promise((resolve) => {
    state.formsWaiters.push(resolve);
    setTimeout(resolve, 5000);
  });
  if (!send({ type: OUT.formsSet, origin, enabled: !!enabled })) {
    return { ok: false, error: 'the bridge is not connected: start tabmcp serve, then try again' };
  }
  await announced;
  return { ok: true, ...formsStatus(origin) };
}
