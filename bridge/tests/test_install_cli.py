"""``tabmcp --version`` names the search model; ``tabmcp extension`` prints a folder Chromium can
load (manifest and the staged polyfill in it) and the steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tabmcp import __version__
from tabmcp.cli import main
from tabmcp.model import model_status
from tabmcp.testing import missing_from_setup


def test_version_names_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    if not model_status().present:
        missing_from_setup("the search model is not installed", opted_out="TABMCP_NO_SEMANTIC")
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"tabmcp {__version__}, search model all-MiniLM-L6-v2-q8 (onnxruntime)"


def test_extension_prints_a_loadable_folder_and_the_steps(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extension"]) == 0
    out = capsys.readouterr().out
    folder = Path(out.splitlines()[0].split(": ", 1)[1])
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["version"] == __version__
    assert (folder / "webmcp-polyfill.js").exists(), "the polyfill is not staged into the folder printed"
    assert "chrome://extensions" in out and f"Load unpacked → choose {folder}" in out and "tabmcp pair" in out
    firefox = Path(out.split("Load Temporary Add-on… → choose ", 1)[1].splitlines()[0])
    assert "about:debugging" in out and json.loads(firefox.read_text())["browser_specific_settings"]["gecko"]["id"]
