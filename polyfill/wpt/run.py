"""Runs the W3C web-platform-tests ``webmcp/`` files in real Chromium and prints passed/total.

The WPT files are not part of this repository. Give the path of a WPT checkout (or of a copy
holding at least its ``webmcp/`` folder) and of testharness.js (the npm package ``wpt-runner``
ships it in ``wpt-runner/testharness/``)::

    .venv/bin/python polyfill/wpt/run.py /path/to/wpt \
        --testharness node_modules/wpt-runner/testharness [--flavour ours --flavour native ...]

Flavours:

* ``ours``: plain Chromium, our polyfill injected into every frame at document start, in strict
  schemas (the draft's subset; docs/polyfill.md);
* ``native``: Chromium with ``--enable-features=WebMCP``, nothing injected;
* ``native+ours``: the same native Chromium with our polyfill layered on top;
* ``mcpb``: plain Chromium with ``@mcp-b/webmcp-polyfill``'s IIFE (``--mcpb PATH``) injected.

Each test file is served from ``http://127.0.0.1:<port>/`` (a secure context) by a small
in-process server that also answers ``/resources/testharness.js``, a ``testharnessreport.js``
collecting the results, and ``/common/blank.html``. When the WPT files or testharness.js are
absent, the script says so and exits with status 0 (nothing to measure), so it can run anywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import json
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
POLYFILL = ROOT / "polyfill" / "webmcp-polyfill.js"
sys.path.insert(0, str(ROOT / "bridge"))

from tabmcp.launch.browser import chromium_launch_args, find_chromium  # noqa: E402

FLAVOURS = ("ours", "native", "native+ours", "mcpb")
STATUS = {0: "PASS", 1: "FAIL", 2: "TIMEOUT", 3: "NOTRUN", 4: "PRECONDITION_FAILED"}
HARNESS_STATUS = {0: "OK", 1: "ERROR", 2: "TIMEOUT", 3: "PRECONDITION_FAILED"}

REPORT_JS = b"""
add_completion_callback((tests, status) => {
  window.__wptResults = {
    status: status.status, message: status.message,
    tests: tests.map((t) => ({name: t.name, status: t.status, message: t.message})),
  };
});
"""
BLANK_HTML = b"<!doctype html><meta charset=utf-8><title>blank</title>"


@dataclass
class FileResult:
    path: str
    harness: str
    tests: list[dict[str, Any]]

    @property
    def passed(self) -> int:
        return sum(1 for t in self.tests if t["status"] == 0)


def _handler(wpt: Path, testharness: Path) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            body: bytes | None = None
            if path == "/resources/testharness.js":
                body = (testharness / "testharness.js").read_bytes()
            elif path == "/resources/testharnessreport.js":
                body = REPORT_JS
            elif path in ("/common/blank.html", "/blank.html"):
                body = BLANK_HTML
            else:
                target = (wpt / path.lstrip("/")).resolve()
                if target.is_file() and wpt.resolve() in target.parents:
                    body = target.read_bytes()
            if body is None:
                self.send_error(404)
                return
            ctype = {
                ".js": "text/javascript",
                ".html": "text/html",
                ".json": "application/json",
            }.get(Path(path).suffix, "text/html")
            try:
                self.send_response(200)
                self.send_header("Content-Type", f"{ctype}; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the page went away (the runner closes it once the results are in)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


async def run_flavour(
    flavour: str, files: list[Path], wpt: Path, base: str, mcpb: Path | None, deadline_s: float
) -> list[FileResult]:
    from playwright.async_api import async_playwright

    inject: str | None = None
    if flavour in ("ours", "native+ours"):
        # the draft's tests: our polyfill in strict schemas (the draft's subset), not the default
        # that follows the shipping browser
        inject = "globalThis.webmcpPolyfillOptions = { strictSchemas: true };\n" + POLYFILL.read_text()
    elif flavour == "mcpb":
        assert mcpb is not None
        inject = mcpb.read_text()
    results: list[FileResult] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=find_chromium(),
            args=chromium_launch_args(webmcp=flavour.startswith("native")),
        )
        try:
            for f in files:
                rel = f.relative_to(wpt).as_posix()
                context = await browser.new_context()
                if inject is not None:
                    await context.add_init_script(script=inject)
                page = await context.new_page()
                try:
                    await page.goto(f"{base}/{rel}")
                    handle = await page.wait_for_function(
                        "() => window.__wptResults", timeout=deadline_s * 1000
                    )
                    data = await handle.json_value()
                    results.append(FileResult(rel, HARNESS_STATUS.get(data["status"], "?"), data["tests"]))
                except Exception as exc:
                    results.append(FileResult(rel, f"NO RESULT ({type(exc).__name__})", []))
                finally:
                    await context.close()
        finally:
            await browser.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wpt", type=Path, help="a WPT checkout or a copy holding its webmcp/ folder")
    parser.add_argument(
        "--testharness",
        type=Path,
        default=ROOT / "node_modules" / "wpt-runner" / "testharness",
        help="folder holding testharness.js (default: node_modules/wpt-runner/testharness)",
    )
    parser.add_argument(
        "--flavour", action="append", choices=FLAVOURS, help="repeatable (default: ours, native)"
    )
    parser.add_argument(
        "--mcpb", type=Path, help="@mcp-b/webmcp-polyfill's dist/index.iife.js (flavour mcpb)"
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="list every subtest that did not pass")
    parser.add_argument("--json", type=Path, help="also write all results to this JSON file")
    parser.add_argument("--file-timeout", type=float, default=60.0, help="seconds per test file")
    args = parser.parse_args(argv)

    flavours = args.flavour or ["ours", "native"]
    webmcp = args.wpt / "webmcp"
    files = (
        sorted(p for p in webmcp.rglob("*.html") if "resources" not in p.relative_to(webmcp).parts)
        if webmcp.is_dir()
        else []
    )
    if not files:
        print(f"SKIP: no WPT webmcp/ test files under {args.wpt} (not committed; see docs/polyfill.md)")
        return 0
    if not (args.testharness / "testharness.js").is_file():
        print(f"SKIP: no testharness.js in {args.testharness} (npm install wpt-runner; pass --testharness)")
        return 0
    if "mcpb" in flavours and (args.mcpb is None or not args.mcpb.is_file()):
        print("SKIP flavour mcpb: pass --mcpb path/to/@mcp-b/webmcp-polyfill/dist/index.iife.js")
        flavours = [f for f in flavours if f != "mcpb"]

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(args.wpt, args.testharness))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    everything: dict[str, list[dict[str, Any]]] = {}
    try:
        for flavour in flavours:
            results = asyncio.run(run_flavour(flavour, files, args.wpt, base, args.mcpb, args.file_timeout))
            total = sum(len(r.tests) for r in results)
            passed = sum(r.passed for r in results)
            print(f"== {flavour}: {passed}/{total} subtests passed")
            for r in results:
                note = "" if r.harness == "OK" else f"  [harness {r.harness}]"
                print(f"  {r.passed:>2}/{len(r.tests):<2} {r.path}{note}")
                if args.verbose:
                    for t in r.tests:
                        if t["status"] != 0:
                            msg = (t.get("message") or "").replace("\n", " ")[:200]
                            print(f"        {STATUS.get(t['status'], '?')}: {t['name']}: {msg}")
            everything[flavour] = [r.__dict__ for r in results]
    finally:
        httpd.shutdown()
        httpd.server_close()
    if args.json:
        args.json.write_text(json.dumps(everything, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
