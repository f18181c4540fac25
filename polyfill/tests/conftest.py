"""Fixtures for the polyfill tests: a local HTTP server and real Chromium, with and without native WebMCP.

Two browsers are shared for the whole session, launched on first use:

* ``polyfill``: plain Chromium, no native API, so the polyfill provides everything;
* ``native``: Chromium with ``--enable-features=WebMCP``, so ``document.modelContext`` is the
  browser's own and the polyfill layers on top of it.

Every test gets a new page (a new tab: its own window, document and ``document.modelContext``).
Pages are served from ``http://127.0.0.1:<port>`` because WebMCP needs a secure context
(``about:blank`` and ``data:`` URLs are not secure).

Speed: a new page is opened with ``window.open`` from a long-lived "launcher" page of the same
site, so Chromium puts it in the launcher's renderer process instead of starting a new process.
That halves the cost of a page (about 0.2 s instead of 0.4 s of CPU). The pages of one mode
therefore share a browser context (cookies, storage), which these tests do not use, and a
browsing context group. Pages are never opened while a test's script runs in the same browser:
while a popup is being set up, its related pages are paused, and in a paused page a script
started by Playwright still runs but every event listener is skipped (measured: one missed
dispatch per popup opened, in a page polled with ``evaluate``).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import re
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, Playwright, async_playwright
from webmcp_testlib import POLYFILL

ROOT = POLYFILL.parents[1]
SOURCES = POLYFILL.parent / "src"

try:
    from tabmcp.launch.browser import chromium_launch_args, find_chromium
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "bridge"))
    from tabmcp.launch.browser import chromium_launch_args, find_chromium

MODES = ("polyfill", "native")

BLANK_HTML = b"<!doctype html><meta charset=utf-8><title>blank</title><p>blank page</p>"
POLY_HTML = (
    b"<!doctype html><meta charset=utf-8><title>with polyfill</title>"
    b"<script src=/webmcp-polyfill.js></script><p>page with the polyfill</p>"
)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/webmcp-polyfill.js":
            body, ctype = POLYFILL.read_bytes(), "text/javascript"  # read per request: edits show up
        elif re.fullmatch(r"/src/[A-Za-z0-9_-]+\.js", path) and (SOURCES / path[5:]).is_file():
            body, ctype = (SOURCES / path[5:]).read_bytes(), "text/javascript"  # the ES modules
        elif path in ("/", "/blank.html"):
            body, ctype = BLANK_HTML, "text/html"
        elif path == "/poly.html":
            body, ctype = POLY_HTML, "text/html"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", f"{ctype}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """Base URL of a local HTTP server (port 0: the OS picks a free one)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, name="polyfill-test-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest_asyncio.fixture(scope="session")
async def pw() -> AsyncIterator[Playwright]:
    async with async_playwright() as p:
        yield p


@pytest_asyncio.fixture(scope="session")
async def browser_for(pw: Playwright) -> AsyncIterator[Callable[[str], Awaitable[Browser]]]:
    """``await browser_for(mode)``: the session's browser for a mode, launched on first use."""
    browsers: dict[str, Browser] = {}
    executable = find_chromium()

    async def get(mode: str) -> Browser:
        assert mode in MODES, mode
        if mode not in browsers:
            browsers[mode] = await pw.chromium.launch(
                executable_path=executable,
                args=chromium_launch_args(webmcp=(mode == "native")),
            )
        return browsers[mode]

    yield get
    for b in browsers.values():
        await b.close()


@dataclass
class Tab:
    """A new page plus what it reported (uncaught errors, console messages)."""

    page: Page
    mode: str
    base: str
    page_errors: list[str] = field(default_factory=list)
    console: list[tuple[str, str]] = field(default_factory=list)

    @property
    def native(self) -> bool:
        return self.mode == "native"

    async def js(self, script: str, arg: Any = None) -> Any:
        return await self.page.evaluate(script, arg)

    async def load_polyfill(self) -> None:
        await self.page.add_script_tag(url="/webmcp-polyfill.js")

    async def close(self) -> None:
        await self.page.close()


@dataclass
class _Launcher:
    page: Page
    lock: asyncio.Lock


