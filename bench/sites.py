"""Reachable sites: a call on a closed site, and 100 tools registering in a background tab.

Two measures, each beside its baseline from the same run, with the site served locally (the
bench's own pages on 127.0.0.1) and the real extension in Chromium:

1. **Call on a closed site → result** (MCP client over Streamable HTTP): the site is reachable,
   its tab is closed; the call opens it in a background tab, waits for the tool, runs it. Between
   calls the agent tab is closed again (and the bench waits until the bridge shows the site
   closed). Baseline: the same tool called while its tab is open.
2. **100 tools registering**: from ``chrome.tabs.create`` (in the extension's worker) until the
   bridge holds all 100 tools of the tab, for a background tab (``active: false``, as agent tabs
   open) and a foreground one, interleaved. Headless Chromium may not hide background tabs the
   way a desktop window does; the table says what the page saw (``document.hidden``).

    python -m bench sites            (or ./dev bench sites)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import Client
from tabmcp.config import Config
from tabmcp.core.registry import origin_of
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import ExtensionBrowser, launch_browser
from tabmcp.server.app import BridgeApp, running_bridge

from bench._table import fmt_ms, percentile, print_table

PAGES = Path(__file__).parent / "pages"
TOOLS = 100


class Watch:
    """Wakes on every registry change of the bridge (no polling): ``until(predicate)``."""

    def __init__(self, bridge: BridgeApp) -> None:
        self.bridge = bridge
        self._changed = asyncio.Event()
        bridge.core.add_change_listener(self._changed.set)

    async def until(self, predicate: Any, timeout: float = 60.0) -> float:
        """Wait until ``predicate()`` holds; the ``perf_counter`` time it was first seen true."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            self._changed.clear()
            if predicate():
                return time.perf_counter()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError("the bridge never reached the expected state")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)


def _tab_with(bridge: BridgeApp, url: str, tools: int) -> int | None:
    for tab in bridge.core.registry.tabs.values():
        if tab.url == url and len(tab.tools) >= tools:
            return tab.tab_id
    return None


@contextlib.asynccontextmanager
async def setup(site: str) -> AsyncIterator[tuple[BridgeApp, ExtensionBrowser]]:
    config = Config().with_overrides({
        "server": {"port": 0},
        "store": {"path": ":memory:"},
        "policy": {"origins": [{"match": site, "reachable": True}]},
        "sites": {"idle_close_s": 3600, "max_agent_tabs": 5, "settle_s": 1.0},
        "trust": {"frame_text": False},
        "search": {"semantic": False},
    })
    async with running_bridge(config) as bridge:
        async with launch_browser(bridge_url=f"ws://127.0.0.1:{bridge.port}/extension", headless=True) as browser:
            if not await bridge.core.wait_connected(15):
                raise RuntimeError("the extension did not connect")
            yield bridge, browser


async def closed_site_calls(bridge: BridgeApp, browser: ExtensionBrowser, site: str, rounds: int,
                            open_calls: int) -> tuple[list[float], list[float], bool]:
    watch = Watch(bridge)
    url = f"{site}/many.html?n=10"
    page = await browser.context.new_page()
    await page.goto(url)
    await watch.until(lambda: _tab_with(bridge, url, 10))
    worker = await browser.worker()
    mcp_url = f"http://127.0.0.1:{bridge.port}/mcp"
    open_samples: list[float] = []
    closed_samples: list[float] = []
    hidden = False
    async with Client(mcp_url) as client:
        for _ in range(5):
            await client.call_tool("tool_3", {})
        for _ in range(open_calls):  # baseline: the tab is open
            t = time.perf_counter()
            result = await client.call_tool("tool_3", {})
            open_samples.append(time.perf_counter() - t)
            assert not result.is_error, result.content
        await page.close()
        closed = lambda: (e := bridge.core.tool("tool_3")) is not None and not e.tab.is_open  # noqa: E731
        await watch.until(closed)
        for _ in range(rounds):
            t = time.perf_counter()
            result = await client.call_tool("tool_3", {})
            closed_samples.append(time.perf_counter() - t)
            assert not result.is_error, result.content
            assert result.meta is not None
            tab_id = result.meta["tabmcp/source"]["tabId"]
            hidden = hidden or await worker.evaluate(
                "async (id) => !(await chrome.tabs.get(id)).active", tab_id)
            await worker.evaluate("(id) => chrome.tabs.remove(id)", tab_id)
            await watch.until(closed)
    return open_samples, closed_samples, hidden


