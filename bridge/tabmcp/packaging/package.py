"""Store-ready packages of the extension: ``./dev package`` (``python -m tabmcp.packaging.package``).

``dist/tabmcp-chromium-VERSION.zip`` (no ``key``: the store fixes the ID) and
``dist/tabmcp-firefox-VERSION.xpi`` (unsigned: AMO signs), plain zips with sorted, dated entries so
the same sources give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from .. import __version__
from .assets import repo_root, stage_extension
from .firefox import build_firefox_extension

__all__ = ["CHROMIUM_STORE_DROPPED_KEYS", "build_packages", "chromium_store_manifest"]

CHROMIUM_STORE_DROPPED_KEYS = ("key",)
"""The Chrome Web Store refuses an upload whose manifest carries ``key`` ("key field is not allowed")."""

_SKIPPED = ("*.tmp", ".*")


def chromium_store_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in manifest.items() if k not in CHROMIUM_STORE_DROPPED_KEYS}


def _zip(folder: Path, out: Path, manifest: dict[str, Any]) -> Path:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "manifest.json"
                   and not any(p.match(pattern) for pattern in _SKIPPED))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        def add(name: str, data: bytes) -> None:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)

        add("manifest.json", (json.dumps(manifest, indent=2) + "\n").encode())
        for path in files:
            add(path.relative_to(folder).as_posix(), path.read_bytes())
    tmp.replace(out)
    return out


def build_packages(out: Path | None = None) -> tuple[Path, Path]:
    """Build the Chromium ``.zip`` and the Firefox ``.xpi`` into ``out`` (default ``dist/`` of the
    checkout, else the current folder); return their paths."""
    root = repo_root()
    out = out or (root / "dist" if root else Path.cwd())
    source = stage_extension()
    for part in ("webmcp-polyfill.js", "vendor/axe.min.js"):
        if not (source / part).is_file():  # as for the wheel (hatch_build.py): complete, or not built
            raise FileNotFoundError(f"the extension lacks {part}: run ./dev setup (npm ci stages axe-core), then again")
    chromium = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    zip_path = _zip(source, out / f"tabmcp-chromium-{__version__}.zip", chromium_store_manifest(chromium))
    with tempfile.TemporaryDirectory() as tmp:
        firefox = build_firefox_extension(Path(tmp) / "firefox")
        manifest = json.loads((firefox / "manifest.json").read_text(encoding="utf-8"))
        xpi_path = _zip(firefox, out / f"tabmcp-firefox-{__version__}.xpi", manifest)
    return zip_path, xpi_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabmcp.packaging.package", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="the folder to write them to (default: dist/ of the checkout)")
    args = parser.parse_args(argv)
    try:
        paths = build_packages(args.out)
    except FileNotFoundError as exc:
        print(f"[tabmcp] {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
