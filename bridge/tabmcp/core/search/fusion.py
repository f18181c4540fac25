"""How rankings become one: score fusion for prose, reciprocal rank fusion for names.

Pure numpy over slot-indexed arrays (see :mod:`.index`); nothing here knows about tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["FUSION_DEPTH", "KEYWORD_WEIGHT", "RRF_K", "SEMANTIC_WEIGHT", "rrf", "score_fusion", "top"]

Int = npt.NDArray[np.int64]
Float = npt.NDArray[np.float64]

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
