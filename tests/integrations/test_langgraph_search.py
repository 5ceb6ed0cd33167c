"""MemfoldStore's query search as LangGraph defines it (issue 30): items not indexed are
never ranked, an item matches on any one of its indexed fields, scores are cosines that
fall page after page, pages never repeat an item, and filters take dotted paths and
infinite bounds. On a real store file (and PostgreSQL), with LangChain's deterministic
fake embeddings: one text, one pseudo-random vector, so a field equal to the query has
cosine 1 and unrelated texts about 0."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from memfold.errors import InvalidInput
from memfold.integrations.langgraph import MemfoldStore
from memfold.integrations.langgraph.config import MemfoldStoreConfig
from memfold.integrations.langgraph.embed import LangChainEmbedder
from memfold.integrations.langgraph.filters import split_filter
from memfold.memory import Memory

DIMS = 64


def _where(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> dict[str, Any]:
    if backend == "postgres":
        return {"url": request.getfixturevalue("pg_url")}
    return {"path": tmp_path / "lg.db"}


@pytest.fixture
def fake() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=DIMS)


@pytest.fixture
def mem(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path, fake: DeterministicFakeEmbedding
) -> Iterator[Memory]:
    embedder = LangChainEmbedder(fake, DIMS)
    with Memory(**_where(request, backend, tmp_path), embedder=embedder, consolidate="sync") as m:
        yield m


@pytest.fixture
def store(mem: Memory) -> MemfoldStore:
    return MemfoldStore(mem)


def _cosine(fake: DeterministicFakeEmbedding, a: str, b: str) -> float:
    va, vb = (np.asarray(v) for v in fake.embed_documents([a, b]))
    return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb)))


def test_items_put_with_index_false_are_never_ranked_by_a_query(store: MemfoldStore) -> None:
    ns = ("docs",)
    store.put(ns, "hidden", {"text": "apples and pears"}, index=False)
    store.put(ns, "shown", {"text": "apples and pears"})
    store.put(ns, "car", {"text": "a red car"})
    # the same words as the query, yet below every indexed item, with no score
    hits = store.search(ns, query="apples and pears", limit=10)
    assert [h.key for h in hits] == ["shown", "car", "hidden"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5) and hits[2].score is None
    assert [h.key for h in store.search(ns, query="apples and pears", limit=2)] == ["shown", "car"]
    assert [h.key for h in store.search(ns, query="apples", limit=5, offset=2)] == ["hidden"]
    # get and list still see it
    item = store.get(ns, "hidden")
    assert item is not None and item.value == {"text": "apples and pears"}
    assert {i.key for i in store.search(ns)} == {"hidden", "shown", "car"}
    # indexed again by a later put, and the other way round
    store.put(ns, "hidden", {"text": "apples and pears"})
    store.put(ns, "shown", {"text": "apples and pears"}, index=False)
    hits = store.search(ns, query="apples and pears", limit=10)
    assert [h.key for h in hits] == ["hidden", "car", "shown"] and hits[2].score is None


def test_an_item_matches_on_any_one_of_its_indexed_fields(
    store: MemfoldStore, mem: Memory, fake: DeterministicFakeEmbedding
) -> None:
    ns = ("trips",)
    paris = {"title": "weekend in paris", "food": "croissants", "notes": "rainy days"}
    store.put(ns, "paris", paris, index=["title", "food"])
    store.put(ns, "rome", {"text": "a week in rome"})
    for query in ("weekend in paris", "croissants"):
        hits = store.search(ns, query=query)
        assert hits[0].key == "paris" and hits[0].score == pytest.approx(1.0, abs=1e-5)
    # memfold's one vector per memory is of the joined fields: alone it would miss
    joined = mem.search("croissants", user_id="trips", agent_id="langgraph", mode="vector")
    cosine = {h.memory.metadata["_lg_key"]: h.vector_score for h in joined}["paris"]
    assert cosine is not None and cosine < 0.5
    # a field that is not indexed scores as an unrelated text does
    (hit,) = [h for h in store.search(ns, query="rainy days") if h.key == "paris"]
    assert hit.score is not None and hit.score < 0.5
    assert hit.score == pytest.approx(
        max(_cosine(fake, "rainy days", t) for t in ("weekend in paris", "croissants")), abs=1e-5
    )


def test_store_fields_list_paths_and_shared_fields(mem: Memory) -> None:
    store = MemfoldStore(mem, fields=["name", "tags[*]"])
    ns = ("people",)
    store.put(ns, "ann", {"name": "ann lee", "tags": ["chess club", "violin"], "age": 40})
    store.put(ns, "bob", {"name": "bob ray", "tags": ["violin"], "age": 30})
    store.put(ns, "cat", {"age": 50})  # no text at the paths: not indexed
    hits = store.search(ns, query="violin")
    assert {h.key for h in hits[:2]} == {"ann", "bob"}
    assert hits[0].score == hits[1].score == pytest.approx(1.0, abs=1e-5)
    assert hits[2].key == "cat" and hits[2].score is None
    assert store.search(ns, query="chess club")[0].key == "ann"
    assert store.index_config["fields"] == ["name", "tags[*]"]
    assert store.index_config["dims"] == DIMS


def test_query_pages_never_repeat_and_scores_fall(store: MemfoldStore) -> None:
    words = ["river", "stone", "cloud", "ember", "maple", "frost", "harbor", "meadow"]
    for team in ("a", "b", "c"):
        for n, word in enumerate(words):
            store.put(("docs", team), f"{team}{n}", {"text": f"{word} report {team} {n}"})
    for prefix in (("docs",), ("docs", "b")):
        everything = store.search(prefix, query="river report", limit=100)
        pages = [
            store.search(prefix, query="river report", limit=5, offset=offset)
            for offset in range(0, len(everything), 5)
        ]
        flat = [h for page in pages for h in page]
        assert [(h.namespace, h.key) for h in flat] == [(h.namespace, h.key) for h in everything]
        assert (
            len({(h.namespace, h.key) for h in flat})
            == len(flat)
            == 8 * (3 if len(prefix) == 1 else 1)
        )
        scores = [h.score for h in flat]
        assert all(s is not None for s in scores)
        assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]


def test_scores_are_the_cosine_to_the_query(
    store: MemfoldStore, fake: DeterministicFakeEmbedding
) -> None:
    texts = {"a": "short text", "b": "a longer text document", "c": "something else entirely"}
    for key, text in texts.items():
        store.put(("s",), key, {"text": text})
    for query in ("short text", "document", "poisson"):
        for hit in store.search(("s",), query=query):
            assert hit.score == pytest.approx(_cosine(fake, query, texts[hit.key]), abs=1e-5)


def test_dotted_filter_paths_reach_nested_values(store: MemfoldStore) -> None:
    ns = ("users",)
    store.put(ns, "ann", {"text": "ann", "user": {"access-level": "admin", "team": {"id": 7}}})
    store.put(ns, "bob", {"text": "bob", "user": {"access-level": "guest"}})
    store.put(ns, "dot", {"text": "dot", "user.access-level": "admin", "user": "flat"})
    assert {i.key for i in store.search(ns, filter={"user.access-level": "admin"})} == {
        "ann",
        "dot",  # a top-level key holding the dot wins over the path
    }
    assert [i.key for i in store.search(ns, filter={"user.team.id": 7})] == ["ann"]
    assert [i.key for i in store.search(ns, filter={"user.team.id": {"$gt": 6}})] == ["ann"]
    assert store.search(ns, filter={"user.missing.deeper": 1}) == []
    hits = store.search(ns, query="bob", filter={"user.access-level": {"$ne": "admin"}})
    assert [h.key for h in hits] == ["bob"]


def test_infinite_huge_and_unstorable_bounds(store: MemfoldStore) -> None:
    ns = ("items",)
    for key, price in (("a", 10), ("b", 20.5), ("c", -3)):
        store.put(ns, key, {"text": f"item {key}", "price": price})
    store.put(ns, "d", {"text": "item d", "price": "n/a"})

    def keys(flt: dict[str, Any], query: str | None = None) -> set[str]:
        return {i.key for i in store.search(ns, query=query, filter=flt)}

    assert keys({"price": {"$lt": math.inf}}) == {"a", "b", "c"}
    assert keys({"price": {"$gt": -math.inf}}, query="item") == {"a", "b", "c"}
    assert keys({"price": {"$gt": math.inf}}) == set()
    assert keys({"price": {"$lte": 10**100}}) == {"a", "b", "c"}
    assert keys({"price": {"$gt": -(10**100), "$lt": 10**100 + 1}}) == {"a", "b", "c"}
    assert keys({"price": {"$eq": math.nan}}) == set()
    assert keys({"price": {"$ne": math.nan}}) == {"a", "b", "c", "d"}
    assert keys({"price": "n/a\x00' OR 1=1"}) == set()  # NUL: matches nothing, no error
    assert keys({"price": 10**30}) == set()
    with pytest.raises(InvalidInput, match="reserved"):
        store.search(ns, filter={"_lg_key": "a"})


def test_none_matches_a_missing_key_as_langgraph_reads_it(store: MemfoldStore) -> None:
    ns = ("n",)
    store.put(ns, "null", {"text": "t", "k": None})
    store.put(ns, "absent", {"text": "t"})
    store.put(ns, "set", {"text": "t", "k": 1})
    assert {i.key for i in store.search(ns, filter={"k": None})} == {"null", "absent"}
    assert {i.key for i in store.search(ns, filter={"k": {"$ne": None}})} == {"set"}
    assert {i.key for i in store.search(ns, filter={"k": {"$ne": 1}})} == {"null", "absent"}


def test_which_terms_memfold_runs_before_the_top_k() -> None:
    pushed, after = split_filter(
        {
            "a": "x",
            "b": {"$gte": 2, "$lt": 9.5},
            "c": True,
            "d.e": 1,
            "f": {"$lt": math.inf},
            "g": None,
            "h": 2**70,
            "i": "nul\x00",
            "j": {"k": 1},
            "l": [1, 2],
            "m": {"$gt": "b"},
        }
    )
    assert pushed == {"a": "x", "b": {"$gte": 2, "$lt": 9.5}, "c": True}
    assert set(after) == {"d.e", "f", "g", "h", "i", "j", "l", "m"}
    with pytest.raises(InvalidInput, match="operator"):
        split_filter({"a": {"$in": [1]}})


def test_langchain_embedder_checks_and_normalizes(fake: DeterministicFakeEmbedding) -> None:
    embedder = LangChainEmbedder(fake, DIMS)
    rows = embedder.embed(["one", "two"])
    assert rows.shape == (2, DIMS) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, DIMS)
    assert embedder.model_id == f"langchain:DeterministicFakeEmbedding:{DIMS}"
    with pytest.raises(InvalidInput, match="shape"):
        LangChainEmbedder(fake, DIMS + 1).embed(["one"])
    with pytest.raises(InvalidInput, match="dims"):
        LangChainEmbedder(fake, 0)


def test_store_config_is_checked() -> None:
    with pytest.raises(InvalidInput, match="rerank_pool"):
        MemfoldStoreConfig(rerank_pool=0)
    with pytest.raises(InvalidInput, match="sweep_interval_minutes"):
        MemfoldStoreConfig(sweep_interval_minutes=math.nan)
