"""The tool search index: BM25 keyword ranking, fuzzy names, optional semantic ranking, fusion.

Pure Python + numpy, no I/O. One :class:`SearchIndex` holds every page tool the agent can
see, grouped in *sources* (the bridge's tabs). Design (details in docs/search.md):

* **Incremental by construction.** An inverted index maps each term to its postings
  ``{slot: weighted term frequency}``; BM25's global statistics (document count, document
  frequencies, average length) are plain counters read at query time, so replacing or
  removing one tab touches only that tab's postings and is exact: there is no segment merge
  and no idf snapshot to go stale. Per-term numpy arrays are materialised lazily and cached
  until that term's postings change, so a query over 5,000 tools is a handful of vectorised
  operations.
* **Fields.** Name (weight 3), title (2), category (1), description (1), argument names (1)
  and argument descriptions (0.5) feed one weighted bag of terms (a simplified BM25F).
* **Fuzzy.** Query words that no tool uses are matched to close vocabulary words (one or two
  edits) when the query is short or looks like a tool name; name-like queries are also
  compared with every candidate's name (``creat_usr`` → ``create_user``), and
  :meth:`SearchIndex.closest_names` suggests names for TOOL_NOT_FOUND.
* **Semantic (optional).** Each tool's text is embedded once and cached by content hash;
  each search embeds the query. A prose query's fused score is the cosine similarity plus a
  small share of the BM25 score (relative to the query's best); name-like queries fuse the
  keyword, semantic and fuzzy-name rankings by reciprocal rank.
"""

from __future__ import annotations

import atexit
import heapq
import math
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz, process

from .fuzzy import TypoIndex
from .semantic import (
    Embedder,
    EmbeddingCache,
    SemanticUnavailableError,
    content_hash,
    make_embedder,
)
from .text import (
    STOPWORDS,
    is_identifier,
    name_words,
    normalize_name,
    query_words,
    split_words,
    stem,
)
from .usage import UseMemory, UseStore

__all__ = ["SearchDoc", "SearchHit", "SearchIndex", "SearchMode"]

SearchMode = Literal["keyword", "semantic", "fused"]

FIELD_WEIGHTS: dict[str, float] = {
    "name": 3.0,
    "title": 2.0,
    "category": 1.0,
    "description": 1.0,
    "arg_names": 1.0,
    "arg_descriptions": 0.5,
    "arg_values": 0.5,
    "category_description": 0.3,
}
BM25_K1 = 1.2
BM25_B = 0.75
KEYWORD_WEIGHT = 0.2
"""Fused score of a prose query: cosine similarity + KEYWORD_WEIGHT x (BM25 / the query's best
BM25). The one constant tuned, on bench/data/catalog_requests_tune.json only (R@1 / R@5 of the
tuning half: 0.1 → 0.49 / 0.71, 0.2 → 0.52 / 0.72, 0.3 → 0.51 / 0.73; reciprocal rank fusion,
the previous rule, 0.39 / 0.71). Score fusion keeps how *much* better the best tool is, which
rank fusion throws away: that is most of the gain at rank 1."""
RRF_K = 60
"""Reciprocal rank fusion constant (the usual 60), for name-like queries: Σ w/(60 + rank)."""
SEMANTIC_WEIGHT = 2.0
"""Weight of the semantic ranking in the rank fusion of name-like queries (keyword and name
rankings weigh 1)."""
FUSION_DEPTH = 100
"""How deep each ranking is read for fusion (grown automatically when ``allow`` rejects)."""
NAME_MATCH_CUTOFF = 70.0
"""Minimum name similarity (0-100) for the fuzzy name ranking of name-like queries."""
SUGGEST_CUTOFF = 55.0
"""Minimum name similarity (0-100) for :meth:`SearchIndex.closest_names`."""
TYPO_WEIGHT = 0.7
"""Query weight of a vocabulary word reached through a typo correction (exact words: 1)."""
FOLLOW_CALLS = 3
"""A call counts as following a search when it is among the client's next 3 calls."""
MAX_CLIENTS = 64
"""Clients whose last search is remembered for :meth:`SearchIndex.note_call`."""
SHORT_QUERY_TERMS = 3
"""Typo correction of unknown words is tried on queries of at most this many terms (and on
name-like queries): in prose, an unknown word is usually a word no tool uses, not a typo."""


@dataclass(frozen=True)
class SearchDoc:
    """What the index knows of one tool."""

    key: str
    """Unique public tool name (the hit's identity)."""
    name: str
    """Name to match (usually the key)."""
    title: str | None
    description: str
    category: str | None
    """Public category name, or None."""
    source: str
    """Where the tool comes from, e.g. the tab's origin ``https://shop.test`` (filterable)."""
    arg_names: tuple[str, ...] = ()
    arg_descriptions: tuple[str, ...] = ()
    arg_values: tuple[str, ...] = ()
    """Enumerated argument values (``get_workflow``, ``open``, ...): often the tool's real verbs."""
    category_description: str | None = None
    """What the tool's category is for, as the page declared it."""


