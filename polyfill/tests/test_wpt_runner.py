"""The WPT runner (polyfill/wpt/run.py) skips with a clear message when its inputs are absent."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[1] / "wpt" / "run.py"


def _load():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("wpt_run", RUNNER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["wpt_run"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_skips_without_the_wpt_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _load().main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"SKIP: no WPT webmcp/ test files under {tmp_path}")


def test_skips_without_testharness(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "webmcp" / "imperative").mkdir(parents=True)
    (tmp_path / "webmcp" / "imperative" / "a.https.html").write_text("<!doctype html>")
    assert _load().main([str(tmp_path), "--testharness", str(tmp_path / "none")]) == 0
    assert capsys.readouterr().out.startswith("SKIP: no testharness.js in")
