"""``tabmcp extension`` and ``tabmcp browser``: the packaged extension, found and loaded.

``tabmcp browser`` starts the person's Chromium as a separate agent browser: a kept profile, this
extension loaded, native WebMCP on, and a stored pairing the person can revoke. The profile is a
person's, so it starts with exactly :func:`agent_browser_args` and none of Playwright's test
defaults (docs/security.md §1); Playwright drives it over a private pipe only to write the pairing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..packaging.assets import EXTENSION_ID, extension_dir, stage_extension
from ..packaging.firefox import build_firefox_extension
from ..storage.files import private_dir, state_dir
from .browser import BrowserNotFound, find_chromium

if TYPE_CHECKING:
    from ..kept_pairing import KeptPairing
    from .launcher import ExtensionBrowser

__all__ = ["AgentBrowser", "agent_browser_args", "extension_steps", "firefox_extension_dir", "open_agent_browser",
           "profile_dir", "run_browser"]

_CHROME_NAMES = ("google-chrome", "google-chrome-stable", "chrome")
_CHROME_PATHS = (
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    r"C:\Program Files\Google\Chrome\Application\chrome.exe",
)


def profile_dir() -> Path:
    return state_dir() / "browser-profile"


def firefox_extension_dir() -> Path | None:
    """The Firefox build of the extension (:func:`tabmcp.packaging.firefox.build_firefox_extension`: a copy of
    the packaged extension with Firefox's manifest, made now so it matches this installation), or
    None when it cannot be written."""
    try:
        return build_firefox_extension()
    except OSError:
        return None


def extension_steps(folder: Path) -> str:
    """How to load the packaged extension by hand, browser by browser."""
    lines = [
        f"tabmcp extension (id {EXTENSION_ID}): {folder}",
        "",
        "Chromium / Chrome / Edge / Brave:",
        "  1. open chrome://extensions and switch on Developer mode (top right)",
        f"  2. Load unpacked → choose {folder}",
        "  3. click the tabmcp icon: its popup shows a code; run `tabmcp pair CODE` with the bridge running",
        "  native WebMCP: start the browser with --enable-features=WebMCP (or chrome://flags → WebMCP);",
        "  without it the extension's polyfill stands in.",
        "  Or skip all of this: `tabmcp browser` starts a separate agent browser with it loaded and paired.",
    ]
    firefox = firefox_extension_dir()
    if firefox is not None:
        lines += [
            "",
            "Firefox:",
            "  1. open about:debugging#/runtime/this-firefox",
            f"  2. Load Temporary Add-on… → choose {firefox / 'manifest.json'}",
            "  3. pair as above (`tabmcp pair CODE`)",
        ]
    else:
        lines += ["", "Firefox: no Firefox build in this installation yet."]
    return "\n".join(lines)


def _find_browser() -> tuple[str, bool]:
    """A Chromium (extensions load from the command line), else Google Chrome (branded Chrome 137+
    ignores --load-extension: the person loads it once by hand in the agent profile, which keeps it)."""
    try:
        return find_chromium(), True
    except BrowserNotFound:
        pass
    for name in _CHROME_NAMES:
        found = shutil.which(name)
        if found:
            return found, False
    for path in _CHROME_PATHS:
        if os.path.exists(path):
            return path, False
    raise BrowserNotFound("no Chromium or Chrome found: install Chromium (your distribution's 'chromium' package) "
                          "or set TABMCP_CHROMIUM to its executable")


def agent_browser_args(profile: Path, *, extension: Path | None, headless: bool = False, url: str | None = None,
                       as_root: bool = False) -> list[str]:
    """Every switch the agent browser starts with, and nothing more (``ignore_default_args=True``).

    ``--no-sandbox`` only as root, where Chromium refuses to start otherwise."""
    args = [f"--user-data-dir={profile}", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
            "--enable-features=WebMCP"]
    if extension is not None:
        args.append(f"--load-extension={extension}")
    if headless:
        args.append("--headless")
    if as_root:
        args.append("--no-sandbox")
    if url:
        args.append(url)
    return args


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@dataclass
class AgentBrowser:
    browser: ExtensionBrowser
    executable: str
    profile: Path
    bridge_url: str
    pairing: KeptPairing | None
    """The stored pairing the extension holds (None: branded Chrome, where the person loads the
    extension and pairs it by hand)."""
    extension: Path | None = None
    """The extension folder loaded (None: branded Chrome)."""


@contextlib.asynccontextmanager
async def open_agent_browser(*, port: int, profile: Path, url: str | None = None, headless: bool | None = None,
                             store_path: str | Path | None = None,
                             executable: tuple[str, bool] | None = None) -> AsyncIterator[AgentBrowser]:
    """The agent browser on ``profile``, paired with the bridge on ``port``, closed on exit.

    Args:
        store_path: the bridge's SQLite file, for pairing while no bridge runs (:func:`keep_pairing`).
        executable: (path, loads ``--load-extension``); default :func:`_find_browser`.
    """
    from playwright.async_api import async_playwright

    from ..kept_pairing import browser_label, keep_pairing
    from .launcher import ExtensionBrowser, headless_default

    path, loads_extension = executable or _find_browser()
    headless = headless_default() if headless is None else headless
    bridge_url = f"ws://127.0.0.1:{port}/extension"
    extension = stage_extension() if loads_extension else None
    args = agent_browser_args(profile, extension=extension, headless=headless, url=url, as_root=_as_root())
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(profile), executable_path=path, ignore_default_args=True, args=args, headless=headless,
            no_viewport=True)
        try:
            browser = ExtensionBrowser(context=context, service_worker=None, user_data_dir=str(profile))
            pairing = None
            if loads_extension:
                held = await browser.pairing_for(bridge_url)
                pairing = await keep_pairing(held, label=browser_label(profile), port=port, store_path=store_path)
                await browser.set_pairing(bridge_url, pairing.credential())
            yield AgentBrowser(browser, path, profile, bridge_url, pairing, extension)
        finally:
            with contextlib.suppress(Exception):
                await context.close()


async def run_browser(*, port: int, url: str | None = None, headless: bool | None = None,
                      profile: Path | None = None, store_path: str | Path | None = None,
                      exit_after: float | None = None, say: Callable[[str], None] = print) -> int:
    """Start the agent browser and keep it until it closes (``exit_after``: seconds, for tests)."""
    profile = private_dir(profile or profile_dir())
    async with open_agent_browser(port=port, profile=profile, url=url, headless=headless,
                                  store_path=store_path) as agent:
        closed = asyncio.Event()
        agent.browser.context.on("close", lambda _ctx: closed.set())
        say(f"tabmcp browser: {agent.executable}, profile {profile}")
        if agent.pairing is not None:
            how = "kept" if agent.pairing.reused else "made"
            say(f"  extension {agent.extension} loaded; native WebMCP on; bridge {agent.bridge_url}")
            say(f"  pairing {agent.pairing.id} ({how}): `tabmcp pair --list` shows it, "
                f"`tabmcp pair --forget {agent.pairing.id}` revokes it")
        else:
            say("  Google Chrome ignores --load-extension: load the extension once in this window and pair it "
                "(`tabmcp extension` says how); native WebMCP on")
        say("  close the window (or Ctrl-C) to stop")
        if exit_after is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(closed.wait(), exit_after)
        else:
            await closed.wait()
    return 0


def extension_folder() -> Path:
    """The folder to load (the polyfill staged into it first)."""
    try:
        return stage_extension()
    except OSError:
        return extension_dir()
