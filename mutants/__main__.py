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
        "if origin not in allowed:",
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
        "return (self._hub.revision, self._hub.disclosure.listing_key(view), ctx.protocol_version)",
        "return (ctx.protocol_version,)",
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
        "bridge/tabmcp/core/trust/results.py",
        "cleaned = strip_hidden(text, removed) if settings.strip_hidden else text",
        "cleaned = text",
        ("bridge/tests/test_trust_results.py",),
    ),
    Mutation(
        "results-unframed",
        "page result text is no longer framed as data from its origin",
        "bridge/tabmcp/core/trust/results.py",
        'holder[key] = f"{opening}\\n{holder[key]}\\n{closing}"',
        "holder[key] = holder[key]",
        ("bridge/tests/test_trust_results.py",),
    ),
    Mutation(
        "results-not-scanned",
        "results that give the agent orders are not flagged",
        "bridge/tabmcp/core/trust/results.py",
        "        scan(cleaned)\n",
        "        pass\n",
        ("bridge/tests/test_trust_results.py",),
    ),
    Mutation(
        "no-lockdown",
        "a flagged result no longer makes writes ask",
        "bridge/tabmcp/core/trust/guard.py",
        "self.lockdown.flag(source.origin, source.tool, processed.flags)",
        "pass",
        ("bridge/tests/test_trust_core.py", "-k", "lockdown or flagged"),
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
