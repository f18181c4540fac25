"""ruff and mypy, as configured in pyproject.toml, and ESLint (eslint.config.mjs) pass: ``./dev test``
runs them with everything else.

Both are installed by ``./dev setup`` (the ``test`` extra): under ``CI=true`` a missing one fails
here instead of skipping. ruff checks every Python file of the repository; mypy (``strict``) checks
the bridge and mediator packages, bench/ with its tests and the e2e helpers (conftest.py,
bridge_process.py, compat_table.py; not the e2e test files): ``[tool.mypy]`` ``files``. ESLint
checks the extension and the polyfill's sources with its recommended rules; it comes from
package.json, installed by setup's npm step.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tabmcp.testing import missing_from_setup

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        missing_from_setup(f"{name} is not installed (the test extra of pyproject.toml)")
    return found


@pytest.mark.slow
def test_ruff_finds_nothing() -> None:
    done = subprocess.run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_finds_nothing() -> None:
    done = subprocess.run([_tool("mypy"), "--no-error-summary"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_eslint_finds_nothing() -> None:
    """The extension and the polyfill's sources, with ESLint's recommended rules (eslint.config.mjs):
    among them ``no-undef``, since a name assigned or read that nothing declares throws at run time,
    often in a path only a fault reaches (a resync after the extension reloaded did)."""
    eslint = ROOT / "node_modules" / ".bin" / "eslint"
    if not eslint.exists():
        missing_from_setup("eslint is not installed (package.json devDependencies; ./dev setup runs npm)")
    done = subprocess.run([str(eslint), "--max-warnings", "0", "extension", "polyfill/src", "polyfill/webmcp-polyfill.mjs"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
