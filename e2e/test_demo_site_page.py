"""The demo site ("Acme Back Office") on its own: real Chromium, no extension, no bridge.

The page is served with ``/webmcp-polyfill.js`` from a small local HTTP server (WebMCP needs a
secure context, so http://127.0.0.1, not file:). Every test runs twice: ``polyfill`` (plain
Chromium, the polyfill provides ``document.modelContext``) and ``native``
(``--enable-features=WebMCP``, the polyfill layers on top of the browser's API).

Checked here: how many tools and categories the page registers and how they are described
(schemas are valid JSON Schema, markers are honest), that every tool runs with the example
arguments in ``demo_examples.json``, and that tools really change what the page shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import json
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from jsonschema import Draft202012Validator
from playwright.async_api import Browser, Page, async_playwright
from tabmcp.launch.browser import chromium_launch_args, find_chromium
from tabmcp.testing import missing_from_setup

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "bridge" / "tabmcp" / "demo" / "site"
POLYFILL = ROOT / "polyfill" / "webmcp-polyfill.js"
EXAMPLES: dict[str, dict[str, Any]] = json.loads((Path(__file__).parent / "demo_examples.json").read_text())[
    "examples"
]

MODES = ("polyfill", "native")
# What the page does with a tool's result does not depend on who runs it (the sweep below runs
# every tool in both modes); these DOM checks run once, in polyfill mode, to keep the file fast.
polyfill_only = pytest.mark.parametrize("mode", ["polyfill"])
BETA = "beta_reports"
# The demo's declarative tools: <form toolname=...> in index.html, registered by the browser or the polyfill.
DECLARATIVE = ("search_site", "contact_support", "subscribe_newsletter")
HOOK = "globalThis[Symbol.for('tabmcp.webmcp')]"

# Console noise that is expected: the deprecation notice of navigator.modelContext (which the
# brief asks us to call) and the browser-style log line for a tool that threw on purpose.
EXPECTED_CONSOLE = ("navigator.modelContext is deprecated", "WebMCP tool execution failed")


# ------------------------------------------------------------------------------------ fixtures


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """The demo site's folder, plus the polyfill at /webmcp-polyfill.js (read per request)."""

    protocol_version = "HTTP/1.1"  # keep-alive: the page loads ~30 files

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] == "/webmcp-polyfill.js":
            body = POLYFILL.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def end_headers(self) -> None:
        if not self.path.startswith("/webmcp-polyfill.js"):
            self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    handler = functools.partial(_SiteHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, name="demo-site-http", daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest_asyncio.fixture(scope="module")
async def browsers() -> AsyncIterator[Callable[[str], Awaitable[Browser]]]:
    """``await browsers(mode)``: one Chromium per mode for the module, launched on first use."""
    launched: dict[str, Browser] = {}
    async with async_playwright() as pw:

        async def get(mode: str) -> Browser:
            if mode not in launched:
                launched[mode] = await pw.chromium.launch(
                    executable_path=find_chromium(), args=chromium_launch_args(webmcp=mode == "native")
                )
            return launched[mode]

        yield get
        for b in launched.values():
            await b.close()


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@dataclass
class App:
    """A fresh page of the demo site (own browser context) and what it logged."""

    page: Page
    mode: str
    errors: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    async def js(self, script: str, arg: Any = None) -> Any:
        return await self.page.evaluate(script, arg)

    async def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a tool by name through ``navigator.modelContext.executeTool`` (a CallToolResult).

        A call the host refuses outright (no such tool, arguments not an object) throws there;
        it comes back here as an ``isError`` result too, so tests read both the same way.
        """
        return await self.js(
            """async ([name, args]) => {
                try { return await navigator.modelContext.executeTool(name, args); }
                catch (e) {
                    const content = [{ type: 'text', text: String(e.message) }];
                    return { isError: true, thrown: e.name, content };
                }
            }""",
            [name, args or {}],
        )

    async def ok(self, name: str, args: dict[str, Any] | None = None) -> Any:
        """Call a tool that must succeed; its structured result (or its text)."""
        result = await self.call(name, args)
        assert not result.get("isError"), f"{name}({args}) failed: {result}"
        if "structuredContent" in result:
            return result["structuredContent"]
        return "\n".join(c["text"] for c in result["content"] if c["type"] == "text")

    async def error(self, name: str, args: dict[str, Any] | None = None) -> str:
        """Call a tool that must fail; its error text."""
        result = await self.call(name, args)
        assert result.get("isError"), f"{name}({args}) should have failed: {result}"
        return "\n".join(c["text"] for c in result["content"] if c["type"] == "text")

    async def catalogue(self) -> dict[str, Any]:
        """What WebMCP knows about the page: list(), getCategories(), getTools() and the polyfill's scopes."""
        return await self.js(
            f"""async () => {{
                const mc = document.modelContext;
                const snap = await {HOOK}.snapshot();
                const std = (await mc.getTools()).map((t) => ({{ name: t.name, title: t.title,
                    description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }}));
                const list = mc.list();
                const members = {{}};
                for (const e of list) if (e.isCategory) members[e.name] = mc.expandCategory(e.name);
                return {{ list, members, categories: mc.getCategories(), getTools: std, snapshot: snap,
                    states: mc.getStates(), toolCount: window.acmeDemo.toolCount(),
                    categoryCount: window.acmeDemo.categoryCount() }};
            }}"""
        )

    async def route(self) -> str:
        return await self.page.get_by_test_id("route-view").get_attribute("data-route") or ""


async def open_app(browser: Browser, url: str, mode: str, *, block_polyfill: bool = False) -> App:
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    page.set_default_timeout(15_000)  # generous: CI machines can be slow
    app = App(page, mode)
    page.on("pageerror", lambda e: app.errors.append(str(e)))
    page.on(
        "console",
        lambda m: app.console.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None,
    )
    if block_polyfill:
        await page.route("**/webmcp-polyfill.js", lambda r: r.fulfill(status=404, body="not here"))
    await page.goto(url)
    await page.wait_for_selector("body[data-ready='true']", state="attached")
    return app


async def close_app(app: App) -> None:
    await app.page.context.close()
    assert not app.errors, f"uncaught errors in the page: {app.errors}"
    unexpected = [c for c in app.console if not any(e in c for e in EXPECTED_CONSOLE)]
    assert not unexpected, f"unexpected console errors/warnings: {unexpected}"


@pytest_asyncio.fixture(scope="module")
async def pool(
    browsers: Callable[[str], Awaitable[Browser]], site_url: str
) -> AsyncIterator[Callable[[str], Awaitable[App]]]:
    """``await pool(mode)``: a freshly loaded page; the next one for that mode loads while the test runs."""
    spare: dict[str, asyncio.Task[App]] = {}

    async def get(mode: str) -> App:
        browser = await browsers(mode)
        task = spare.pop(mode, None)
        fresh = await task if task else await open_app(browser, site_url, mode)
        spare[mode] = asyncio.create_task(open_app(browser, site_url, mode))
        return fresh

    yield get
    for task in spare.values():
        with contextlib.suppress(Exception):
            await (await task).page.context.close()


@pytest_asyncio.fixture
async def app(pool: Callable[[str], Awaitable[App]], mode: str) -> AsyncIterator[App]:
    """A page of its own, for tests that change things."""
    a = await pool(mode)
    yield a
    await close_app(a)


@pytest_asyncio.fixture(scope="module")
async def _shared(pool: Callable[[str], Awaitable[App]]) -> AsyncIterator[dict[str, App]]:
    apps: dict[str, App] = {}
    yield apps
    for a in apps.values():
        await close_app(a)


@pytest_asyncio.fixture
async def untouched(_shared: dict[str, App], pool: Callable[[str], Awaitable[App]], mode: str) -> App:
    """One page per mode shared by the tests that only look (and make calls that fail)."""
    if mode not in _shared:
        _shared[mode] = await pool(mode)
    return _shared[mode]


def all_tools(cat: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every tool (uncategorized ones from list(), members from expandCategory()) by name."""
    tools = {e["name"]: e for e in cat["list"] if not e.get("isCategory")}
    for members in cat["members"].values():
        tools.update({t["name"]: t for t in members})
    return tools


async def admin_on(app: App) -> None:
    """Switch on admin mode the way a person does: the toggle in the top bar."""
    await app.page.get_by_test_id("admin-toggle").check()
    assert "admin-mode" in await app.js("() => document.modelContext.getStates()")


# ------------------------------------------------------------------------------------ catalogue


def test_index_preloads_every_module():
    """No build step: index.html lists every module for modulepreload so they load in parallel."""
    html = (SITE / "index.html").read_text()
    preloaded = set(re.findall(r'<link rel="modulepreload" href="([^"]+)">', html))
    # Every module the app imports, following imports from js/app.js (lab.js belongs to lab.html).
    modules: set[str] = set()
    todo = ["js/app.js"]
    while todo:
        rel = todo.pop()
        if rel in modules:
            continue
        modules.add(rel)
        source = (SITE / rel).read_text()
        for spec in re.findall(r"""(?:import|export)[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]""", source):
            target = next(x for x in spec if x)
            todo.append(((SITE / rel).parent / target).resolve().relative_to(SITE.resolve()).as_posix())
    assert preloaded == modules
    assert html.index('src="/webmcp-polyfill.js"') < html.index('type="module"')


async def test_registers_many_categorized_tools(untouched: App):
    cat = await untouched.catalogue()
    categories = {c["name"]: c["tools"] for c in cat["categories"]}
    tools = all_tools(cat)
    uncategorized = [e["name"] for e in cat["list"] if not e.get("isCategory")]

    assert len(tools) >= 75, len(tools)
    assert len(categories) >= 8, categories.keys()
    assert 6 <= len(uncategorized) <= 8, uncategorized  # 4 plain tools and the 3 declarative forms
    assert set(DECLARATIVE) <= set(uncategorized)
    assert all(len(members) >= 5 for members in categories.values()), {
        k: len(v) for k, v in categories.items()
    }
    assert BETA not in categories, "the beta category must start unregistered"
    # list() shows categories collapsed, and the three views agree with each other and the page
    assert {e["name"] for e in cat["list"] if e.get("isCategory")} == set(categories)
    assert {t["name"] for t in cat["getTools"]} == set(tools)
    assert {t["name"] for t in cat["snapshot"]["tools"]} == set(tools)
    assert sum(len(v) for v in categories.values()) + len(uncategorized) == len(tools)
    assert cat["toolCount"] == len(tools) and cat["categoryCount"] == len(categories)
    assert cat["states"] == ["authenticated"]
    # names: verb_noun snake_case, unique across tools and categories
    for name in tools:
        assert name.replace("_", "").isalnum() and name == name.lower() and "_" in name, name
    assert not set(tools) & set(categories)
    # the page shows the same numbers
    status = untouched.page.get_by_test_id("webmcp-status")
    assert await status.get_attribute("data-tools") == str(len(tools))
    assert await status.get_attribute("data-categories") == str(len(categories))
    assert await untouched.page.get_by_test_id("webmcp-banner").is_hidden()


async def test_every_tool_is_described_with_a_valid_schema(untouched: App):
    cat = await untouched.catalogue()
    std = {t["name"]: t for t in cat["getTools"]}
    for name, tool in all_tools(cat).items():
        assert tool["description"].strip() and len(tool["description"]) >= 20, name
        assert tool["title"].strip() or name in DECLARATIVE, name  # a form has no title attribute
        schema = tool["inputSchema"]
        assert isinstance(schema, dict) and schema.get("type") == "object", (name, schema)
        Draft202012Validator.check_schema(schema)
        for prop, spec in schema.get("properties", {}).items():
            assert spec.get("description"), f"{name}.{prop} has no description"
            assert "type" in spec, f"{name}.{prop} has no type"
        assert set(schema.get("required", [])) <= set(schema.get("properties", {})), name
        # the standard getTools() view carries the same schema
        assert std[name]["inputSchema"] == schema, name


async def test_markers_are_honest(untouched: App):
    snap = (await untouched.catalogue())["snapshot"]
    tools = {t["name"]: t for t in snap["tools"]}
    scope = {n: t["scope"] or {} for n, t in tools.items()}
    hints = {n: t["annotations"] for n, t in tools.items()}

    deletes = [n for n in tools if n.startswith(("delete_", "revoke_"))]
    assert len(deletes) >= 6
    for n in deletes:
        assert scope[n].get("dangerLevel") == "destructive" and hints[n].get("destructiveHint") is True, n
    for n, h in hints.items():  # destructive tools are never read-only, and reads are not destructive
        if h.get("destructiveHint"):
            assert not h.get("readOnlyHint"), n
        if h.get("readOnlyHint"):
            assert not h.get("destructiveHint") and scope[n].get("dangerLevel") in (None, "safe"), n
    for n in tools:
        if n.startswith(("list_", "get_")):
            assert hints[n].get("readOnlyHint") is True, n
    approval = [n for n in tools if scope[n].get("requiresApproval")]
    assert {"refund_order", "delete_user", "set_maintenance_mode"} <= set(approval), approval
    core = [n for n in tools if scope[n].get("core")]
    assert 3 <= len(core) <= 6, core
    admin_only = [n for n in tools if "admin-mode" in scope[n].get("states", [])]
    assert {"delete_user", "assign_user_role", "revoke_api_key"} <= set(admin_only), admin_only
    routed = {n: scope[n]["routes"] for n in tools if scope[n].get("routes")}
    assert routed["crop_image"] == ["#/media*"] and routed["set_media_alt_text"] == ["#/media*"]
    assert len(routed) >= 5, routed


# ------------------------------------------------------------------------------------ every tool runs


async def test_every_tool_runs_with_its_example(app: App):
    cat = await app.catalogue()
    tools = all_tools(cat)

    # examples are data (validated against each schema below); every tool must have one
    missing = sorted(set(tools) - set(EXAMPLES))
    assert not missing, f"tools without an example in demo_examples.json: {missing}"

    await admin_on(app)
    # One evaluate runs the whole list in order (fast). Before a tool with route scopes the
    # sweep goes to its page, as an agent would; a tool that appears at run time (the beta
    # category, switched on by set_beta_features) is looked up when its turn comes.
    results = await app.js(
        f"""async (examples) => {{
            const out = [];
            const scopes = async () =>
                Object.fromEntries((await {HOOK}.snapshot()).tools.map((t) => [t.name, t]));
            let known = await scopes();
            for (const [name, args] of examples) {{
                if (!known[name]) known = await scopes();
                const tool = known[name];
                if (!tool) {{ out.push({{ name, missing: true }}); continue; }}
                const routes = (tool.scope && tool.scope.routes) || [];
                if (routes.length) {{
                    const page = routes[0].replace(/^#\\//, '').replace(/\\*$/, '').split('/')[0];
                    await navigator.modelContext.executeTool('navigate_to', {{ page }});
                }}
                const result = await navigator.modelContext.executeTool(name, args);
                out.push({{ name, schema: tool.inputSchema, result }});
            }}
            return out;
        }}""",
        list(EXAMPLES.items()),
    )
    for entry in results:
        name = entry["name"]
        assert not entry.get("missing"), f"{name} has an example but is not registered"
        args = EXAMPLES[name]
        Draft202012Validator(entry["schema"], format_checker=Draft202012Validator.FORMAT_CHECKER).validate(
            args
        )
        assert not entry["result"].get("isError"), f"{name}({args}) -> {entry['result']}"
        assert entry["result"]["content"], name
    called = {e["name"] for e in results}
    assert called >= set(tools)
    # the page saw the agent's calls, and the tools list grew by the beta category
    assert await app.js("() => window.acmeDemo.toolCount()") > len(tools)
    await app.ok("navigate_to", {"page": "activity"})
    assert await app.page.get_by_test_id("tool-call-row").count() >= 25


async def test_bad_input_and_unknown_ids_give_clear_errors(untouched: App):
    assert "No user with id 999" in await untouched.error("get_user", {"id": 999})
    # Arguments that do not match the schema are refused before the tool runs (the WebMCP draft's
    # input validation, done by the polyfill in both modes); the page's own checks come after.
    assert 'Missing required property "email"' in await untouched.error("create_user", {"name": "No Email"})
    assert "Must be one of" in await untouched.error("list_orders", {"status": "lost"})
    assert 'Unexpected property "colour"' in await untouched.error(
        "set_theme", {"theme": "dark", "colour": "red"}
    )
    assert "Admin mode is off" in await untouched.error("delete_user", {"id": 25})
    assert "publish_at must be in the future" in await untouched.error(
        "schedule_post", {"id": 8, "publish_at": "2001-01-01T00:00:00Z"}
    )
    # the standard API reports a failed call too
    failed = await untouched.js(
        """async () => {
            const t = (await document.modelContext.getTools()).find((x) => x.name === 'get_user');
            try { await document.modelContext.executeTool(t, { id: 999 }); return null; }
            catch (e) { return e.name; }
        }"""
    )
    assert failed == "UnknownError"


# ------------------------------------------------------------------------------------ visible effects


@polyfill_only
async def test_create_and_moderate_change_rows(app: App):
    await app.ok("navigate_to", {"page": "users"})
    rows = app.page.get_by_test_id("user-row")
    assert await rows.count() == 25
    created = (
        await app.ok("create_user", {"name": "Jordan Example", "email": "jordan@acme.test", "role": "editor"})
    )["created"]
    assert await rows.count() == 26
    row = app.page.locator(f"[data-testid=user-row][data-id='{created['id']}']")
    assert "Jordan Example" in await row.inner_text() and "Invited" in await row.inner_text()
    assert "Jordan Example" in await app.page.get_by_test_id("toast").last.inner_text()
    # the standard executeTool path works as well and returns the JSON text
    text = await app.js(
        """async () => {
            const t = (await document.modelContext.getTools()).find((x) => x.name === 'get_user');
            return document.modelContext.executeTool(t, { id: 26 });
        }"""
    )
    assert json.loads(text)["name"] == "Jordan Example"

    # moderating a comment takes it out of the queue and updates the sidebar counter
    await app.ok("navigate_to", {"page": "comments"})
    pending = app.page.get_by_test_id("comment-row")
    before = await pending.count()
    assert before == (await app.ok("list_comments", {"status": "pending"}))["total"]
    await app.ok("approve_comment", {"id": 4})
    assert await pending.count() == before - 1
    assert await app.page.get_by_test_id("nav-count-comments").inner_text() == str(before - 1)


@polyfill_only
async def test_navigate_and_filter_change_the_view(app: App):
    assert await app.route() == "dashboard"
    assert (await app.ok("navigate_to", {"page": "orders"}))["route"] == "#/orders"
    assert await app.route() == "orders"
    assert await app.page.evaluate("location.hash") == "#/orders"
    assert await app.page.get_by_test_id("current-route").inner_text() == "Orders"
    await app.ok("navigate_to", {"page": "orders", "id": 1027})
    assert await app.page.get_by_test_id("detail-panel").get_attribute("data-id") == "1027"

    shown = await app.ok("filter_users_table", {"role": "support", "status": "active"})
    assert await app.route() == "users"
    rows = app.page.get_by_test_id("user-row")
    assert await rows.count() == shown["visible_rows"] == 4
    assert await app.page.locator("#filter-users-role").input_value() == "support"

    await app.ok("navigate_to", {"page": "analytics"})
    await app.ok("set_analytics_range", {"range": "90d"})
    assert await app.page.get_by_test_id("analytics-range").get_attribute("data-range") == "90d"
    found = await app.ok("search_everything", {"query": "tote"})
    results = app.page.get_by_test_id("search-result")
    assert await results.count() == found["total"] == 2
    assert "Canvas Tote Bag" in await results.first.inner_text()

    await app.ok("navigate_to", {"page": "media", "id": 4})
    await app.ok("crop_image", {"id": 4, "width": 1200, "height": 675})
    assert await app.page.get_by_test_id("media-dimensions").inner_text() == "1200\N{MULTIPLICATION SIGN}675"
    await app.ok("set_theme", {"theme": "dark"})
    assert await app.page.evaluate("document.documentElement.dataset.theme") == "dark"
    await app.ok("show_notification", {"message": "Hello from the test", "kind": "warning"})
    toast = app.page.get_by_test_id("toast").last
    assert (
        "Hello from the test" in await toast.inner_text()
        and await toast.get_attribute("data-kind") == "warning"
    )


@polyfill_only
async def test_deletes_remove_rows_and_admin_mode_gates_them(app: App):
    await app.ok("navigate_to", {"page": "users"})
    row = app.page.locator("[data-testid=user-row][data-id='25']")
    assert await row.count() == 1
    assert await app.page.get_by_test_id("user-row").first.locator("button", has_text="Delete").is_disabled()
    assert "Admin mode is off" in await app.error("delete_user", {"id": 25})

    await admin_on(app)
    assert await app.page.evaluate("document.body.dataset.adminMode") == "true"
    assert (await app.ok("delete_user", {"id": 25}))["deleted"]["name"] == "Zane Novak"
    assert await row.count() == 0
    assert await app.page.get_by_test_id("user-row").count() == 24
    assert "No user with id 25" in await app.error("get_user", {"id": 25})

    # a person's click runs the same tool (with a confirmation first)
    await app.ok("navigate_to", {"page": "content"})
    post = app.page.locator("[data-testid=post-row][data-id='30']")
    await post.get_by_role("button", name="Delete").click()
    await app.page.get_by_test_id("form-dialog").get_by_role("button", name="Delete").click()
    assert await post.count() == 0
    assert "No post with id 30" in await app.error("get_post", {"id": 30})

    await app.page.get_by_test_id("admin-toggle").uncheck()
    assert await app.js("() => document.modelContext.getStates()") == ["authenticated"]


async def test_beta_toggle_registers_and_unregisters_a_category(app: App):
    await app.js(
        """() => { window.__changes = 0;
            document.modelContext.addEventListener('toolchange', () => { window.__changes++; }); }"""
    )
    count = await app.js("() => window.acmeDemo.toolCount()")
    await app.ok("navigate_to", {"page": "settings"})
    toggle = app.page.get_by_test_id("beta-toggle")
    await toggle.check()
    await app.page.wait_for_function(
        f"() => document.modelContext.getCategories().some((c) => c.name === '{BETA}')"
    )
    cat = await app.catalogue()
    beta = next(c for c in cat["categories"] if c["name"] == BETA)
    assert len(beta["tools"]) >= 3
    assert any(e["name"] == BETA and e.get("isCategory") for e in cat["list"])
    assert cat["toolCount"] == count + len(beta["tools"])
    await app.page.wait_for_function("() => window.__changes > 0")
    fired = await app.js("() => window.__changes")

    report = await app.ok(
        "generate_custom_report", {"name": "Test report", "metrics": ["visits"], "range": "7d"}
    )
    assert report["totals"]["visits"] > 0
    await app.ok("navigate_to", {"page": "analytics"})
    assert "Test report" in await app.page.get_by_test_id("beta-reports").inner_text()

    # an agent can switch it off again (same code path as the toggle)
    await app.ok("set_beta_features", {"enabled": False})
    await app.page.wait_for_function(
        f"() => !document.modelContext.getCategories().some((c) => c.name === '{BETA}')"
    )
    await app.page.wait_for_function(f"() => window.__changes > {fired}")
    assert await app.js("() => window.acmeDemo.toolCount()") == count
    assert "No tool named" in await app.error("generate_custom_report", {"name": "x", "metrics": ["visits"]})
    await app.ok("navigate_to", {"page": "settings"})
    assert not await app.page.get_by_test_id("beta-toggle").is_checked()


async def test_debug_global_is_read_only(untouched: App):
    info = await untouched.js(
        """() => { const before = window.acmeDemo; try { window.acmeDemo = 1; } catch {}
            return { same: window.acmeDemo === before, frozen: Object.isFrozen(window.acmeDemo),
                     keys: Object.keys(window.acmeDemo).sort(), version: window.acmeDemo.version }; }"""
    )
    assert info == {
        "same": True,
        "frozen": True,
        "keys": ["categoryCount", "toolCount", "version"],
        "version": info["version"],
    }
    assert isinstance(info["version"], str) and info["version"]


async def test_without_the_polyfill_the_page_warns_and_registers_plain_tools(
    browsers: Callable[[str], Awaitable[Browser]], site_url: str, mode: str
):
    app = await open_app(await browsers(mode), site_url, mode, block_polyfill=True)
    try:
        banner = app.page.get_by_test_id("webmcp-banner")
        assert await banner.is_visible()
        info = await app.js(
            "async () => ({ count: window.acmeDemo.toolCount(), cats: window.acmeDemo.categoryCount(),"
            " native: document.modelContext ? (await document.modelContext.getTools()).length : null })"
        )
        if mode == "native":  # the browser's own API: every tool registered flat, no categories
            assert "categories unavailable" in await banner.inner_text()
            assert info["cats"] == 0 and info["count"] >= 75 and info["native"] == info["count"]
        else:
            assert "not available" in await banner.inner_text()
            assert info == {"count": 0, "cats": 0, "native": None}
        # the app itself still works
        await app.page.get_by_test_id("nav-users").click()
        assert await app.page.get_by_test_id("user-row").count() == 25
        assert not app.errors
    finally:
        await app.page.context.close()


AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


async def test_main_views_have_no_accessibility_violations(pool: Callable[[str], Awaitable[App]]):
    """axe-core (from npm, loaded into the page only for the test) on busy views, in both themes.

    The markup does not depend on the WebMCP mode, so one mode is enough.
    """
    if not AXE.exists():
        missing_from_setup("axe-core (npm) is not installed")
    app = await pool("polyfill")
    try:
        await app.page.add_script_tag(path=str(AXE))
        found: dict[str, list[str]] = {}
        views = [
            ("light", "dashboard", None),
            ("light", "users", 3),
            ("light", "orders", 1039),
            ("dark", "media", 2),
            ("dark", "settings", None),
        ]
        for theme, page, record in views:
            await app.ok("set_theme", {"theme": theme})
            await app.ok("navigate_to", {"page": page, **({"id": record} if record else {})})
            # Audit the settled view: a toast fading in is semi-transparent text for its 0.18 s
            # animation, and axe would judge its contrast mid-fade on a slow machine.
            violations = await app.js(
                "async () => { await Promise.all(document.getAnimations()"
                ".filter((a) => a.effect?.getComputedTiming().endTime !== Infinity).map((a) => a.finished));"
                " return (await axe.run(document, { resultTypes: ['violations'] })).violations"
                ".map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`); }"
            )
            if violations:
                found[f"{theme} #/{page}"] = violations
    finally:
        await close_app(app)
    assert not found, found
