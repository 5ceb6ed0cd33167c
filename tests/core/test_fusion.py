"""Hybrid fusion: the convex combination of normalized BM25 and cosine, by itself and on
a real SQLite store with the real embedder, where keyword_weight moves the ranking."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.search import convex_fuse
from memfold.index.bm25 import Bm25Params
from memfold.model import Scope, Status

# FTS5 ranks are negated BM25 scores: lower is better.
KEYWORD = [("k1", -9.0), ("k2", -5.0), ("k3", -1.0)]


def test_keyword_scores_are_min_max_normalized_and_mixed_with_the_cosine() -> None:
    cos = {"k1": 0.1, "k2": 0.2, "k3": 0.3, "v1": 0.9}
    fused = dict(convex_fuse([("v1", 0.9), ("k3", 0.3)], KEYWORD, cos, keyword_weight=0.5))
    assert fused["k1"] == pytest.approx(0.5 * 1.0 + 0.5 * 0.1)
    assert fused["k2"] == pytest.approx(0.5 * 0.5 + 0.5 * 0.2)
    assert fused["k3"] == pytest.approx(0.5 * 0.0 + 0.5 * 0.3)
    assert fused["v1"] == pytest.approx(0.5 * 0.9)  # not in the keyword list: 0 there


def test_the_weight_decides_between_a_keyword_and_a_vector_winner() -> None:
    cos = {"k1": 0.1, "k2": 0.2, "k3": 0.3, "v1": 0.9}
    vector = [("v1", 0.9), ("k3", 0.3)]
    assert convex_fuse(vector, KEYWORD, cos, keyword_weight=0.0)[0][0] == "v1"
    assert convex_fuse(vector, KEYWORD, cos, keyword_weight=0.9)[0][0] == "k1"
    # weight 1: pure keyword order, memories the keyword list lacks after it
    ranked = [m for m, _ in convex_fuse(vector, KEYWORD, cos, keyword_weight=1.0)]
    assert ranked == ["k1", "k2", "v1", "k3"]  # k3 and v1 tie at 0: vector rank decides


def test_a_lone_keyword_hit_counts_fully_and_a_missing_cosine_counts_lowest() -> None:
    cos = {"v1": 0.6, "v2": 0.2}  # "k" has no vector
    fused = dict(convex_fuse([("v1", 0.6), ("v2", 0.2)], [("k", -3.0)], cos, 0.5))
    assert fused["k"] == pytest.approx(0.5 * 1.0 + 0.5 * 0.2)
    assert convex_fuse([], [], {}, 0.3) == []


def test_near_equal_keyword_scores_are_not_stretched_with_a_spread_floor() -> None:
    cos = {"long": 0.6, "short": 0.2}
    near = [("short", -2.1), ("long", -2.0)]  # one shared word, told apart by length
    stretched = dict(convex_fuse([], near, cos, keyword_weight=0.5))
    assert stretched["short"] - stretched["long"] == pytest.approx(0.5 - 0.5 * 0.4)
    floored = convex_fuse([], near, cos, keyword_weight=0.5, min_spread=0.5)
    assert floored[0][0] == "long"  # the keyword difference no longer outweighs the cosine
    assert dict(floored)["long"] == pytest.approx(0.5 * (1 - 0.1 / 1.05) + 0.5 * 0.6)
    # a real spread is still min-max normalized
    assert dict(convex_fuse([], KEYWORD, {}, 1.0, min_spread=0.5))["k3"] == 0.0


# One memory shares the query's rare word but not its meaning; another has the meaning
# but none of the query's words.
BY_WORD = "Zorblax parked the van behind the old warehouse"
BY_MEANING = "A strong cup of black tea is what I love most in the morning"
QUERY = "zorblax favourite hot beverage"
FILLER = [
    "My passport expires in March 2027",
    "The garage door code is changed every spring",
    "I am allergic to penicillin",
    "Our team meets on Thursdays at ten",
]


def ranking(db_path: Path, embedder: LocalEmbedder, **search: object) -> list[str]:
    settings = Settings.model_validate({"search": {"newer_first": False, **search}})
    with Memory(db_path, embedder=embedder, consolidate="off", settings=settings) as mem:
        if not mem.search(QUERY, k=1, mode="vector"):
            mem.add_many([{"text": t} for t in [BY_WORD, BY_MEANING, *FILLER]])
        return [h.memory.text for h in mem.search(QUERY, k=6)]


def test_keyword_weight_moves_the_keyword_match_up_on_a_real_store(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        mem.add_many([{"text": t} for t in [BY_WORD, BY_MEANING, *FILLER]])
        keyword = [h.memory.text for h in mem.search(QUERY, k=6, mode="keyword")]
        vector = [h.memory.text for h in mem.search(QUERY, k=6, mode="vector")]
    assert keyword == [BY_WORD]  # the premise: only one memory has a query word
    assert vector[0] == BY_MEANING
    meaning_first = ranking(db_path, embedder, keyword_weight=0.0)
    word_first = ranking(db_path, embedder, keyword_weight=0.9)
    assert meaning_first[0] == BY_MEANING and meaning_first.index(BY_WORD) > 0
    assert word_first[0] == BY_WORD and word_first.index(BY_MEANING) == 1
    # the same store under equal-weight rank fusion still returns both
    rrf = ranking(db_path, embedder, fusion="rrf")
    assert {BY_WORD, BY_MEANING} <= set(rrf[:2])


# An exact restatement of one memory among near-duplicates that each match the query's
# words more densely: the keyword list's depth cut (fusion_depth 4) leaves it out.
TARGET = "User's favourite coffee is rooibos from the little shop near the station (note 81)"
NEAR = [f"User's favourite {w} is rooibos" for w in ("tea", "drink", "brew", "cup", "blend")]


@pytest.mark.parametrize("fill_in", [True, False])
def test_a_vector_hit_the_keyword_list_missed_is_scored_by_bm25_before_fusion(
    db_path: Path, embedder: LocalEmbedder, fill_in: bool
) -> None:
    # SQLite: its keyword list reads the densest matches first (PostgreSQL's reads by
    # ts_rank, which puts this long text first; the store contract below covers both).
    settings = Settings(search={"fusion_depth": 4, "keyword_pool": 4, "keyword_fill_in": fill_in})
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="off") as mem:
        target = mem.add(TARGET, user_id="u").memory.id
        for text in NEAR:
            mem.add(text, user_id="u")
        hits = mem.search(TARGET, user_id="u", k=3)
        keyword_only = mem.search(TARGET, user_id="u", k=4, mode="keyword")
    assert target not in [h.memory.id for h in keyword_only]  # the depth cut left it out
    ids = [h.memory.id for h in hits]
    if fill_in:
        assert ids[0] == target
        assert hits[0].keyword_rank is None  # filled in for fusion, not a keyword-list rank
    else:  # counted as no keyword match, it loses to the near-duplicates
        assert target not in ids


def test_keyword_scores_match_the_keyword_lists_bm25_within_the_scope(mem_off: Memory) -> None:
    ids = [mem_off.add(t, user_id="u").memory.id for t in (TARGET, *NEAR)]
    unrelated = mem_off.add("The meeting moved to Thursday", user_id="u").memory.id
    elsewhere = mem_off.add(TARGET, user_id="other").memory.id
    scope = Scope("u")
    params = Bm25Params(1.2, 0.3, pool=100)
    listed = dict(
        mem_off.store.keyword_search(scope, TARGET, 50, statuses=[Status.ACTIVE], bm25=params)
    )
    scored = mem_off.store.keyword_scores(scope, TARGET, [*ids, unrelated, elsewhere], bm25=params)
    assert set(scored) == set(ids)  # no query word, or another scope: left out
    for mid in ids:
        assert scored[mid] == pytest.approx(listed[mid])
    assert mem_off.store.keyword_scores(scope, TARGET, [], bm25=params) == {}
