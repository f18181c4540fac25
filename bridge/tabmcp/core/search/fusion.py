"""How rankings become one: score fusion for prose, reciprocal rank fusion for names.

Pure numpy over slot-indexed arrays (see :mod:`.index`); nothing here knows about tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["FUSION_DEPTH", "KEYWORD_WEIGHT", "RRF_K", "SEMANTIC_WEIGHT", "Signals", "fuse", "rrf", "score_fusion", "top"]

Int = npt.NDArray[np.int64]
Float = npt.NDArray[np.float64]

KEYWORD_WEIGHT = 0.2
"""Fused score of a prose query: cosine + KEYWORD_WEIGHT x (BM25 / the query's best BM25), the one
constant tuned (docs/search.md). Unlike rank fusion, it keeps how much better the best tool is."""
RRF_K = 60
"""Reciprocal rank fusion constant (the usual 60), for name-like queries: Σ w/(60 + rank)."""
SEMANTIC_WEIGHT = 2.0
"""Weight of the semantic ranking in the rank fusion of name-like queries (keyword and name
rankings weigh 1)."""
FUSION_DEPTH = 100
"""How deep each ranking is read for fusion (grown automatically when ``allow`` rejects)."""


def top(cand: Int, scores: Float, k: int, tiebreak: Float | None = None) -> Int:
    """The ``k`` best of ``cand`` by ``scores[cand]`` (descending; ties by ``tiebreak``)."""
    if len(cand) == 0:
        return cand
    vals = scores[cand]
    if len(cand) > k:
        part = np.argpartition(-vals, k - 1)[:k]
        cand, vals = cand[part], vals[part]
    order = np.argsort(-vals, kind="stable") if tiebreak is None else np.lexsort((tiebreak[cand], -vals))
    return cand[order]


def score_fusion(kw_cand: Int, kw_scores: Float, sem_cand: Int, sims: Float, n: int) -> tuple[Int, Float]:
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


def rrf(
    lists: Sequence[Sequence[int]], tiebreak: npt.NDArray[Any], weights: Sequence[float] | None = None
) -> list[tuple[int, float]]:
    """Weighted reciprocal rank fusion: Σ w/(RRF_K + rank), rank from 1, over the rankings."""
    scores: dict[int, float] = {}
    for i, ranking in enumerate(lists):
        w = weights[i] if weights is not None else 1.0
        for rank, s in enumerate(ranking, start=1):
            scores[s] = scores.get(s, 0.0) + w / (RRF_K + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], tiebreak[kv[0]]))


@dataclass
class Signals:
    """What each ranking made of one query, slot-indexed, before fusion."""

    n: int
    """Slots in the index."""
    kw_scores: Float | None = None
    """BM25 per slot (0 where filtered out); ``None`` when the search is semantic alone."""
    kw_cand: Int = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The slots with a keyword score."""
    tokens: list[str] = field(default_factory=list)
    """The query's words, as the keyword index reads them."""
    sem: tuple[Int, Float] | None = None
    """Semantic candidates and their cosines, lifted by past use; ``None`` without a query vector."""
    sem_full: Float | None = None
    """The plain cosine per slot (NaN: not a candidate), as hits report it."""
    name_rank: list[tuple[int, float]] = field(default_factory=list)
    """A name-like query's slots by name match, best first."""
    pinned: list[int] = field(default_factory=list)
    """Slots whose name is the query's exactly."""
    fuzzy: set[int] = field(default_factory=set)
    """Slots found through the name ranking or a typo-corrected word."""


def fuse(signals: Signals, depth: int, order: npt.NDArray[Any]) -> tuple[list[tuple[int, float]], bool]:
    """The signals as one ranking, each read ``depth`` deep, and whether that read every candidate.
    BM25 alone or the cosine alone stand as they are; prose with both is score fusion; a name-like
    query fuses its rankings by rank (:func:`rrf`)."""
    kw_scores, kw_cand, sem = signals.kw_scores, signals.kw_cand, signals.sem
    if kw_scores is not None and sem is None and not signals.name_rank:  # BM25 alone
        order_ = top(kw_cand, kw_scores, depth, order)
        return list(zip(order_.tolist(), kw_scores[order_].tolist(), strict=True)), depth >= len(kw_cand)
    if sem is not None and kw_scores is not None and not signals.name_rank:  # prose: score fusion
        cand, score = score_fusion(kw_cand, kw_scores, sem[0], sem[1], signals.n)
        order_ = top(cand, score, depth, order)
        return list(zip(order_.tolist(), score[order_].tolist(), strict=True)), depth >= len(cand)
    if sem is not None and kw_scores is None:  # cosine alone
        best = top(np.arange(len(sem[0])), sem[1], depth, order[sem[0]])
        return list(zip(sem[0][best].tolist(), sem[1][best].tolist(), strict=True)), depth >= len(sem[0])
    return _rank_fusion(signals, depth, order)


def _rank_fusion(signals: Signals, depth: int, order: npt.NDArray[Any]) -> tuple[list[tuple[int, float]], bool]:
    """A name-like query: keyword, semantic (weighted :data:`SEMANTIC_WEIGHT`), name and exact-name
    rankings fused by reciprocal rank."""
    exhausted = True
    lists: list[list[int]] = []
    weights: list[float] = []
    if signals.kw_scores is not None:
        lists.append(top(signals.kw_cand, signals.kw_scores, depth, order).tolist())
        weights.append(1.0)
        exhausted &= depth >= len(signals.kw_cand)
    if signals.sem is not None:
        cand, sims = signals.sem
        lists.append(cand[top(np.arange(len(cand)), sims, depth, order[cand])].tolist())
        weights.append(SEMANTIC_WEIGHT)
        exhausted &= depth >= len(cand)
    if signals.name_rank:
        lists.append([s for s, _ in signals.name_rank[:depth]])
        weights.append(1.0)
        exhausted &= depth >= len(signals.name_rank)
    if signals.pinned:
        lists.append(signals.pinned)
        weights.append(1.0)
    return rrf(lists, order, weights), exhausted
