"""Run benchmarks: ``python -m bench`` (all), ``python -m bench NAME [NAME...]``, or one with its own
options: ``python -m bench NAME --option ...`` (``./dev bench throughput --calls 3000``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def available() -> list[str]:
    here = Path(__file__).parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_"))


ON_DEMAND = {"compare"}
"""Run only when named: ``compare`` runs roundtrip and soak again itself."""


def main(argv: list[str]) -> int:
    split = next((i for i, a in enumerate(argv) if a.startswith("-")), len(argv))
    names, options = argv[:split] or [n for n in available() if n not in ON_DEMAND], argv[split:]
    if options and len(names) != 1:
        print("options go to one benchmark: python -m bench NAME --option ...", file=sys.stderr)
        return 2
    unknown = [n for n in names if n not in available()]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(available())}", file=sys.stderr)
        return 2
    for name in names:
        print(f"\n## bench.{name}")
        module = importlib.import_module(f"bench.{name}")
        rc = module.main(options)
        if rc:
            return int(rc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
