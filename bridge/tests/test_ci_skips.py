"""Under ``CI=true`` a test may not skip because something ``./dev setup`` installs is missing:
it fails, saying what is missing (:func:`tabmcp.testing.missing_from_setup`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabmcp.testing import missing_from_setup

ROOT = Path(__file__).resolve().parents[2]
SUITES = ("bridge/tests", "e2e", "bench/tests", "polyfill/tests", "mediator/tests")


def test_a_missing_component_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="node is not installed.*CI=true"):
        missing_from_setup("node is not installed")


@pytest.mark.parametrize("value", ["", "false", "0"])
def test_a_missing_component_skips_on_a_developers_machine(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.skip.Exception, match="node is not installed"):
        missing_from_setup("node is not installed")


def test_a_component_the_person_opted_out_of_skips_even_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TABMCP_NO_SEMANTIC", "1")
    with pytest.raises(pytest.skip.Exception, match="model"):
        missing_from_setup("the search model is not installed", opted_out="TABMCP_NO_SEMANTIC")
    monkeypatch.setenv("TABMCP_NO_SEMANTIC", "0")
    with pytest.raises(pytest.fail.Exception):
        missing_from_setup("the search model is not installed", opted_out="TABMCP_NO_SEMANTIC")


SETUP_WORDS = re.compile(r"install|node\b|npm|chromium|model|axe|har-schema|inspector|semantic", re.I)
SKIP = re.compile(r"pytest\.(?:skip\(|importorskip\(|mark\.skipif\()\s*([^\n]*(?:\n[^\n]*\)\s*$)?)", re.M)


def test_every_skip_for_a_setup_component_goes_through_the_helper():
    """A bare ``pytest.skip``/``skipif``/``importorskip`` whose reason names something setup
    installs would pass silently in CI: each must call ``missing_from_setup`` instead."""
    bare = []
    for suite in SUITES:
        for path in sorted((ROOT / suite).rglob("*.py")):
            if path.name == Path(__file__).name:
                continue
            for match in SKIP.finditer(path.read_text(encoding="utf-8")):
                if SETUP_WORDS.search(match.group(1)):
                    bare.append(f"{path.relative_to(ROOT)}: {match.group(0).splitlines()[0].strip()}")
    assert not bare, "skips that CI would hide:\n" + "\n".join(bare)
