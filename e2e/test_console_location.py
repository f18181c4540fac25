"""Do no harm to the page's own console: a message the page logs is shown at the page's line in
the browser's DevTools, with the extension's capture as without it.

Chromium: the capture's wrapper is the top frame of every console message the page logs
(``Runtime.consoleAPICalled``'s stack trace, what DevTools reads); DevTools shows a message at its
first frame that is not ignore-listed, and ignore-lists the sources a script's source map lists in
``ignoreList``. So: every frame above the page's is in a script whose inline source map maps each of
its lines to ignore-listed sources, and the first frame that is not is the page's line, the frame
shown without the extension. (Firefox: e2e/test_firefox.py, where the location itself is compared.)
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

from playwright.async_api import BrowserContext, Page

from .conftest import Env

MAP_DATA = "data:application/json;base64,"


async def _console_frames(context: BrowserContext, page: Page) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The call frames of the console message ``shout()`` logs, and each script's source map URL."""
    cdp = await context.new_cdp_session(page)
    maps: dict[str, str] = {}
    got: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    cdp.on("Debugger.scriptParsed", lambda e: maps.__setitem__(e["scriptId"], e.get("sourceMapURL") or ""))

    def on_console(event: dict[str, Any]) -> None:
        if not got.done() and any(a.get("value") == "logged by the page" for a in event["args"]):
            got.set_result(event)

    cdp.on("Runtime.consoleAPICalled", on_console)
    await cdp.send("Debugger.enable")
    await cdp.send("Runtime.enable")
    await page.evaluate("() => setTimeout(shout, 0)")  # from a task of the page's, not from evaluate
    event = await asyncio.wait_for(got, 20)
    await cdp.detach()
    return event["stackTrace"]["callFrames"], maps


def _ignore_listed(frame: dict[str, Any], maps: dict[str, str]) -> bool:
    """Whether DevTools ignore-lists this frame: its script's source map maps the frame's line and
    lists every source in ``ignoreList``."""
    url = maps.get(frame["scriptId"], "")
    if not url.startswith(MAP_DATA):
        return False
    sm = json.loads(base64.b64decode(url[len(MAP_DATA):]))
    every = set(range(len(sm["sources"])))
    return set(sm.get("ignoreList", [])) == every and frame["lineNumber"] < len(sm["mappings"].split(";"))


def _where(frame: dict[str, Any]) -> tuple[str, int, int, str]:
    return frame["url"], frame["lineNumber"], frame["columnNumber"], frame["functionName"]


async def test_the_page_console_messages_are_shown_at_the_pages_line(env: Env, page_closer, plain):
    page = await env.open("console-lines.html")
    page_closer.append(page)
    frames, maps = await _console_frames(env.browser.context, page)
    shown = next(f for f in frames if not _ignore_listed(f, maps))
    ours = frames[: frames.index(shown)]
    assert ours, "the capture wraps console.log: its frame is on top"  # what the map is for
    assert all(f["url"].endswith("/page/console.js") for f in ours), [_where(f) for f in ours]

    context = await plain(env.flavour)
    bare = await context.new_page()
    try:
        await bare.goto(env.pages_url + "console-lines.html")
        without, _ = await _console_frames(context, bare)
    finally:
        await bare.close()
    assert _where(shown) == _where(without[0]) == (env.pages_url + "console-lines.html", 7, 12, "shout")
