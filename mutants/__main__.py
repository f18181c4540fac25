"""One-line mutations of tabmcp's core behaviours, each run against the tests that guard it.

    ./dev mutants            every mutation
    ./dev mutants NAME...    only these (see --list)

Each mutation changes one line of the committed tree (HEAD) in a throwaway git worktree, runs
the tests named beside it there, and expects them to FAIL. A mutation the tests survive is a
behaviour nobody would notice breaking. A mutation whose line is no longer in the code is
reported as STALE (update it here): the list is part of the test suite's upkeep.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    name: str
    what: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "notify-after-enhancement",
        "enhanced tools enter the registry without telling clients",
        "bridge/tabmcp/server/hub.py",
        "            self._apply(self.registry.apply(snap))",
        "            self.registry.apply(snap)",
        ("bridge/tests/test_mediation.py",),
    ),
    Mutation(
        "bm25-idf-one",
        "every query word weighs the same (BM25 IDF forced to 1)",
        "bridge/tabmcp/core/search/index.py",
        "idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))",
        "idf = 1.0",
        ("bridge/tests/test_search_relevance.py",),
    ),
    Mutation(
        "no-list-changed",
        "page-driven changes are never sent to handshake-era clients",
        "bridge/tabmcp/server/mcp.py",
        "            await conn.send_tool_list_changed(meta=meta)\n\n    async def notify_one",
        "            pass\n\n    async def notify_one",
        ("bridge/tests/test_bridge.py", "-k", "notif or burst"),
    ),
    Mutation(
        "no-expansion-notice",
        "a client that opens a category is not told its listing grew",
        "bridge/tabmcp/core/tools/call.py",
        "await ctx.notify_changed(expanded=name)",
        "pass",
        ("bridge/tests/test_bridge.py", "-k", "expansion"),
    ),
    Mutation(
        "coalesce-no-max-wait",
        "a burst of changes postpones its notification forever",
        "bridge/tabmcp/core/coalesce.py",
        "return min(self.debounce_s, max(0.0, self._burst_started + self.max_wait_s - now))",
        "return self.debounce_s",
        ("bridge/tests/test_coalesce.py",),
    ),
    Mutation(
        "any-extension-origin",
        "the extension endpoint accepts any Origin",
        "bridge/tabmcp/server/extension.py",
        "if origin not in allowed and not is_firefox_extension(origin):",
        "if False:",
        ("bridge/tests/test_bridge.py", "bridge/tests/test_bad_input.py", "-k", "origin"),
    ),
    Mutation(
        "batched-flood-counts-frames",
        "a batched frame counts as one message at the flood gate (a flood hides in one frame)",
        "bridge/tabmcp/server/extension.py",
        'messages = 1 + frame.count("\\n" if isinstance(frame, str) else b"\\n") if link.batched else 1',
        "messages = 1",
        ("bridge/tests/test_extension_link.py", "-k", "flood"),
    ),
    Mutation(
        "batched-frame-read-whole",
        "a batched frame from the extension is read as one message (its results never end their calls)",
        "bridge/tabmcp/core/session.py",
        "        if peer.batched:\n            newline =",
        "        if False:\n            newline =",
        ("bridge/tests/test_extension_link.py", "-k", "together"),
    ),
    Mutation(
        "stream-any-origin",
        "the relays' /mcp-stream accepts a browser Origin (a web page could drive MCP)",
        "bridge/tabmcp/server/stream.py",
        'if ws.headers.get("origin") is not None or not is_loopback_host(ws.headers.get("host")):',
        'if not is_loopback_host(ws.headers.get("host")):',
        ("bridge/tests/test_stream.py",),
    ),
    Mutation(
        "activity-deferred-unredacted",
        "a deferred activity row is written without redaction",
        "bridge/tabmcp/core/activity.py",
        "            round(duration_ms, 3), summarize(arguments, redactor), summarize(result, redactor))",
        "            round(duration_ms, 3), json.dumps(arguments, default=str), json.dumps(result, default=str))",
        ("bridge/tests/test_activity.py",),
    ),
    Mutation(
        "no-argument-validation",
        "page tool arguments reach the page unchecked",
        "bridge/tabmcp/core/tools/call.py",
        "args = validate_arguments(entry.public_name, entry.tool.input_schema, arguments)",
        "args = arguments",
        ("bridge/tests/test_bridge.py", "bridge/tests/test_policy_bridge.py"),
    ),
    Mutation(
        "no-approval",
        "destructive tools run without asking",
        "bridge/tabmcp/core/tools/call.py",
        "if decision.needs_approval:",
        "if False:",
        ("bridge/tests/test_policy_bridge.py",),
    ),
    Mutation(
        "category-lists-members",
        "every listed category repeats its member names (the listing grows with the tools again)",
        "bridge/tabmcp/core/disclosure.py",
        '"description": f"{marker} {summary(entry.category.description)}".rstrip(),',
        '"description": f"{marker} {summary(entry.category.description)} Tools: {\', \'.join(names)}.",',
        ("bridge/tests/test_disclosure_budget.py",),
    ),
    Mutation(
        "category-search-cut-at-ten",
        "search_tools(category=...) lists only the first ten of a category",
        "bridge/tabmcp/core/tools/search.py",
        'limit = int(arguments.get("limit") or (MAX_LIMIT if listing else 10))',
        'limit = int(arguments.get("limit") or 10)',
        ("bridge/tests/test_disclosure_findable.py",),
    ),
    Mutation(
        "hidden-members-leak",
        "category members hidden by policy or scope are shown",
        "bridge/tabmcp/core/scoping.py",
        "return tuple(m for m in entry.members if self.visible(m))",
        "return tuple(entry.members)",
        ("bridge/tests/test_disclosure.py", "bridge/tests/test_policy_bridge.py"),
    ),
    Mutation(
        "no-text-redaction",
        "secrets in free text leave the bridge's telemetry unredacted",
        "bridge/tabmcp/core/telemetry/redact.py",
        "            value = pattern.sub(self._replace, value)",
        "            pass",
        ("bridge/tests/telemetry/test_redact.py",),
    ),
    Mutation(
        "tab-close-keeps-calls",
        "a call in a tab that closes waits for its timeout",
        "bridge/tabmcp/core/session.py",
        "            events += self._end(request, _Rule.TAB_CLOSED)",
        "            pass",
        ("bridge/tests/test_bridge.py", "-k", "closed"),
    ),
    Mutation(
        "draft4-refused",
        "a tool with Draft 4 boolean exclusiveMinimum is refused",
        "bridge/tabmcp/core/models.py",
        "        if _has_draft4_exclusive(v):\n            v = upgrade_draft4(v)",
        "        pass",
        ("bridge/tests/test_validation.py",),
    ),
    Mutation(
        "live-dom-unprocessed",
        "text read from the live page (query_dom) reaches the agent uncleaned and unscanned",
        "bridge/tabmcp/core/tools/query_dom.py",
        'return as_page_content(ctx, tab_id, "query_dom", answer)',
        "return answer",
        ("bridge/tests/test_trust_bridge.py",),
    ),
    Mutation(
        "listing-cache-ignores-changes",
        "a cached tools/list is served after the page's tools changed",
        "bridge/tabmcp/server/mcp.py",
        "return (self._hub.revision, self._hub.disclosure.listing_key(view), ctx.protocol_version, page)",
        "return (ctx.protocol_version, page)",
        ("bridge/tests/test_listing_cache.py",),
    ),
    Mutation(
        "stale-revision",
        "listings stop reporting telemetry-driven changes in their revision",
        "bridge/tabmcp/server/hub.py",
        "return self.registry.version + self.telemetry_link.revision",
        "return self.registry.version",
        ("bridge/tests/test_revision.py",),
    ),
    # -- pages are untrusted (issue 16) -------------------------------------------------------
    Mutation(
        "results-keep-hidden",
        "hidden characters (Unicode tags, zero-width, bidi) reach the agent in page results",
        "bridge/tabmcp/core/trust/gate.py",
        "cleaned = strip_hidden(text, self.removed) if self.settings.strip_hidden else text",
        "cleaned = text",
        ("bridge/tests/test_trust_results.py",),
    ),
    Mutation(
        "results-unframed",
        "page result text is no longer framed as data from its origin",
        "bridge/tabmcp/core/trust/results.py",
        'holder["text"] = f"{opening}\\n{holder[\'text\']}\\n{closing}"',
        'holder["text"] = holder["text"]',
        ("bridge/tests/test_trust_results.py",),
    ),
    Mutation(
        "results-not-scanned",
        "results that give the agent orders are not flagged",
        "bridge/tabmcp/core/trust/results.py",
        "    gate.scan()  # everything the agent is given, in full\n",
        "    pass\n",
        ("bridge/tests/test_trust_results.py",),
    ),
    Mutation(
        "no-lockdown",
        "a flagged result no longer makes writes ask",
        "bridge/tabmcp/core/trust/guard.py",
        "self.lockdown.flag(source.origin, source.tool, flags)",
        "pass",
        ("bridge/tests/test_trust_core.py", "-k", "lockdown or flagged"),
    ),
    # -- one gate for every page string (issue 30) ---------------------------------------------
    Mutation(
        "page-error-ungated",
        "a page's thrown error reaches the agent as it was: hidden characters, any length, no frame, no flag",
        "bridge/tabmcp/server/mcp.py",
        "                exc = self._page_error(exc, name, arguments)",
        "                pass",
        ("bridge/tests/test_trust_bridge.py", "-k", "thrown"),
    ),
    Mutation(
        "page-code-forged",
        "a page answers with a code the bridge owns (a forged WRITES_DISABLED passes as the bridge's)",
        "bridge/tabmcp/errors.py",
        "    if from_page or cls is None or code not in EXTENSION_CODES:",
        "    if from_page or cls is None:",
        ("bridge/tests/test_session.py", "-k", "code_the_bridge_owns"),
    ),
    Mutation(
        "worker-trusts-page-codes",
        "the worker relays a page's error unmarked: a page's TAB_NAVIGATED passes as the worker's own",
        "extension/background.js",
        "    fromPage: true,",
        "    fromPage: false,",
        ("e2e/test_gate.py", "-k", "polyfill"),
    ),
    Mutation(
        "scan-stops-early",
        "the scanner stops after 2,000 strings: an order after the filler passes",
        "bridge/tabmcp/core/trust/gate.py",
        'reasons += scan_result_text("\\n".join(self._delivered))',
        'reasons += scan_result_text("\\n".join(self._delivered[:2000]))',
        ("bridge/tests/test_trust_gate.py", "-k", "filler"),
    ),
    Mutation(
        "no-confusable-fold",
        "look-alike letters (Cyrillic, Greek) hide an order from the scanner",
        "bridge/tabmcp/core/injection.py",
        "    text = fold(text)\n",
        "    text = text\n",
        ("bridge/tests/test_trust_gate.py", "-k", "look_alike"),
    ),
    Mutation(
        "telemetry-ungated",
        "observe hands the pages' console output and bodies to the agent raw",
        "bridge/tabmcp/core/tools/telemetry.py",
        "    return ctx.trust.page_content(origin, url, tool, result)",
        "    return result",
        ("bridge/tests/test_trust_bridge.py", "-k", "telemetry"),
    ),
    Mutation(
        "changed-definition-runs",
        "a tool whose definition changed since it was pinned runs without asking",
        "bridge/tabmcp/core/trust/guard.py",
        "        if state.changed:\n            extra.append(",
        "        if False:\n            extra.append(",
        ("bridge/tests/test_trust_core.py", "-k", "changed"),
    ),
    Mutation(
        "consequential-runs",
        "consequentialHint tools run without asking",
        "bridge/tabmcp/core/scoping.py",
        "consequential = is_consequential(entry) and self.trust.consequential_approval",
        "consequential = False",
        ("bridge/tests/test_trust_core.py", "-k", "consequential"),
    ),
    Mutation(
        "debugging-listed",
        "debugging tools are listed to agents",
        "bridge/tabmcp/core/scoping.py",
        "if is_debugging(entry) and not self.trust.show_debugging:",
        "if False:",
        ("bridge/tests/test_trust_core.py", "-k", "debugging"),
    ),
    Mutation(
        "over-parameterization-silent",
        "schemas asking for unrelated personal attributes are not flagged",
        "bridge/tabmcp/core/injection.py",
        "                if not why.search(purpose):",
        "                if False:",
        ("bridge/tests/test_trust_core.py", "-k", "personal or draft or over_parameterized"),
    ),
    Mutation(
        "site-reachable-by-default",
        "every http(s) origin is reachable: agents open sites nobody allowed",
        "bridge/tabmcp/core/sites.py",
        '        return "person" if origin in self._allowed else ""',
        '        return "person"',
        ("bridge/tests/test_sites.py",),
    ),
    Mutation(
        "site-redirect-ignored",
        "a tab opened for a site that landed on another origin has its same-named tool called",
        "bridge/tabmcp/core/session.py",
        "        if origin and origin != request.origin:",
        "        if False:",
        ("bridge/tests/test_sites_bridge.py", "-k", "redirect"),
    ),
    Mutation(
        "site-opens-before-validation",
        "a closed site's tool opens a tab for arguments that can never be valid",
        "bridge/tabmcp/core/tools/call.py",
        "        validate_arguments(entry.public_name, entry.tool.input_schema, arguments)\n        entry = await",
        "        entry = await",
        ("bridge/tests/test_sites_bridge.py", "-k", "bad_arguments"),
    ),
    Mutation(
        "site-stale-never-marked",
        "a tool the page no longer offers keeps being offered (and opening tabs) while its site is closed",
        "bridge/tabmcp/server/sites.py",
        "            self.sites.mark_stale(origin, tool)",
        "            pass",
        ("bridge/tests/test_sites_bridge.py", "-k", "stale"),
    ),
    Mutation(
        "pause-ignored",
        "the person's pause does not stop agents' calls",
        "bridge/tabmcp/core/tools/call.py",
        "    ctx.bridge.controls.check_not_paused()",
        "    pass",
        ("bridge/tests/test_controls_bridge.py",),
    ),
    Mutation(
        "origin-switch-ignored",
        "an origin the person switched off keeps its tools",
        "bridge/tabmcp/core/scoping.py",
        "        return self.controls is None or self.controls.origin_enabled(tab.origin)",
        "        return True",
        ("bridge/tests/test_controls.py", "-k", "origin or listings"),
    ),
    Mutation(
        "writes-switch-ignored",
        "the person's Writes switch off does not stop writes",
        "bridge/tabmcp/core/scoping.py",
        "        if person_writes is False:",
        "        if False:",
        ("bridge/tests/test_controls.py", "-k", "writes"),
    ),
    Mutation(
        "switch-change-not-listed",
        "a switched-off origin's tools stay in a cached tools/list",
        "bridge/tabmcp/core/disclosure.py",
        "        return (self.registry.version, self.hook_version(), self.gate.version, profile, view.dynamic, expanded, usage)",
        "        return (self.registry.version, self.hook_version(), 0, profile, view.dynamic, expanded, usage)",
        ("bridge/tests/test_controls.py", "-k", "listings"),
    ),
    Mutation(
        "page-redacts-before-rules",
        "the page builds what it captured before the bridge's rules arrive (with no rules)",
        "extension/page/queue.js",
        "    if (known()) push(build());\n    else push(/** @type {any} */ ({ kind, build }));",
        "    push(build());",
        ("e2e/test_telemetry_capture.py", "-k", "before_the_bridges_rules"),
    ),
    Mutation(
        "page-natives-live",
        "the capture looks querySelectorAll up when it runs, so a page that patched it fools it",
        "extension/page/natives.js",
        "    qsa: Document.prototype.querySelectorAll,",
        "    qsa: { call: (d, s) => d.querySelectorAll(s) },",
        ("e2e/test_telemetry_capture.py", "-k", "patches_natives"),
    ),
    Mutation(
        "page-query-before-rules",
        "a page query is answered before the bridge's rules arrive",
        "extension/page/query.js",
        "    whenKnown(() => N.then.call(answerQuery(msg), noop, oops));",
        "    N.then.call(answerQuery(msg), noop, oops);",
        ("e2e/test_telemetry_capture.py", "-k", "before_the_bridges_rules"),
    ),
    Mutation(
        "page-forms-ignore-the-switch",
        "page forms are listed and called whatever the person's forms-as-tools switch says",
        "bridge/tabmcp/core/scoping.py",
        "        if page_form and (refused := self.forms.refusal(tab.forms_origin, tab.origin)):",
        "        if False:",
        ("bridge/tests/test_page_forms.py",),
    ),
    Mutation(
        "pages-mark-their-own-page-forms",
        "a page's own tool can claim to be a page form (pageForm is no longer the bridge's only)",
        "bridge/tabmcp/core/models.py",
        '    "pageForm", "page_form",',
        "",
        ("bridge/tests/test_page_forms.py",),
    ),
    Mutation(
        "site-closed-by-any-page",
        "a site is one page: any open page of the origin hides every stored tool of its other pages",
        "bridge/tabmcp/core/sites.py",
        "                if (record.origin, record.name) not in stale and record.name not in offered:",
        "                if (record.origin, record.name) not in stale and not offered:",
        ("bridge/tests/test_sites.py", "-k", "many_pages"),
    ),
    Mutation(
        "stale-on-any-page",
        "a tool goes stale when any page of its site settles without it, not only its own page",
        "bridge/tabmcp/server/sites.py",
        "            if same_page(settled_on, self.sites.document_url(origin, tool) or url):",
        "            if True:",
        ("e2e/test_sites.py", "-k", "many_pages and polyfill"),
    ),
    Mutation(
        "label-words-with-options",
        "a polyfilled form describes a select inside its label with every option's text",
        "polyfill/webmcp-polyfill.js",
        "        else if (child.nodeType === 1 && !LABEL_SKIP.has(/** @type {Element} */ (child).localName)) walk(child);",
        "        else if (child.nodeType === 1) walk(child);",
        ("e2e/test_declarative.py", "-k", "same_form and polyfill"),
    ),
    Mutation(
        "pattern-by-python-re",
        "tool schemas' patterns judged by Python's re: a tool the browser registered is dropped",
        "bridge/tabmcp/core/models.py",
        "    if Draft202012Validator(Draft202012Validator.META_SCHEMA).is_valid(schema):\n        return ECMA_2020_12",
        "    if Draft202012Validator(Draft202012Validator.META_SCHEMA).is_valid(schema):\n        return Draft202012Validator",
        ("bridge/tests/test_validation.py",),
    ),
    Mutation(
        "polyfill-refuses-outside-subset",
        "the polyfill refuses what the browser accepts (format, $ref...) without strict schemas",
        "polyfill/webmcp-polyfill.js",
        "    const strict = strictSchemas();",
        "    const strict = true;",
        ("polyfill/tests/test_polyfill_draft.py", "-k", "by_default"),
    ),
    Mutation(
        "category-atomic-on-bad-member",
        "one bad member takes its whole category down in the polyfill",
        "polyfill/webmcp-polyfill.js",
        "          continue;\n        }\n        seen.add(m.dict.name);",
        "          throw e;\n        }\n        seen.add(m.dict.name);",
        ("polyfill/tests/test_polyfill_categories.py", "-k", "collisions"),
    ),
    Mutation(
        "page-takes-qualified-form",
        "a page tool named t<N>.transfer is listed plainly, taking the bank tab's qualified name",
        "bridge/tabmcp/core/registry.py",
        "        return name not in self._reserved and not is_qualified_form(name)",
        "        return name not in self._reserved",
        ("e2e/test_names.py", "-k", "qualified_name and polyfill"),
    ),
    Mutation(
        "names-move-to-another-origin",
        "a name shown for one origin is served by another's tool once the first left",
        "bridge/tabmcp/core/registry.py",
        "        return bound is not None and bound != origin",
        "        return False",
        ("e2e/test_names.py", "-k", "never_served and polyfill"),
    ),
    Mutation(
        "approval-under-top-origin",
        "a framed bank's approval is asked and remembered under the top page's origin",
        "extension/approval/approvals.js",
        "    const origin = frameId ? frameOrigin(request.tabId, frameId) : topOrigin;",
        "    const origin = topOrigin;",
        ("e2e/test_names.py", "-k", "framed and polyfill"),
    ),
    Mutation(
        "approval-no-input-delay",
        "Allow works the instant the approval window opens (double-click-jacking)",
        "extension/approval/approval.js",
        "const ARM_DELAY_MS = 1000;",
        "const ARM_DELAY_MS = 0;",
        ("e2e/test_names.py", "-k", "framed and polyfill"),
    ),
    Mutation(
        "pins-per-origin-cap",
        "a page churning names grows its origin's pins without bound (no per-origin cap)",
        "bridge/tabmcp/core/trust/pins.py",
        "        if count < self.limits.per_origin:",
        "        if True:",
        ("bridge/tests/test_trust_retention.py", "-k", "cap"),
    ),
    Mutation(
        "transient-origins-expire",
        "the pins and usage of an origin the person never trusted never expire",
        "bridge/tabmcp/core/trust/retention.py",
        "            if now - last < grace:",
        "            if True:",
        ("bridge/tests/test_trust_retention.py", "-k", "expire or expiry or expired"),
    ),
    Mutation(
        "accepted-pin-kept",
        "a pin the person accepted is not kept: churn evicts it and its change looks new",
        "bridge/tabmcp/core/trust/pins.py",
        "\"changed_at = NULL, kept = 1 WHERE origin = ? AND name = ? AND status = 'changed'\",",
        "\"changed_at = NULL WHERE origin = ? AND name = ? AND status = 'changed'\",",
        ("bridge/tests/test_trust_retention.py", "-k", "accepted"),
    ),
    Mutation(
        "kept-pin-trusts-origin",
        "an origin where the person kept a pin is treated as never trusted (its other pins expire)",
        "bridge/tabmcp/core/trust/pins.py",
        "\"SELECT 1 FROM tool_pins WHERE origin = ? AND kept = 1 LIMIT 1\", (origin,)",
        "\"SELECT 1 FROM tool_pins WHERE 0\", ()",
        ("bridge/tests/test_trust_retention.py", "-k", "decided or accepted"),
    ),
    Mutation(
        "approval-keeps-pin",
        "a call the person approved leaves its origin untrusted (its pins expire like a stranger's)",
        "bridge/tabmcp/server/approvals.py",
        "            self.hub.pins.keep(entry.tab.origin, entry.tool.name)",
        "            pass",
        ("bridge/tests/test_trust_retention.py", "-k", "approved"),
    ),
    Mutation(
        "changed-pin-not-evicted",
        "a page churning past its pin cap clears the changed mark of its own tool (no approval asked)",
        "bridge/tabmcp/core/trust/pins.py",
        "            \"SELECT name FROM tool_pins WHERE origin = ? AND kept = 0 AND status = 'pinned' \"",
        "            \"SELECT name FROM tool_pins WHERE origin = ? AND kept = 0 \"",
        ("bridge/tests/test_trust_retention.py", "-k", "awaits"),
    ),
    Mutation(
        "own-tool-by-window-only",
        "under Chrome 160's getTools (source, not window) a frame's tools are taken as the page's own",
        "polyfill/webmcp-polyfill.js",
        "    const from = 'source' in t ? t.source : 'window' in t ? t.window : null;",
        "    const from = 'window' in t ? t.window : null;",
        ("polyfill/tests/test_polyfill_api_160.py",),
    ),
    Mutation(
        "native-schema-text-dropped",
        "a native tool whose getTools() schema is JSON text reaches the agent without its schema",
        "polyfill/webmcp-polyfill.js",
        "        : typeof given === 'string' ? JSON.parse(given) : JSON.parse(JSON.stringify(given));",
        "        : JSON.parse(JSON.stringify(given));",
        ("polyfill/tests/test_polyfill_api_160.py",),
    ),
    Mutation(
        "unpaired-link-admitted",
        "a hello without a valid pairing makes its connection the extension link (any local program)",
        "bridge/tabmcp/core/session.py",
        "        if not admission.admitted:\n            return self._unpaired(peer, hello, admission.verdict)",
        "        if False:\n            return self._unpaired(peer, hello, admission.verdict)",
        ("bridge/tests/test_pairing.py", "bridge/tests/test_pairing_bridge.py", "-k", "unpaired or nothing or displace"),
    ),
    Mutation(
        "health-leaks",
        "/health returns the status and activity to a caller with no key",
        "bridge/tabmcp/server/control.py",
        "        if not (_is(request, control_key) or _is(request, hub.config.server.mcp_token)):",
        "        if False:",
        ("bridge/tests/test_pairing_bridge.py", "-k", "health"),
    ),
    Mutation(
        "db-world-readable",
        "the database, its side files and the control key are created readable by everyone",
        "bridge/tabmcp/files.py",
        "FILE_MODE = 0o600",
        "FILE_MODE = 0o644",
        ("bridge/tests/test_files.py",),
    ),
    Mutation(
        "pairing-codes-unlimited-tries",
        "wrong pairing codes never void the pending ones (a code can be guessed)",
        "bridge/tabmcp/core/pairing.py",
        "            if self.wrong >= self.max_wrong:",
        "            if False:",
        ("bridge/tests/test_pairing.py", "-k", "wrong_codes"),
    ),
    Mutation(
        "axe-in-the-pages-world",
        "the accessibility audit runs axe in the page's main world, where the page defines `axe`",
        "extension/background.js",
        "world: 'ISOLATED', func: runOwnAxe",
        "world: 'MAIN', func: runOwnAxe",
        ("e2e/test_hostile_telemetry.py", "-k", "polyfill and answer_the_accessibility_audit"),
    ),
    Mutation(
        "window-telemetry-trusted",
        "telemetry a page posts on the window is relayed as the capture's (not page-reported)",
        "extension/content.js",
        "      relayTelemetry({ ...msg, pageReported: true });",
        "      relayTelemetry(msg);",
        ("e2e/test_hostile_telemetry.py", "-k", "polyfill and another_site"),
    ),
    Mutation(
        "late-relay-takes-a-line",
        "a content script injected into a running page takes the capture line the page hands it",
        "extension/content.js",
        "    if (!capture && !late && event.ports && event.ports[0]) takeCapture(event.ports[0]);",
        "    if (!capture && event.ports && event.ports[0]) takeCapture(event.ports[0]);",
        ("e2e/test_hostile_telemetry.py", "-k", "polyfill and before_a_reload"),
    ),
    Mutation(
        "page-config-from-window",
        "the capture takes settings a page posts on the window in the content script's envelope",
        "extension/page/config.js",
        "  install(() => T.channel.on(PAGE.telemetryConfig, configure));",
        "  install(() => { T.channel.on(PAGE.telemetryConfig, configure); T.listen(window, 'message', (e) => "
        "e.data && e.data.msg && e.data.msg.type === PAGE.telemetryConfig && configure(e.data.msg)); });",
        ("e2e/test_telemetry_capture.py", "-k", "posting_as_the_content_script"),
    ),
    Mutation(
        "telemetry-any-origin",
        "a navigation or action claiming another origin than the document's moves the tab there",
        "bridge/tabmcp/core/telemetry/store.py",
        '        return not batch.origin or batch.origin == "null" or origin_of(url) == batch.origin',
        "        return True",
        ("bridge/tests/telemetry/test_store.py",),
    ),
    Mutation(
        "card-plain-spaces-only",
        "card numbers split by no-break or thin spaces are not redacted",
        "bridge/tabmcp/core/telemetry/redact.py",
        r'_CARD_SEPARATORS = "\u0020\u00a0\u1680\u2000-\u200d\u2060\u202f\u205f\u3000\ufeff-"',
        '_CARD_SEPARATORS = " -"',
        ("bridge/tests/telemetry/test_redact.py",),
    ),
    Mutation(
        "page-cards-plain-spaces-only",
        "card numbers split by no-break or thin spaces leave unredacted (the one card shape both sides read)",
        "bridge/tabmcp/core/telemetry/redact.py",
        '"cardRun": JsPattern(rf"(?<![\\d-])(?:\\d[{_CARD_SEPARATORS}]?){{12,18}}\\d(?![\\d-])"),',
        '"cardRun": JsPattern(r"(?<![\\d-])(?:\\d[ -]?){12,18}\\d(?![\\d-])"),',
        ("bridge/tests/parity/test_parity.py", "bridge/tests/test_protocol_js.py"),
    ),
    Mutation(
        "no-pem-rule",
        "PEM private keys reach observe unredacted",
        "bridge/tabmcp/core/telemetry/settings.py",
        r'    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)",',
        "",
        ("bridge/tests/telemetry/test_redact.py",),
    ),
    Mutation(
        "agent-tab-watched-only-while-opening",
        "an agent tab is held to its origin only until it loaded (a later script redirect is let be)",
        "extension/agent_tabs.js",
        "    return !t || (!!t.origin && origin === t.origin);",
        "    return !t || !opening.has(tabId) || origin === t.origin;",
        ("e2e/test_sites.py", "-k", "sent_elsewhere"),
    ),
    Mutation(
        "page-forms-see-no-hosted-frame",
        "a form holding a frame of another site (a hosted card field) is offered without it",
        "extension/page/forms.js",
        "          if (unreadable(el)) blind = 'it holds a frame of another site, whose fields cannot be checked "
        "(a hosted card field?)';",
        "          if (unreadable(el)) blind = '';",
        ("polyfill/tests/test_page_forms.py", "-k", "hosted_card_field"),
    ),
    Mutation(
        "page-forms-ascii-only",
        "field labels are read as ASCII only: card and password fields in other scripts are offered",
        "extension/page/forms.js",
        "    .replace(/[^\\p{L}\\p{N}]+/gu, ' ')",
        "    .replace(/[^A-Za-z0-9]+/g, ' ')",
        ("polyfill/tests/test_page_forms.py", "-k", "other_languages"),
    ),
    Mutation(
        "page-forms-hide-the-destination",
        "a form sending to another origin is described with its path only",
        "extension/page/forms.js",
        "    if (url.origin !== location.origin) {",
        "    if (false) {",
        ("polyfill/tests/test_page_forms.py", "-k", "another_site_says_so"),
    ),
    Mutation(
        "activity-no-timer",
        "the activity batch is written only when a later call comes (no write-behind timer)",
        "bridge/tabmcp/server/hub.py",
        "        self.activity.on_pending = self.activity_writer.poke",
        "        self.activity.on_pending = None",
        ("bridge/tests/test_activity_bridge.py", "-k", "on_its_own"),
    ),
    Mutation(
        "approval-any-extension-sender",
        "any sender of the extension (a content script in any tab) may list and answer approvals",
        "extension/approval/approvals.js",
        "    sender.id === chrome.runtime.id && typeof sender.url === 'string' &&",
        "    sender.id === chrome.runtime.id || typeof sender.url === 'string' &&",
        ("e2e/test_senders.py", "-k", "approval and polyfill"),
    ),
    Mutation(
        "panel-any-extension-sender",
        "any sender of the extension may pause agents, flip switches and set forms as tools",
        "extension/panel.js",
        "  !!sender && sender.id === chrome.runtime.id && typeof sender.url === 'string' &&",
        "  !!sender && sender.id === chrome.runtime.id || typeof sender.url === 'string' &&",
        ("e2e/test_senders.py", "-k", "pause and polyfill"),
    ),
    Mutation(
        "sites-any-extension-sender",
        "any sender of the extension may make a site reachable or forget it",
        "extension/background.js",
        "  if (sender.id !== chrome.runtime.id || !String(sender.url || '').startsWith(chrome.runtime.getURL('popup/'))) {",
        "  if (sender.id !== chrome.runtime.id) {",
        ("e2e/test_senders.py", "-k", "pause and polyfill"),
    ),
    Mutation(
        "ci-skips-missing-setup",
        "under CI=true a test skips when something ./dev setup installs is missing",
        "bridge/tabmcp/testing.py",
        "    if in_ci() and not (opted_out and os.environ.get(opted_out) == \"1\"):",
        "    if False:",
        ("bridge/tests/test_ci_skips.py",),
    ),
    Mutation(
        "bridge-ignores-cli-writes",
        "a running bridge never follows what the CLI wrote to the database (sites forgotten stay findable)",
        "bridge/tabmcp/server/app.py",
        "            self.hub.shared_state.start()  # follow the CLI's writes to the database while serving",
        "            pass",
        ("bridge/tests/test_shared_state.py",),
    ),
    Mutation(
        "cli-sites-not-followed",
        "a site the CLI allowed or forgot is not followed by the running bridge (its tools stay findable)",
        "bridge/tabmcp/server/hub.py",
        "        if self.sites.changed_elsewhere():",
        "        if False:",
        ("bridge/tests/test_shared_state.py", "-k", "allow_and_forget"),
    ),
    Mutation(
        "bug-is-anonymous",
        "an unexpected exception on a tool path reaches the agent as the SDK's anonymous Internal server error",
        "bridge/tabmcp/server/mcp.py",
        "            log.exception(\"call %s failed unexpectedly\", name)",
        "            raise",
        ("bridge/tests/test_named_errors.py",),
    ),
    Mutation(
        "failed-elicitation-anonymous",
        "a client whose elicitation fails gets an internal error instead of APPROVAL_DENIED",
        "bridge/tabmcp/server/approvals.py",
        "            except MCPError as exc:  # the client could not ask (its elicitation failed): nobody said yes",
        "            except ZeroDivisionError as exc:",
        ("bridge/tests/test_named_errors.py", "-k", "elicitation"),
    ),
    Mutation(
        "cli-trust-not-followed",
        "a definition accepted with tabmcp trust accept changes no listing revision and tells no agent",
        "bridge/tabmcp/server/hub.py",
        "            self.panel.trust_changed()",
        "            pass",
        ("bridge/tests/test_shared_state.py", "-k", "trust"),
    ),
    Mutation(
        "flood-frame-rate",
        "the content script relays every telemetry post of a page, however many (no per-frame rate)",
        "extension/content.js",
        "    if (telemetryRule.admit() !== VERDICT.pass) {",
        "    if (false) {",
        ("e2e/test_flood.py", "-k", "polyfill and flooding"),
    ),
    Mutation(
        "flood-tab-rate",
        "the worker forwards a tab's telemetry to the bridge however fast it comes (no per-tab rate)",
        "extension/background.js",
        "    if (telemetryRule(tabId).admit() !== VERDICT.pass) {",
        "    if (false) {",
        ("e2e/test_flood.py", "-k", "polyfill and past_the_content_script"),
    ),
    Mutation(
        "flood-definition-size",
        "a definition of any size is sent to the bridge (no per-definition limit)",
        "extension/limits.js",
        "        if (over) {",
        "        if (false) {",
        ("e2e/test_flood.py", "-k", "polyfill and tool_larger_than_a_frame"),
    ),
    Mutation(
        "flood-sync-one-part",
        "a reconnect's sync goes as one message however large (no parts)",
        "extension/background.js",
        "    if (parts[parts.length - 1].length && size + bytes > SIZE.syncPart) {",
        "    if (false) {",
        ("e2e/test_flood.py", "-k", "polyfill and in_parts"),
    ),
    Mutation(
        "flood-sync-part-applied-alone",
        "the bridge applies each part of a sync as the whole state",
        "bridge/tabmcp/core/session.py",
        "        if message.more:",
        "        if False:",
        ("bridge/tests/test_tab_flood.py", "-k", "parts"),
    ),
    Mutation(
        "flood-shed-counts-fully",
        "what the per-tab rule shed counts fully against the link: one tab's flood closes it for all",
        "bridge/tabmcp/core/flood.py",
        "SHED_COST = 0.1",
        "SHED_COST = 1.0",
        ("bridge/tests/test_tab_flood.py", "-k", "leaves_the_link"),
    ),
    Mutation(
        "listing-one-page",
        "a handshake-era client on HTTP gets every tool in one server-sent event, however large",
        "bridge/tabmcp/server/mcp.py",
        "        if ctx.request is not None and is_dynamic(ctx.protocol_version):",
        "        if False:",
        ("bridge/tests/test_listing_pages.py", "-k", "ten_thousand"),
    ),
    Mutation(
        "package-without-module",
        "the polyfill's npm package leaves out its ES module entry",
        "polyfill/package.json",
        '  "files": ["webmcp-polyfill.js", "webmcp-polyfill.mjs", "webmcp-polyfill.d.ts", "README.md"],',
        '  "files": ["webmcp-polyfill.js", "webmcp-polyfill.d.ts", "README.md"],',
        ("polyfill/tests/test_package.py",),
    ),
    Mutation(
        "kind-field-not-redacted",
        "an error's stack is no longer among the fields its kind's record has redacted",
        "bridge/tabmcp/capture/kinds.py",
        'redact={"message": Redact.TEXT, "stack": Redact.TEXT, "source": Redact.SOURCE},',
        'redact={"message": Redact.TEXT, "source": Redact.SOURCE},',
        ("bridge/tests/telemetry/test_kinds.py",),
    ),
    Mutation(
        "kind-errors-evicted-first",
        "errors get the lowest eviction rank: a log flood pushes them out under the byte ceiling",
        "bridge/tabmcp/capture/kinds.py",
        '"error", ErrorEvent, BufferKind.ERRORS, cap=500, max_cap=100_000, page_cap=100, evict_rank=7,',
        '"error", ErrorEvent, BufferKind.ERRORS, cap=500, max_cap=100_000, page_cap=100, evict_rank=-1,',
        ("bridge/tests/telemetry/test_kinds.py", "bridge/tests/telemetry/test_buffers.py"),
    ),
    Mutation(
        "redaction-skips-record-urls",
        "redaction applies every rule of a kind's record but the URL one",
        "bridge/tabmcp/core/telemetry/redact.py",
        "            if value:\n                update[name] = self._RULES[rule](self, event, name, value)",
        "            if value and rule is not Redact.URL:\n"
        "                update[name] = self._RULES[rule](self, event, name, value)",
        ("bridge/tests/telemetry/test_kinds.py",),
    ),
    Mutation(
        "bad-event-refuses-batch",
        "one malformed event in a telemetry batch fails the whole message instead of being counted",
        "bridge/tabmcp/capture/kinds.py",
        '    return RejectedEvent(kind=kind if isinstance(kind, str) and kind else "unknown")',
        '    raise ValueError("a malformed event")',
        ("bridge/tests/telemetry/test_kinds.py", "-k", "wire"),
    ),
    Mutation(
        "page-caps-not-from-kinds",
        "the page's queue holds any number of events of a kind instead of its record's page cap",
        "extension/page/queue.js",
        "CAPS[kind] = T.WIRE.KINDS[kind].pageCap;",
        "CAPS[kind] = 1e9;",
        ("e2e/test_telemetry_capture.py", "-k", "flood"),
    ),
    Mutation(
        "js-pattern-drops-inline-flags",
        "a pattern's leading (?i) is dropped when compiled for the page (case-insensitive rules go blind)",
        "bridge/tabmcp/core/js_regex.py",
        '        flags = "".join(f for f in "ims" if f in inline.group(1))',
        '        flags = ""',
        ("bridge/tests/parity/test_parity.py", "-k", "page"),
    ),
    Mutation(
        "glob-star-one-char",
        "a forms-as-tools glob's * compiled for the worker matches one character",
        "bridge/tabmcp/core/js_regex.py",
        '            out.append(".*")',
        '            out.append(".")',
        ("bridge/tests/parity/test_parity.py", "-k", "worker or ecma"),
    ),
    Mutation(
        "worker-globs-ignore-pattern",
        "the worker matches a config rule's glob as an exact origin, not by the bridge's pattern",
        "extension/forms-policy.js",
        "!!compiled(rule.pattern)?.test(origin)",
        "rule.match === origin",
        ("bridge/tests/parity/test_parity.py", "-k", "worker"),
    ),
    Mutation(
        "end-rule-wrong-code",
        "a navigated tab ends its requests with TAB_CLOSED in the one end-rules table",
        "bridge/tabmcp/core/end_rules.py",
        "    EndRule.TAB_NAVIGATED: EndRuleSpec(ErrorCode.TAB_NAVIGATED, True, _BOTH,",
        "    EndRule.TAB_NAVIGATED: EndRuleSpec(ErrorCode.TAB_CLOSED, True, _BOTH,",
        ("bridge/tests/parity/test_parity.py", "-k", "rule"),
    ),
    Mutation(
        "worker-always-reports-end",
        "the worker reports every end to the bridge, also the ends the bridge made itself",
        "extension/pending.js",
        "export const bridgeWaits = (rule) => !!END_RULES[rule]?.reported;",
        "export const bridgeWaits = (rule) => true;",
        ("bridge/tests/parity/test_parity.py", "-k", "rule"),
    ),
    Mutation(
        "action-names-not-redacted",
        "the bridge no longer re-redacts the element names an action carries (a page-posted action keeps a token)",
        "bridge/tabmcp/capture/kinds.py",
        'redact={"url": Redact.URL, "value": Redact.INPUT, "selectors": Redact.SELECTORS},',
        'redact={"url": Redact.URL, "value": Redact.INPUT},',
        ("bridge/tests/telemetry/test_kinds.py",),
    ),
)


def run(mutation: Mutation, tree: Path, python: str) -> tuple[str, float]:
    target = tree / mutation.path
    original = target.read_text()
    if original.count(mutation.old) != 1:
        return "STALE", 0.0
    target.write_text(original.replace(mutation.old, mutation.new))
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(tree / "bridge"), str(tree / "mediator")]),
           "TABMCP_DATA": os.environ.get("TABMCP_DATA", str(REPO.parent / "shared" / "data")),
           "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    try:
        done = subprocess.run([python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *mutation.tests],
                              cwd=tree, env=env, capture_output=True, text=True, timeout=900)
        code = done.returncode
    except subprocess.TimeoutExpired:
        code = -1
    finally:
        target.write_text(original)
    took = time.monotonic() - started
    return {0: "SURVIVED", 1: "caught", -1: "TIMEOUT"}.get(code, f"ERROR (pytest exit {code})"), took


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="./dev mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutations to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.names or m.name in args.names]
    if args.list or not chosen:
        for m in MUTATIONS:
            print(f"{m.name:28} {m.what}")
        return 0 if args.list else 2
    tree = Path(tempfile.mkdtemp(prefix="tabmcp-mutants-"))
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), "HEAD"], cwd=REPO, check=True)
    if (REPO / "node_modules").is_dir():  # npm packages the tests load (axe-core), never committed
        (tree / "node_modules").symlink_to(REPO / "node_modules")
    results = []
    try:
        for m in chosen:
            outcome, took = run(m, tree, sys.executable)
            results.append((m, outcome))
            print(f"{outcome:10} {m.name:28} {took:6.1f}s  {m.what}", flush=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=REPO, check=False)
        shutil.rmtree(tree, ignore_errors=True)
    caught = sum(outcome == "caught" for _, outcome in results)
    print(f"\n{caught} of {len(results)} mutations caught")
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
