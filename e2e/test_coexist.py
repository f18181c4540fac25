
"""Pages as people ship them, with and without tabmcp: nothing the page sees changes, and every tool
reaches the agent exactly once.

A corpus of pages (e2e/pages/coexist/) registers tools the ways real sites do: schemas as MCP
servers write them, a category with one bad member, their own WebMCP shim from npm (or a
hand-written one) loaded before or after the tabmcp polyfill, React's StrictMode double mount
and route changes, hot reload re-registering a name. Each page runs in both flavours twice: in
the session's Chromium with the extension, and in a plain Chromium with the same switches and no
extension. What the page saw (registration outcomes, its own getTools(), its own executeTool(),
its console) must be the same, apart from what our additions add; and through the official MCP
client every tool the page kept is listed once and each call reaches the page's own execute.

Each case writes its observed row to the compatibility table (e2e/compat_table.py) and fails when
docs/polyfill.md says otherwise.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, Page
from tabmcp.demo.server import serve_demo_site
from tabmcp.testing import missing_from_setup

from . import compat_table
from .conftest import PAGES, Env, eventually

NODE_MODULES = Path(__file__).resolve().parents[1] / "node_modules"
NPM_FILES = {  # URL → file installed by ./dev setup (npm): served, never copied into the repo
    "/npm/react.js": "react/umd/react.development.js",
    "/npm/react-dom.js": "react-dom/umd/react-dom.development.js",
    "/npm/mcpb-polyfill.js": "@mcp-b/webmcp-polyfill/dist/index.iife.js",
    "/npm/mcpb-global.js": "@mcp-b/global/dist/index.iife.js",
    "/npm/webmcp-polyfill.js": "webmcp-polyfill/lib/main.js",
}
LENIENT_WARNING = "[webmcp-polyfill] input schema: "  # polyfill mode's one warning per keyword outside the draft
CATEGORY_REPORT = "[webmcp-polyfill] registerCategory("  # the page used our addition: its refusals are reported


@dataclass(frozen=True)
class Case:
    """One page of the corpus: its URL, the calls an agent makes and what each must answer."""

    pattern: str
    path: str
    calls: dict[str, tuple[dict[str, Any], str, str]]  # tool → (arguments, result text, page's counter key)
    extras: tuple[str, ...] = field(default=())  # tools the page keeps that the agent may not call
    draft: tuple[str, ...] = ()  # what the page sees where polyfill mode follows the draft over Chromium
    # 156 on purpose (docs/polyfill.md, "Where the draft and Chromium 156 differ"): allowed to differ


SHIMS = {"mcpb-polyfill": "@mcp-b/webmcp-polyfill", "mcpb-global": "@mcp-b/global",
         "webmcp-polyfill": "webmcp-polyfill (npm, navigator.modelContext)", "hand": "a hand-written shim"}
ORDERS = {"alone": "the page's only WebMCP script", "before": "loaded before ours", "after": "loaded after ours"}
SHIM_CALLS = {
    "add_to_cart": ({"sku": "A-1"}, "added A-1", "add_to_cart"),
    "cart_total": ({}, "total 0", "cart_total"),
}

CORPUS = [
    Case("schemas: format, $ref/$defs, ECMA-only pattern, additionalProperties", "coexist/schemas.html", {
        "book_date": ({"date": "2026-12-24"}, 'book_date: {"date":"2026-12-24"}', "book_date"),
        "contact": ({"email": "ada@example.org"}, 'contact: {"email":"ada@example.org"}', "contact"),
        "ref_defs": ({"item": {"sku": "A-1"}}, 'ref_defs: {"item":{"sku":"A-1"}}', "ref_defs"),
        "js_pattern": ({"email": "ada@example.org"}, 'js_pattern: {"email":"ada@example.org"}', "js_pattern"),
        "open_object": ({"theme": "dark", "x": 1}, 'open_object: {"theme":"dark","x":1}', "open_object"),
        "echo": ({"text": "hi"}, 'echo: {"text":"hi"}', "echo"),
    }),
    Case("category with one bad member", "coexist/category.html", {
        "events.list": ({}, "no events", "events.list"),
        "events.invite": ({"email": "ada@example.org"}, "invited ada@example.org", "events.invite"),
    }),
    *[
        Case(f"{SHIMS[shim]}, {ORDERS[order]}", f"coexist/shim.html?shim={shim}&order={order}", SHIM_CALLS)
        for shim in SHIMS
        for order in ORDERS
    ],
    Case("declarative form tool (toolautosubmit, respondWith)", "coexist/declarative.html", {
        "subscribe": ({"email": "ada@example.org", "frequency": "daily"}, "subscribed ada@example.org daily", "subscribe"),
    }, draft=("executed['schema']",)),  # the draft's pattern for an email control
    Case("React StrictMode double mount, route change (AbortSignal)", "coexist/react.html", {
        "search_products": ({"q": "tea"}, "3 products for tea", "search_products"),
        "view_profile": ({}, "profile of ada", "view_profile"),
    }),  # view_orders, unmounted by the route change, must not be listed
    Case("hot reload re-registering a name", "coexist/hot-reload.html", {
        "widget_info": ({}, "widget v2", "widget_info v2"),
        "naive_tool": ({}, "naive v1", "naive_tool v1"),
    }),
]


FLAVOURS = ("polyfill", "native")


def test_the_compatibility_table_documents_every_case_and_no_other() -> None:
    documented = set(compat_table.parse(compat_table.DOCS.read_text(encoding="utf-8")))
    assert documented == {(case.pattern, flavour) for case in CORPUS for flavour in FLAVOURS}


@dataclass
class Seen:
    """What one load of a page saw."""

    report: dict[str, Any]
    console: list[tuple[str, str]]
    errors: list[str]


@pytest.fixture(scope="module")
async def corpus_url() -> AsyncIterator[str]:
    """The e2e pages plus the npm packages the corpus loads, on a server of their own."""
    missing = [rel for rel in NPM_FILES.values() if not (NODE_MODULES / rel).exists()]
    if missing:
        missing_from_setup(f"npm packages of the coexistence corpus are not installed: {', '.join(missing)}")
    files = {url: NODE_MODULES / rel for url, rel in NPM_FILES.items()}
    async with serve_demo_site(site_dir=PAGES, files=files) as url:
        yield url


async def load(context: BrowserContext, url: str) -> tuple[Page, Seen]:
    page = await context.new_page()
    seen = Seen(report={}, console=[], errors=[])
    page.on("console", lambda m: seen.console.append((m.type, m.text)) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: seen.errors.append(str(e)))
    await page.goto(url)
    await page.wait_for_function("() => !!window.corpus")
    seen.report = await page.evaluate("() => window.corpus.done")
    return page, seen


def page_view_differences(with_ext: dict[str, Any], without: dict[str, Any]) -> dict[str, str]:
    """Where the page saw something else with tabmcp (what → how); keys only our additions bring
    are allowed."""
    diffs = {}
    for section in ("outcomes", "executed"):
        for key, value in without[section].items():
            if with_ext[section].get(key) != value:
                diffs[f"{section}[{key!r}]"] = f"{with_ext[section].get(key)!r} instead of {value!r}"
    if with_ext["tools"] != without["tools"]:
        diffs["getTools()"] = f"{with_ext['tools']!r} instead of {without['tools']!r}"
    if without["toolchange"] and not with_ext["toolchange"]:
        diffs["toolchange"] = "never fired"
    if with_ext["events"] != without["events"]:
        diffs["events"] = f"{with_ext['events']!r} instead of {without['events']!r}"
    return diffs


def new_console(with_ext: list[tuple[str, str]], without: list[tuple[str, str]], flavour: str) -> list[str]:
    """Console errors and warnings only the run with tabmcp had. Allowed: polyfill mode's warning per
    schema keyword outside the draft (ours is the page's WebMCP there), and registerCategory's
    report of refused members (a call to our addition)."""
    extra = Counter(with_ext) - Counter(without)
    return sorted(f"{kind}: {text}" for kind, text in extra.elements()
                  if not (flavour == "polyfill" and text.startswith(LENIENT_WARNING))
                  and not text.startswith(CATEGORY_REPORT))


async def agent_view(env: Env, page: Page, case: Case) -> tuple[dict[str, int], dict[str, str]]:
    """Tools of this tab by page name (how many times each is listed) and each call's answer."""
    def listed() -> Counter[str]:
        return Counter(e.tool.name for e in env.bridge.core.registry.tool_entries() if e.tab.url == page.url)

    # The page is done: wait for the bridge to list exactly its tools (else report what it lists).
    with contextlib.suppress(AssertionError):
        await eventually(lambda: dict(listed()) == dict.fromkeys(case.calls, 1), timeout=15)
    counts = dict(listed())
    answers: dict[str, str] = {}
    public = {e.tool.name: e.public_name for e in env.bridge.core.registry.tool_entries() if e.tab.url == page.url}
    async with env.client() as client:
        names = {t.name for t in (await client.list_tools()).tools}
        for name, (args, _want, _key) in case.calls.items():
            if name not in public:
                answers[name] = "not listed"
                continue
            if public[name] in names:
                result = await client.call_tool(public[name], args)
            else:  # a category member: the agent reaches it through the call_tool meta-tool
                result = await client.call_tool("call_tool", {"name": public[name], "arguments": args})
            text = result.content[0].text if result.content and hasattr(result.content[0], "text") else ""
            answers[name] = ("error: " if result.is_error else "") + text
    return counts, answers


def row_for(case: Case, flavour: str, counts: dict[str, int], answers: dict[str, str], reached: dict[str, int],
            diffs: list[str], console: list[str], errors: list[str]) -> compat_table.Row:
    expected = list(case.calls)
    once = [n for n in expected if counts.get(n) == 1]
    ok = [n for n, (_a, want, key) in case.calls.items() if answers.get(n) == want and reached.get(key) == 1]
    wrong = [n for n in counts if n not in expected and n not in case.extras]
    tools = f"{len(once)}/{len(expected)} once"
    if wrong:
        tools += f"; also {', '.join(sorted(wrong))}"
    return {
        "pattern": case.pattern,
        "flavour": flavour,
        "tools": tools,
        "calls": f"{len(ok)}/{len(expected)}",
        "same": "yes" if not diffs else "no: " + "; ".join(diffs).replace("|", "\\|"),
        "console": "none" if not console else "; ".join(console).replace("|", "\\|")[:300],
        "errors": "none" if not errors else "; ".join(errors).replace("|", "\\|")[:300],
    }


@pytest.mark.parametrize(
    "case", CORPUS,
    ids=[c.path.split("/")[-1].replace("shim.html?shim=", "").replace("&order=", "-") for c in CORPUS])
async def test_page_sees_the_same_and_the_agent_gets_each_tool_once(
        env: Env, corpus_url: str, plain: Callable[[str], Awaitable[BrowserContext]], page_closer: list[Page],
        case: Case) -> None:
    url = corpus_url + case.path
    opened: list[Page] = []
    try:
        bare, without = await load(await plain(env.flavour), url)
        opened.append(bare)
        if env.flavour == "native" or without.report["api"]["document"] or without.report["api"]["navigator"]:
            baselines = [without]
        else:  # no WebMCP without us: the page should see what the browser that ships WebMCP gives it
            baselines = []
        if env.flavour == "polyfill":  # ours is the page's WebMCP: it follows Chromium's native one
            native_page, native_seen = await load(await plain("native"), url)
            opened.append(native_page)
            baselines.append(native_seen)
        page, with_ext = await load(env.browser.context, url)
        page_closer.append(page)
        own_calls = await page.evaluate("() => ({ ...window.corpus.calls })")  # the page's own executeTool()
        counts, answers = await agent_view(env, page, case)
        after = await page.evaluate("() => window.corpus.calls")
        reached = {key: after[key] - own_calls.get(key, 0) for key in after}
    finally:
        for p in opened:
            await p.close()

    found = page_view_differences(with_ext.report, baselines[0].report)
    from_native = page_view_differences(with_ext.report, baselines[-1].report) if len(baselines) > 1 else found
    # In polyfill mode the page may see what Chromium's native WebMCP gives it (where its own shim
    # departs from that), and the draft where the polyfill follows it on purpose.
    allowed = env.flavour == "polyfill" and set(from_native) <= set(case.draft)
    diffs = [f"{key}: the draft's (on purpose)" if key in case.draft and key in from_native
             else f"{key}: {how if len(how) <= 160 else how[:157] + '...'}" for key, how in found.items()]
    if diffs and allowed and set(found) - set(from_native):
        diffs.append("as in Chromium's native WebMCP")
    console = new_console(with_ext.console, without.console, env.flavour)
    errors = sorted((Counter(with_ext.errors) - Counter(without.errors)).elements())
    row = row_for(case, env.flavour, counts, answers, reached, diffs, console, errors)
    compat_table.record(row)
    detail = json.dumps({"with": with_ext.report, "without": [b.report for b in baselines], "answers": answers,
                         "reached": reached, "counts": counts}, indent=1)

    # Every tool the page kept reaches the agent once, and each call reaches the page's own execute.
    assert counts == {name: 1 for name in case.calls} | {n: 1 for n in case.extras if n in counts}, detail
    for name, (_args, want, key) in case.calls.items():
        assert answers[name] == want and reached.get(key) == 1, (name, detail)
    # What the page sees: natively exactly what it sees without us; in polyfill mode what the page's
    # own shim gives it, or what Chromium's native WebMCP gives where the shim departs from it.
    assert not diffs or allowed, detail
    assert not console, console
    assert not errors, errors
    # The compatibility table says the same.
    documented = compat_table.parse(compat_table.DOCS.read_text(encoding="utf-8")).get((case.pattern, env.flavour))
    assert documented == row, (
        "docs/polyfill.md's compatibility row differs from what was observed (run the corpus, then "
        f"python -m e2e.compat_table --update):\n{documented}\n{row}")
