"""The polyfill as an npm package: ``npm pack`` makes it, a scratch project installs the tarball,
and a page imports it as a module (and loads it as a classic script) in real Chromium, in both
flavours. Its version is the extension's."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import shutil
import subprocess
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser

from tabmcp.testing import missing_from_setup

ROOT = Path(__file__).resolve().parents[2]
POLYFILL_DIR = ROOT / "polyfill"
NAME = "@tabmcp/webmcp-polyfill"

PAGE = """<!doctype html><meta charset=utf-8><title>package</title>
<script type="module">
  import { modelContext, version } from './node_modules/@tabmcp/webmcp-polyfill/webmcp-polyfill.mjs';
  await modelContext.registerTool({ name: 'echo', description: 'Says it back.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, execute: ({ text }) => text });
  await modelContext.registerCategory({ name: 'shop', description: 'The shop.',
    tools: [{ name: 'shop.find', description: 'Find a product.', execute: () => 'found' }] });
  window.__result = { version, same: modelContext === document.modelContext,
                      names: (await modelContext.getTools()).map((t) => t.name).sort(),
                      categories: modelContext.getCategories().map((c) => c.name) };
</script>"""

CLASSIC = """<!doctype html><meta charset=utf-8><title>classic</title>
<script src="./node_modules/@tabmcp/webmcp-polyfill/webmcp-polyfill.js"></script>
<script>window.__result = { hasApi: typeof document.modelContext.registerTool === 'function' };</script>"""


def npm() -> str:
    found = shutil.which("npm")
    if not found:
        missing_from_setup("npm (Node.js) is not installed")
    return found


def test_the_package_version_is_the_extensions() -> None:
    package = json.loads((POLYFILL_DIR / "package.json").read_text())
    manifest = json.loads((ROOT / "extension" / "manifest.json").read_text())
    assert package["name"] == NAME
    assert package["version"] == manifest["version"]
    assert f'var VERSION = "{package["version"]}";' in (POLYFILL_DIR / "webmcp-polyfill.js").read_text()
    for target in ("main", "module", "types"):
        assert (POLYFILL_DIR / package[target]).is_file(), target


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A scratch project with the packed tarball installed (no registry: the package has no dependencies)."""
    work = tmp_path_factory.mktemp("package")
    packed = subprocess.run([npm(), "pack", "--json", "--pack-destination", str(work)], cwd=POLYFILL_DIR,
                            capture_output=True, text=True, timeout=120, check=True)
    info = json.loads(packed.stdout)[0]
    files = sorted(f["path"] for f in info["files"])
    assert files == ["README.md", "package.json", "webmcp-polyfill.d.ts", "webmcp-polyfill.js", "webmcp-polyfill.mjs"]
    project = work / "project"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "scratch", "private": True, "version": "1.0.0"}))
    subprocess.run([npm(), "install", "--no-audit", "--no-fund", "--offline", str(work / info["filename"])],
                   cwd=project, capture_output=True, text=True, timeout=180, check=True)
    (project / "index.html").write_text(PAGE)
    (project / "classic.html").write_text(CLASSIC)
    yield project


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
    handler.log_message = lambda *a, **k: None  # type: ignore[method-assign]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


async def test_a_project_installs_the_tarball_and_imports_it(
    installed: Path, browser_for: Callable[[str], Awaitable[Browser]], mode: str
) -> None:
    package = json.loads((installed / "node_modules" / "@tabmcp" / "webmcp-polyfill" / "package.json").read_text())
    assert package["exports"]["."]["import"] == "./webmcp-polyfill.mjs"
    browser = await browser_for(mode)
    context = await browser.new_context()
    errors: list[str] = []
    try:
        with serve(installed) as base:
            page = await context.new_page()
            page.on("pageerror", lambda err: errors.append(str(err)))
            await page.goto(f"{base}/index.html")
            result: Any = await (await page.wait_for_function("() => window.__result", timeout=15_000)).json_value()
            assert result == {"version": package["version"], "same": True, "names": ["echo", "shop.find"],
                              "categories": ["shop"]}
            await page.goto(f"{base}/classic.html")
            classic: Any = await (await page.wait_for_function("() => window.__result", timeout=15_000)).json_value()
            assert classic == {"hasApi": True}
    finally:
        await context.close()
    assert errors == []
