"""Where the extension, the polyfill and the demo site live, in a checkout or a wheel.

The polyfill has one source, ``polyfill/webmcp-polyfill.js``. Chromium will not follow a
symlink inside an unpacked extension, so :func:`stage_extension` copies the polyfill into
the extension folder (the copy is git-ignored) before anything loads the extension.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

__all__ = [
    "EXTENSION_ID",
    "axe_path",
    "capture_scripts",
    "demo_site_dir",
    "extension_dir",
    "polyfill_path",
    "repo_root",
    "stage_extension",
]

EXTENSION_ID = "gfigonejdkomjpdmhgkpaofngngajldi"
"""Fixed by the ``key`` in ``extension/manifest.json``; the bridge admits this ID by default."""

_PKG = Path(__file__).resolve().parent.parent  # the tabmcp package (the wheel carries _assets there)


def repo_root() -> Path | None:
    """The checkout this package runs from, or ``None`` when installed from a wheel."""
    root = _PKG.parent.parent
    return root if (root / "extension" / "manifest.json").exists() else None


def extension_dir() -> Path:
    root = repo_root()
    return root / "extension" if root else _PKG / "_assets" / "extension"


def polyfill_path() -> Path:
    root = repo_root()
    return root / "polyfill" / "webmcp-polyfill.js" if root else _PKG / "_assets" / "webmcp-polyfill.js"


def capture_scripts() -> list[Path]:
    """The telemetry capture's page scripts, in the order ``manifest.json`` injects them.

    Tests and benchmarks that load the capture without the extension inject exactly these
    (the shared names first, ``page/start.js`` last), so they run what the extension runs.
    """
    manifest = json.loads((extension_dir() / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["content_scripts"]:
        if "page/natives.js" in entry["js"]:
            return [extension_dir() / name for name in entry["js"]]
    raise LookupError("manifest.json lists no telemetry capture scripts (page/natives.js)")


def demo_site_dir() -> Path:
    return _PKG / "demo" / "site"


def axe_path() -> Path | None:
    """axe-core's browser build, installed from npm (``./dev setup``); never committed."""
    root = repo_root()
    candidates = [root / "node_modules" / "axe-core" / "axe.min.js"] if root else []
    candidates.append(Path.cwd() / "node_modules" / "axe-core" / "axe.min.js")
    return next((c for c in candidates if c.exists()), None)


def _staged_files() -> dict[str, bytes]:
    files = {"webmcp-polyfill.js": polyfill_path().read_bytes()}
    axe = axe_path()
    if axe is not None:
        files["vendor/axe.min.js"] = axe.read_bytes()
    return files


def stage_extension() -> Path:
    """Copy the polyfill (and axe-core, when installed) into the extension folder if missing or
    stale; return the folder to load."""
    ext = extension_dir()
    files = _staged_files()
    try:
        for name, data in files.items():
            target = ext / name
            if not target.exists() or target.read_bytes() != data:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    except OSError:
        # A read-only install: stage a private copy of the whole extension instead.
        private = Path.home() / ".cache" / "tabmcp" / "extension"
        shutil.copytree(ext, private, dirs_exist_ok=True)
        for name, data in files.items():
            (private / name).parent.mkdir(parents=True, exist_ok=True)
            (private / name).write_bytes(data)
        return private
    return ext


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabmcp.packaging.assets")
    parser.add_argument("--stage", action="store_true", help="stage the polyfill into the extension")
    args = parser.parse_args(argv)
    print(stage_extension() if args.stage else extension_dir())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
