"""Store-ready packages (``./dev package``): the Chromium ``.zip`` and the Firefox ``.xpi`` hold the
whole extension with each store's manifest, and Mozilla's ``addons-linter`` finds in the ``.xpi`` no
error and no warning of ours (the vendored libraries' warnings are listed in docs/architecture.md)."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest
from tabmcp.packaging.assets import extension_dir, repo_root
from tabmcp.packaging.firefox import DATA_COLLECTION, FIREFOX_MIN_VERSION
from tabmcp.packaging.package import build_packages
from tabmcp.testing import missing_from_setup

ROOT = repo_root() or Path.cwd()
VENDORED = ("vendor/",)
"""Files we ship but do not write (axe-core): their warnings are the library's, listed in docs."""


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if not (extension_dir() / "vendor" / "axe.min.js").exists() and not (ROOT / "node_modules" / "axe-core").exists():
        missing_from_setup("axe-core is not installed (./dev setup runs npm ci)")
    return build_packages(tmp_path_factory.mktemp("dist"))


def _manifest(package: Path) -> dict[str, object]:
    manifest: dict[str, object] = json.loads(zipfile.ZipFile(package).read("manifest.json"))
    return manifest


def test_the_chromium_zip_is_the_extension_without_the_key(packages: tuple[Path, Path]) -> None:
    chromium, _ = packages
    names = set(zipfile.ZipFile(chromium).namelist())
    source = {p.relative_to(extension_dir()).as_posix() for p in extension_dir().rglob("*") if p.is_file()}
    assert source <= names and {"webmcp-polyfill.js", "vendor/axe.min.js"} <= names
    manifest = _manifest(chromium)
    assert "key" not in manifest  # the Chrome Web Store refuses an upload that carries one
    assert manifest["background"] == {"service_worker": "background.js", "type": "module"}


def test_the_firefox_xpi_declares_its_data_and_minimum(packages: tuple[Path, Path]) -> None:
    _, firefox = packages
    gecko = _manifest(firefox)["browser_specific_settings"]["gecko"]  # type: ignore[index]
    assert gecko["data_collection_permissions"] == DATA_COLLECTION
    assert gecko["strict_min_version"] == FIREFOX_MIN_VERSION


def test_the_same_sources_give_the_same_bytes(packages: tuple[Path, Path], tmp_path: Path) -> None:
    again = build_packages(tmp_path)
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in packages]


@pytest.mark.slow
def test_addons_linter_finds_nothing_of_ours(packages: tuple[Path, Path]) -> None:
    linter = ROOT / "node_modules" / ".bin" / "addons-linter"
    if not linter.exists():
        missing_from_setup("addons-linter is not installed (package.json devDependencies; ./dev setup runs npm)")
    _, firefox = packages
    done = subprocess.run([str(linter), "--output", "json", str(firefox)], capture_output=True, text=True, timeout=300)
    report = json.loads(done.stdout)
    ours = [f"{m['code']} {m.get('file')}:{m.get('line')} {m['message']}"
            for kind in ("errors", "warnings") for m in report[kind]
            if not str(m.get("file") or "").startswith(VENDORED)]
    assert report["summary"]["errors"] == 0 and not ours, "\n".join(ours)