@dataclass(frozen=True)
class SearchHit:
    key: str
    score: float
    """Higher is better; comparable within one result list only (BM25, cosine or fused)."""
    keyword_score: float | None
    """BM25 score (None when the keyword ranking did not find the tool or was not used)."""
    semantic_score: float | None
    """Cosine similarity of query and tool embeddings (None without semantic ranking)."""
    fuzzy: bool
    """Found through fuzzy matching (a misspelled name or word), not exact words alone."""


@dataclass
class _Entry:
    slot: int
    doc: SearchDoc
    source_id: str
    terms: dict[str, float]
    length: float
    words: frozenset[str]
    name_terms: frozenset[str]
    name_norm: str
    suffixes: tuple[tuple[str, str, int], ...]
    embed_text: str
    embed_hash: str = ""


@dataclass
class _Source:
    seq: int
    keys: list[str] = field(default_factory=list)


_A = TypeVar("_A", bound="npt.NDArray[Any]")
Int = npt.NDArray[np.int64]
Float = npt.NDArray[np.float64]


def _embed_text(doc: SearchDoc) -> str:
    """The text a tool is embedded from: most telling first (the model truncates long texts)."""
    parts = [" ".join(name_words(doc.name))]
    if doc.title:
        parts.append(doc.title)
    if doc.description:
        parts.append(doc.description)
    if doc.category:
        parts.append("Category: " + " ".join(name_words(doc.category)))
    if doc.arg_names:
        parts.append("Arguments: " + ", ".join(" ".join(name_words(a)) for a in doc.arg_names))
    if doc.arg_values:
        parts.append("Values: " + ", ".join(" ".join(name_words(a)) for a in doc.arg_values[:20]))
    return ". ".join(p.strip().rstrip(".") for p in parts if p.strip())


def _name_suffixes(words: list[str]) -> tuple[tuple[str, str, int], ...]:
    """(spaced, compact, words dropped) for each word-suffix of a name: ``github merge pull
    request``, ``merge pull request``, ... so a query naming the action part matches."""
    out = []
    for i in range(len(words)):
        tail = words[i:]
        out.append((" ".join(tail), "".join(tail), i))
    return tuple(out)


def _name_similarity(query_norm: str, query_compact: str, entry: _Entry) -> float:
    """0-100: how well a name-like query matches a tool name (typos, casing, missing prefix)."""
    best = 0.0
    for spaced, compact, dropped in entry.suffixes:
        s = max(fuzz.ratio(query_norm, spaced), fuzz.ratio(query_compact, compact)) - 0.5 * dropped
        if s > best:
            best = s
    return best


