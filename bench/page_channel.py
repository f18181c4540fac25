"""What a snapshot costs to cross from the page's main world to the content script's isolated world:
``window.postMessage`` (a structured clone, a task, every ``message`` listener of the page) against
a ``CustomEvent`` whose ``detail`` is the snapshot as JSON text (messages.js ``PAGE_EVENT``,
dispatched synchronously).

A plain Chromium page; the receiver runs in an isolated world made over CDP
(``Page.createIsolatedWorld``), as a content script's does. The snapshot is the MCP catalog's
first N tools (name, description, inputSchema as their servers wrote them). For each way, the
median over the repetitions of: the sender's own time (the call that sends, JSON.stringify
included) and the time until the receiver in the other world holds the tools (``event.data``
read, or ``JSON.parse`` of ``detail``).

    ./dev bench page_channel            (python -m bench.page_channel [--tools 100 682] [--reps 30])
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from typing import Any

from tabmcp.launch.launcher import launch_browser

from bench._data import catalog_path
from bench._table import print_table

RECEIVER = """
addEventListener('message', (e) => {
  const tools = e.data && e.data.__bench && e.data.msg.tools;
  if (!tools) return;
  document.documentElement.dataset.got = String(performance.now());
  document.documentElement.dataset.n = String(tools.length);
  dispatchEvent(new Event('bench-done'));
});
addEventListener('bench-page', (e) => {
  const tools = JSON.parse(e.detail).tools;
  document.documentElement.dataset.got = String(performance.now());
  document.documentElement.dataset.n = String(tools.length);
});
"""

SENDER = """async ({ tools, reps }) => {
  const snap = { type: 'snapshot', url: location.href, title: document.title, native: false, categories: [], states: [], tools };
  const root = document.documentElement;
  const out = { message: { send: [], arrive: [] }, event: { send: [], arrive: [] } };
  for (let i = 0; i < reps; i++) {
    // window.postMessage: cloned now, delivered in a task of its own.
    const done = new Promise((r) => addEventListener('bench-done', r, { once: true }));
    let t0 = performance.now();
    window.postMessage({ __bench: 1, msg: snap }, '*');
    out.message.send.push(performance.now() - t0);
    await done;
    if (Number(root.dataset.n) !== tools.length) throw new Error('message: wrong count');
    out.message.arrive.push(Number(root.dataset.got) - t0);
    // A CustomEvent with JSON text: the receiver runs before dispatchEvent returns.
    root.dataset.n = '0';
    t0 = performance.now();
    dispatchEvent(new CustomEvent('bench-page', { detail: JSON.stringify(snap) }));
    out.event.send.push(performance.now() - t0);
    if (Number(root.dataset.n) !== tools.length) throw new Error('event: wrong count');
    out.event.arrive.push(Number(root.dataset.got) - t0);
    await new Promise((r) => setTimeout(r, 0));
  }
  return out;
}"""


def catalog_tools() -> list[dict[str, Any]]:
    path = catalog_path()
    if path is None:
        raise SystemExit("the MCP catalog is missing (bench/_data.py): run ./dev setup")
    data = json.loads(path.read_text(encoding="utf-8"))
    return [{k: t[k] for k in ("name", "description", "inputSchema") if k in t}
            for c in data["categories"] for t in c["tools"]]


async def measure(sizes: list[int], reps: int) -> list[list[str]]:
    tools = catalog_tools()
    rows = []
    async with launch_browser(headless=True, extension=False) as browser:
        page = await browser.context.new_page()
        await page.set_content("<!doctype html><title>bench</title><p>page channel</p>")
        cdp = await browser.context.new_cdp_session(page)
        frame = (await cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
        world = await cdp.send("Page.createIsolatedWorld", {"frameId": frame, "worldName": "bench-content"})
        await cdp.send("Runtime.evaluate", {"expression": RECEIVER, "contextId": world["executionContextId"]})
        for n in sizes:
            some = tools[:n]
            size = len(json.dumps(some))
            got = await page.evaluate(SENDER, {"tools": some, "reps": reps})
            for way, label in (("message", "window.postMessage (clone)"), ("event", "CustomEvent + JSON text")):
                send = statistics.median(got[way]["send"])
                arrive = statistics.median(got[way]["arrive"])
                rows.append([str(len(some)), f"{size / 1024:.0f} KiB", label, f"{send:.2f}", f"{arrive:.2f}"])
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.page_channel")
    parser.add_argument("--tools", type=int, nargs="+", default=[100, 682])
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args(argv)
    rows = asyncio.run(measure(args.tools, args.reps))
    headers = ["tools", "JSON size", "way", "sender ms (median)", "in the other world ms (median)"]
    print_table("a snapshot from the main world to an isolated world", headers, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(__import__("sys").argv[1:]))
