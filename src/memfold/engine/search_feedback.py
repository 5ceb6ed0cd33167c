"""Pseudo-relevance feedback for hybrid search: the query vector moved towards the
vectors of the first fused hits, so that a second vector round finds memories worded
like the best hits rather than like the question ("What does Melanie do to destress?"
against "I've been running farther to de-stress"). Chosen on LoCoMo raw turns, dev
conversations only (docs/benchmarks.md, issue 10)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from memfold.engine.context import Context
from memfold.model import Vector

Hits = list[tuple[str, float]]


def moved_query(query: Vector, seeds: Sequence[Vector], weight: float) -> Vector | None:
    """``query + weight * mean(seeds)``, scaled to unit length; None when there is
    nothing to move towards (no seed, no weight, or seeds of another shape)."""
    usable = [s for s in seeds if s.shape == query.shape]
    if weight <= 0.0 or not usable:
        return None
    moved = query + weight * np.mean(np.stack(usable), axis=0)
    norm = float(np.linalg.norm(moved))
    if not np.isfinite(norm) or norm == 0.0:
        return None
    out: Vector = (moved / norm).astype(query.dtype, copy=False)
    return out


def feedback_round(
    ctx: Context,
    scope_key: str,
    query: Vector,
    seeds: Sequence[str],
    shortlist: Sequence[tuple[str, float]],
    *,
    weight: float,
    depth: int,
    from_records: bool,
    search_again: Callable[[Vector], Hits],
    also: Sequence[str] = (),
) -> tuple[Vector, Hits, dict[str, float]] | None:
    """The moved query, its ``depth`` nearest memories, best first (ties: the
    shortlist's order), and the cosines to it known so far (those hits', and in the
    process index those of ``also`` too: the keyword hits, read in the same pass);
    None when it cannot move. ``seeds``: the first fused hits. In the process index the
    first vector search's ``shortlist`` (a few times ``depth`` long) is ranked again,
    not the whole scope: in a large scope that second pass would cost as much as the
    first search. ``from_records``: the database searches (no scope is loaded here),
    so it is asked again (``search_again``)."""
    if from_records:
        records = ctx.store.get_memories(seeds)
        found = (records[mid].embedding if mid in records else None for mid in seeds)
        moved = moved_query(query, [v for v in found if v is not None], weight)
        if moved is None:
            return None
        hits = search_again(moved)
        return moved, hits, dict(hits)
    _, matrix = ctx.index.vectors_of(scope_key, seeds)
    moved = moved_query(query, list(matrix), weight)
    if moved is None:
        return None
    listed = [mid for mid, _ in shortlist]
    # Scored as searched: a long memory by the best of its whole vector and passages.
    ids, scores = ctx.index.scores_of(scope_key, list(dict.fromkeys([*listed, *also])), moved)
    cosines = {mid: float(score) for mid, score in zip(ids, scores, strict=True)}
    ranked = sorted(listed, key=lambda mid: -cosines.get(mid, -2.0))[:depth]  # stable
    return moved, [(mid, cosines[mid]) for mid in ranked if mid in cosines], cosines
