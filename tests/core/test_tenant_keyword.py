"""Keyword search restricted to the tenant (issue 14): a scope's ranking and the work a
search does depend on that scope alone, however much other scopes hold."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.index.bm25 import Bm25Params, Stemmer, best_matches, bm25_rank
from memfold.model import Scope, Status
from memfold.store.sqlite import SQLiteStore
from memfold.store.sqlite.fts import prune_common

FOODS = ["coffee", "tea", "pasta", "curry", "salad", "soup", "bread", "cheese"]
PLACES = ["Lisbon", "Oslo", "Kyoto", "Lima", "Accra", "Quito"]
QUERIES = [
    "coffee in Lisbon",
    "which tea and cheese",
    "pasta curry soup",
    "bread from Kyoto or Oslo",
    "salad Lima coffee tea",
]


def tenant_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{name} had {rng.choice(FOODS)} and {rng.choice(FOODS)} in {rng.choice(PLACES)} "
        f"on day {rng.randint(1, 400)}"
        for name in (rng.choice(["Ana", "Ben", "Cho", "Dev"]) for _ in range(n))
    ]


def rankings(mem: Memory) -> dict[tuple[str, str], list[tuple[str, float]]]:
    out = {}
    for mode in ("keyword", "hybrid"):
        for q in QUERIES:
            hits = mem.search(q, user_id="a", k=5, mode=mode)
            out[(mode, q)] = [(h.memory.id, h.score) for h in hits]
    return out


def settings(**search: Any) -> Settings:
    # pruning from 500 memories on, so 1,000 memories elsewhere would trigger it were
    # it counted over the file
    return Settings.model_validate(
        {"search": {"newer_first": False, "keyword_prune_min_docs": 500, **search}}
    )


@pytest.mark.parametrize("pool", [100, 8])  # 8: more matches than scored (rarest first)
def test_a_scope_ranks_the_same_after_another_scope_grows(
    db_path: Path, embedder: LocalEmbedder, pool: int
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off", settings=settings(
        keyword_pool=pool
    )) as mem:  # fmt: skip
        mem.add_many([{"text": t, "user_id": "a"} for t in tenant_texts(40, seed=1)])
        before = rankings(mem)
        assert all(before[("keyword", q)] for q in QUERIES)
        # scope b: 1,000 memories over the same words, coffee and Lisbon in every one
        rng = np.random.default_rng(3)
        vectors = rng.standard_normal((1000, embedder.dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        texts = [f"coffee in Lisbon, {t}" for t in tenant_texts(1000, seed=2)]
        mem.add_many([{"text": t, "user_id": "b"} for t in texts], embeddings=vectors)
        after = rankings(mem)
    assert after == before


def vm_steps(mem: Memory, query: str) -> int:
    """SQLite virtual-machine instructions one keyword search of scope a executes, on
    an index merged into one segment (FTS5 reads every segment, and how many there are
    depends on how the rows were written, not on which scopes they belong to)."""
    assert isinstance(mem.store, SQLiteStore)
    mem.store.optimize_keyword_index()
    conn = mem.store._db.get()
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    bm25 = Bm25Params(1.2, 0.3, 100)
    args: dict[str, Any] = {"statuses": (Status.ACTIVE,), "bm25": bm25}
    mem.store.keyword_search(Scope(user_id="a"), query, 10, **args)  # statistics counted
    conn.set_progress_handler(count, 1)
    try:
        hits = mem.store.keyword_search(Scope(user_id="a"), query, 10, **args)
    finally:
        conn.set_progress_handler(None, 1)
    assert hits
    return steps[0]


def test_keyword_search_work_does_not_grow_with_other_scopes(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    """Not a timing: the instructions SQLite runs for scope a's search are the same
    with 3,000 matching memories in scope b as without them (a search that matched
    over the file and filtered by scope afterwards runs thousands more)."""
    no_pruning = settings(keyword_max_df_share=1.0)
    with Memory(db_path, embedder=embedder, consolidate="off", settings=no_pruning) as mem:
        mem.add_many([{"text": t, "user_id": "a"} for t in tenant_texts(30, seed=1)])
        alone = vm_steps(mem, "coffee tea in Lisbon")
        rng = np.random.default_rng(4)
        vectors = rng.standard_normal((3000, embedder.dim)).astype(np.float32)
        texts = [f"coffee and tea in Lisbon, {t}" for t in tenant_texts(3000, seed=5)]
        mem.add_many([{"text": t, "user_id": "b"} for t in texts], embeddings=vectors)
        shared = vm_steps(mem, "coffee tea in Lisbon")
    assert shared <= alone * 1.1 + 20, (alone, shared)


# --- best_matches: exact top k by BM25, reading the rarest terms first ----------------


@pytest.fixture
def corpus() -> Iterator[list[tuple[str, str]]]:
    rng = random.Random(9)
    words = ["apple", "kiwi", "mango", "plum", "fig", "lime", "pear", "date"]
    weights = [40, 25, 12, 8, 5, 3, 2, 1]  # from common to rare
    yield [
        (f"d{i}", " ".join(rng.choices(words, weights, k=rng.randint(2, 12)))) for i in range(300)
    ]


def fetcher(corpus: list[tuple[str, str]], read: list[str]) -> Any:
    stemmer = Stemmer()

    def fetch(stem: str, earlier: list[str], limit: int) -> list[tuple[str, str]]:
        out = []
        for mid, text in corpus:
            terms = set(stemmer.terms(text))
            if stem in terms and not terms & set(earlier):
                out.append((mid, text))
        read.extend(mid for mid, _ in out[:limit])
        return out[:limit]

    return fetch


def test_best_matches_is_the_exact_top_k_and_reads_less(corpus: list[tuple[str, str]]) -> None:
    stemmer = Stemmer()
    df: dict[str, int] = {}
    for _, text in corpus:
        for t in set(stemmer.terms(text)):
            df[t] = df.get(t, 0) + 1
    avg = sum(len(t) for _, t in corpus) / len(corpus)
    params = Bm25Params(1.2, 0.3, 1000)
    stats: dict[str, Any] = {"stemmer": stemmer, "docs": len(corpus), "avg_chars": avg, "df": df}
    query = ["date", "fig", "apple"]
    full = bm25_rank(query, corpus, params=params, **stats)
    read: list[str] = []
    top = best_matches(query, fetcher(corpus, read), k=5, max_scored=1000, params=params, **stats)
    assert [s for _, s in top] == pytest.approx([s for _, s in full[:5]])
    assert {m for m, _ in top} <= {m for m, _ in full}
    assert len(read) == len(set(read))  # no memory read twice
    # "apple" is in most memories: the rare terms' matches settled the top 5 first
    assert len(read) < sum(1 for _, t in corpus if set(stemmer.terms(t)) & set(query))
    capped: list[str] = []
    top = best_matches(query, fetcher(corpus, capped), k=5, max_scored=20, params=params, **stats)
    assert len(capped) <= 20 and len(top) == 5


def test_common_words_are_pruned_by_the_scope_counts() -> None:
    words, counts = ["coffee", "lisbon", "kyoto"], [900, 150, 3]
    kept = prune_common(words, counts, total_docs=1000, max_share=0.2, min_docs=500)
    assert kept == ["lisbon", "kyoto"]
    # a scope smaller than min_docs keeps every word
    assert prune_common(words, counts, total_docs=400, max_share=0.2, min_docs=500) == words
