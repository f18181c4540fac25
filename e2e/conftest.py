"""End-to-end fixtures: a real bridge, a real Chromium with the real extension, real MCP clients.

The browser runs in two flavours (``polyfill``: no native API, our polyfill provides it;
``native``: Chromium's ``--enable-features=WebMCP``, our polyfill layers on top); tests
that take the ``env`` fixture run in both.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import BrowserContext, Page
from tabmcp.config import Config
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import ExtensionBrowser, launch_browser
from tabmcp.server.app import BridgeApp, running_bridge

PAGES = Path(__file__).parent / "pages"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.e2e)


def e2e_config(**sections: dict[str, Any]) -> Config:
    base: dict[str, dict[str, Any]] = {
        "server": {"port": 0, "reconnect_grace_s": 1.0},
        "calls": {"timeout_s": 10},
        "policy": {"allow_writes": True},
        "store": {"path": ":memory:"},
        # Most tests compare result texts exactly, and e2e/pages share one origin while giving one
        # tool name different definitions (page_title): framing and pins are tested, on a bridge
        # of their own, in test_untrusted.py.
        "trust": {"frame_text": False, "pin_definitions": False},
    }
    for key, values in sections.items():
        base.setdefault(key, {}).update(values)
    return Config().with_overrides(base)


async def eventually(check: Callable[[], Any], timeout: float = 10.0, interval: float = 0.05) -> Any:
    """Poll ``check`` (sync or async) until it returns something truthy."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        await asyncio.sleep(interval)


@dataclass
class Env:
    bridge: BridgeApp
    browser: ExtensionBrowser
    pages_url: str
    demo_url: str
    flavour: str

    @property
    def mcp_url(self) -> str:
        return f"http://127.0.0.1:{self.bridge.port}/mcp"

    def client(self, **kwargs: Any) -> Client:
        return Client(self.mcp_url, **kwargs)

    async def open(self, path: str, *, wait_for_tool: str | None = None) -> Page:
        """Open a page of e2e/pages (or an absolute URL) and wait until the bridge sees ``wait_for_tool``."""
        page = await self.browser.context.new_page()
        url = path if "://" in path else self.pages_url + path
        await page.goto(url)
        if wait_for_tool:
            await self.wait_tool(wait_for_tool, page)
        return page

    async def wait_tool(self, page_name: str, page: Page | None = None, timeout: float = 10.0) -> str:
        """Wait until a tool with this page name is registered (in ``page``'s tab if given); its public name."""

        def find() -> str | None:
            for entry in self.bridge.core.registry.tool_entries():
                if entry.tool.name == page_name and (page is None or entry.tab.url == page.url):
                    return entry.public_name
            return None

        public_name: str = await eventually(find, timeout)
        return public_name


@pytest.fixture(scope="session")
async def pages_url() -> AsyncIterator[str]:
    async with serve_demo_site(site_dir=PAGES) as url:
        yield url


@pytest.fixture(scope="session")
async def demo_url() -> AsyncIterator[str]:
    async with serve_demo_site() as url:
        yield url


@pytest.fixture(scope="session", params=["polyfill", "native"])
async def env(request: pytest.FixtureRequest, pages_url: str, demo_url: str) -> AsyncIterator[Env]:
    async with running_bridge(e2e_config()) as bridge:
        url = f"ws://127.0.0.1:{bridge.port}/extension"
        async with launch_browser(
            bridge_url=url,
            headless=True,
            webmcp=request.param == "native",
            extra_args=["--enable-unsafe-extension-debugging"],  # lets a test reload the extension
        ) as browser:
            assert await bridge.core.wait_connected(15), "the extension did not connect to the bridge"
            yield Env(bridge, browser, pages_url, demo_url, request.param)


@pytest.fixture(scope="module")
async def plain() -> AsyncIterator[Callable[[str], Awaitable[BrowserContext]]]:
    """``await plain(flavour)``: a Chromium with the flavour's switches and no extension."""
    stack = contextlib.AsyncExitStack()
    browsers: dict[str, BrowserContext] = {}

    async def get(flavour: str) -> BrowserContext:
        if flavour not in browsers:
            browser = await stack.enter_async_context(
                launch_browser(headless=True, webmcp=flavour == "native", extension=False))
            browsers[flavour] = browser.context
        return browsers[flavour]

    async with stack:
        yield get


@pytest.fixture
async def page_closer(env: Env) -> AsyncIterator[list[Page]]:
    """Pages appended here are closed after the test, and the bridge forgets them."""
    pages: list[Page] = []
    yield pages
    urls = {page.url for page in pages}
    for page in pages:
        if not page.is_closed():
            await page.close()
    await eventually(lambda: not urls & {t.url for t in env.bridge.core.registry.tabs.values()})


@contextlib.asynccontextmanager
async def other_bridge(env: Env, **sections: dict[str, Any]) -> AsyncIterator[BridgeApp]:
    """Point the session's browser at a bridge with another config for the block, then back."""
    async with running_bridge(e2e_config(**sections)) as bridge:
        await env.browser.set_bridge_url(f"ws://127.0.0.1:{bridge.port}/extension")
        assert await bridge.core.wait_connected(10)
        try:
            yield bridge
        finally:
            await env.browser.set_bridge_url(f"ws://127.0.0.1:{env.bridge.port}/extension")
            assert await env.bridge.core.wait_connected(10)


def inspector_bin() -> str | None:
    root = Path(__file__).resolve().parent.parent
    path = root / "node_modules" / ".bin" / "mcp-inspector"
    return str(path) if path.exists() else None


def headless() -> bool:
    return os.environ.get("TABMCP_E2E_HEADED") != "1"
