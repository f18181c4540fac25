"""What a reconnect to the same bridge run costs with heavy tabs open (issue 35).

The bridge keeps a dropped link's tabs for the reconnect grace. A worker that sent every tab again
on each reconnect sent five heavy tabs (``e2e/pages/heavy.html``, ~3.8 MB each) through its one
thread, the link's lane and the bridge's reader thread; now the sync keeps the tabs the bridge holds
unchanged by revision (docs/protocol.md, "A reconnect keeps what the bridge holds").

One Chromium with the extension and one bridge in this process (grace 120 s); the heavy tabs open;
then rounds of: the extension moved to a dead port, then back to the same bridge, the two ways
interleaved in the same run: ``whole`` (the bridge lists nothing in ``welcome``, as a bridge
without revisions does: the worker sends every tab) and ``kept``. Per reconnect, from the worker's
new socket to the sync read and put in: the characters the worker sent, the bridge process's CPU
(this process: the bridge and the bench's idle Playwright client), Chromium's CPU by process (the
extension's, its browser process, the rest: the network service), and the wall time.

    ./py -m bench resync [--tabs 5] [--rounds 3] [--native]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import time
from typing import Any

from tabmcp.config import Config
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.launcher import launch_browser
from tabmcp.server.app import running_bridge

from bench._table import print_table
from bench.hostile import E2E_PAGES, browser_cpu, cpu_by_kind, cpu_seconds
from bench.roundtrip import free_port, loadavg

__all__ = ["main"]

COUNT_SENT = """() => {
  const send = globalThis.sentByWorker?.send || WebSocket.prototype.send;
  const sent = (globalThis.sentByWorker = {chars: 0, send});
  WebSocket.prototype.send = function (data) {
    if (typeof data === 'string') sent.chars += data.length;
    return send.call(this, data);
  };
}"""

MODES = ("whole", "kept")


async def measure(args: argparse.Namespace) -> tuple[dict[str, list[dict[str, float]]], list[str]]:
    notes = [f"load average at start: {loadavg()}"]
    config = Config().with_overrides({
        "server": {"port": 0, "reconnect_grace_s": 120}, "store": {"path": ":memory:"}, "calls": {"timeout_s": 30},
    })
    rows: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    async with contextlib.AsyncExitStack() as stack:
        site = await stack.enter_async_context(serve_demo_site(site_dir=E2E_PAGES))
        app = await stack.enter_async_context(running_bridge(config))
        core = app.core
        bridge_url = f"ws://127.0.0.1:{app.port}/extension"
        devtools = free_port()
        browser = await stack.enter_async_context(launch_browser(
            bridge_url=bridge_url, headless=True, webmcp=args.native,
            extra_args=[f"--remote-debugging-port={devtools}"]))
        assert await core.wait_connected(30)
        urls = []
        for i in range(args.tabs):
            page = await browser.context.new_page()
            await page.goto(f"{site}heavy.html?tab={i}&together")
            urls.append(page.url)
        worker = await browser.worker()

        def heavy_in() -> bool:
            return sum(1 for t in core.registry.tabs.values() if t.url in urls and len(t.tools) == 60) == len(urls)

        async def settled() -> None:  # the bridge took the last revision of every tab the worker sent
            deadline = time.monotonic() + 120
            while True:
                link = core.session.current
                held = core.session.revisions.held(link.key) if link is not None else {}
                tabs: list[dict[str, Any]] = (await browser.status())["tabs"]  # type: ignore[assignment]
                if heavy_in() and all(held.get(t["tabId"]) == t["revision"] for t in tabs):
                    return
                if time.monotonic() > deadline:
                    raise RuntimeError("the heavy tabs did not settle in the bridge within 120 s")
                await asyncio.sleep(0.2)

        await settled()
        revisions = core.session.revisions
        listed = revisions.welcome
        synced = revisions.synced
        syncs = [0]

        def counted(*a: Any) -> None:
            synced(*a)
            syncs[0] += 1

        revisions.synced = counted  # type: ignore[method-assign,assignment]
        for _ in range(args.rounds):
            for mode in MODES:
                # whole: a welcome that lists nothing, as a bridge without revisions answers
                revisions.welcome = listed if mode == "kept" else (  # type: ignore[method-assign]
                    lambda *a: (listed(*a), [])[1])
                await browser.set_bridge_url(f"ws://127.0.0.1:{free_port()}/extension", pair=False)
                while core.connected:
                    await asyncio.sleep(0.05)
                await worker.evaluate(COUNT_SENT)
                before = syncs[0]
                cpu, chromium, t0 = cpu_seconds(os.getpid()), await browser_cpu(devtools), time.perf_counter()
                await browser.set_bridge_url(bridge_url, pair=False)
                while syncs[0] == before:
                    await asyncio.sleep(0.02)
                await core.reader.drain()
                wall = time.perf_counter() - t0
                bridge_cpu = cpu_seconds(os.getpid()) - cpu
                by_kind = cpu_by_kind(chromium, await browser_cpu(devtools))
                chars = (await worker.evaluate("() => globalThis.sentByWorker.chars"))
                rows[mode].append({"chars": chars, "bridge": bridge_cpu, "extension": by_kind["extension"],
                                   "browser": by_kind["browser"], "other": by_kind["other"], "wall": wall})
                await settled()
        revisions.welcome = listed  # type: ignore[method-assign]
        revisions.synced = synced  # type: ignore[method-assign]
    notes.append(f"load average at end: {loadavg()}")
    return rows, notes


def report(args: argparse.Namespace, rows: dict[str, list[dict[str, float]]], notes: list[str]) -> None:
    def med(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in rows[mode])

    def spread(mode: str, key: str, fmt: str) -> str:
        values = [r[key] for r in rows[mode]]
        return f"{format(statistics.median(values), fmt)} ({format(min(values), fmt)}–{format(max(values), fmt)})"

    table = []
    for key, label, fmt in (("chars", "characters the worker sent", ",.0f"), ("bridge", "bridge CPU s", ".3f"),
                            ("extension", "extension process CPU s", ".3f"), ("browser", "browser process CPU s", ".3f"),
                            ("other", "other Chromium CPU s (network service)", ".3f"), ("wall", "wall s", ".2f")):
        whole = med("whole", key)
        table.append([label, *(spread(m, key, fmt) for m in MODES),
                      f"{med('kept', key) / whole:.3f}" if whole else "-"])
    print_table(f"A reconnect to the same bridge run with {args.tabs} heavy tabs (e2e/pages/heavy.html), {args.rounds} "
                f"rounds, {'native' if args.native else 'polyfill'}: medians (min–max)",
                ["per reconnect", *MODES, "kept / whole"], table)
    for note in notes:
        print(note)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench resync")
    parser.add_argument("--tabs", type=int, default=5, help="heavy tabs open (default 5: a sync past 16 MiB)")
    parser.add_argument("--rounds", type=int, default=3, help="reconnects of each kind, interleaved (default 3)")
    parser.add_argument("--native", action="store_true", help="Chromium's native WebMCP instead of the polyfill")
    args = parser.parse_args(argv)
    rows, notes = asyncio.run(measure(args))
    report(args, rows, notes)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
