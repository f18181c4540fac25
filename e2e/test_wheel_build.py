"""A wheel is complete or is not built (hatch_build.py): ``pip wheel .`` of a checkout that
``./dev setup`` never staged either stages the search model and the extension's files itself (when
what staging reads is installed) or stops with the command to run, never a wheel without them.

Each test builds a copy of the checkout's packaged files (nothing staged) in a scratch folder, as a
fresh clone is; the isolated build gets hatchling from ``.wheelhouse`` (offline), as pip's build
isolation gets it from PyPI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from tabmcp.testing import missing_from_setup

from bench._installed import ROOT, WHEELHOUSE

pytestmark = pytest.mark.slow

MODEL = ROOT / "bridge" / "tabmcp" / "_model" / "all-MiniLM-L6-v2"


def _fresh_clone(to: Path) -> Path:
    """The packaged files of the checkout with nothing staged (no model, no axe-core, no polyfill copy)."""
    to.mkdir(parents=True, exist_ok=True)
    for name in ("pyproject.toml", "hatch_build.py", "README.md", "LICENSE", "NOTICE"):
        shutil.copy2(ROOT / name, to / name)
    shutil.copytree(ROOT / "LICENSES", to / "LICENSES")
    shutil.copytree(ROOT / "bridge" / "tabmcp", to / "bridge" / "tabmcp",
                    ignore=shutil.ignore_patterns("_model", "__pycache__"))
    shutil.copytree(ROOT / "extension", to / "extension", ignore=shutil.ignore_patterns("vendor", "webmcp-polyfill.js"))
    (to / "polyfill").mkdir()
    shutil.copy2(ROOT / "polyfill" / "webmcp-polyfill.js", to / "polyfill" / "webmcp-polyfill.js")
    return to


def _pip_wheel(src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-w",
                           str(out), *extra, str(src)], capture_output=True, text=True, timeout=600)


def test_an_unstaged_clone_is_not_built_and_says_what_to_run(tmp_path: Path) -> None:
    if not any(WHEELHOUSE.glob("hatchling-*.whl")):
        missing_from_setup(f"no hatchling wheel in {WHEELHOUSE} (./dev setup downloads the build's requirements there)")
    src = _fresh_clone(tmp_path)
    # An isolated build: only hatchling, none of the packages the model is staged from.
    done = _pip_wheel(src, tmp_path / "dist", "--no-index", "--find-links", str(WHEELHOUSE))
    assert done.returncode != 0, done.stdout
    said = done.stdout + done.stderr
    assert "tabmcp's wheel would lack bridge/tabmcp/_model/all-MiniLM-L6-v2/tokenizer.json" in said, said
    assert "python -m tabmcp.model --stage" in said and "./dev setup" in said, said
    assert not list(tmp_path.glob("dist/*.whl"))


def test_a_build_stages_what_it_can(tmp_path: Path) -> None:
    if not (MODEL / "model-q8.onnx").is_file() or not (ROOT / "node_modules" / "axe-core" / "axe.min.js").is_file():
        missing_from_setup("the model's weights and axe-core are staged and installed by ./dev setup",
                           opted_out="TABMCP_NO_SEMANTIC")
    src = _fresh_clone(tmp_path / "clone")  # no tokenizer, no axe-core, no polyfill copy
    # The quantized weights as setup made them (with their recipe, so staging does not redo them).
    staged = src / "bridge" / "tabmcp" / "_model" / "all-MiniLM-L6-v2"
    staged.mkdir(parents=True)
    for name in ("model-q8.onnx", "model-q8.json"):
        shutil.copy2(MODEL / name, staged / name)
    (src / "node_modules").symlink_to(ROOT / "node_modules")
    # The dev environment's Python has what staging reads (the model's sources, onnx, node_modules).
    done = _pip_wheel(src, tmp_path / "dist", "--no-build-isolation")
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (tmp_path / "dist").glob("tabmcp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for part in ("tabmcp/_model/all-MiniLM-L6-v2/tokenizer.json", "tabmcp/_model/all-MiniLM-L6-v2/model-q8.onnx",
                 "tabmcp/_assets/extension/vendor/axe.min.js", "tabmcp/_assets/extension/webmcp-polyfill.js"):
        assert part in names, sorted(n for n in names if "_model" in n or "_assets/extension/v" in n)


def test_the_sdist_of_a_staged_checkout_builds_a_complete_wheel_in_isolation(tmp_path: Path) -> None:
    """``python -m build``'s path: the sdist carries the staged parts (git-ignored, so only as
    artifacts), and the wheel built from it where nothing can be staged is complete."""
    if not any(WHEELHOUSE.glob("hatchling-*.whl")):
        missing_from_setup(f"no hatchling wheel in {WHEELHOUSE} (./dev setup downloads the build's requirements there)")
    if not (MODEL / "tokenizer.json").is_file() or not (ROOT / "node_modules" / "axe-core" / "axe.min.js").is_file():
        missing_from_setup("the model is staged and axe-core installed by ./dev setup", opted_out="TABMCP_NO_SEMANTIC")
    # As ./dev setup does: the polyfill copy and axe-core into extension/ (what the sdist carries).
    subprocess.run([sys.executable, "-m", "tabmcp.packaging.assets", "--stage"], cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT / "bridge")})
    sdist = subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path / "sdist")],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert sdist.returncode == 0, sdist.stdout + sdist.stderr
    (archive,) = (tmp_path / "sdist").glob("tabmcp-*.tar.gz")
    done = _pip_wheel(archive, tmp_path / "dist", "--no-index", "--find-links", str(WHEELHOUSE))
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (tmp_path / "dist").glob("tabmcp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"tabmcp/_model/all-MiniLM-L6-v2/tokenizer.json", "tabmcp/_model/all-MiniLM-L6-v2/model-q8.onnx",
            "tabmcp/_assets/extension/vendor/axe.min.js"} <= names
