"""Vector, keyword and hybrid search within one scope. Hybrid fuses the two lists by a
convex combination of scores (default) or by reciprocal rank fusion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from memfold.config import SearchSettings
from memfold.engine.context import Context
from memfold.engine.search_feedback import feedback_round
from memfold.engine.search_newer import newer_first_page
from memfold.index.bm25 import Bm25Params
from memfold.model import (
    Area,
    Candidate,
    MemoryRecord,
    Scope,
    SearchHit,
    Status,
    Tier,
    Vector,
)
from memfold.policy.filters import Filter
from memfold.store.base import DatabaseVectorSearch

SearchMode = Literal["hybrid", "vector", "keyword"]
ALL_STATUSES: tuple[Status, ...] = tuple(Status)


def rrf_fuse(rankings: Sequence[Sequence[str]], rrf_k: int) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: score(id) = sum over lists of 1 / (rrf_k + rank). A tie
    (the first of one list against the first of another) goes to the better rank in the
    earlier list (the vector list: closer in meaning), then to the id."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, memory_id in enumerate(ranking, start=1):
            scores[memory_id] = scores.get(memory_id, 0.0) + 1.0 / (rrf_k + rank)
    first = {m: rank for rank, m in enumerate(rankings[0])} if rankings else {}
    unranked = len(first)
    return sorted(scores.items(), key=lambda kv: (-kv[1], first.get(kv[0], unranked), kv[0]))


def keyword_scoring(cfg: SearchSettings, depth: int) -> Bm25Params | None:
    """How a keyword search of ``depth`` hits ranks (``search.keyword_scoring``): BM25
    with the scope's own statistics, or None for FTS5's ``bm25()`` over the table."""
    if cfg.keyword_scoring != "scope":
        return None
    return Bm25Params(
        cfg.bm25_k1,
        cfg.bm25_b,
        max(depth, cfg.keyword_pool),
        cfg.keyword_proximity,
        cfg.keyword_proximity_window,
        cfg.keyword_proximity_any_pair,
    )


def convex_fuse(
    vector_hits: Sequence[tuple[str, float]],
    keyword_hits: Sequence[tuple[str, float]],
    cosines: dict[str, float],
    keyword_weight: float,
    min_spread: float = 0.0,
    filled: dict[str, float] | None = None,
) -> list[tuple[str, float]]:
    """Score-based fusion: ``keyword_weight * keyword + (1 - keyword_weight) * cosine``.

    ``keyword_hits`` carry FTS5 ranks (negated BM25, best first); they are min-max
    normalized within the list to 0..1 (a lone hit, or hits all tied, count 1) and a
    memory the keyword list did not return counts 0. ``cosines``: the cosine to the
    query of every candidate of either list; one without (no vector) counts as the
    lowest cosine among the candidates. A tie goes to the better vector rank, then the id.
    ``min_spread``: the normalizing range is at least this share of the best score, so
    near-equal keyword scores (one word in every memory of a small scope, told apart
    only by length) stay near-equal instead of being stretched to 0..1.
    ``filled``: keyword ranks of vector hits the keyword list lacks (``keyword_scores``),
    put on the list's own 0..1 scale and clipped to it, so they never move the scores of
    the memories the list holds.
    """
    bm25 = {mid: -rank for mid, rank in keyword_hits}
    keyword: dict[str, float] = {}
    if bm25:
        low, high = min(bm25.values()), max(bm25.values())
        span = max(high - low, min_spread * high)
        keyword = {m: 1.0 - (high - s) / span if span > 0 else 1.0 for m, s in bm25.items()}
        for m, rank in (filled or {}).items():
            if m not in keyword:
                keyword[m] = min(1.0, max(0.0, 1.0 - (high + rank) / span)) if span > 0 else 0.0
    candidates = dict.fromkeys([m for m, _ in vector_hits] + [m for m, _ in keyword_hits])
    floor = min((cosines[m] for m in candidates if m in cosines), default=0.0)
    scores = {
        m: keyword_weight * keyword.get(m, 0.0) + (1.0 - keyword_weight) * cosines.get(m, floor)
        for m in candidates
    }
    first = {m: rank for rank, (m, _) in enumerate(vector_hits)}
    unranked = len(first)
    return sorted(scores.items(), key=lambda kv: (-kv[1], first.get(kv[0], unranked), kv[0]))


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
    where: Filter | None = None,
    threshold: float | None = None,
    offset: int = 0,
) -> list[SearchHit]:
    """Hits ``offset`` to ``offset + k`` of one scope's ranking for ``query``.

    ``where``: a metadata filter, applied to the candidates of both lists before any
    top-k cut (exact however few memories it keeps). ``threshold``: hits whose cosine
    similarity to the query (``SearchHit.vector_score``) is below it are dropped before
    paging. A page is reordered by newer-first within itself, so pages never overlap.
    """
    statuses = ALL_STATUSES if deep else (Status.ACTIVE,)
    cfg = ctx.settings.search
    window = k + offset
    depth = max(window, cfg.fusion_depth) if mode == "hybrid" else window
    only: set[str] | None = None
    if where is not None:
        only = ctx.store.matching_ids(scope, statuses=statuses, areas=areas, where=where)
        if not only:
            return []
    query_vec = None if mode == "keyword" else ctx.embed_one(query)
    vector_hits: list[tuple[str, float]] = []
    keyword_hits: list[tuple[str, float]] = []
    floor = cfg.min_vector_score if mode == "hybrid" else None
    if threshold is not None:
        floor = threshold if floor is None else max(floor, threshold)
    feedback = mode == "hybrid" and cfg.fusion == "convex" and cfg.vector_feedback > 0.0
    shortlist: list[tuple[str, float]] = []
    if query_vec is not None:
        # with feedback, a longer list whose rest only the feedback round ranks again
        shortlist = _vector_hits(
            ctx, scope, query_vec, max(depth, cfg.vector_feedback_pool) if feedback else depth,
            statuses=statuses, areas=areas, floor=floor, only=only,
        )  # fmt: skip
        vector_hits = shortlist[:depth]
    bm25 = None
    if mode in ("hybrid", "keyword"):
        bm25 = keyword_scoring(cfg, depth)
        keyword_hits = ctx.store.keyword_search(
            scope, query, depth, statuses=statuses, areas=areas, where=where, bm25=bm25
        )
    vec_score = dict(vector_hits)
    kw_rank = {mid: rank for rank, (mid, _) in enumerate(keyword_hits, start=1)}
    if mode == "vector":
        ranked = vector_hits
    elif mode == "keyword":
        ranked = [(mid, -score) for mid, score in keyword_hits]
    elif cfg.fusion == "convex" and query_vec is not None:
        fuse = _ConvexRound(ctx, scope, query, keyword_hits, bm25)
        ranked = fuse(vector_hits, vec_score, query_vec)
        moved = None
        if feedback:
            moved = feedback_round(
                ctx, scope.key(), query_vec, [m for m, _ in ranked[: cfg.vector_feedback_hits]],
                shortlist, weight=cfg.vector_feedback, depth=depth,
                from_records=database_search(ctx) is not None,
                search_again=lambda vec: _vector_hits(
                    ctx, scope, vec, depth, statuses=statuses, areas=areas, floor=floor, only=only
                ),
                also=[m for m, _ in keyword_hits],
            )  # fmt: skip
        if moved is not None:  # fused again with the moved query's cosines
            vec, again, cosines = moved
            ranked = fuse(again, cosines, vec)
    else:
        ranked = rrf_fuse([[m for m, _ in vector_hits], [m for m, _ in keyword_hits]], cfg.rrf_k)
    if query_vec is not None and threshold is not None:
        _add_cosines(ctx, scope.key(), vec_score, [mid for mid, _ in ranked], query_vec)
        ranked = [(mid, s) for mid, s in ranked if vec_score.get(mid, -2.0) >= threshold]
    read: dict[str, MemoryRecord] = {}
    if not deep:  # plain search skips the cold tier (engine/lifecycle/tick.py)
        ranked = _hot_only(ctx, ranked, window, read)
    top = ranked[offset:window]
    if query_vec is not None:
        _add_cosines(ctx, scope.key(), vec_score, [mid for mid, _ in top], query_vec)
    records = read if not deep else ctx.store.get_memories(mid for mid, _ in top)
    hits = [
        SearchHit(records[mid], score, vec_score.get(mid), kw_rank.get(mid))
        for mid, score in top
        if mid in records
    ]
    if cfg.newer_first:
        hits = newer_first_page(hits, cfg)
    if record_access and hits and ctx.accesses is not None:
        # Counted in memory, written later in a batch: a search never writes
        # (engine/access.py).
        ctx.accesses.record([h.memory.id for h in hits], ctx.clock())
    return hits


class _ConvexRound:
    """Convex fusion of one vector list with the keyword list, for one query vector.
    Vector hits the keyword list lacks are scored by BM25 (``search.keyword_fill_in``),
    each memory once across rounds: its score depends on the query text alone."""

    def __init__(
        self,
        ctx: Context,
        scope: Scope,
        query: str,
        keyword_hits: Sequence[tuple[str, float]],
        bm25: Bm25Params | None,
    ) -> None:
        self._ctx, self._scope, self._query = ctx, scope, query
        self._keyword_hits = keyword_hits
        self._fill_in = bm25 if ctx.settings.search.keyword_fill_in else None
        self._filled: dict[str, float] = {}
        self._asked = {mid for mid, _ in keyword_hits}

    def __call__(
        self, vector_hits: Sequence[tuple[str, float]], cosines: dict[str, float], vec: Vector
    ) -> list[tuple[str, float]]:
        """Fused ranking; ``cosines`` (to ``vec``) gains the keyword-only hits'."""
        ctx, cfg = self._ctx, self._ctx.settings.search
        _add_cosines(ctx, self._scope.key(), cosines, [m for m, _ in self._keyword_hits], vec)
        filled = None
        if self._fill_in is not None:
            filled = self._fill_in_keyword(vector_hits, self._fill_in)
        return convex_fuse(
            vector_hits, self._keyword_hits, cosines, cfg.keyword_weight,
            cfg.keyword_min_spread, filled,
        )  # fmt: skip

    def _fill_in_keyword(
        self, vector_hits: Sequence[tuple[str, float]], bm25: Bm25Params
    ) -> dict[str, float]:
        """The BM25 rank of each vector hit the keyword list lacks (only those holding a
        query word), so that fusion weighs what they share with the query instead of
        counting nothing."""
        missing = [mid for mid, _ in vector_hits if mid not in self._asked]
        if missing and self._keyword_hits:
            self._asked.update(missing)
            self._filled.update(
                self._ctx.store.keyword_scores(self._scope, self._query, missing, bm25=bm25)
            )
        return self._filled


