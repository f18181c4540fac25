"""Tool names: a misspelled or half-remembered name (``creat_usr``) finds ``create_user``.

Candidates share a (typo-corrected) word with the query, and are scored by rapidfuzz against every
word-suffix of the name, so ``merge_pull_request`` finds ``github_merge_pull_request``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz, process

from .fuzzy import TypoIndex
from .keyword import TYPO_WEIGHT
from .text import normalize_name, query_words, stem

__all__ = ["NAME_MATCH_CUTOFF", "SUGGEST_CUTOFF", "NameIndex"]

NAME_MATCH_CUTOFF = 70.0
"""Minimum name similarity (0-100) for the fuzzy name ranking of name-like queries."""
SUGGEST_CUTOFF = 55.0
"""Minimum name similarity (0-100) for :meth:`~.index.SearchIndex.closest_names`."""


@dataclass(frozen=True)
class _Name:
    norm: str
    """The name's words joined by spaces (``create user``)."""
    terms: frozenset[str]
    suffixes: tuple[tuple[str, str, int], ...]
    """(spaced, compact, words dropped) for each word-suffix: ``github merge pull request``,
    ``merge pull request``, ..."""


def _suffixes(words: Sequence[str]) -> tuple[tuple[str, str, int], ...]:
    return tuple((" ".join(words[i:]), "".join(words[i:]), i) for i in range(len(words)))


def _similarity(query_norm: str, query_compact: str, name: _Name) -> float:
    """0-100: how well a name-like query matches a tool name (typos, casing, missing prefix)."""
    best = 0.0
    for spaced, compact, dropped in name.suffixes:
        s = max(fuzz.ratio(query_norm, spaced), fuzz.ratio(query_compact, compact)) - 0.5 * dropped
        if s > best:
            best = s
    return best


class NameIndex:
    """Names by slot, with postings of their words. Not locked (the index holds its lock)."""

    def __init__(self, typos: TypoIndex) -> None:
        self._typos = typos
        self._names: dict[int, _Name] = {}
        self._postings: dict[str, set[int]] = {}
        self._by_norm: dict[str, list[int]] | None = None

    def add(self, slot: int, words: Sequence[str], terms: frozenset[str]) -> None:
        self._names[slot] = _Name(" ".join(words), terms, _suffixes(words))
        for t in terms:
            self._postings.setdefault(t, set()).add(slot)
        self._by_norm = None

    def remove(self, slot: int) -> None:
        name = self._names.pop(slot)
        for t in name.terms:
            named = self._postings[t]
            named.discard(slot)
            if not named:
                del self._postings[t]
        self._by_norm = None

    def norm(self, slot: int) -> str:
        return self._names[slot].norm

    def ranking(
        self, query: str, cutoff: float, mask: npt.NDArray[np.bool_] | None, order: npt.NDArray[np.float64]
    ) -> list[tuple[int, float]]:
        """Slots whose name resembles ``query``, best first (ties in ``order``), with similarity
        (0-100) of at least ``cutoff``."""
        qn = normalize_name(query)
        if not qn:
            return []
        qc = qn.replace(" ", "")
        out = []
        for s in self._candidates(query, mask):
            sim = _similarity(qn, qc, self._names[s])
            if sim >= cutoff:
                out.append((s, sim))
        out.sort(key=lambda x: (-x[1], order[x[0]]))
        return out

    def _candidates(self, query: str, mask: npt.NDArray[np.bool_] | None, k: int = 50) -> list[int]:
        """Slots whose names share (possibly typo-corrected) words with a name-like query,
        the rarest words weighing most; a scan of all names only when no word matches."""
        n_docs = len(self._names)
        scores: dict[int, float] = {}
        seen: set[str] = set()
        for word, t in query_words(query, name_like=True):
            terms = (
                [(t, 1.0)]
                if t in self._postings
                else [(stem(fix), TYPO_WEIGHT) for fix in self._typos.corrections(word)]
            )
            for term, w in terms:
                slots = self._postings.get(term)
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
        if self._by_norm is None:
            by_norm: dict[str, list[int]] = {}
            for slot, name in self._names.items():
                by_norm.setdefault(name.norm, []).append(slot)
            self._by_norm = by_norm
        out: list[int] = []
        near = process.extract(normalize_name(query), list(self._by_norm), scorer=fuzz.ratio, limit=k)
        for norm, _, _ in near:
            out.extend(s for s in self._by_norm[norm] if mask is None or mask[s])
        return out
