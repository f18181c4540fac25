"""What the page's telemetry capture adds to one ``console.log`` call, against the same page
without capture measured in the same run.

Both pages get a no-op ``console.log`` first, so the difference is the capture itself
(serializing, redacting, queueing), not the browser's console or CDP reporting it to
Playwright, which dwarf it and vary a lot.

    python -m bench.console_overhead
"""

from __future__ import annotations

import asyncio
import statistics

from playwright.async_api import async_playwright
from tabmcp.core.telemetry.settings import TelemetrySettings
from tabmcp.demo.server import serve_demo_site
from tabmcp.launch.browser import chromium_launch_args, find_chromium
from tabmcp.packaging.assets import capture_scripts

from bench._table import print_table

# The bench stands in for the content script: it takes the line the capture offers at
# document_start (messages.js CAPTURE_EVENT.offer), and hands the bridge's rules over on it as the
# content script does (nothing is sent before).
TAKE_LINE = """addEventListener('tabmcp-capture-port', (event) => {
  if (window.__captureLine || !event.ports || !event.ports[0]) return;
  event.preventDefault();
  window.__captureLine = event.ports[0];
});"""
CONFIG = "(config) => window.__captureLine.postMessage({type: 'telemetry.config', config})"

BENCH = """(flushEachRound) => {
  const hook = window[Symbol.for('tabmcp.telemetry')];
  const rounds = [];
  for (let r = 0; r < 40; r++) {
    const t = performance.now();
    for (let i = 0; i < 250; i++) console.log('order %d shipped', i, {id: i, status: 'paid', items: [1, 2]});
    rounds.push((performance.now() - t) / 250);
    if (flushEachRound && hook) hook.flush();  // sending the batch is not part of the call
  }
  // performance.now() is coarse (0.1 ms): a trimmed mean of many rounds, not one round.
  rounds.sort((a, b) => a - b);
  const kept = rounds.slice(8, -8);
  return (kept.reduce((a, b) => a + b, 0) / kept.length) * 1000;
}"""
NOOP = "console.log = function log() {};"


async def _run() -> None:
    async with serve_demo_site() as url, async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_chromium(), args=chromium_launch_args())
        try:
            pages = {}
            for name, capture in (("no capture", False), ("capture", True)):
                context = await browser.new_context()
                await context.add_init_script(NOOP)
                if capture:
                    await context.add_init_script(TAKE_LINE)
                    for script in capture_scripts():
                        await context.add_init_script(path=str(script))
                page = await context.new_page()
                await page.goto(url + "lab.html")
                if capture:
                    await page.evaluate(CONFIG, TelemetrySettings().page_config())
                    await page.wait_for_function("window[Symbol.for('tabmcp.telemetry')].stats().rulesKnown")
                pages[name] = page
            base: list[float] = []
            captured: list[float] = []
            for _ in range(5):
                base.append(await pages["no capture"].evaluate(BENCH, True))
                captured.append(await pages["capture"].evaluate(BENCH, True))
            full = await pages["capture"].evaluate(BENCH, False)  # past 300 queued, logs are dropped (counted)
        finally:
            await browser.close()
    b, c = statistics.median(base), statistics.median(captured)
    print_table(
        "console.log('order %d shipped', i, {...}) in the lab page (µs per call, median of 5 runs)",
        ["page", "µs per call", "capture adds"],
        [["no-op console.log, no capture (baseline)", f"{b:.2f}", "-"],
         ["with capture, batch sent each round", f"{c:.2f}", f"{c - b:.2f}"],
         ["with capture, page's log budget full", f"{full:.2f}", f"{full - b:.2f}"]],
    )


def main(argv: list[str]) -> int:
    asyncio.run(_run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main([]))
