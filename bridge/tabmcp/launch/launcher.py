"""Start a real Chromium with the tabmcp extension loaded (demo, tests, benchmarks).

Extensions need a persistent profile, so this uses Playwright's ``launch_persistent_context``
with a throwaway directory. The launcher starts both ends, so it pairs them itself with a
launcher pairing derived from the control key: no ceremony, and no weaker door (docs/security.md §1).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass

from playwright.async_api import BrowserContext, Playwright, Worker, async_playwright

from ..control_key import load_or_create_control_key
from ..core.pairing import launcher_pairing
from ..packaging.assets import EXTENSION_ID, stage_extension
from .browser import chromium_launch_args, find_chromium

__all__ = ["PAIRING_KEY", "ExtensionBrowser", "headless_default", "launch_browser", "pair_with"]

log = logging.getLogger("tabmcp.launch.launcher")

PAIRING_KEY = "bridgePairings"
"""Where the extension keeps its pairings in ``chrome.storage.local``, by bridge URL (``STORAGE.bridgePairings``)."""

_SET = """async ([key, url, pairing]) => {
  const stored = (await chrome.storage.local.get(key))[key] || {};
  const pairings = {...stored};
  if (pairing === null) delete pairings[url]; else if (pairing !== '__keep__') pairings[url] = pairing;
  await chrome.storage.local.set({bridgeUrl: url, [key]: pairings});
}"""


def pair_with(bridge_url: str) -> dict[str, str]:
    """A pairing every bridge of this user admits (the control key's; made if no bridge ran yet),
    for the browser this launcher started to present to ``bridge_url``."""
    del bridge_url  # the same kind of pairing for any of this user's bridges; stored per URL all the same
    return launcher_pairing(load_or_create_control_key())


@dataclass
class ExtensionBrowser:
    context: BrowserContext
    service_worker: Worker | None
    user_data_dir: str

    async def set_bridge_url(self, url: str, *, pair: bool = True) -> None:
        """Point the extension at ``url`` (``ws://127.0.0.1:PORT/extension``), paired with that
        bridge first (``pair``; else with the pairing it holds for that URL, if any)."""
        pairing = pair_with(url) if pair else None
        worker = await self.worker()
        await worker.evaluate(_SET, [PAIRING_KEY, url, pairing if pairing is not None else "__keep__"])

    async def set_pairing(self, url: str, pairing: dict[str, str] | None) -> None:
        """Replace the extension's pairing for the bridge at ``url`` (None: forget it) and point it
        there, as if the person had paired otherwise."""
        worker = await self.worker()
        await worker.evaluate(_SET, [PAIRING_KEY, url, pairing])

    async def pairing_for(self, url: str) -> dict[str, str] | None:
        """The pairing the extension holds for the bridge at ``url`` (None: none)."""
        worker = await self.worker()
        held: dict[str, str] | None = await worker.evaluate(
            "async ([key, url]) => ((await chrome.storage.local.get(key))[key] || {})[url] || null", [PAIRING_KEY, url])
        return held

    async def add_pairing(self, url: str) -> None:
        """Pair with the bridge at ``url`` without pointing the extension there (a person who
        paired with it before, and will switch to it on the options page)."""
        pairing = pair_with(url)
        worker = await self.worker()
        await worker.evaluate(
            "async ([key, url, pairing]) => { const s = (await chrome.storage.local.get(key))[key] || {};"
            " await chrome.storage.local.set({[key]: {...s, [url]: pairing}}); }", [PAIRING_KEY, url, pairing])

    async def worker(self) -> Worker:
        """The extension's service worker (waiting for it if the browser restarted it)."""
        for running in self.context.service_workers:
            if EXTENSION_ID in running.url:
                self.service_worker = running
                return running
        worker: Worker = await self.context.wait_for_event(
            "serviceworker", predicate=lambda w: EXTENSION_ID in w.url, timeout=15_000
        )
        self.service_worker = worker
        return worker

    async def status(self) -> dict[str, object]:
        """What the popup shows: connection state and per-tab counts."""
        worker = await self.worker()
        result: dict[str, object] = await worker.evaluate("() => globalThis.tabmcpStatus()")
        return result


def headless_default() -> bool:
    """Headed where there is a screen (a person running the demo), headless otherwise (CI)."""
    if os.name == "nt" or os.uname().sysname == "Darwin":
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


@contextlib.asynccontextmanager
async def launch_browser(
    *,
    bridge_url: str | None = None,
    headless: bool | None = None,
    webmcp: bool = False,
    extension: bool = True,
    playwright: Playwright | None = None,
    extra_args: list[str] | None = None,
    pair: bool = True,
) -> AsyncIterator[ExtensionBrowser]:
    """A Chromium with our extension (unless ``extension=False``) on a throwaway profile, closed on exit;
    pointed at ``bridge_url`` and paired with it (``pair=False``: unpaired, as a fresh install is)."""
    user_data_dir = tempfile.mkdtemp(prefix="tabmcp-profile-")
    ext_dir = stage_extension() if extension else None
    args = chromium_launch_args(ext_dir, webmcp=webmcp) + (extra_args or [])
    owns_playwright = playwright is None
    pw_cm = async_playwright() if owns_playwright else None
    pw = await pw_cm.__aenter__() if pw_cm is not None else playwright
    assert pw is not None
    try:
        context = await pw.chromium.launch_persistent_context(
            user_data_dir,
            executable_path=find_chromium(),
            headless=headless_default() if headless is None else headless,
            args=args,
            viewport={"width": 1280, "height": 800},
        )
        try:
            browser = ExtensionBrowser(context=context, service_worker=None, user_data_dir=user_data_dir)
            if extension:
                await browser.worker()
                if bridge_url:
                    await browser.set_bridge_url(bridge_url, pair=pair)
            yield browser
        finally:
            with contextlib.suppress(Exception):
                await context.close()
    finally:
        if pw_cm is not None:
            await pw_cm.__aexit__(None, None, None)
        shutil.rmtree(user_data_dir, ignore_errors=True)
