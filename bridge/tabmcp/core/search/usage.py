"""Learning from use: requests that ended in a call of a tool, remembered per install.

A request that led to a call says what the tool is for in its users' words; a later request close
to it (:data:`USE_THRESHOLD`) lifts that tool by up to :data:`USE_WEIGHT`. Only a hash and the
vector of a request are stored, at most :data:`MAX_USES` pairs; nothing is learned without the model.
"""

from __future__ import annotations

import hashlib
import threading

import numpy as np
import numpy.typing as npt

from ..stores import UseRows

__all__ = ["MAX_USES", "USE_THRESHOLD", "USE_WEIGHT", "UseMemory", "request_key"]

USE_THRESHOLD = 0.7
"""Cosine between a new request and a remembered one from which the remembered tool is lifted
(MiniLM: rewordings of one goal score ~0.7-0.95, unrelated requests < 0.5). Set a priori."""
USE_WEIGHT = 0.3
"""Lift at cosine 1 (the same request again), falling linearly to 0 at the threshold. Fused
scores are cosine + 0.2 x relative BM25, so 0.3 outweighs the keyword share but not a much
better meaning. Set a priori, not tuned."""
MAX_USES = 5_000

Vector = npt.NDArray[np.float32]

def request_key(query: str) -> str:
    """What identifies a request in memory and on disk (its words are not stored)."""
    return hashlib.blake2b(query.encode(), digest_size=16).hexdigest()


class UseMemory:
    """Remembered (request vector, tool) pairs and the lift they give a new request. Thread-safe."""

    def __init__(self, model: str, store: UseRows | None = None) -> None:
        self._model = model
        self._store = store
        self._lock = threading.Lock()
        self._pairs: set[tuple[str, str]] = set()
        self._rows: list[tuple[str, str, Vector]] = []  # (query, tool, vector), oldest first
        self._matrix: tuple[Vector, list[str]] | None = None  # built on the next lookup
        if store is not None:
            for query, tool, vec in store.load(model):
                self._add(query, tool, vec)

    def __len__(self) -> int:
        return len(self._rows)

    def record(self, query: str, tool: str, vec: Vector) -> None:
        key = request_key(query)
        with self._lock:
            self._add(key, tool, vec)
        if self._store is not None:
            self._store.add(self._model, key, tool, vec)

    def _add(self, query: str, tool: str, vec: Vector) -> None:
        if (query, tool) in self._pairs:
            return
        self._pairs.add((query, tool))
        self._rows.append((query, tool, np.asarray(vec, dtype=np.float32)))
        if len(self._rows) > MAX_USES:  # forget the oldest
            for q, t, _ in self._rows[: len(self._rows) - MAX_USES]:
                self._pairs.discard((q, t))
            del self._rows[: len(self._rows) - MAX_USES]
        self._matrix = None

    def lifts(self, qv: Vector) -> dict[str, float]:
        """Tool → lift for a request whose vector is ``qv`` (empty when nothing is close)."""
        with self._lock:
            if not self._rows:
                return {}
            if self._matrix is None:
                rows = [r for r in self._rows if r[2].shape == qv.shape]
                self._matrix = (
                    np.stack([r[2] for r in rows]) if rows else np.zeros((0, qv.shape[0]), dtype=np.float32),
                    [r[1] for r in rows],
                )
            vecs, tools = self._matrix
        if vecs.shape[1] != qv.shape[0] or not len(vecs):
            return {}
        sims = np.einsum("ij,j->i", vecs, qv)  # no BLAS threads (see index._semantic_scores)
        out: dict[str, float] = {}
        for i in np.flatnonzero(sims >= USE_THRESHOLD).tolist():
            lift = USE_WEIGHT * (float(sims[i]) - USE_THRESHOLD) / (1.0 - USE_THRESHOLD)
            if lift > out.get(tools[i], 0.0):
                out[tools[i]] = lift
        return out
