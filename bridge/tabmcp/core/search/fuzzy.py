"""Typo correction for query words: a symmetric-deletion (SymSpell-style) vocabulary index.

Comparing a word with every vocabulary word scans the vocabulary; indexing each word under its
deletions makes a lookup a few dozen dict probes at any size (docs/search.md). Budget: 1 edit for
words of 4-7 letters, 2 for longer; 8+ letter words are indexed with 2 deletions so that stays exact.
"""

from __future__ import annotations

from collections import Counter

from rapidfuzz.distance import OSA

__all__ = ["TypoIndex", "max_edits"]

MIN_LEN = 4
LONG = 8


def max_edits(word: str) -> int:
    """Edits tolerated when correcting ``word`` (0: too short to correct)."""
    if len(word) < MIN_LEN:
        return 0
    return 1 if len(word) < LONG else 2


def _deletes(word: str, depth: int) -> set[str]:
    """Strings obtained by deleting 1..depth letters of ``word`` (never all of them)."""
    out: set[str] = set()
    frontier = {word}
    for _ in range(depth):
        nxt = {w[:i] + w[i + 1 :] for w in frontier if len(w) > 1 for i in range(len(w))}
        out |= nxt
        frontier = nxt
    return out


class TypoIndex:
    """Reference-counted vocabulary with symmetric-deletion lookup."""

    def __init__(self) -> None:
        self._count: Counter[str] = Counter()
        self._index: dict[str, set[str]] = {}

    def __len__(self) -> int:
        return len(self._count)

    def __contains__(self, word: object) -> bool:
        return word in self._count

    def add(self, words: set[str] | frozenset[str]) -> None:
        for w in words:
            self._count[w] += 1
            if self._count[w] == 1:
                for key in _deletes(w, 2 if len(w) >= LONG else 1) | {w}:
                    self._index.setdefault(key, set()).add(w)

    def remove(self, words: set[str] | frozenset[str]) -> None:
        for w in words:
            c = self._count[w] - 1
            if c > 0:
                self._count[w] = c
                continue
            del self._count[w]
            for key in _deletes(w, 2 if len(w) >= LONG else 1) | {w}:
                bucket = self._index.get(key)
                if bucket is not None:
                    bucket.discard(w)
                    if not bucket:
                        del self._index[key]

    def corrections(self, word: str) -> list[str]:
        """Vocabulary words nearest to ``word`` within its edit budget (ties: all of them)."""
        budget = max_edits(word)
        if budget == 0 or word in self._count:
            return []
        cands: set[str] = set()
        for key in _deletes(word, budget) | {word}:
            bucket = self._index.get(key)
            if bucket:
                cands.update(bucket)
        best = budget + 1
        out: list[str] = []
        for c in cands:
            d = OSA.distance(word, c, score_cutoff=budget)
            if d < best:
                best, out = d, [c]
            elif d == best:
                out.append(c)
        return sorted(out) if best <= budget else []
