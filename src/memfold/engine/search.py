"""Vector, keyword and hybrid (reciprocal rank fusion) search within one scope."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from memfold.engine.context import Context
from memfold.model import Area, Candidate, MemoryRecord, Scope, SearchHit, Status, utcnow
from memfold.policy.ranking import newer_first
from memfold.policy.text import has_update_cue

SearchMode = Literal["hybrid", "vector", "keyword"]
ALL_STATUSES: tuple[Status, ...] = tuple(Status)


def rrf_fuse(rankings: Sequence[Sequence[str]], rrf_k: int) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: score(id) = sum over lists of 1 / (rrf_k + rank)."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, memory_id in enumerate(ranking, start=1):
            scores[memory_id] = scores.get(memory_id, 0.0) + 1.0 / (rrf_k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def search(
    ctx: Context,
    query: str,
    scope: Scope,
    *,
    k: int,
    areas: Sequence[Area] | None,
    deep: bool,
    mode: SearchMode = "hybrid",
    record_access: bool = True,
) -> list[SearchHit]:
    statuses = ALL_STATUSES if deep else (Status.ACTIVE,)
    cfg = ctx.settings.search
    depth = max(k, cfg.fusion_depth) if mode == "hybrid" else k
    vector_hits: list[tuple[str, float]] = []
    keyword_hits: list[tuple[str, float]] = []
    if mode in ("hybrid", "vector"):
        index = ctx.synced_index()
        vector_hits = index.search(
            scope.key(),
            ctx.embed_one(query),
            depth,
            statuses=statuses,
            areas=areas,
            min_score=cfg.min_vector_score if mode == "hybrid" else None,
        )
    if mode in ("hybrid", "keyword"):
        keyword_hits = ctx.store.keyword_search(scope, query, depth, statuses=statuses, areas=areas)
    vec_score = dict(vector_hits)
    kw_rank = {mid: rank for rank, (mid, _) in enumerate(keyword_hits, start=1)}
    if mode == "vector":
        ranked = vector_hits
    elif mode == "keyword":
        ranked = [(mid, -score) for mid, score in keyword_hits]
    else:
        ranked = rrf_fuse([[m for m, _ in vector_hits], [m for m, _ in keyword_hits]], cfg.rrf_k)
    top = ranked[:k]
    records = ctx.store.get_memories(mid for mid, _ in top)
    hits = [
        SearchHit(records[mid], score, vec_score.get(mid), kw_rank.get(mid))
        for mid, score in top
        if mid in records
    ]
    if cfg.newer_first:
        hits = _newer_first(
            hits, cfg.newer_first_update_similarity, cfg.newer_first_plain_similarity
        )
    if record_access and hits:
        ctx.store.record_access([h.memory.id for h in hits], utcnow())
    return hits


def _newer_first(hits: list[SearchHit], update_sim: float, plain_sim: float) -> list[SearchHit]:
    vectors = [h.memory.embedding for h in hits if h.memory.embedding is not None]
    if len(hits) < 2 or len(vectors) != len(hits) or len({v.shape for v in vectors}) != 1:
        return hits
    order = newer_first(
        np.stack(vectors),
        [h.memory.created_at for h in hits],
        [has_update_cue(h.memory.text) for h in hits],
        update_similarity=update_sim,
        plain_similarity=plain_sim,
    )
    return [hits[i] for i in order]


def similar_active(
    ctx: Context, record: MemoryRecord, *, k: int, min_similarity: float
) -> list[Candidate]:
    """Active memories of the record's scope with cosine >= min_similarity, best first."""
    if record.embedding is None:
        return []
    hits = ctx.synced_index().search(
        record.scope.key(),
        record.embedding,
        k,
        statuses=(Status.ACTIVE,),
        min_score=min_similarity,
        exclude=(record.id,),
    )
    records = ctx.store.get_memories(mid for mid, _ in hits)
    return [Candidate(records[mid], sim) for mid, sim in hits if mid in records]
