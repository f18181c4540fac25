"""Under ``CI=true`` a test may not skip because something ``./dev setup`` installs is missing:
it fails, saying what is missing (:func:`tabmcp.testing.missing_from_setup`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tabmcp.testing import missing_from_setup

ROOT = Path(__file__).resolve().parents[2]
SUITES = ("bridge/tests", "e2e", "bench/tests", "polyfill/tests", "mediator/tests")


def outcome(what: str, **kwargs: str) -> tuple[str, str]:
    """What :func:`missing_from_setup` does: ("failed" | "skipped", its message). Caught here, so
    a skip where a failure is due fails this test rather than skipping it."""
    try:
        missing_from_setup(what, **kwargs)
    except pytest.fail.Exception as exc:
        return "failed", str(exc)
    except pytest.skip.Exception as exc:
        return "skipped", str(exc)
    raise AssertionError("missing_from_setup returned")


def test_a_missing_component_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    done, message = outcome("node is not installed")
    assert done == "failed" and "node is not installed" in message and "CI=true" in message


@pytest.mark.parametrize("value", ["", "false", "0"])
def test_a_missing_component_skips_on_a_developers_machine(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    assert outcome("node is not installed") == ("skipped", "node is not installed")


def test_a_component_the_person_opted_out_of_skips_even_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TABMCP_NO_SEMANTIC", "1")
    assert outcome("no model", opted_out="TABMCP_NO_SEMANTIC")[0] == "skipped"
    monkeypatch.setenv("TABMCP_NO_SEMANTIC", "0")
    assert outcome("no model", opted_out="TABMCP_NO_SEMANTIC")[0] == "failed"


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
