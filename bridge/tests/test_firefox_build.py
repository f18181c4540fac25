"""The extension's Firefox build: the same files as extension/, a manifest Firefox runs."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tabmcp.packaging.assets import extension_dir
from tabmcp.packaging.firefox import (
    CONSOLE_CONTENT_SCRIPT,
    FIREFOX_ADDON_ID,
    REALM_CONTENT_SCRIPT,
    build_firefox_extension,
    firefox_manifest,
)


def _chromium() -> dict:
    return json.loads((extension_dir() / "manifest.json").read_text(encoding="utf-8"))


def test_the_manifest_runs_the_same_background_module_as_scripts() -> None:
    chromium = _chromium()
    firefox = firefox_manifest(chromium)
    assert chromium["background"] == {"service_worker": "background.js", "type": "module"}
    assert firefox["background"] == {"scripts": ["background.js"], "type": "module"}
    assert firefox["browser_specific_settings"]["gecko"]["id"] == FIREFOX_ADDON_ID
    assert "key" not in firefox and "minimum_chrome_version" not in firefox
    # Everything else is the Chromium build's: the same scripts, worlds and pages, and one more
    # content script: the realm wrapper for about:blank frames (Firefox has no list of tools to read).
    # And the console wrapper from the content script's world, last (Firefox shows the page's line then).
    assert firefox["content_scripts"] == [chromium["content_scripts"][0], REALM_CONTENT_SCRIPT,
                                          *chromium["content_scripts"][1:], CONSOLE_CONTENT_SCRIPT]
    assert REALM_CONTENT_SCRIPT["match_about_blank"] and REALM_CONTENT_SCRIPT["all_frames"]
    for key in ("action", "options_ui", "host_permissions", "version", "name"):
        assert firefox[key] == chromium[key], key


def test_the_extension_pages_may_reach_the_bridge_over_plain_ws() -> None:
    # Firefox's MV3 default CSP upgrades insecure requests: ws://127.0.0.1 would become wss://.
    csp = firefox_manifest(_chromium())["content_security_policy"]["extension_pages"]
    assert "upgrade-insecure-requests" not in csp
    assert "script-src 'self'" in csp


def test_the_build_holds_every_file_of_the_source(tmp_path: Path) -> None:
    out = build_firefox_extension(tmp_path / "firefox")
    source = extension_dir()
    wanted = {p.relative_to(source) for p in source.rglob("*") if p.is_file()}
    built = {p.relative_to(out) for p in out.rglob("*") if p.is_file()}
    assert wanted == built
    for rel in wanted - {Path("manifest.json")}:
        assert (out / rel).read_bytes() == (source / rel).read_bytes(), rel
    assert json.loads((out / "manifest.json").read_text(encoding="utf-8"))["background"]["scripts"] == [
        "background.js"
    ]


def _wrappers(path: Path) -> str:
    """The ``const wrappers = {...};`` block of a file, as written."""
    text = path.read_text()
    start = text.index("  const wrappers = {")
    return textwrap.dedent(text[start: text.index("\n  };\n", start) + 5])


def test_the_realm_wrapper_wraps_as_the_polyfill_does() -> None:
    # page/realm.js (Firefox: other realms' methods) and the polyfill's wrapNavigatorMethods wrap the
    # same native methods with the same symbols, whichever comes first in a window: one wrapper,
    # written twice (the polyfill is a page author's package, realm.js a content script), kept equal.
    root = Path(__file__).resolve().parents[2]
    polyfill = _wrappers(root / "polyfill" / "src" / "native.js").replace("NAV_RELAY", "RELAY")
    assert _wrappers(root / "extension" / "page" / "realm.js") == polyfill
