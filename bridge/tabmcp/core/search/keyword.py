"""The keyword side of the index: each tool as a weighted bag of terms, ranked by BM25.

BM25's statistics are plain counters read at query time, so adding or removing a tool touches only
its postings and stays exact; per-term arrays are cached until those postings change.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .doc import SearchDoc
from .fuzzy import TypoIndex
from .text import STOPWORDS, name_words, query_words, split_words, stem

__all__ = ["BM25_B", "BM25_K1", "FIELD_WEIGHTS", "Analysis", "KeywordIndex", "analyze", "text_terms"]

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
TYPO_WEIGHT = 0.7
"""Query weight of a vocabulary word reached through a typo correction (exact words: 1)."""
SHORT_QUERY_TERMS = 3
"""Typo correction of unknown words is tried on queries of at most this many terms (and on
name-like queries): in prose, an unknown word is usually a word no tool uses, not a typo."""

Int = npt.NDArray[np.int64]
Float = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Analysis:
    """One tool's document as the keyword and name rankings see it."""

    terms: dict[str, float]
    """Stemmed term → weighted frequency (every occurrence adds its field's weight)."""
    length: float
    words: frozenset[str]
    """Unstemmed words (4+ letters) for the typo vocabulary."""
    name_words: tuple[str, ...]
    name_terms: frozenset[str]


_TERMS: OrderedDict[bytes, tuple[tuple[str, ...], tuple[str, ...]]] = OrderedDict()
"""A text's words and stems by a digest of it, newest last: a page's long texts are split once,
on the thread that reads its snapshot (:func:`tabmcp.core.search.sync.warm`), not again on the
event loop when the index takes its tools."""
_TERMS_WORDS = 2_000_000
"""Words kept in :data:`_TERMS` (all texts together; the oldest texts go first)."""
_terms_held = 0
_terms_lock = threading.Lock()


def text_terms(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words of free ``text`` (split, stop words dropped) and their stems, memoized by content."""
    global _terms_held
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    with _terms_lock:
        hit = _TERMS.get(key)
        if hit is not None:
            _TERMS.move_to_end(key)
            return hit
    split = tuple(w for w in split_words(text) if w not in STOPWORDS)
    hit = (split, tuple(stem(w) for w in split))
    with _terms_lock:
        if key not in _TERMS:
            _TERMS[key] = hit
            _terms_held += len(split)
            while _terms_held > _TERMS_WORDS and len(_TERMS) > 1:
                _terms_held -= len(_TERMS.popitem(last=False)[1][0])
    return hit


def analyze(doc: SearchDoc) -> Analysis:
    """Split each field once into weighted terms (a simplified BM25F)."""
    terms: dict[str, float] = {}

    def add(tokens: Iterable[str], weight: float) -> None:
        for t in tokens:
            terms[t] = terms.get(t, 0.0) + weight

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
            text_words, stems = text_terms(text)
            add(stems, FIELD_WEIGHTS[fname])
            words.update(text_words)
    return Analysis(
        terms=terms,
        length=sum(terms.values()),
        words=frozenset(w for w in words if len(w) >= 4 and w.isalpha()),
        name_words=tuple(nwords),
        name_terms=frozenset(name_terms),
    )


class KeywordIndex:
    """Postings and BM25 statistics over slots (the index's numbering of tools). Not locked:
    the owning :class:`~.index.SearchIndex` holds its lock around every call."""

    def __init__(self) -> None:
        self._postings: dict[str, dict[int, float]] = {}
        self._arrays: dict[str, tuple[Int, Float]] = {}
        self.typos = TypoIndex()
        self._total_len = 0.0
        self._docs = 0

    @property
    def terms(self) -> int:
        return len(self._postings)

    def __contains__(self, term: object) -> bool:
        return term in self._postings

    def add(self, slot: int, a: Analysis) -> None:
        for t, tf in a.terms.items():
            self._postings.setdefault(t, {})[slot] = tf
            self._arrays.pop(t, None)
        self.typos.add(a.words)
        self._total_len += a.length
        self._docs += 1

    def remove(self, slot: int, a: Analysis) -> None:
        for t in a.terms:
            postings = self._postings[t]
            del postings[slot]
            if not postings:
                del self._postings[t]
            self._arrays.pop(t, None)
        self.typos.remove(a.words)
        self._total_len -= a.length
        self._docs -= 1
        if not self._docs:
            self._total_len = 0.0  # no float drift across many updates

    def query_terms(self, query: str, name_like: bool) -> tuple[dict[str, float], list[str], set[str]]:
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
                for fix in self.typos.corrections(word):
                    ft = stem(fix)
                    if ft in self._postings and ft not in weights:
                        weights[ft] = TYPO_WEIGHT
                        corrected.add(ft)
        return weights, tokens, corrected

    def scores(self, weights: dict[str, float], n_slots: int, doc_len: Float) -> Float:
        """BM25 of every slot (0 for slots without a query term); ``doc_len`` by slot."""
        scores = np.zeros(n_slots, dtype=np.float64)
        n_docs = self._docs
        if not n_docs:
            return scores
        avgdl = self._total_len / n_docs
        for term, qw in weights.items():
            if term not in self._postings:
                continue
            slots, tfs = self._term_arrays(term)
            df = len(slots)
            idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            norm = BM25_K1 * (1.0 - BM25_B + BM25_B * doc_len[slots] / avgdl)
            scores[slots] += (qw * idf * (BM25_K1 + 1.0)) * tfs / (tfs + norm)
        return scores

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