class SearchIndex:
    """Incremental search over the tools of many sources (tabs). Thread-safe."""

    def __init__(
        self,
        *,
        semantic: bool | str | Embedder = False,
        embedding_cache: EmbeddingCache | None = None,
        query_cache_size: int = 512,
        background: bool = False,
        batch_size: int = 16,
        use_store: UseStore | None = None,
    ) -> None:
        """``semantic``: False (keyword only), True (the default local model), a model name or
        path for sentence-transformers, or any :class:`Embedder`. Asking for a model without
        the ``[semantic]`` extra raises :class:`SemanticUnavailableError`.

        ``embedding_cache`` (tool vectors by content hash) may be shared with another index
        of the same model, e.g. one being rebuilt; ``query_cache_size`` bounds the cache of
        query vectors (0 embeds every query afresh).

        ``background``: embed new tools in a worker thread of this index, never on a search
        (a search ranks with keywords plus whatever is embedded so far; see
        :attr:`pending_embeddings`). Without it, a search first embeds what is pending.
        ``batch_size`` tools are embedded at a time, so a query's own embedding never
        waits long behind a big tab.

        ``use_store`` keeps what :meth:`record_use` learns (requests that ended in a call of a
        tool) across restarts; without it, it is kept for the life of the index."""
        self._lock = threading.RLock()
        self._entries: dict[str, _Entry] = {}
        self._slots: list[_Entry | None] = []
        self._free: list[int] = []
        self._sources: dict[str, _Source] = {}
        self._source_seq = 0
        self._postings: dict[str, dict[int, float]] = {}
        self._arrays: dict[str, tuple[Int, Float]] = {}
        self._typos = TypoIndex()
        self._name_postings: dict[str, set[int]] = {}
        self._names: dict[str, list[int]] | None = None
        self._total_len = 0.0
        cap = 256
        self._cap = cap
        self._alive = np.zeros(cap, dtype=bool)
        self._doc_len = np.zeros(cap, dtype=np.float64)
        self._order = np.zeros(cap, dtype=np.float64)
        self._cat_id = np.full(cap, -1, dtype=np.int64)
        self._src_id = np.full(cap, -1, dtype=np.int64)
        self._categories: dict[str, int] = {}
        self._src_keys: dict[tuple[str, str], int] = {}
        # semantic state
        self._embedder: Embedder | None
        self._embedder = None if semantic is False else make_embedder(semantic)
        self._emb_cache = embedding_cache if embedding_cache is not None else EmbeddingCache()
        self._query_cache = EmbeddingCache(query_cache_size)
        self._vecs: npt.NDArray[np.float32] | None = None
        self._has_vec = np.zeros(cap, dtype=bool)
        self._pending: set[int] = set()
        self._background = background and self._embedder is not None
        self._batch_size = batch_size
        self._wake = threading.Condition(self._lock)
        self._worker: threading.Thread | None = None
        self._closed = False
        self.embed_errors = 0
        self._uses = UseMemory(self._embedder.name, use_store) if self._embedder is not None else None
        self._recent: OrderedDict[object, tuple[str, frozenset[str], int]] = OrderedDict()

    # ------------------------------------------------------------------ properties

    @property
    def semantic(self) -> bool:
        """Is semantic ranking configured?"""
        return self._embedder is not None

    @property
    def model_name(self) -> str | None:
        return self._embedder.name if self._embedder is not None else None

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get(self, key: str) -> SearchDoc | None:
        entry = self._entries.get(key)
        return entry.doc if entry is not None else None

    def source_ids(self) -> list[str]:
        with self._lock:
            return sorted(self._sources, key=lambda s: self._sources[s].seq)

    def keys(self, source_id: str | None = None) -> list[str]:
        """Keys in listing order (sources in arrival order, tools in their source's order)."""
        with self._lock:
            if source_id is not None:
                src = self._sources.get(source_id)
                return list(src.keys) if src else []
            return [k for s in self.source_ids() for k in self._sources[s].keys]

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {
                "docs": len(self._entries),
                "background": int(self._background),
                "sources": len(self._sources),
                "terms": len(self._postings),
                "embedded": int(self._has_vec[: len(self._slots)].sum()),
                "pending_embeddings": len(self._pending),
                "embedding_cache": len(self._emb_cache),
            }

    # ------------------------------------------------------------------ updates

    def replace_source(self, source_id: str, docs: Iterable[SearchDoc]) -> None:
        """Make ``docs`` the complete tool list of one source (one tab).

        Cost is proportional to the tools that changed: a tool identical to the one already
        indexed (same source, same :class:`SearchDoc`) is kept as is; others are removed and
        added. Keys are unique across sources: a key that another source held moves here.
        """
        new: dict[str, SearchDoc] = {}
        for doc in docs:
            new[doc.key] = doc  # last one wins within a batch
        with self._lock:
            src = self._sources.get(source_id)
            if src is None:
                self._source_seq += 1
                src = self._sources[source_id] = _Source(self._source_seq)
            for key in src.keys:
                entry = self._entries[key]
                if new.get(key) != entry.doc:
                    self._remove_entry(entry)
            keys: list[str] = []
            for pos, doc in enumerate(new.values()):
                held = self._entries.get(doc.key)
                if held is not None and held.source_id == source_id and held.doc == doc:
                    entry = held  # unchanged: nothing to re-index
                else:
                    if held is not None:  # held by another source: it moves here
                        self._remove_entry(held)
                        other = self._sources.get(held.source_id)
                        if other is not None:
                            other.keys.remove(doc.key)
                            if not other.keys:
                                del self._sources[held.source_id]
                    entry = self._add_entry(doc, source_id)
                self._order[entry.slot] = src.seq * 1_000_000 + pos
                keys.append(doc.key)
            src.keys = keys
            if not keys:
                del self._sources[source_id]
            if self._pending and self._background:
                self._start_worker()

    def remove_source(self, source_id: str) -> None:
        """Drop every tool of one source (the tab closed or navigated away)."""
        with self._lock:
            src = self._sources.pop(source_id, None)
            if src is None:
                return
            for key in src.keys:
                self._remove_entry(self._entries[key])

    def clear(self) -> None:
        with self._lock:
            for source_id in list(self._sources):
                self.remove_source(source_id)

    def _grow(self) -> None:
        old = self._cap
        cap = old * 2

        def grow(a: _A, fill: object) -> _A:
            b = np.full(cap, fill, dtype=a.dtype)
            b[:old] = a
            return cast(_A, b)

        self._alive = grow(self._alive, False)
        self._doc_len = grow(self._doc_len, 0.0)
        self._order = grow(self._order, 0.0)
        self._cat_id = grow(self._cat_id, -1)
        self._src_id = grow(self._src_id, -1)
        self._has_vec = grow(self._has_vec, False)
        if self._vecs is not None:
            vecs = np.zeros((cap, self._vecs.shape[1]), dtype=np.float32)
            vecs[:old] = self._vecs
            self._vecs = vecs
        self._cap = cap

    def _add_entry(self, doc: SearchDoc, source_id: str) -> _Entry:
        terms: dict[str, float] = {}

        def add(tokens: Iterable[str], weight: float) -> None:
            for t in tokens:
                terms[t] = terms.get(t, 0.0) + weight

        # Each field is split once; the unstemmed words also feed the typo vocabulary.
        words: set[str] = set()
        nwords = name_words(doc.name)
        name_terms = [stem(w) for w in nwords]
        add(name_terms, FIELD_WEIGHTS["name"])
        words.update(nwords)
        for fname, idents in (
            ("category", (doc.category,) if doc.category else ()),
            ("arg_names", doc.arg_names),
            ("arg_values", doc.arg_values),
        ):
            for ident in idents:
                split = name_words(ident)
                add((stem(w) for w in split), FIELD_WEIGHTS[fname])
                words.update(split)
        for fname, texts in (
            ("title", (doc.title,) if doc.title else ()),
            ("description", (doc.description,)),
            ("arg_descriptions", doc.arg_descriptions),
            ("category_description", (doc.category_description,) if doc.category_description else ()),
        ):
            for text in texts:
                split = [w for w in split_words(text) if w not in STOPWORDS]
                add((stem(w) for w in split), FIELD_WEIGHTS[fname])
                words.update(split)

        if self._free:
            slot = self._free.pop()
        else:
            slot = len(self._slots)
            self._slots.append(None)
            if slot >= self._cap:
                self._grow()
        entry = _Entry(
            slot=slot,
            doc=doc,
            source_id=source_id,
            terms=terms,
            length=sum(terms.values()),
            words=frozenset(w for w in words if len(w) >= 4 and w.isalpha()),
            name_terms=frozenset(name_terms),
            name_norm=" ".join(nwords),
            suffixes=_name_suffixes(nwords),
            embed_text=_embed_text(doc) if self._embedder is not None else "",
        )
        self._slots[slot] = entry
        self._entries[doc.key] = entry
        for t, tf in terms.items():
            self._postings.setdefault(t, {})[slot] = tf
            self._arrays.pop(t, None)
        self._typos.add(entry.words)
        for t in entry.name_terms:
            self._name_postings.setdefault(t, set()).add(slot)
        self._names = None
        self._total_len += entry.length
        self._alive[slot] = True
        self._doc_len[slot] = entry.length
        cat = doc.category.casefold() if doc.category else None
        self._cat_id[slot] = -1 if cat is None else self._categories.setdefault(cat, len(self._categories))
        self._src_id[slot] = self._src_keys.setdefault((source_id, doc.source), len(self._src_keys))
        if self._embedder is not None:
            entry.embed_hash = content_hash(self._embedder.name, entry.embed_text)
            vec = self._emb_cache.get(entry.embed_hash)
            if vec is not None:
                self._set_vec(slot, vec)
            else:
                self._pending.add(slot)
        return entry

    def _remove_entry(self, entry: _Entry) -> None:
        slot = entry.slot
        for t in entry.terms:
            postings = self._postings[t]
            del postings[slot]
            if not postings:
                del self._postings[t]
            self._arrays.pop(t, None)
        self._typos.remove(entry.words)
        for t in entry.name_terms:
            named = self._name_postings[t]
            named.discard(slot)
            if not named:
                del self._name_postings[t]
        self._names = None
        self._total_len -= entry.length
        self._alive[slot] = False
        self._doc_len[slot] = 0.0
        self._has_vec[slot] = False
        self._pending.discard(slot)
        self._slots[slot] = None
        self._free.append(slot)
        del self._entries[entry.doc.key]
        if not self._entries:
            self._total_len = 0.0  # no float drift across many updates

    # ------------------------------------------------------------------ semantic

    def _set_vec(self, slot: int, vec: npt.NDArray[np.float32]) -> None:
        if self._vecs is None:
            self._vecs = np.zeros((self._cap, vec.shape[0]), dtype=np.float32)
        self._vecs[slot] = vec
        self._has_vec[slot] = True

    @property
    def pending_embeddings(self) -> int:
        return len(self._pending)

    def compute_embeddings(self, max_docs: int | None = None) -> int:
        """Embed tools that have no vector yet; returns how many were embedded.

        Searches do this themselves for whatever is pending, so calling it is optional; the
        bridge can call it from a worker thread after a tab changes (the model runs outside
        the index lock) to keep the next search fast.
        """
        if self._embedder is None:
            return 0
        with self._lock:
            slots = sorted(self._pending)[:max_docs]
            batch = [(s, e.embed_hash, e.embed_text) for s in slots if (e := self._slots[s]) is not None]
        if not batch:
            return 0
        vecs = self._embedder.encode([text for _, _, text in batch])
        self._emb_cache.put_many([(h, vec) for (_, h, _), vec in zip(batch, vecs, strict=True)])
        with self._lock:
            done = 0
            for (slot, h, _), vec in zip(batch, vecs, strict=True):
                entry = self._slots[slot]
                if entry is not None and entry.embed_hash == h and slot in self._pending:
                    self._set_vec(slot, vec)
                    self._pending.discard(slot)
                    done += 1
            if not self._pending:
                self._wake.notify_all()
            return done

    # -- background embedding

    def _start_worker(self) -> None:
        """Start the worker unless one is running; the caller holds the lock."""
        if self._closed or self._worker is not None:
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
                self.compute_embeddings(self._batch_size)
            except Exception:  # a model failure must not kill the worker: keyword ranking goes on
                self.embed_errors += 1
                with self._lock:
                    self._closed = True
                    self._wake.notify_all()
                return

    def describe_ranking(self) -> dict[str, Any]:
        """For a search result: ``ranking`` ("fused" or "keyword") and, while the worker is
        still embedding tools, ``pendingEmbeddings`` (those rank by keywords only for now)."""
        if self._embedder is None:
            return {"ranking": "keyword"}
        pending = len(self._pending)
        return {"ranking": "fused", "pendingEmbeddings": pending} if pending else {"ranking": "fused"}

    def wait_embedded(self, timeout: float | None = None) -> bool:
        """Wait until every tool has its vector (background mode); False on timeout."""
        with self._lock:
            if not self._background:
                return not self._pending
            self._wake.wait_for(lambda: not self._pending or self._closed, timeout)
            return not self._pending

    def close(self) -> None:
        """Stop the background worker (it finishes the batch it is embedding; the model must
        not be running when the interpreter exits, so this also runs at exit)."""
        with self._lock:
            self._closed = True
            self._wake.notify_all()
            worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout=30)
        _RUNNING.discard(self)

    def record_use(self, query: str, key: str) -> bool:
        """Learn that ``query`` led to a call of tool ``key`` (see :mod:`.usage`): later requests
        close in meaning lift that tool. Needs the model (False without it, or for a tool the
        index does not hold); the query's vector usually comes from the query cache."""
        q = query.strip()
        if self._uses is None or not q or key not in self._entries:
            return False
        self._uses.record(q, key, self._query_vector(q))
        return True

    def note_search(self, client: object, query: str | None, keys: Sequence[str]) -> None:
        """``client`` was shown ``keys`` for ``query``: if it calls one of them within its next
        :data:`FOLLOW_CALLS` calls, :meth:`note_call` learns from it."""
        if self._uses is None:
            return
        with self._lock:
            self._recent.pop(client, None)
            if query and query.strip() and keys:
                self._recent[client] = (query.strip(), frozenset(keys), FOLLOW_CALLS)
                while len(self._recent) > MAX_CLIENTS:
                    self._recent.popitem(last=False)

    def note_call(self, client: object, key: str) -> bool:
        """``client`` called tool ``key``: if its last search showed that tool, learn the pair
        (once per search). Uses the query vector cached by that search, never the model: this
        runs on the call path. True when something was learned."""
        if self._uses is None:
            return False
        with self._lock:
            recent = self._recent.get(client)
            if recent is None:
                return False
            query, shown, left = recent
            if key not in shown:
                if left > 1:
                    self._recent[client] = (query, shown, left - 1)
                else:
                    del self._recent[client]
                return False
            del self._recent[client]
            vec = self._query_cache.get(query)
        if vec is None or key not in self._entries:
            return False
        self._uses.record(query, key, vec)
        return True

    @property
    def learned_uses(self) -> int:
        """How many (request, tool) pairs :meth:`record_use` has learned."""
        return len(self._uses) if self._uses is not None else 0

    def _query_vector(self, query: str) -> npt.NDArray[np.float32]:
        """The query's embedding (cached); the model runs outside the index lock."""
        assert self._embedder is not None
        with self._lock:
            vec = self._query_cache.get(query)
        if vec is None:
            vec = self._embedder.encode([query])[0]
            with self._lock:
                self._query_cache.put(query, vec)
        return vec

    def _semantic_scores(self, qv: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> tuple[Int, Float]:
        """Candidate slots and their cosine similarity with the query vector (unsorted)."""
        if not self._background:
            while self._pending:
                self.compute_embeddings()
        if self._vecs is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        n = len(self._slots)
        cand = np.flatnonzero(mask[:n] & self._has_vec[:n])
        # einsum, not ``@``: a BLAS matrix-vector product wakes one spinning thread per core,
        # measured 30 ms instead of 0.4 ms at 5,000 tools on 2 busy cores.
        sims = np.einsum("ij,j->i", self._vecs[:n], qv)[cand].astype(np.float64)
        return cand, sims

    # ------------------------------------------------------------------ keyword

    def _term_arrays(self, term: str) -> tuple[Int, Float]:
        arr = self._arrays.get(term)
        if arr is None:
            postings = self._postings[term]
            arr = (
                np.fromiter(postings.keys(), dtype=np.int64, count=len(postings)),
                np.fromiter(postings.values(), dtype=np.float64, count=len(postings)),
            )
            self._arrays[term] = arr
        return arr

    def _query_terms(self, query: str, name_like: bool) -> tuple[dict[str, float], list[str], set[str]]:
        """Weighted query terms, the query's own tokens, and the typo-corrected terms added."""
        pairs = query_words(query, name_like=name_like)
        weights: dict[str, float] = {}
        for _, t in pairs:
            weights[t] = weights.get(t, 0.0) + 1.0
        tokens = list(weights)
        corrected: set[str] = set()
        if name_like or len(weights) <= SHORT_QUERY_TERMS:
            for word, t in pairs:
                if t in self._postings:
                    continue
                for fix in self._typos.corrections(word):
                    ft = stem(fix)
                    if ft in self._postings and ft not in weights:
                        weights[ft] = TYPO_WEIGHT
                        corrected.add(ft)
        return weights, tokens, corrected

    def _bm25(self, weights: dict[str, float]) -> Float:
        n = len(self._slots)
        scores = np.zeros(n, dtype=np.float64)
        n_docs = len(self._entries)
        if not n_docs:
            return scores
        avgdl = self._total_len / n_docs
        for term, qw in weights.items():
            if term not in self._postings:
                continue
            slots, tfs = self._term_arrays(term)
            df = len(slots)
            idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            norm = BM25_K1 * (1.0 - BM25_B + BM25_B * self._doc_len[slots] / avgdl)
            scores[slots] += (qw * idf * (BM25_K1 + 1.0)) * tfs / (tfs + norm)
        return scores

    # ------------------------------------------------------------------ names

    def _name_candidates(self, query: str, mask: npt.NDArray[np.bool_] | None, k: int = 50) -> list[int]:
        """Slots whose names share (possibly typo-corrected) words with a name-like query,
        the rarest words weighing most; a scan of all names only when no word matches."""
        n_docs = len(self._entries)
        scores: dict[int, float] = {}
        seen: set[str] = set()
        for word, t in query_words(query, name_like=True):
            terms = (
                [(t, 1.0)]
                if t in self._name_postings
                else [(stem(fix), TYPO_WEIGHT) for fix in self._typos.corrections(word)]
            )
            for term, w in terms:
                slots = self._name_postings.get(term)
                if not slots or term in seen:
                    continue
                seen.add(term)
                weight = w * math.log(1.0 + n_docs / len(slots))
                for s in slots:
                    scores[s] = scores.get(s, 0.0) + weight
        if mask is not None:
            ok = mask.tolist()
            scores = {s: v for s, v in scores.items() if ok[s]}
        if scores:
            return heapq.nlargest(k, scores, key=scores.__getitem__)
        if self._names is None:
            names: dict[str, list[int]] = {}
            for e in self._entries.values():
                names.setdefault(e.name_norm, []).append(e.slot)
            self._names = names
        choices = list(self._names)
        out: list[int] = []
        for name, _, _ in process.extract(normalize_name(query), choices, scorer=fuzz.ratio, limit=k):
            out.extend(s for s in self._names[name] if mask is None or mask[s])
        return out

    def _name_ranking(
        self, query: str, cutoff: float, mask: npt.NDArray[np.bool_] | None
    ) -> list[tuple[int, float]]:
        """Slots whose name resembles ``query``, best first, with similarity (0-100)."""
        qn = normalize_name(query)
        if not qn:
            return []
        qc = qn.replace(" ", "")
        out = []
        for s in self._name_candidates(query, mask):
            entry = self._slots[s]
            assert entry is not None
            sim = _name_similarity(qn, qc, entry)
            if sim >= cutoff:
                out.append((s, sim))
        out.sort(key=lambda x: (-x[1], self._order[x[0]]))
        return out

    def closest_names(
        self, name: str, n: int = 5, *, allow: Callable[[str], bool] | None = None
    ) -> list[str]:
        """Up to ``n`` tool keys whose names are closest to ``name`` (for TOOL_NOT_FOUND)."""
        with self._lock:
            if n <= 0 or not self._entries:
                return []
            out: list[str] = []
            for slot, _ in self._name_ranking(name, SUGGEST_CUTOFF, None):
                key = self._slots[slot].doc.key  # type: ignore[union-attr]
                if allow is None or allow(key):
                    out.append(key)
                    if len(out) >= n:
                        break
            return out

    # ------------------------------------------------------------------ search

    def _mask(self, category: str | None, source: str | None) -> npt.NDArray[np.bool_]:
        n = len(self._slots)
        mask = self._alive[:n].copy()
        if category is not None:
            cid = self._categories.get(category.casefold())
            if cid is None:
                return np.zeros(n, dtype=bool)
            mask &= self._cat_id[:n] == cid
        if source is not None:
            needle = source.casefold()
            ids = [i for (sid, src), i in self._src_keys.items() if sid == source or needle in src.casefold()]
            mask &= np.isin(self._src_id[:n], np.asarray(ids, dtype=np.int64))
        return mask

    def search(
        self,
        query: str | None,
        *,
        category: str | None = None,
        source: str | None = None,
        limit: int = 10,
        allow: Callable[[str], bool] | None = None,
        mode: SearchMode | None = None,
    ) -> list[SearchHit]:
        """Rank tools for ``query`` (or list them, without a query), best first.

        ``category`` (case-insensitive equality) and ``source`` (substring of the source, or
        the source id) restrict the candidates; ``allow(key)`` drops tools the caller rules
        out and is applied before ``limit``. ``mode`` defaults to ``"fused"`` when semantic
        ranking is configured and ``"keyword"`` otherwise.

        Keyword search takes well under a millisecond at thousands of tools. A semantic or
        fused search also embeds the query (tens of ms on a small CPU, outside the index
        lock; repeated queries are cached) and any tool still pending (see
        :meth:`compute_embeddings`): from an event loop, run it in a worker thread.
        """
        if mode is None:
            mode = "fused" if self._embedder is not None else "keyword"
        elif mode not in ("keyword", "semantic", "fused"):
            raise ValueError(f"unknown search mode {mode!r}")
        elif mode != "keyword" and self._embedder is None:
            raise SemanticUnavailableError(f"mode {mode!r} needs an index built with semantic=...")
        q = (query or "").strip()
        if limit <= 0 or not self._entries:
            return []
        qv = self._query_vector(q) if q and mode != "keyword" else None
        with self._lock:
            mask = self._mask(category, source)
            if not q:
                return self._listing(mask, limit, allow)
            return self._ranked(q, qv, mask, category is not None or source is not None, limit, allow, mode)

    def _listing(
        self, mask: npt.NDArray[np.bool_], limit: int, allow: Callable[[str], bool] | None
    ) -> list[SearchHit]:
        cand = np.flatnonzero(mask)
        cand = cand[np.argsort(self._order[cand], kind="stable")]
        hits: list[SearchHit] = []
        for s in cand.tolist():
            key = self._slots[s].doc.key  # type: ignore[union-attr]
            if allow is None or allow(key):
                hits.append(SearchHit(key, 0.0, None, None, False))
                if len(hits) >= limit:
                    break
        return hits

    def _ranked(
        self,
        q: str,
        qv: npt.NDArray[np.float32] | None,
        mask: npt.NDArray[np.bool_],
        filtered: bool,
        limit: int,
        allow: Callable[[str], bool] | None,
        mode: SearchMode,
    ) -> list[SearchHit]:
        name_like = is_identifier(q)
        empty_i: Int = np.zeros(0, dtype=np.int64)
        kw_scores: Float | None = None
        kw_cand: Int = empty_i
        tokens: list[str] = []
        corrected: set[str] = set()
        if mode != "semantic":
            weights, tokens, corrected = self._query_terms(q, name_like)
            kw_scores = self._bm25(weights)
            kw_scores[~mask] = 0.0
            kw_cand = np.flatnonzero(kw_scores > 0)
        sem: tuple[Int, Float] | None = None
        sem_full: Float | None = None
        if qv is not None:
            sem = self._semantic_scores(qv, mask)
            sem_full = np.full(len(self._slots), np.nan)
            sem_full[sem[0]] = sem[1]
            sem = self._lift_used(qv, sem, sem_full)
        name_rank: list[tuple[int, float]] = []
        pinned: list[int] = []
        if name_like and kw_scores is not None:
            name_rank = self._name_ranking(q, NAME_MATCH_CUTOFF, mask if filtered else None)
            qn = normalize_name(q)
            pinned = [s for s, _ in name_rank if self._is_exact_name(s, q, qn)]
        # Found through fuzzy matching: via the name ranking or a typo-corrected word, while
        # lacking some word of the query itself.
        fuzzy_slots = {s for s, _ in name_rank}
        if corrected:
            fuzzy_slots.update(kw_cand.tolist())

        depth = max(FUSION_DEPTH, limit)
        while True:
            exhausted = True
            fused: list[tuple[int, float]]
            if kw_scores is not None and sem is None and not name_rank:  # BM25 alone
                order = _top(kw_cand, kw_scores, depth, self._order)
                fused = list(zip(order.tolist(), kw_scores[order].tolist(), strict=True))
                exhausted = depth >= len(kw_cand)
            elif sem is not None and kw_scores is not None and not name_rank:  # prose: score fusion
                cand, score = _score_fusion(kw_cand, kw_scores, sem[0], sem[1], len(self._slots))
                order = _top(cand, score, depth, self._order)
                fused = list(zip(order.tolist(), score[order].tolist(), strict=True))
                exhausted = depth >= len(cand)
            elif sem is not None and kw_scores is None:  # cosine alone
                top = _top(np.arange(len(sem[0])), sem[1], depth, self._order[sem[0]])
                fused = list(zip(sem[0][top].tolist(), sem[1][top].tolist(), strict=True))
                exhausted = depth >= len(sem[0])
            else:
                lists: list[list[int]] = []
                rank_weights: list[float] = []
                if kw_scores is not None:
                    lists.append(_top(kw_cand, kw_scores, depth, self._order).tolist())
                    rank_weights.append(1.0)
                    exhausted &= depth >= len(kw_cand)
                if sem is not None:
                    top = _top(np.arange(len(sem[0])), sem[1], depth, self._order[sem[0]])
                    lists.append(sem[0][top].tolist())
                    rank_weights.append(SEMANTIC_WEIGHT)
                    exhausted &= depth >= len(sem[0])
                if name_rank:
                    lists.append([s for s, _ in name_rank[:depth]])
                    rank_weights.append(1.0)
                    exhausted &= depth >= len(name_rank)
                if pinned:
                    lists.append(pinned)
                    rank_weights.append(1.0)
                fused = _rrf(lists, self._order, rank_weights)
            hits: list[SearchHit] = []
            for s, fused_score in fused:
                entry = self._slots[s]
                assert entry is not None
                key = entry.doc.key
                if allow is not None and not allow(key):
                    continue
                kws = float(kw_scores[s]) if kw_scores is not None and kw_scores[s] > 0 else None
                fz = s in fuzzy_slots and not all(t in entry.terms for t in tokens)
                sim = float(sem_full[s]) if sem_full is not None and not np.isnan(sem_full[s]) else None
                hits.append(SearchHit(key, fused_score, kws, sim, fz))
                if len(hits) >= limit:
                    return hits
            if exhausted:
                return hits
            depth *= 4

    def _lift_used(
        self, qv: npt.NDArray[np.float32], sem: tuple[Int, Float], sem_full: Float
    ) -> tuple[Int, Float]:
        """The semantic scores with the lift of tools used after close requests (reported
        semantic scores stay plain cosines)."""
        lifts = self._uses.lifts(qv) if self._uses is not None else {}
        if not lifts:
            return sem
        cand, sims = sem[0], sem[1].copy()  # cand is sorted (np.flatnonzero)
        for key, lift in lifts.items():
            entry = self._entries.get(key)
            if entry is not None and not np.isnan(sem_full[entry.slot]):  # embedded and not filtered out
                sims[int(np.searchsorted(cand, entry.slot))] += lift
        return cand, sims

    def _is_exact_name(self, slot: int, q: str, qn: str) -> bool:
        entry = self._slots[slot]
        assert entry is not None
        return entry.doc.key.casefold() == q.casefold() or entry.name_norm == qn


_RUNNING: weakref.WeakSet[SearchIndex] = weakref.WeakSet()
"""Indexes whose worker may be inside the model: closed at exit, before daemon threads die."""


@atexit.register
def _close_running() -> None:
    for index in list(_RUNNING):
        index.close()


def _lower_thread_priority() -> None:
    """Let searches win the CPU over background embedding (Linux: a thread is a task with its
    own nice value; elsewhere nothing changes)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):  # pragma: no cover - not Linux, or not permitted
        pass


def _top(cand: Int, scores: Float, k: int, tiebreak: Float | None = None) -> Int:
    """The ``k`` best of ``cand`` by ``scores[cand]`` (descending; ties by ``tiebreak``)."""
    if len(cand) == 0:
        return cand
    vals = scores[cand]
    if len(cand) > k:
        part = np.argpartition(-vals, k - 1)[:k]
        cand, vals = cand[part], vals[part]
    order = np.argsort(-vals, kind="stable") if tiebreak is None else np.lexsort((tiebreak[cand], -vals))
    return cand[order]


def _score_fusion(kw_cand: Int, kw_scores: Float, sem_cand: Int, sims: Float, n: int) -> tuple[Int, Float]:
    """Candidates and fused scores: cosine + KEYWORD_WEIGHT x BM25 / the best BM25.

    A keyword match not embedded yet (a new tab while the worker runs) is given the cosine
    its keyword score would earn in proportion to the best cosine, so it ranks among the
    others as its keywords say, instead of below every embedded tool.
    """
    best_kw = float(kw_scores[kw_cand].max()) if len(kw_cand) else 0.0
    kw_norm = kw_scores / best_kw if best_kw > 0 else np.zeros(n, dtype=np.float64)
    score = np.full(n, np.nan)
    score[sem_cand] = sims
    missing = kw_cand[np.isnan(score[kw_cand])]
    if len(missing):
        best_sim = max(float(sims.max()), 0.0) if len(sims) else 1.0
        score[missing] = kw_norm[missing] * best_sim
    member = np.zeros(n, dtype=bool)  # the union of both candidate sets (np.union1d sorts: 4x slower)
    member[sem_cand] = True
    member[kw_cand] = True
    cand = np.flatnonzero(member)
    score[cand] += KEYWORD_WEIGHT * kw_norm[cand]
    return cand, score


def _rrf(
    lists: Sequence[Sequence[int]], tiebreak: Float, weights: Sequence[float] | None = None
) -> list[tuple[int, float]]:
    """Weighted reciprocal rank fusion: Σ w/(RRF_K + rank), rank from 1, over the rankings."""
    scores: dict[int, float] = {}
    for i, ranking in enumerate(lists):
        w = weights[i] if weights is not None else 1.0
        for rank, s in enumerate(ranking, start=1):
            scores[s] = scores.get(s, 0.0) + w / (RRF_K + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], tiebreak[kv[0]]))
