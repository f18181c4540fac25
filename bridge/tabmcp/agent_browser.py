"""``tabmcp extension`` and ``tabmcp browser``: the packaged extension, found and loaded.

``tabmcp browser`` starts the person's installed Chromium (or Chrome) as a separate agent browser:
its own profile under ``$XDG_STATE_HOME/tabmcp/browser-profile`` (kept across runs: logins and
site permissions stay), this installation's extension loaded, native WebMCP on, paired with the
bridge as the launcher pairs (:func:`tabmcp.launcher.pair_with`: a pairing derived from the control
key, which every bridge of this user admits). It runs until the window is closed (or Ctrl-C).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from pathlib import Path

from .assets import EXTENSION_ID, extension_dir, stage_extension
from .browser import BrowserNotFound, find_chromium
from .files import private_dir, state_dir
from .firefox import build_firefox_extension

__all__ = ["extension_steps", "firefox_extension_dir", "profile_dir", "run_browser"]

_CHROME_NAMES = ("google-chrome", "google-chrome-stable", "chrome")
_CHROME_PATHS = (
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    r"C:\Program Files\Google\Chrome\Application\chrome.exe",
)


def profile_dir() -> Path:
    return state_dir() / "browser-profile"


def firefox_extension_dir() -> Path | None:
    """The Firefox build of the extension (:func:`tabmcp.firefox.build_firefox_extension`: a copy of
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


async def run_browser(*, port: int, url: str | None = None, headless: bool | None = None,
                      profile: Path | None = None, exit_after: float | None = None,
                      say: object = print) -> int:
    """Start the agent browser and keep it until it closes (``exit_after``: seconds, for tests)."""
    from .launcher import launch_browser

    executable, loads_extension = _find_browser()
    profile = private_dir(profile or profile_dir())
    bridge_url = f"ws://127.0.0.1:{port}/extension"
    # Branded Chrome would never start the extension's worker: launch it plain, the person loads it once.
    async with launch_browser(bridge_url=bridge_url, headless=headless, webmcp=True, user_data_dir=str(profile),
                              executable=executable, extension=loads_extension) as browser:
        closed = asyncio.Event()
        browser.context.on("close", lambda _ctx: closed.set())
        if url:
            page = browser.context.pages[0] if browser.context.pages else await browser.context.new_page()
            await page.goto(url)
        assert callable(say)
        say(f"tabmcp browser: {executable}, profile {profile}")
        if loads_extension:
            say(f"  extension {stage_extension()} loaded and paired with the bridge at {bridge_url}; "
                "native WebMCP on")
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
