"""The Firefox build of the extension, and the Firefox that runs it.

Firefox ESR runs no service workers for extensions, so :func:`build_firefox_extension` copies
``extension/`` and rewrites only the manifest (:func:`firefox_manifest`): a background module
script, the gecko settings, Chromium's default CSP stated (Firefox's default would turn the
bridge's ``ws://`` into ``wss://``), Chromium-only keys dropped. No script is forked
(docs/architecture.md, "Two builds").
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..launch.browser import named_or_on_path
from .assets import repo_root, stage_extension

__all__ = [
    "CONSOLE_CONTENT_SCRIPT",
    "FIREFOX_ADDON_ID",
    "REALM_CONTENT_SCRIPT",
    "FirefoxNotFound",
    "build_firefox_extension",
    "ensure_firefox",
    "find_firefox",
    "firefox_extension_dir",
    "firefox_manifest",
]

FIREFOX_ADDON_ID = "tabmcp@tabmcp.dev"
"""The add-on ID of the Firefox build (``browser_specific_settings.gecko.id``)."""

FIREFOX_MIN_VERSION = "140.0"
"""Firefox ESR 140: tab groups (``tabs.group``, ``tabGroups``: 139) and the built-in data consent
(``data_collection_permissions``: 140), on top of content scripts in the page's main world (128).
``addons-linter`` checks every API the code calls against it (bridge/tests/test_store_packages.py)."""

FIREFOX_ANDROID_MIN_VERSION = "142.0"
"""Firefox for Android takes ``data_collection_permissions`` from 142 (it has no tab groups: grouping
is feature-detected in agent_tabs.js)."""

DATA_COLLECTION: dict[str, list[str]] = {"required": ["browsingActivity", "websiteContent", "websiteActivity"]}
"""What the extension transmits, in Firefox's categories: tab URLs and titles (browsing activity),
page tools, their results and snapshots (website content), console, network and actions telemetry
(website activity), all to the tabmcp bridge on this computer, which gives them to the AI agent the
person connected. Nothing goes to us. Required: relaying them is what the extension is for."""

EXTENSION_PAGES_CSP = "script-src 'self'; object-src 'self'"
"""Chromium's default for MV3 extension pages, without Firefox's ``upgrade-insecure-requests``."""

REALM_CONTENT_SCRIPT: dict[str, Any] = {
    "matches": ["<all_urls>"],
    "js": ["page/realm.js"],
    "world": "MAIN",
    "run_at": "document_start",
    "all_frames": True,
    "match_about_blank": True,
    "match_origin_as_fallback": True,
}
"""The Firefox build's one extra content script: ``page/realm.js`` in every frame's realm, about:blank,
srcdoc and blob frames included (after the polyfill's entry, so where the polyfill runs it wraps first)."""

CONSOLE_CONTENT_SCRIPT: dict[str, Any] = {
    "matches": ["<all_urls>"],
    "js": ["console-firefox.js"],
    "run_at": "document_start",
    "all_frames": False,
}
"""The Firefox build's console wrapper from the content script's world (``console-firefox.js``), last:
after the capture's page scripts, in the top frame as they are."""

_CHROMIUM_ONLY_KEYS = ("key", "minimum_chrome_version")
_CHROMIUM_ONLY_PERMISSIONS: frozenset[str] = frozenset()
"""Permissions Firefox 140+ would warn about. Empty: it knows ``tabGroups``, ``scripting``, ``alarms``,
``storage``, ``tabs``."""


class FirefoxNotFound(RuntimeError):
    """No Firefox executable is installed (``python -m tabmcp.packaging.firefox --ensure`` installs one)."""


def firefox_manifest(chromium: dict[str, Any]) -> dict[str, Any]:
    """The Firefox build's manifest from the Chromium one: the same scripts, Firefox's keys."""
    manifest = copy.deepcopy(chromium)
    for key in _CHROMIUM_ONLY_KEYS:
        manifest.pop(key, None)
    background = manifest.get("background", {})
    worker = background.get("service_worker", "background.js")
    manifest["background"] = {"scripts": [worker], "type": background.get("type", "module")}
    manifest["permissions"] = [
        p for p in manifest.get("permissions", []) if p not in _CHROMIUM_ONLY_PERMISSIONS
    ]
    # Firefox's WebMCP has no list of tools to read: a registration made with the method of an
    # about:blank or srcdoc frame's realm is seen only if that realm's method is wrapped, and the
    # polyfill does not run there (page/realm.js; Firefox runs it as the frame is created).
    scripts = manifest.setdefault("content_scripts", [])
    scripts.insert(1, dict(REALM_CONTENT_SCRIPT, js=list(REALM_CONTENT_SCRIPT["js"])))
    # Firefox shows a page's console message at our wrapper's frame unless that frame is another
    # principal's: console-firefox.js re-wraps the capture's console from the content script's world.
    scripts.append(dict(CONSOLE_CONTENT_SCRIPT, js=list(CONSOLE_CONTENT_SCRIPT["js"])))
    csp = manifest.setdefault("content_security_policy", {})
    csp.setdefault("extension_pages", EXTENSION_PAGES_CSP)
    manifest["browser_specific_settings"] = {
        "gecko": {"id": FIREFOX_ADDON_ID, "strict_min_version": FIREFOX_MIN_VERSION,
                  "data_collection_permissions": copy.deepcopy(DATA_COLLECTION)},
        "gecko_android": {"strict_min_version": FIREFOX_ANDROID_MIN_VERSION},
    }
    return manifest


def firefox_extension_dir() -> Path:
    """Where the Firefox build goes: ``build/firefox-extension`` in a checkout (git-ignored), else
    the user's cache (an installed wheel's files are read-only)."""
    root = repo_root()
    if root is not None:
        return root / "build" / "firefox-extension"
    return Path.home() / ".cache" / "tabmcp" / "firefox-extension"


def build_firefox_extension(out: Path | None = None) -> Path:
    """Build the Firefox extension from ``extension/`` into ``out`` (default
    :func:`firefox_extension_dir`), replacing what was there; return the folder to load."""
    source = stage_extension()
    target = out or firefox_extension_dir()
    chromium = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    staging = target.with_name(target.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(source, staging, ignore=shutil.ignore_patterns("manifest.json", "*.tmp"))
    (staging / "manifest.json").write_text(
        json.dumps(firefox_manifest(chromium), indent=2) + "\n", encoding="utf-8"
    )
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target


_FIREFOX_CANDIDATES = ("firefox-esr", "firefox")


def find_firefox() -> str:
    """The path of a Firefox executable (``TABMCP_FIREFOX`` first, then ``firefox-esr``, ``firefox``).

    Raises:
        FirefoxNotFound: none is installed.
    """
    found = named_or_on_path("TABMCP_FIREFOX", _FIREFOX_CANDIDATES, FirefoxNotFound)
    if found:
        return found
    raise FirefoxNotFound(
        "no Firefox found: install your distribution's 'firefox-esr' package or set TABMCP_FIREFOX"
    )


def ensure_firefox() -> str:
    """Find a Firefox, installing Debian's ``firefox-esr`` first when root with apt."""
    try:
        return find_firefox()
    except FirefoxNotFound:
        if not (hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get")):
            raise
    print("[tabmcp] installing Debian's firefox-esr package", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "firefox-esr"], check=True, env=env)
    return find_firefox()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabmcp.packaging.firefox", description=__doc__)
    parser.add_argument("--ensure", action="store_true", help="install firefox-esr if no Firefox is found")
    parser.add_argument(
        "--build", action="store_true", help="build the Firefox extension and print its folder"
    )
    args = parser.parse_args(argv)
    status = 0
    if args.ensure:
        try:
            ensure_firefox()
        except (FirefoxNotFound, subprocess.CalledProcessError) as exc:
            print(f"[tabmcp] {exc}", file=sys.stderr)
            status = 1  # the build does not need a Firefox: it is made all the same
    print(build_firefox_extension() if args.build else firefox_extension_dir())
    return status


if __name__ == "__main__":
    raise SystemExit(main())
