"""Find (and if asked, install) a Chromium that can load our unpacked extension.

Branded Google Chrome ignores ``--load-extension`` since version 137, so we look for
Chromium builds first: an explicit ``TABMCP_CHROMIUM``, the distribution's package, then
Playwright's own download. ``python -m tabmcp.launch.browser --ensure`` installs one when none is
found: Debian's ``chromium`` package when running as root with apt, else
``playwright install chromium``.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["BrowserNotFound", "chromium_launch_args", "ensure_chromium", "find_chromium", "named_or_on_path"]

_CANDIDATES = ("chromium", "chromium-browser")


class BrowserNotFound(RuntimeError):
    """No Chromium that can load an unpacked extension was found."""


def _playwright_chromium() -> str | None:
    """The newest Chromium that ``playwright install chromium`` put on this machine, if any."""
    base = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")
    patterns = [
        "chromium-*/chrome-linux*/chrome",
        "chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
        "chromium-*/chrome-mac*/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chromium-*/chrome-win*/chrome.exe",
    ]
    found: list[str] = []
    for pattern in patterns:
        found.extend(glob.glob(os.path.join(base, pattern)))
    return sorted(found)[-1] if found else None


def named_or_on_path(env_var: str, names: tuple[str, ...], not_found: type[Exception]) -> str | None:
    """The executable ``env_var`` names (``not_found`` if that file does not exist), else the first of
    ``names`` on PATH, else None. The one rule for finding each browser (Chromium here, Firefox in
    :mod:`tabmcp.packaging.firefox`)."""
    explicit = os.environ.get(env_var)
    if explicit:
        if os.path.exists(explicit):
            return explicit
        raise not_found(f"{env_var}={explicit!r} does not exist")
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def find_chromium() -> str:
    """Return the path of a Chromium executable.

    Raises:
        BrowserNotFound: nothing usable is installed (run ``python -m tabmcp.launch.browser --ensure``).
    """
    found = named_or_on_path("TABMCP_CHROMIUM", _CANDIDATES, BrowserNotFound)
    if found:
        return found
    for path in ("/usr/bin/chromium", "/usr/lib/chromium/chromium", "/snap/bin/chromium"):
        if os.path.exists(path):
            return path
    bundled = _playwright_chromium()
    if bundled:
        return bundled
    raise BrowserNotFound(
        "no Chromium found: install your distribution's 'chromium' package, set TABMCP_CHROMIUM, "
        "or run 'python -m tabmcp.launch.browser --ensure'"
    )


def ensure_chromium() -> str:
    """Find a Chromium, installing one first if there is none."""
    try:
        return find_chromium()
    except BrowserNotFound:
        pass
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if is_root and shutil.which("apt-get"):
        print("[tabmcp] installing Debian's chromium package", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env)
    else:
        print("[tabmcp] installing Playwright's Chromium", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"], check=True)
    return find_chromium()


def chromium_launch_args(extension_dir: str | os.PathLike[str] | None = None, *, webmcp: bool = False) -> list[str]:
    """Command-line switches for a quiet Chromium, optionally with our extension and native WebMCP.

    The background-networking switches keep Chromium from phoning home, which matters on
    machines with a closed network (CI) and keeps the demo quiet everywhere.
    """
    args = [
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--disable-features=Translate,MediaRouter,OptimizationHints",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start as root with the sandbox on
    if extension_dir is not None:
        ext = os.fspath(extension_dir)
        args += [f"--disable-extensions-except={ext}", f"--load-extension={ext}"]
    if webmcp:
        args.append("--enable-features=WebMCP")
    return args


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabmcp.launch.browser", description=__doc__)
    parser.add_argument("--ensure", action="store_true", help="install a Chromium if none is found")
    args = parser.parse_args(argv)
    try:
        path = ensure_chromium() if args.ensure else find_chromium()
    except (BrowserNotFound, subprocess.CalledProcessError) as exc:
        print(f"[tabmcp] {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