_HEALTHY = """() => {
    const t = new EventTarget();
    let n = 0;
    t.addEventListener('probe', () => n++);
    t.dispatchEvent(new Event('probe'));
    return n === 1 && document.readyState === 'complete';
}"""


async def _open_tab(launcher: _Launcher, server: str, mode: str, path: str) -> Tab:
    async with launcher.lock:  # one window.open at a time, so expect_page() gets the right page
        async with launcher.page.context.expect_page() as popup:
            await launcher.page.evaluate("() => { window.open('/blank.html', '_blank'); }")
        page = await popup.value
    page.set_default_timeout(10_000)
    tab = Tab(page=page, mode=mode, base=server)
    page.on("pageerror", lambda err: tab.page_errors.append(str(err)))
    page.on("console", lambda msg: tab.console.append((msg.type, msg.text)))
    await page.wait_for_load_state("load")
    # A second, ordinary navigation. The popup's first one leaves its initial about:blank document,
    # which reuses the Window (HTML's rule for same-origin navigations from the initial
    # about:blank). Playwright can then, rarely, evaluate in the replaced realm, where even a new
    # EventTarget's listeners never run. An ordinary navigation always gets a fresh Window.
    await page.goto(server + path)
    assert await page.evaluate(_HEALTHY), "test harness: the new page's JavaScript context is not usable"
    return tab


@pytest_asyncio.fixture(scope="session")
async def tab_pool(
    browser_for: Callable[[str], Awaitable[Browser]], server: str
) -> AsyncIterator[Callable[[str, str], Awaitable[Tab]]]:
    """``await tab_pool(mode, path)``: a new page that loaded path (see the module docstring)."""
    launchers: dict[str, _Launcher] = {}

    async def launcher_for(mode: str) -> _Launcher:
        if mode not in launchers:
            browser = await browser_for(mode)
            context = await browser.new_context(base_url=server)
            page = await context.new_page()
            await page.goto("/blank.html")
            launchers[mode] = _Launcher(page=page, lock=asyncio.Lock())
        return launchers[mode]

    async def get(mode: str, path: str) -> Tab:
        return await _open_tab(await launcher_for(mode), server, mode, path)

    yield get
    for launcher in launchers.values():
        with contextlib.suppress(Exception):  # the browser may already be gone
            await launcher.page.context.close()


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest_asyncio.fixture
async def bare(tab_pool: Callable[[str, str], Awaitable[Tab]], mode: str) -> AsyncIterator[Tab]:
    """A fresh secure page *without* the polyfill (the test loads it when it wants)."""
    tab = await tab_pool(mode, "/blank.html")
    native_present = await tab.js("() => !!document.modelContext")
    assert native_present == tab.native, f"mode {mode}: native document.modelContext = {native_present}"
    yield tab
    await tab.close()
    assert not tab.page_errors, f"uncaught errors in the page: {tab.page_errors}"


@pytest_asyncio.fixture
async def tab(tab_pool: Callable[[str, str], Awaitable[Tab]], mode: str) -> AsyncIterator[Tab]:
    """A fresh secure page that loaded the polyfill with a classic <script>."""
    t = await tab_pool(mode, "/poly.html")
    info = await t.js(
        "() => { const h = globalThis[Symbol.for('tabmcp.webmcp')]; return h && [h.version, h.native]; }"
    )
    assert info is not None, "the polyfill did not install its hook"
    assert info[1] == t.native, f"mode {mode}: hook.native = {info[1]}"
    yield t
    await t.close()
    assert not t.page_errors, f"uncaught errors in the page: {t.page_errors}"


@pytest_asyncio.fixture
async def open_page(
    tab_pool: Callable[[str, str], Awaitable[Tab]],
) -> AsyncIterator[Callable[..., Awaitable[Tab]]]:
    """``await open_page(mode, path)`` for tests that compare several configurations themselves."""
    opened: list[Tab] = []

    async def opener(mode: str, path: str = "/blank.html") -> Tab:
        t = await tab_pool(mode, path)
        opened.append(t)
        return t

    yield opener
    for t in opened:
        await t.close()
    errors = [e for t in opened for e in t.page_errors]
    assert not errors, f"uncaught errors in the pages: {errors}"
