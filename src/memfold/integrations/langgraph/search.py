"""``MemfoldStore.search``: a query ranks items LangGraph's way over memfold's hybrid
candidates; no query lists them, newest first.

With a query, each namespace under the prefix gives its candidates: memfold's hybrid
search (vector plus keywords) over its indexed items, the filter terms memfold can run
applied before the top-k, ``MemfoldStoreConfig.rerank_pool`` hits deep (every hit the
scan allows when terms are checked afterwards). Each candidate is scored as LangGraph
scores it, the best cosine of one of its indexed fields to the query (fields), and
all namespaces' candidates are ordered by that score, so scores fall page after page.
Items not indexed (``index=False``) follow the ranked ones, with no score. Only the
hits a page returns count as retrieved in memfold's access statistics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memfold.engine.search import search as hybrid_search
from memfold.integrations.langgraph import fields as lg_fields
from memfold.integrations.langgraph import mapping as lg
from memfold.integrations.langgraph.config import MemfoldStoreConfig
from memfold.memory import Memory
from memfold.model import MemoryRecord, SearchHit
from memfold.policy import filters as metadata_filters
from memfold.policy.validate import clean_scope, clean_text

Namespace = tuple[str, ...]
Keep = Callable[[MemoryRecord], bool]
# (score, record, namespace): score None for a listed or not indexed item
Found = tuple[float | None, MemoryRecord, Namespace]

NOT_INDEXED: dict[str, Any] = {lg.INDEX_FIELD: False}
INDEXED: dict[str, Any] = {lg.INDEX_FIELD: {"$ne": False}}


@dataclass(frozen=True, slots=True)
class Query:
    text: str | None
    pushed: dict[str, Any]  # terms memfold's metadata filter runs
    thorough: bool  # terms are checked afterwards: scan every candidate
    limit: int
    offset: int


def search(
    memory: Memory,
    vectors: lg_fields.FieldVectors,
    config: MemfoldStoreConfig,
    query: Query,
    targets: Sequence[tuple[Namespace, int]],
    keep: Keep,
) -> list[Found]:
    """One page of items in ``targets`` (namespace, active items) passing ``keep``."""
    if not query.text:
        found = _listed(memory, targets, query.pushed, keep)
        found.sort(key=lambda f: f[1].updated_at, reverse=True)
        return found[query.offset : query.offset + query.limit]
    window = query.offset + query.limit
    ranked: list[tuple[float, int, int, MemoryRecord, Namespace]] = []
    complete = True
    for n, (namespace, active) in enumerate(targets):
        depth = config.scan_limit if query.thorough else max(window, config.rerank_pool)
        k = min(active, depth)
        hits = _candidates(memory, query.text, namespace, k, {**query.pushed, **INDEXED})
        complete = complete and (len(hits) < k or k == active)
        for rank, hit in enumerate(hits):
            if keep(hit.memory):
                score = _score(vectors, query.text, hit)
                ranked.append((score, n, rank, hit.memory, namespace))
    ranked.sort(key=lambda r: (-r[0], r[1], r[2]))
    page: list[Found] = [(s, rec, ns) for s, _, _, rec, ns in ranked[query.offset : window]]
    _count_retrieved(memory, [rec.id for _, rec, _ in page])
    if len(page) < query.limit and complete:
        # the items not indexed come after every ranked one, newest first, unscored
        rest = _listed(memory, targets, {**query.pushed, **NOT_INDEXED}, keep)
        rest.sort(key=lambda f: f[1].updated_at, reverse=True)
        skip = max(0, query.offset - len(ranked))
        page += rest[skip : skip + query.limit - len(page)]
    return page


def _score(vectors: lg_fields.FieldVectors, query: str, hit: SearchHit) -> float:
    """The best cosine of one of the item's indexed fields to the query."""
    marker = lg_fields.marker_of(hit.memory.metadata)
    if isinstance(marker, list):
        texts = lg_fields.texts_at(lg.value_of(hit.memory.metadata), marker)
        if len(texts) > 1:
            return vectors.best_cosine(query, texts)
    # one field: the memory's own vector is that field's
    return float(hit.vector_score if hit.vector_score is not None else hit.score)


def _candidates(
    memory: Memory, text: str, namespace: Namespace, k: int, where: dict[str, Any]
) -> list[SearchHit]:
    """memfold's hybrid search of one namespace, not counted as retrievals (only the
    hits a page returns are, by ``_count_retrieved``)."""
    if k < 1:
        return []
    settings = memory.settings
    scope = clean_scope(
        lg.scope_of(namespace), lg.AGENT_ID, None, default_user_id=settings.store.default_user_id
    )
    return hybrid_search(
        memory.ctx,
        clean_text(text, max_chars=settings.store.max_text_chars, what="query"),
        scope,
        k=k,
        areas=None,
        deep=False,
        record_access=False,
        where=metadata_filters.parse(where, max_terms=settings.search.filter_max_terms),
    )


def _count_retrieved(memory: Memory, ids: list[str]) -> None:
    accesses = memory.ctx.accesses
    if ids and accesses is not None:
        accesses.record(ids, memory.ctx.clock())


def _listed(
    memory: Memory, targets: Sequence[tuple[Namespace, int]], where: dict[str, Any], keep: Keep
) -> list[Found]:
    found: list[Found] = []
    for namespace, _ in targets:
        records = memory.list(
            user_id=lg.scope_of(namespace),
            agent_id=lg.AGENT_ID,
            filters=where or None,
            limit=None,
        )
        found += [(None, r, namespace) for r in records if keep(r)]
    return found
