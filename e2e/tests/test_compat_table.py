"""The compatibility table's observed rows (e2e/compat_table.py): writers in parallel (test
processes, each recording its rows) lose none, and a row written again replaces its old self."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from e2e import compat_table

WRITERS = 8
ROWS_EACH = 25


def row(pattern: str, flavour: str, tools: str = "1") -> compat_table.Row:
    return {"pattern": pattern, "flavour": flavour, "tools": tools, "calls": "1", "same": "yes",
            "console": "0", "errors": "0"}


def write_rows(writer: int) -> None:
    for i in range(ROWS_EACH):
        compat_table.record(row(f"pattern {writer}-{i}", "polyfill" if i % 2 else "native"))


def test_parallel_writers_lose_no_row(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setattr(compat_table, "OBSERVED", tmp_path / "observed")
    fork = multiprocessing.get_context("fork")  # the children see the patched OBSERVED
    writers = [fork.Process(target=write_rows, args=(w,)) for w in range(WRITERS)]
    for p in writers:
        p.start()
    for p in writers:
        p.join(timeout=120)
        assert p.exitcode == 0
    observed = compat_table.read_observed()
    assert len(observed) == WRITERS * ROWS_EACH
    assert observed[("pattern 3-7", "polyfill")] == row("pattern 3-7", "polyfill")


def test_a_row_recorded_again_replaces_its_old_self(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setattr(compat_table, "OBSERVED", tmp_path / "observed")
    compat_table.record(row("react StrictMode / double mount", "native", tools="3"))
    compat_table.record(row("react StrictMode / double mount", "polyfill", tools="3"))
    compat_table.record(row("react StrictMode / double mount", "native", tools="4"))
    assert compat_table.read_observed() == {
        ("react StrictMode / double mount", "native"): row("react StrictMode / double mount", "native", tools="4"),
        ("react StrictMode / double mount", "polyfill"): row("react StrictMode / double mount", "polyfill", tools="3"),
    }
