"""Bounded state under a page that churns tool names (issue 30, item 10).

``bench/pages/churn.html`` in real Chromium with the real extension registers tools under names
never used before, one every ``--every`` ms (default 10), for ``--seconds`` (default 20), each
with a ``--pad``-character description (``--keep`` of them live at a time, the oldest dropped),
while an MCP SDK client lists tools in a loop (the bridge pins every definition it shows) and
calls one of the listed tools each round (usage counts). Then the page closes and the bench waits
for the grace period (``[trust] transient_grace_s``, here ``--grace``, default 5 s) to pass. The
run uses a pin cap of ``--cap`` (default 200) per origin so a short run reaches it.

Reported at each phase: rows in the pins and usage tables, the SQLite file (with its WAL), the
bridge process's RSS, how many distinct names the agent was shown and how many pins the caps
evicted. Baseline, same run: the same page with a fixed set of ``--baseline-tools`` tools (no
churn), listed and called the same way for ``--baseline-seconds`` (default 10).

The browser runs in a child process (``bench.soak``'s browser process), so the RSS is the
bridge's (with the static page server and the MCP client, both small, in the same process).

    python -m bench churn [--seconds 20] [--grace 5] [--cap 200] [--keep 100] [--every 10]
    ./dev bench churn
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mcp import Client
from tabmcp.config import Config
from tabmcp.core.registry import origin_of
from tabmcp.demo.server import serve_demo_site
from tabmcp.server.app import BridgeApp, running_bridge

from bench._table import print_table
from bench.soak import Child, rss_bytes

PAGES = Path(__file__).parent / "pages"


@dataclass
class Sample:
    phase: str
    pins: int
    usage: int
    file_bytes: int
    rss: int
    shown: int
    evicted: int
    registered: int | None = None

    def row(self) -> list[str]:
        return [
            self.phase, str(self.pins), str(self.usage),
            f"{self.file_bytes / 2**20:.1f}", f"{self.rss / 2**20:.0f}",
            "" if self.registered is None else str(self.registered), str(self.shown), str(self.evicted),
        ]


def file_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())


def sample(phase: str, bridge: BridgeApp, db: Path, shown: set[str], registered: int | None = None) -> Sample:
    core = bridge.core
    return Sample(
        phase, sum(n for n, _ in core.pins.origins().values()), core.usage.rows(), file_bytes(db), rss_bytes(),
        len(shown), core.pins.evicted, registered,
    )


async def agent_rounds(agent: Client, until: float, shown: set[str]) -> int:
    """List, then call the newest listed page tool, until ``until`` (``loop.time()``); rounds run."""
    loop = asyncio.get_running_loop()
    rounds = 0
    while loop.time() < until:
        names = [t.name for t in (await agent.list_tools()).tools if t.name.startswith(("fresh_", "steady_"))]
        shown.update(names)
        if names:
            await agent.call_tool(names[-1], {})  # may be gone already under churn: an error result, counted
        rounds += 1
    return rounds


async def registered(browser: Child, slot: int) -> int:
    reply = await browser.ask(op="eval", slot=slot, js="() => window.stats()")
    return int((reply.get("value") or {}).get("registered", 0)) if reply.get("ok") else -1


async def run(args: argparse.Namespace) -> None:
    logging.getLogger("mcp").setLevel(logging.ERROR)  # names gone under churn: expected
    with tempfile.TemporaryDirectory(prefix="tabmcp-churn-") as tmp:
        db = Path(tmp) / "tabmcp.db"
        config = Config().with_overrides({
            "server": {"port": 0},
            "store": {"path": str(db)},
            "trust": {"frame_text": False, "transient_grace_s": args.grace, "pins_per_origin": args.cap},
            "search": {"semantic": args.semantic},
            "disclosure": {"profile": "passthrough"},
            "mcp": {"tools_ttl_ms": 0},  # the agent lists anew every round
        })
        samples: list[Sample] = []
        async with serve_demo_site(site_dir=PAGES) as served, running_bridge(config) as bridge:
            origin = origin_of(served)
            browser = await Child.start("--child", "browser", f"ws://127.0.0.1:{bridge.port}/extension")
            browser.serve_replies()
            try:
                if not await bridge.core.wait_connected(30):
                    raise RuntimeError("the extension did not connect")
                loop = asyncio.get_running_loop()
                async with Client(f"http://127.0.0.1:{bridge.port}/mcp") as agent:
                    await agent.list_tools()
                    samples.append(sample("start", bridge, db, set()))

                    base: set[str] = set()
                    steady = f"{served}/churn.html?n={args.baseline_tools}&pad={args.pad}"
                    await browser.ask(op="open", slot=1, url=steady)
                    await agent_rounds(agent, loop.time() + args.baseline_seconds, base)
                    label = f"baseline: {args.baseline_tools} fixed tools, {args.baseline_seconds:g} s"
                    samples.append(sample(label, bridge, db, base, await registered(browser, 1)))
                    await browser.ask(op="close", slot=1)

                    shown: set[str] = set()
                    churning = f"{served}/churn.html?every={args.every}&pad={args.pad}&keep={args.keep}"
                    await browser.ask(op="open", slot=2, url=churning)
                    started = loop.time()
                    for k in (1, 2, 3):
                        await agent_rounds(agent, started + args.seconds * k / 3, shown)
                        label = f"churning, {loop.time() - started:.0f} s"
                        samples.append(sample(label, bridge, db, shown, await registered(browser, 2)))
                    await browser.ask(op="close", slot=2)
                    closed = time.monotonic()
                    while any(d.origin == origin and d.is_open for d in bridge.core.registry.documents()):
                        await asyncio.sleep(0.05)
                    label = f"page closed (gone from the bridge after {time.monotonic() - closed:.1f} s)"
                    samples.append(sample(label, bridge, db, shown))

                    while any(o == origin for o in bridge.core.pins.origins()):
                        if time.monotonic() - closed > args.grace + 120:
                            raise RuntimeError("the churning origin's pins never expired")
                        await asyncio.sleep(0.2)  # the bench watches a timer of the bridge
                    took = time.monotonic() - closed
                    samples.append(sample(f"grace passed ({took:.1f} s after close)", bridge, db, shown))
            finally:
                await browser.close()
    limits = config.trust
    print_table(
        "A page churning tool names while an agent lists tools: state of the bridge",
        ["phase", "pin rows", "usage rows", "DB file MiB", "bridge RSS MiB", "registered by page",
         "names shown", "pins evicted"],
        [s.row() for s in samples],
        note=(
            f"Caps: {limits.pins_per_origin} pins per origin, {limits.transient_pins} for never-trusted "
            "origins "
            f"together, usage 200 per origin; grace {args.grace:g} s (default 1 day). Descriptions of "
            f"{args.pad} characters; semantic search {args.semantic}. RSS: the bench process (bridge, page "
            "server, MCP client); Chromium runs in a child. The origin is one the person never allowed."
        ),
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.churn")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the page churns (default 20)")
    parser.add_argument("--baseline-seconds", type=float, default=10.0)
    parser.add_argument("--baseline-tools", type=int, default=50)
    parser.add_argument("--grace", type=float, default=5.0, help="transient_grace_s for this run (default 5)")
    parser.add_argument("--pad", type=int, default=1000, help="description length of each tool")
    parser.add_argument("--keep", type=int, default=100, help="tools the page offers at a time (default 100)")
    parser.add_argument("--cap", type=int, default=200,
                        help="[trust] pins_per_origin for this run (default 200, reached in a short run; "
                             "the config's default is 1000)")
    parser.add_argument("--every", type=int, default=10, help="ms between the page's registrations")
    parser.add_argument("--semantic", action="store_true", help="embedding search on (off: keywords only)")
    args = parser.parse_args(argv)
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
