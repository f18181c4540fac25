"""The semantic side of the index: one vector per tool, embedded in the background.

:class:`Embeddings` holds the vectors, the caches and a low-priority worker thread; a search never
waits for it (tools without a vector rank by keywords). Short documents and shortest-first order
give 500 new tools their vectors within seconds (docs/search.md).
"""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .semantic import Embedder, EmbeddingCache, content_hash

__all__ = ["Embeddings"]

Vector = npt.NDArray[np.float32]


class Embeddings:
    """Vectors by slot for one index. Shares the index's lock: every method that touches state
    takes it; the model always runs outside it."""

    def __init__(
        self,
        embedder: Embedder,
        lock: threading.RLock,
        *,
        cache: EmbeddingCache | None,
        query_cache_size: int,
        background: bool,
        batch_size: int,
        capacity: int,
    ) -> None:
        self.embedder = embedder
        self.cache = cache if cache is not None else EmbeddingCache()
        self._queries = EmbeddingCache(query_cache_size)
        self._lock = lock
        self._wake = threading.Condition(lock)
        self.vectors: npt.NDArray[np.float32] | None = None
        self._has = np.zeros(capacity, dtype=bool)
        self._pending: dict[int, tuple[str, str]] = {}
        """Slot → (content hash, text) of tools still without their vector."""
        self.background = background
        self._batch_size = batch_size
        self._worker: threading.Thread | None = None
        self._closed = False
        self.errors = 0

    # -- slots

    def grow(self, capacity: int) -> None:
        old = len(self._has)
        has = np.zeros(capacity, dtype=bool)
        has[:old] = self._has
        self._has = has
        if self.vectors is not None:
            vecs = np.zeros((capacity, self.vectors.shape[1]), dtype=np.float32)
            vecs[:old] = self.vectors
            self.vectors = vecs

    def add(self, slot: int, text: str) -> str:
        """A tool entered ``slot``: its vector comes from the cache or is queued. Returns its
        content hash."""
        h = content_hash(self.embedder.name, text)
        vec = self.cache.get(h)
        if vec is not None:
            self._set(slot, vec)
        else:
            self._pending[slot] = (h, text)
        return h

    def remove(self, slot: int) -> None:
        self._has[slot] = False
        self._pending.pop(slot, None)

    def has(self, n: int) -> npt.NDArray[np.bool_]:
        return self._has[:n]

    @property
    def embedded(self) -> int:
        return int(self._has.sum())

    @property
    def pending(self) -> int:
        """Tools still without their vector (they rank by keywords alone)."""
        return len(self._pending)

    def _set(self, slot: int, vec: Vector) -> None:
        if self.vectors is None:
            self.vectors = np.zeros((len(self._has), vec.shape[0]), dtype=np.float32)
        self.vectors[slot] = vec
        self._has[slot] = True

    # -- embedding

    def compute(self, max_docs: int | None = None) -> int:
        """Embed tools that lack their vector, outside the lock, shortest first so the most tools get
        one soonest; returns how many did. A tool that changed meanwhile waits for its new text."""
        with self._lock:
            slots = sorted(self._pending, key=lambda s: len(self._pending[s][1]))[:max_docs]
            batch = [(s, *self._pending[s]) for s in slots]
        if not batch:
            return 0
        vecs = self.embedder.encode([text for _, _, text in batch])
        self.cache.put_many([(h, vec) for (_, h, _), vec in zip(batch, vecs, strict=True)])
        with self._lock:
            done = 0
            for (slot, h, text), vec in zip(batch, vecs, strict=True):
                if self._pending.get(slot) == (h, text):
                    self._set(slot, vec)
                    del self._pending[slot]
                    done += 1
            if not self._pending:
                self._wake.notify_all()
            return done

    def catch_up(self) -> None:
        """Without a worker, embed everything pending now (a search's first step)."""
        if not self.background:
            while self._pending:
                self.compute()

    def query_vector(self, query: str) -> Vector:
        """The query's embedding (cached); the model runs outside the index lock."""
        with self._lock:
            vec = self._queries.get(query)
        if vec is None:
            vec = self.embedder.encode([query])[0]
            with self._lock:
                self._queries.put(query, vec)
        return vec

    def query_vectors(self, queries: Sequence[str]) -> list[Vector]:
        """A request's clauses' embeddings, from one run of the model and cached together: one request
        always gets the same vectors, for two thirds of the CPU of a run per clause."""
        key = "\x1f" + "\x1f".join(queries)  # never a query's own text: a query is stripped
        with self._lock:
            vecs = self._queries.get(key)
        if vecs is None:
            together = getattr(self.embedder, "encode_together", self.embedder.encode)
            vecs = together(list(queries))
            with self._lock:
                self._queries.put(key, vecs)
        return list(vecs)

    def keep_query_vector(self, query: str, vec: Vector) -> None:
        """Remember ``query``'s vector without running the model (a request of several steps:
        the sum of its clauses'), for learning from use."""
        with self._lock:
            self._queries.put(query, vec)

    def cached_query_vector(self, query: str) -> Vector | None:
        with self._lock:
            return self._queries.get(query)

    # -- the worker

    def start(self) -> None:
        """Start the worker if there is work and none is running (background mode)."""
        with self._lock:
            if not self.background or not self._pending or self._closed or self._worker is not None:
                return
            self._worker = threading.Thread(target=self._work, name="tabmcp-embed", daemon=True)
            _RUNNING.add(self)
            self._worker.start()

    def _work(self) -> None:
        """Embed until nothing is pending, then end (the next change starts a new worker)."""
        _lower_thread_priority()
        while True:
            with self._lock:
                if not self._pending or self._closed:
                    self._worker = None
                    self._wake.notify_all()
                    return
            try:
                self.compute(self._batch_size)
            except Exception:  # a model failure must not kill the worker: keyword ranking goes on
                self.errors += 1
                with self._lock:
                    self._closed = True
                    self._wake.notify_all()
                return

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every tool has its vector (background mode); False on timeout."""
        with self._lock:
            if not self.background:
                return not self._pending
            self._wake.wait_for(lambda: not self._pending or self._closed, timeout)
            return not self._pending

    def close(self) -> None:
        """Stop the worker (it finishes the batch it is embedding; the model must not be running
        when the interpreter exits, so this also runs at exit)."""
        with self._lock:
            self._closed = True
            self._wake.notify_all()
            worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout=30)
        _RUNNING.discard(self)


_RUNNING: weakref.WeakSet[Embeddings] = weakref.WeakSet()
"""Workers that may be inside the model: closed at exit, before daemon threads die."""


@atexit.register
def _close_running() -> None:
    for emb in list(_RUNNING):
        emb.close()


def _lower_thread_priority() -> None:
    """Let searches win the CPU over background embedding (Linux: a thread is a task with its
    own nice value; elsewhere nothing changes)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):  # pragma: no cover - not Linux, or not permitted
        pass
