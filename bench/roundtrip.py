"""Round trip of a no-op page tool through the whole chain, against Playwright's page.evaluate.

MCP client → bridge → extension service worker → content script → page → back, measured
with the official SDK client (2026-07-28 and handshake-era connections), in both browser
flavours. The baseline, measured in the same run on the same page, is Playwright calling the
same tool in the page with ``page.evaluate`` (CDP straight into the page).

    python -m bench.roundtrip [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from mcp import Client

from bench._table import fmt_ms, percentile, print_table
from tabmcp.config import Config
from tabmcp.demo.server import serve_demo_site
from tabmcp.launcher import launch_browser
from tabmcp.server.app import running_bridge

PAGES = Path(__file__).parent / "pages"


async def _time(n: int, fn) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(n):
        start = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - start)
    return out


async def measure(calls: int, warmup: int) -> list[list[str]]:
    rows: list[list[str]] = []
    config = Config().with_overrides({"server": {"port": 0}, "store": {"path": ":memory:"}})
    async with running_bridge(config) as bridge, serve_demo_site(site_dir=PAGES) as site:
        for flavour in ("polyfill", "native"):
            url = f"ws://127.0.0.1:{bridge.port}/extension"
            async with launch_browser(bridge_url=url, headless=True, webmcp=flavour == "native") as browser:
                await bridge.hub.wait_connected(15)
                page = await browser.context.new_page()
                await page.goto(site + "roundtrip.html")
                for _ in range(200):
                    if bridge.hub.registry.resolve("noop"):
                        break
                    await asyncio.sleep(0.05)

                async def evaluate() -> None:
                    await page.evaluate("() => navigator.modelContext.executeTool('noop', {})")

                await _time(warmup, evaluate)
                baseline = await _time(calls, evaluate)
                base_p50 = percentile(baseline, 50)
                rows.append([flavour, "page.evaluate (baseline)", fmt_ms(base_p50), fmt_ms(percentile(baseline, 99)),
                             "1.0x"])
                for mode, label in (("auto", "MCP 2026-07-28"), ("legacy", "MCP 2025-11-25")):
                    async with Client(f"http://127.0.0.1:{bridge.port}/mcp", mode=mode) as client:

                        async def call() -> None:
                            result = await client.call_tool("noop", {})
                            if result.is_error:
                                raise RuntimeError(result.content)

                        await _time(warmup, call)
                        samples = await _time(calls, call)
                    p50 = percentile(samples, 50)
                    rows.append([flavour, f"{label} call_tool → page", fmt_ms(p50), fmt_ms(percentile(samples, 99)),
                                 f"{p50 / base_p50:.1f}x"])
                await page.close()
            await asyncio.sleep(0.5)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.roundtrip")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    args = parser.parse_args(argv)
    rows = asyncio.run(measure(args.calls, args.warmup))
    print_table(
        f"No-op page tool round trip ({args.calls} sequential calls each)",
        ["browser", "path", "p50 ms", "p99 ms", "p50 vs baseline"],
        rows,
        note="Baseline: Playwright page.evaluate calling the same tool in the same page, same run.",
    )
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
