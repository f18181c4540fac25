"""Keeps the console capture's frames out of the page's console locations in Chromium's DevTools.

Each file of :data:`IGNORED` ends with an inline source map that ignore-lists its lines, so
DevTools shows the page's own line rather than the capture's wrapper (docs/telemetry.md).
``bridge/tests/test_ignore_list.py`` fails when a map no longer covers its file; rewrite with::

    .venv/bin/python -m tabmcp.ignore_list
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from pathlib import Path
from typing import Any

from .packaging.assets import extension_dir

__all__ = ["IGNORED", "MAP_PREFIX", "render", "source_map"]

IGNORED = ("page/console.js",)
"""The extension's page scripts whose frames sit between a page's call and the browser."""

MAP_PREFIX = "//# sourceMappingURL=data:application/json;base64,"

_NOTE = (
    "// tabmcp's console capture ({name}), ignore-listed: DevTools shows a page's console messages"
    " at the page's own line, not at this wrapper."
)


def source_map(name: str, lines: int) -> dict[str, Any]:
    """A map of ``lines`` lines, each to the same line of one ignore-listed source."""
    return {
        "version": 3,
        "sources": [f"tabmcp-capture/{name}"],
        "sourcesContent": [_NOTE.format(name=name)],
        "names": [],
        "mappings": ";".join(["AAAA"] + ["AACA"] * (lines - 1)),
        "ignoreList": [0],
    }


def render(name: str, text: str) -> str:
    """``text`` with its map as the last line (an older map line replaced)."""
    body = text.rstrip("\n").split("\n")
    if body and body[-1].startswith(MAP_PREFIX):
        body.pop()
    encoded = json.dumps(source_map(name, len(body) + 1), separators=(",", ":")).encode()
    return "\n".join([*body, MAP_PREFIX + base64.b64encode(encoded).decode()]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a file's map is stale")
    args = parser.parse_args(argv)
    stale = []
    for name in IGNORED:
        path: Path = extension_dir() / name
        text = path.read_text(encoding="utf-8")
        wanted = render(name, text)
        if wanted == text:
            continue
        stale.append(name)
        if not args.check:
            path.write_text(wanted, encoding="utf-8")
    if args.check and stale:
        print("stale ignore-list maps: " + ", ".join(stale) + " (run python -m tabmcp.ignore_list)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
