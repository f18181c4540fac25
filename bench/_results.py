"""The figures the guard against a regression compares: bench/results.json, kept in the repository.

``./dev bench roundtrip`` and ``./dev bench soak`` write their ratios here (same-run ratios and
CPU per call: what moves with the code, not with the machine's load), each under its own key with
the load average and the commit it ran on; ``./dev bench compare`` (bench/compare.py) runs them
again and says which figure moved beyond its noise. ``--results -`` writes nothing.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

__all__ = ["RESULTS", "read", "write"]

RESULTS = Path(__file__).resolve().parent / "results.json"
"""Committed (bench/results/ is git-ignored: that folder is for a run's raw output)."""


def read(path: Path = RESULTS) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=RESULTS.parent, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


def write(bench: str, figures: dict[str, float], *, load: str, where: str | None, notes: str = "") -> None:
    """Keep ``figures`` under ``bench`` in ``where`` (a path; ``None``: bench/results.json; ``"-"``: nowhere)."""
    if where == "-":
        return
    path = RESULTS if where is None else Path(where)
    data = read(path)
    data[bench] = {
        "figures": {k: round(v, 4) for k, v in figures.items()},
        "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": _commit(),
        "load": load,
        **({"notes": notes} if notes else {}),
    }
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"\n(figures written to {path})")