def _hot_only(
    ctx: Context, ranked: list[tuple[str, float]], window: int, read: dict[str, MemoryRecord]
) -> list[tuple[str, float]]:
    """The ranking without cold-tier memories, read in chunks of ``window`` until that
    many hot ones are found (their records go into ``read``)."""
    kept: list[tuple[str, float]] = []
    step = max(window, 1)
    for start in range(0, len(ranked), step):
        chunk = ranked[start : start + step]
        found = ctx.store.get_memories(mid for mid, _ in chunk)
        for mid, score in chunk:
            record = found.get(mid)
            if record is not None and record.tier is not Tier.COLD:
                kept.append((mid, score))
                read[mid] = record
        if len(kept) >= window:
            break
    return kept


def database_search(ctx: Context) -> DatabaseVectorSearch | None:
    """The store, when it finds nearest vectors itself and the settings ask for that
    (PostgreSQL, ``store.pg_vector_search = "database"``); else None (the process index)."""
    store = ctx.store
    if ctx.settings.store.pg_vector_search != "database":
        return None
    return store if isinstance(store, DatabaseVectorSearch) else None


def _vector_hits(
    ctx: Context,
    scope: Scope,
    query: Vector,
    depth: int,
    *,
    statuses: Sequence[Status],
    areas: Sequence[Area] | None,
    floor: float | None,
    only: set[str] | None,
) -> list[tuple[str, float]]:
    """The ``depth`` nearest memories of the scope, best first: from the database when it
    searches itself (no scope is loaded into this process), else from the process index."""
    database = database_search(ctx)
    if database is None:
        return ctx.synced_index().search(
            scope.key(), query, depth, statuses=statuses, areas=areas, min_score=floor, only=only,
            passages=True,
        )  # fmt: skip
    cfg = ctx.settings.store
    hits = database.vector_search(
        scope,
        query,
        depth,
        statuses=statuses,
        areas=areas,
        model=ctx.embedder.model_id,
        only=only,
        ef_search=cfg.pg_hnsw_ef_search,
        exact_max_rows=cfg.pg_exact_max_rows,
    )
    return [(mid, score) for mid, score in hits if floor is None or score >= floor]