async def registration(bridge: BridgeApp, browser: ExtensionBrowser, site: str,
                       rounds: int) -> dict[str, tuple[list[float], set[bool]]]:
    watch = Watch(bridge)
    worker = await browser.worker()
    person = await browser.context.new_page()  # the person's tab, in front
    await person.goto(f"{site}/")
    await person.bring_to_front()
    out: dict[str, tuple[list[float], set[bool]]] = {"background": ([], set()), "foreground": ([], set())}
    for i in range(rounds):
        for kind in ("background", "foreground"):
            url = f"{site}/many.html?n={TOOLS}&r={i}&k={kind}"
            t = time.perf_counter()
            tab_id = await worker.evaluate(
                "async ([url, active]) => (await chrome.tabs.create({url, active})).id", [url, kind == "foreground"])
            done = await watch.until(lambda u=url: _tab_with(bridge, u, TOOLS))
            out[kind][0].append(done - t)
            page = next((p for p in browser.context.pages if p.url == url), None)
            if page is not None:
                seen = await page.evaluate("() => window.registered")
                out[kind][1].add(bool(seen["hidden"]))
            await worker.evaluate("(id) => chrome.tabs.remove(id)", tab_id)
            await watch.until(lambda u=url: all(tab.url != u for tab in bridge.core.registry.tabs.values()))
            if kind == "foreground":
                await person.bring_to_front()
    return out


async def run(rounds: int, open_calls: int, reg_rounds: int) -> None:
    async with serve_demo_site(site_dir=PAGES) as served:
        site = origin_of(served)
        async with setup(site) as (bridge, browser):
            open_s, closed_s, background = await closed_site_calls(bridge, browser, site, rounds, open_calls)
            reg = await registration(bridge, browser, site, reg_rounds)
    print_table(
        "Call on a closed reachable site → result (MCP over Streamable HTTP, site on 127.0.0.1)",
        ["path", "calls", "p50 ms", "p95 ms"],
        [
            ["tab open (baseline)", len(open_s), fmt_ms(percentile(open_s, 50)), fmt_ms(percentile(open_s, 95))],
            ["site closed: open a background tab, wait for the tool, call",
             len(closed_s), fmt_ms(percentile(closed_s, 50)), fmt_ms(percentile(closed_s, 95))],
        ],
        note=f"Each closed-site call opened a new tab ({'in the background' if background else 'NOT in the background'});"
             " the agent tab was closed between calls.",
    )
    rows = []
    for kind, (samples, hidden) in reg.items():
        rows.append([f"{kind} tab", len(samples), fmt_ms(percentile(samples, 50)), fmt_ms(percentile(samples, 95)),
                     ", ".join(str(h).lower() for h in sorted(hidden)) or "?"])
    print_table(
        f"{TOOLS} tools registering: chrome.tabs.create → all {TOOLS} in the bridge",
        ["tab", "rounds", "p50 ms", "p95 ms", "document.hidden in the page"],
        rows,
        note="Interleaved rounds; the person's tab stays in front for background tabs.",
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.sites")
    parser.add_argument("--rounds", type=int, default=20, help="closed-site calls (default 20)")
    parser.add_argument("--open-calls", type=int, default=100, help="baseline calls with the tab open")
    parser.add_argument("--registration-rounds", type=int, default=10)
    args = parser.parse_args(argv)
    asyncio.run(run(args.rounds, args.open_calls, args.registration_rounds))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
