"""search(filters=..., threshold=..., offset=...) on a real store with the real embedder."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from memfold import InvalidInput, Memory, Settings
from memfold.embed.local import LocalEmbedder

COFFEE = [
    "I drink a double espresso every morning",
    "My favourite coffee beans come from Ethiopia",
    "I take my coffee black with no sugar",
    "The cafe downstairs makes a great flat white",
    "I stopped drinking coffee after 4pm",
    "Cold brew coffee is my summer drink",
    "I grind coffee beans fresh each morning",
    "My coffee machine is an Italian moka pot",
    "Decaf coffee tastes flat to me",
    "I like oat milk in my coffee latte",
    "Coffee with cardamom is how my grandmother made it",
    "I roast my own coffee at home on weekends",
]
OTHER = [
    "My passport expires in March 2027",
    "The garage door code is changed every spring",
    "I am allergic to penicillin",
]


def small_depth(db_path: Path, embedder: LocalEmbedder) -> Memory:
    settings = Settings.model_validate({"search": {"fusion_depth": 4, "newer_first": False}})
    return Memory(db_path, embedder=embedder, consolidate="off", settings=settings)


def test_a_selective_filter_keeps_recall(db_path: Path, embedder: LocalEmbedder) -> None:
    """Three memories far from the query pass the filter; twelve close ones do not. A
    filter applied after the top-k (or after fusion depth 4) would find none of them."""
    with small_depth(db_path, embedder) as mem:
        mem.add_many([{"text": t, "metadata": {"kind": "noise"}} for t in COFFEE])
        wanted = [mem.add(t, metadata={"kind": "target"}).memory.id for t in OTHER]
        for mode in ("hybrid", "vector"):
            plain = mem.search("coffee", k=3, mode=mode)
            assert not {h.memory.id for h in plain} & set(wanted), mode
            hits = mem.search("coffee", k=3, mode=mode, filters={"kind": "target"})
            assert sorted(h.memory.id for h in hits) == sorted(wanted), mode
        hits = mem.search("coffee", k=20, filters={"kind": {"$ne": "noise"}})
        assert sorted(h.memory.id for h in hits) == sorted(wanted)
        assert mem.search("coffee", filters={"kind": "absent"}) == []


def test_filters_respect_deep_and_area(mem_off: Memory) -> None:
    keep = mem_off.add("tea with lemon", metadata={"t": 1}).memory.id
    gone = mem_off.add("tea with honey", metadata={"t": 1}).memory.id
    mem_off.add("tea with milk", metadata={"t": 2}, area="fragments")
    mem_off.delete(gone)
    assert [h.memory.id for h in mem_off.search("tea", filters={"t": 1})] == [keep]
    deep = mem_off.search("tea", filters={"t": 1}, deep=True)
    assert {h.memory.id for h in deep} == {keep, gone}
    assert mem_off.search("tea", filters={"t": 2}, area="main") == []
    assert len(mem_off.search("tea", filters={"t": 2}, area="fragments")) == 1


def test_threshold_drops_hits_below_the_cosine(db_path: Path, embedder: LocalEmbedder) -> None:
    with small_depth(db_path, embedder) as mem:
        mem.add_many([{"text": t} for t in COFFEE + OTHER])
        every = mem.search("coffee beans", k=100, mode="vector")
        assert len(every) == len(COFFEE + OTHER)
        scores = sorted(h.vector_score or 0.0 for h in every)
        bar = scores[len(scores) // 2]
        above = {h.memory.id for h in every if (h.vector_score or 0.0) >= bar}
        assert 0 < len(above) < len(every)
        vector = mem.search("coffee beans", k=100, mode="vector", threshold=bar)
        assert {h.memory.id for h in vector} == above
        hybrid = mem.search("coffee beans", k=100, threshold=bar)
        assert {h.memory.id for h in hybrid} == above
        # every hybrid hit carries its cosine, keyword-only ones included
        loose = mem.search("coffee beans", k=100)
        assert all(h.vector_score is not None for h in loose)
        by_id = {h.memory.id: float(h.vector_score or 0.0) for h in every}
        assert all(h.vector_score is not None for h in every)
        for hit in loose:
            assert hit.vector_score is not None
            assert math.isclose(hit.vector_score, by_id[hit.memory.id], abs_tol=1e-5)
        # threshold before the cut: k=2 still gets two hits above the bar
        assert len(mem.search("coffee beans", k=2, threshold=bar)) == 2
        assert mem.search("coffee beans", threshold=1.0) == []


def test_offset_pages_do_not_overlap(mem_off: Memory) -> None:
    """Pages of k partition the ranking (hybrid: within search.fusion_depth hits, 50 by
    default, the depth of the lists it fuses; vector and keyword: at any depth)."""
    mem_off.add_many([{"text": t} for t in COFFEE + OTHER])
    for mode in ("hybrid", "vector", "keyword"):
        query = "coffee"
        top = [h.memory.id for h in mem_off.search(query, k=9, mode=mode)]
        pages = [
            [h.memory.id for h in mem_off.search(query, k=3, offset=o, mode=mode)]
            for o in (0, 3, 6)
        ]
        flat = [mid for page in pages for mid in page]
        assert len(flat) == len(set(flat)) == len(top) == 9, mode
        assert set(flat) == set(top), mode
        assert pages[0] == [h.memory.id for h in mem_off.search(query, k=3, mode=mode)]
    assert mem_off.search("coffee", k=5, offset=100) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"threshold": "0.5"}, "threshold must be a number, got str"),
        ({"threshold": True}, "threshold must be a number, got bool"),
        ({"threshold": 1.5}, "threshold must be between -1 and 1"),
        ({"threshold": float("nan")}, "threshold must be between -1 and 1"),
        ({"threshold": 0.2, "mode": "keyword"}, "mode='keyword' computes none"),
        ({"offset": -1}, "offset must be an integer between 0 and 10000"),
        ({"offset": 1.0}, "offset must be an integer"),
        ({"offset": True}, "offset must be an integer"),
        ({"offset": 10_001}, "offset must be an integer between 0 and 10000"),
        ({"filters": {"a": {"$regex": "x"}}}, "unknown operator '$regex'"),
    ],
)
def test_bad_search_arguments(mem_off: Memory, kwargs: dict[str, object], message: str) -> None:
    mem_off.add("something to find")
    with pytest.raises(InvalidInput) as err:
        mem_off.search("something", **kwargs)  # type: ignore[arg-type]
    assert message in str(err.value)
    assert mem_off.get(mem_off.list()[0].id).access_count == 0  # nothing was recorded