def _add_cosines(
    ctx: Context, scope_key: str, scores: dict[str, float], ids: Sequence[str], query: Vector
) -> None:
    """The cosine to the query of hits only the keyword list found: from the stored
    embeddings when the database searches (no scope loaded here), else from the index
    (the scope is named so it is read again if the index dropped it meanwhile)."""
    missing = [mid for mid in ids if mid not in scores]
    if not missing:
        return
    if database_search(ctx) is not None:
        records = ctx.store.get_memories(missing)
        for mid in missing:
            vec = records[mid].embedding if mid in records else None
            if vec is not None and vec.shape == query.shape:
                scores[mid] = float(vec @ query)
        return
    ids, found = ctx.index.scores_of(scope_key, missing, query)  # passages count, as searched
    scores.update(zip(ids, (float(x) for x in found), strict=True))


@dataclass(slots=True)
class Nearest:
    """One record's nearest memories, best first: the first ones with their rows read
    (``read``), the rest as (id, cosine) only (``spares``: read when needed)."""

    read: list[Candidate]
    spares: list[tuple[str, float]]


def similar_active_many(
    ctx: Context,
    records: Sequence[MemoryRecord],
    *,
    k: int,
    min_similarity: float,
    read: int | None = None,
) -> dict[str, Nearest]:
    """``similar_active`` for several records at once, by record id: one matrix-matrix
    product per scope and one read of the hits (a batch of pending saves). Only the
    first ``read`` hits of each record that still exist are read (None: all of them);
    reading a row costs more than finding it, and the spares are seldom needed."""
    by_scope: dict[str, list[MemoryRecord]] = {}
    for record in records:
        if record.embedding is not None:
            by_scope.setdefault(record.scope.key(), []).append(record)
    index = ctx.synced_index()
    hits: dict[str, list[tuple[str, float]]] = {r.id: [] for r in records}
    for scope_key, group in by_scope.items():
        found = index.search_many(
            scope_key,
            [r.embedding for r in group if r.embedding is not None],
            k,
            min_score=min_similarity,
            exclude=[r.id for r in group],
        )
        hits.update({r.id: row for r, row in zip(group, found, strict=True)})
    want = len(max(hits.values(), key=len, default=[])) if read is None else read
    stored = ctx.store.get_memories({mid for row in hits.values() for mid, _ in row[:want]})
    out: dict[str, Nearest] = {}
    for rid, row in hits.items():
        read_now = [Candidate(stored[mid], sim) for mid, sim in row[:want] if mid in stored]
        rest = row[want:]
        while len(read_now) < want and rest:  # a hit's row is gone: the next one moves up
            more, rest = rest[: want - len(read_now)], rest[want - len(read_now) :]
            rows = ctx.store.get_memories(mid for mid, _ in more)
            read_now += [Candidate(rows[mid], sim) for mid, sim in more if mid in rows]
        out[rid] = Nearest(read_now, rest)
    return out


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
