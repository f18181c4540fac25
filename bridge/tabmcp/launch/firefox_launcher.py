"""Start a real Firefox with the tabmcp extension's Firefox build (tests, benchmarks).

Playwright's Firefox cannot drive a stock Firefox, so this spawns ``firefox_driver.mjs`` (node,
``puppeteer-core`` over WebDriver BiDi), which already knows how to install an add-on and quiet
Firefox (docs/architecture.md). Like :mod:`tabmcp.launch.launcher`, it pairs the extension with the bridge.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..packaging.firefox import FIREFOX_ADDON_ID, build_firefox_extension, find_firefox
from .launcher import _SET, PAIRING_KEY, pair_with

__all__ = ["DRIVER", "FirefoxBrowser", "FirefoxDriverError", "FirefoxPage", "launch_firefox", "native_prefs"]

DRIVER = Path(__file__).with_name("firefox_driver.mjs")

_START_TIMEOUT_S = 90.0
_REQUEST_TIMEOUT_S = 60.0


class FirefoxDriverError(RuntimeError):
    """The driver (or Firefox behind it) failed a request, or is gone."""


def native_prefs(webmcp: bool) -> dict[str, Any]:
    """Firefox's native WebMCP (``navigator.modelContext``) on or off; on, with its testing API
    (``getTools``, ``invokeTool``), which the tests read (the extension never needs it)."""
    return {"dom.modelcontext.enabled": webmcp, "dom.modelcontext.testing.enabled": webmcp}


class _Driver:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._next = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self.ready: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("ready") and not self.ready.done():
                self.ready.set_result(msg)
                continue
            future = self._waiting.pop(msg.get("id"), None)
            if future is None or future.done():
                continue
            if msg.get("ok"):
                future.set_result(msg.get("result"))
            else:
                future.set_exception(FirefoxDriverError(str(msg.get("error"))))
        gone = FirefoxDriverError("the Firefox driver exited")
        if not self.ready.done():
            self.ready.set_exception(gone)
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(gone)

    async def request(self, op: str, timeout: float = _REQUEST_TIMEOUT_S, **fields: Any) -> Any:
        self._next += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[self._next] = future
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({"id": self._next, "op": op, **fields}) + "\n").encode())
        await self.proc.stdin.drain()
        return await asyncio.wait_for(future, timeout)

    async def close(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 20)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        self._reader.cancel()


@dataclass
class FirefoxPage:
    """One tab (or window) of the driven Firefox."""

    driver: _Driver
    id: str

    async def evaluate(self, fn: str, *args: Any) -> Any:
        """Run ``fn`` (a JS function's source) in the page with JSON ``args``; its JSON result."""
        return await self.driver.request("evaluate", page=self.id, fn=fn, args=list(args))

    async def goto(self, url: str) -> None:
        await self.driver.request("goto", page=self.id, url=url)

    async def reload(self) -> None:
        await self.driver.request("reload", page=self.id)

    async def click(self, selector: str) -> None:
        await self.driver.request("click", page=self.id, selector=selector)

    async def add_script(self, source: str) -> None:
        await self.driver.request("addScript", page=self.id, source=source)

    async def time_evaluate(self, expression: str, calls: int, warmup: int = 0) -> list[float]:
        """Seconds each of ``calls`` evaluations of ``expression`` took over BiDi, timed in the driver
        (not across this process's pipe to it)."""
        samples = await self.driver.request(
            "timeEvaluate",
            timeout=_REQUEST_TIMEOUT_S + calls,
            page=self.id,
            fn=expression,
            calls=calls,
            warmup=warmup,
        )
        return [float(ms) / 1000 for ms in samples]

    async def url(self) -> str:
        return str(await self.driver.request("url", page=self.id))

    async def console_trace(self, fn: str) -> dict[str, Any]:
        """The first console message calling ``fn`` in the page makes: ``text`` and ``stack`` (the
        frames Firefox reports over BiDi, each ``url``, ``lineNumber``, ``columnNumber``)."""
        result: dict[str, Any] = await self.driver.request("consoleTrace", page=self.id, fn=fn)
        return result

    async def close(self) -> None:
        await self.driver.request("close", page=self.id)


@dataclass
class FirefoxBrowser:
    """A Firefox with the extension installed, and the extension's own origin."""

    driver: _Driver
    extension_url: str
    extension_id: str
    _control: FirefoxPage | None = field(default=None, repr=False)

    async def new_page(self, url: str | None = None) -> FirefoxPage:
        return FirefoxPage(self.driver, str(await self.driver.request("newPage", url=url)))

    async def extension_page(self, path: str) -> FirefoxPage:
        """Open one of the extension's pages (``popup/popup.html``...) in a tab."""
        return await self.new_page(self.extension_url + path)

    async def wait_page(self, includes: str, timeout: float = 15.0) -> FirefoxPage:
        """A page (tab or window) whose URL contains ``includes``, once one is open."""
        page_id = await self.driver.request(
            "waitPage", timeout=timeout + 5, includes=includes, timeoutMs=int(timeout * 1000)
        )
        return FirefoxPage(self.driver, str(page_id))

    async def control(self) -> FirefoxPage:
        """The extension's options page, kept open: where the harness reaches the extension's storage."""
        if self._control is None:
            self._control = await self.extension_page("options/options.html")
        return self._control

    async def set_bridge_url(self, url: str, *, pair: bool = True) -> None:
        """Point the extension at ``url``, paired with that bridge first (``pair``)."""
        pairing = pair_with(url) if pair else None
        page = await self.control()
        await page.evaluate(_SET, [PAIRING_KEY, url, pairing if pairing is not None else "__keep__"])

    async def status(self) -> dict[str, Any]:
        """What the popup shows (the background script's status report)."""
        page = await self.control()
        result: dict[str, Any] = await page.evaluate(
            "async () => { const { RUNTIME } = await import('/protocol.js');"
            " return chrome.runtime.sendMessage({ type: RUNTIME.status }); }"
        )
        return result


@contextlib.asynccontextmanager
async def launch_firefox(
    *,
    bridge_url: str | None = None,
    headless: bool = True,
    webmcp: bool = False,
    pair: bool = True,
    prefs: dict[str, Any] | None = None,
    extension: bool = True,
) -> AsyncIterator[FirefoxBrowser]:
    """A Firefox with the extension's Firefox build, pointed at ``bridge_url`` and paired with it;
    ``webmcp``: Firefox's native WebMCP on (``dom.modelcontext.enabled``); ``extension=False``: a
    plain Firefox (what a page does without tabmcp)."""
    node = shutil.which("node")
    if node is None:
        raise FirefoxDriverError("node is not installed (the Firefox driver is a node script)")
    executable = find_firefox()
    build_dir = tempfile.mkdtemp(prefix="tabmcp-firefox-")
    options = {
        "executable": executable,
        # A build of its own: a running Firefox reads its temporary add-on's files from the folder,
        # so another launch's rebuild must not replace them under it.
        "extension": str(build_firefox_extension(Path(build_dir) / "extension")) if extension else None,
        "headless": headless,
        "addonId": FIREFOX_ADDON_ID,
        "prefs": {**native_prefs(webmcp), **(prefs or {})},
    }
    try:
        proc = await asyncio.create_subprocess_exec(
            node,
            str(DRIVER),
            json.dumps(options),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=64 * 1024 * 1024,
        )
    except BaseException:
        shutil.rmtree(build_dir, ignore_errors=True)
        raise
    driver = _Driver(proc)
    try:
        ready = await asyncio.wait_for(driver.ready, _START_TIMEOUT_S)
        browser = FirefoxBrowser(driver, str(ready["extensionUrl"]), str(ready["extensionId"]))
        if bridge_url:
            await browser.set_bridge_url(bridge_url, pair=pair)
        yield browser
    finally:
        await driver.close()
        shutil.rmtree(build_dir, ignore_errors=True)
