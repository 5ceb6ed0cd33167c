"""MemfoldStore against LangGraph's BaseStore semantics. The semantic tests run on
LangGraph's own InMemoryStore too, as the reference: both must give the same answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore, GetOp, Item, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from memfold.embed.local import LocalEmbedder
from memfold.errors import InvalidInput
from memfold.integrations.langgraph import MemfoldStore
from memfold.memory import Memory
from memfold.model import Status


def _where(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> dict[str, Any]:
    """The test's store: a SQLite file, or a PostgreSQL schema."""
    if backend == "postgres":
        return {"url": request.getfixturevalue("pg_url")}
    return {"path": tmp_path / "lg.db"}


@pytest.fixture
def memfold_store(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path, embedder: LocalEmbedder
) -> Iterator[MemfoldStore]:
    # consolidation on: puts must still keep every key addressable
    where = _where(request, backend, tmp_path)
    with Memory(**where, embedder=embedder, consolidate="sync") as mem:
        yield MemfoldStore(mem)


@pytest.fixture(params=["memfold", "memfold-postgres", "reference"])
def store(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: LocalEmbedder
) -> Iterator[BaseStore]:
    if request.param == "reference":
        yield InMemoryStore()
        return
    backend = "postgres" if request.param == "memfold-postgres" else "sqlite"
    where = _where(request, backend, tmp_path)
    with Memory(**where, embedder=embedder, consolidate="sync") as mem:
        yield MemfoldStore(mem)


def test_put_get_overwrite_and_delete(store: BaseStore) -> None:
    ns = ("users", "alice")
    store.put(ns, "food", {"text": "Alice is vegetarian", "kind": "diet"})
    item = store.get(ns, "food")
    assert item is not None and item.value == {"text": "Alice is vegetarian", "kind": "diet"}
    assert item.key == "food" and item.namespace == ns
    created = item.created_at
    store.put(ns, "food", {"text": "Alice is vegan", "kind": "diet"})
    again = store.get(ns, "food")
    assert again is not None and again.value["text"] == "Alice is vegan"
    assert again.updated_at >= created
    store.put(ns, "food", {"text": "Alice eats fish"})  # a key dropped from the value
    third = store.get(ns, "food")
    assert third is not None and third.value == {"text": "Alice eats fish"}
    assert store.get(("users", "bob"), "food") is None
    store.delete(ns, "food")
    assert store.get(ns, "food") is None
    assert store.search(ns) == []


def test_same_fact_under_two_keys_stays_two_items(store: BaseStore) -> None:
    ns = ("users", "alice")
    store.put(ns, "a", {"text": "Alice lives in Lyon"})
    store.put(ns, "b", {"text": "Alice lives in Lyon"})  # a duplicate, consolidation on
    assert store.get(ns, "a") is not None and store.get(ns, "b") is not None
    assert sorted(i.key for i in store.search(ns)) == ["a", "b"]


def test_search_by_prefix_filter_limit_and_offset(store: BaseStore) -> None:
    for n in range(6):
        ns = ("docs", "team-a" if n % 2 else "team-b")
        store.put(ns, f"k{n}", {"text": f"report number {n}", "n": n, "tag": {"lang": "en"}})
    store.put(("other",), "x", {"text": "unrelated", "n": 1})
    everything = store.search(("docs",), limit=10)
    assert len(everything) == 6
    assert {i.key for i in store.search(("docs", "team-a"))} == {"k1", "k3", "k5"}
    assert {i.key for i in store.search((), filter={"n": 1})} == {"k1", "x"}
    big = store.search(("docs",), filter={"n": {"$gte": 3}})
    assert {i.key for i in big} == {"k3", "k4", "k5"}
    assert {i.key for i in store.search(("docs",), filter={"n": {"$ne": 0}})} == {
        "k1",
        "k2",
        "k3",
        "k4",
        "k5",
    }
    assert len(store.search(("docs",), filter={"tag": {"lang": "en"}})) == 6  # nested match
    assert store.search(("docs",), filter={"tag": {"lang": "fr"}}) == []
    first = store.search(("docs",), limit=4)
    second = store.search(("docs",), limit=4, offset=4)
    assert len(first) == 4 and len(second) == 2
    assert not {i.key for i in first} & {i.key for i in second}


def test_list_values_and_operators_checked_after_the_query(store: BaseStore) -> None:
    ns = ("docs",)
    store.put(ns, "a", {"text": "alpha", "tags": ["x", "y"], "n": 2, "meta": {"v": 1}})
    store.put(ns, "b", {"text": "beta", "tags": ["y"], "n": 5, "meta": {"v": 2}})
    assert [i.key for i in store.search(ns, filter={"tags": ["x", "y"]})] == ["a"]
    assert [i.key for i in store.search(ns, filter={"tags": {"$eq": ["y"]}})] == ["b"]
    assert [i.key for i in store.search(ns, filter={"tags": {"$ne": ["y"]}})] == ["a"]
    assert store.search(ns, filter={"tags": ["y", "x"]}) == []  # lists match in order
    both = {"meta": {"v": 2}, "n": {"$gt": 3, "$lte": 5}}
    assert [i.key for i in store.search(ns, query="beta", filter=both)] == ["b"]
    assert store.search(ns, query="beta", limit=0) == [] and store.search(ns, limit=0) == []


def test_a_batch_reads_the_store_as_it_was_then_applies_its_puts(store: BaseStore) -> None:
    ns = ("b",)
    store.put(ns, "k", {"text": "old"})
    results = store.batch(
        [
            PutOp(ns, "k", {"text": "first"}),
            GetOp(ns, "k"),
            PutOp(ns, "new", {"text": "new one"}),
            SearchOp(ns),
            PutOp(ns, "k", {"text": "last"}),
        ]
    )
    got, listed = results[1], results[3]
    assert isinstance(got, Item) and got.value == {"text": "old"}
    assert isinstance(listed, list) and [i.key for i in listed if isinstance(i, Item)] == ["k"]
    item = store.get(ns, "k")
    assert item is not None and item.value == {"text": "last"}
    assert store.get(ns, "new") is not None


def test_list_namespaces_prefix_suffix_wildcards_depth(store: BaseStore) -> None:
    for ns in [("a", "b", "c"), ("a", "b", "d"), ("a", "x", "c"), ("z", "b")]:
        store.put(ns, "k", {"text": "t"})
    assert store.list_namespaces() == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "x", "c"),
        ("z", "b"),
    ]
    assert store.list_namespaces(prefix=("a", "b")) == [("a", "b", "c"), ("a", "b", "d")]
    assert store.list_namespaces(suffix=("c",)) == [("a", "b", "c"), ("a", "x", "c")]
    assert store.list_namespaces(prefix=("a", "*", "c")) == [("a", "b", "c"), ("a", "x", "c")]
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "x"), ("z", "b")]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "d"), ("a", "x", "c")]
    store.delete(("z", "b"), "k")
    assert ("z", "b") in store.list_namespaces()  # a namespace, once used, stays listed


async def test_async_twins(store: BaseStore) -> None:
    ns = ("users", "carol")
    await store.aput(ns, "pet", {"text": "Carol has a cat named Mango"})
    item = await store.aget(ns, "pet")
    assert item is not None and item.value["text"].endswith("Mango")
    assert [i.key for i in await store.asearch(("users",))] == ["pet"]
    assert await store.alist_namespaces(prefix=("users",)) == [ns]
    await store.adelete(ns, "pet")
    assert await store.aget(ns, "pet") is None


def test_query_search_ranks_by_meaning_with_cosine_scores(memfold_store: MemfoldStore) -> None:
    ns = ("users", "dana")
    memfold_store.put(ns, "diet", {"text": "Dana is allergic to peanuts"})
    memfold_store.put(ns, "car", {"text": "Dana drives a blue Volvo"})
    memfold_store.put(("users", "eve"), "diet", {"text": "Eve is allergic to shellfish"})
    hits = memfold_store.search(("users", "dana"), query="what food allergy does Dana have?")
    assert hits[0].key == "diet"
    assert all(h.score is not None and -1.0 <= h.score <= 1.0 for h in hits)
    assert {h.namespace for h in hits} == {ns}
    own = memfold_store.memory.search(
        "what food allergy does Dana have?", user_id="users/dana", agent_id="langgraph"
    )
    # memfold's hybrid hits, ordered by their cosine to the query (LangGraph's score)
    cosine = {h.memory.metadata["_lg_key"]: h.vector_score for h in own}
    assert [(h.key, h.score) for h in hits] == sorted(
        cosine.items(), key=lambda kv: -(kv[1] or 0.0)
    )
    both = memfold_store.search(("users",), query="peanut or shellfish allergy", limit=2)
    assert {h.namespace for h in both} == {("users", "dana"), ("users", "eve")}


def test_query_pages_never_repeat_an_item(memfold_store: MemfoldStore) -> None:
    # LangGraph's own pagination test: five texts alike but for a number, pages of two
    for i in range(5):
        memfold_store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    pages = [
        [h.key for h in memfold_store.search(("test",), query="test", limit=2, offset=offset)]
        for offset in (0, 2, 4)
    ]
    assert [len(p) for p in pages] == [2, 2, 1]
    assert sorted(k for page in pages for k in page) == [f"doc{i}" for i in range(5)]
    assert memfold_store.search(("test",), query="test", limit=0, offset=2) == []


def test_index_paths_choose_the_text_that_is_searched(memfold_store: MemfoldStore) -> None:
    ns = ("trips",)
    value = {"title": "Weekend in Paris", "notes": {"food": "croissants"}, "text": "ignored"}
    memfold_store.put(ns, "t", value, index=["title", "notes.food"])
    memfold_store.put(ns, "u", {"text": "plain text field"})
    memfold_store.put(ns, "v", {"text": "kept as is"}, index=False)  # stored, not ranked
    texts = {
        r.metadata["_lg_key"]: r.text
        for r in memfold_store.memory.list(user_id="trips", agent_id="langgraph")
    }
    assert texts == {
        "t": "Weekend in Paris\ncroissants",
        "u": "plain text field",
        "v": "kept as is",
    }
    item = memfold_store.get(ns, "t")
    assert item is not None and item.value == value  # the value is untouched


def test_items_are_memories_with_history_and_undo(memfold_store: MemfoldStore) -> None:
    mem = memfold_store.memory
    ns = ("users", "alice")
    memfold_store.put(ns, "city", {"text": "Alice lives in Lyon"})
    memfold_store.put(ns, "city", {"text": "Alice lives in Berlin"})
    record = mem.list(user_id="users/alice", agent_id="langgraph")[0]
    assert record.text == "Alice lives in Berlin" and record.version == 2
    memfold_store.delete(ns, "city")
    assert mem.get(record.id).status is Status.ARCHIVED  # soft: undoable
    undo_id = mem.history(record.id)[-1].id
    mem.undo(undo_id)
    item = memfold_store.get(ns, "city")
    assert item is not None and item.value["text"] == "Alice lives in Berlin"


def test_bad_input_is_refused_and_changes_nothing(memfold_store: MemfoldStore) -> None:
    ns = ("users", "alice")
    with pytest.raises(InvalidInput, match="reserved"):
        memfold_store.put(ns, "k", {"_lg_key": "x", "text": "t"})
    with pytest.raises(InvalidInput, match="holds '/'"):
        memfold_store.put(("a/b",), "k", {"text": "t"})
    with pytest.raises(InvalidInput, match="operator"):
        memfold_store.search(ns, filter={"n": {"$regex": "x"}})
    with pytest.raises(InvalidInput, match="operator"):
        memfold_store.search(ns, filter={"n": {"$in": [1, 2]}})  # not LangGraph's syntax
    with pytest.raises(InvalidInput, match="limit and offset"):
        memfold_store.search(ns, limit=-1)
    # issue 27: a value nested 5,000 levels deep, with no text field, was a RecursionError
    # (its text is the value as JSON); 40 levels, a lone surrogate, NUL were stored
    deep: dict[str, Any] = {"leaf": 1}
    for levels in range(5000):
        deep = {"a": deep}
        if levels in (40, 4999):
            with pytest.raises(InvalidInput, match="item value nests deeper than 32 levels"):
                memfold_store.put(ns, "deep", {"v": deep})
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        memfold_store.put(ns, "k", {"text": "t", "\ud800": 1})
    with pytest.raises(InvalidInput, match="NUL"):
        memfold_store.put(ns, "k", {"text": "t", "n": "a\x00b"})
    assert memfold_store.search(()) == [] and memfold_store.list_namespaces() == []


async def test_compiled_graphs_read_and_write_through_the_store(
    memfold_store: MemfoldStore,
) -> None:
    ns, question = ("users", "zoe"), "what is the name of the parrot Zoe has?"

    def remember(state: MessagesState, *, store: BaseStore) -> dict[str, Any]:
        text = str(state["messages"][-1].content)
        store.put(ns, text.split()[-1].lower(), {"text": text})
        hits = store.search(ns, query=question, limit=1)
        return {"messages": [AIMessage(hits[0].value["text"])]}

    async def aremember(state: MessagesState, *, store: BaseStore) -> dict[str, Any]:
        text = str(state["messages"][-1].content)
        await store.aput(ns, text.split()[-1].lower(), {"text": text})
        hits = await store.asearch(ns, query=question, limit=1)
        return {"messages": [AIMessage(hits[0].value["text"])]}

    def compiled(node: Any) -> Any:
        graph = StateGraph(MessagesState)
        graph.add_node("remember", node)
        graph.add_edge(START, "remember")
        return graph.compile(store=memfold_store)

    first = compiled(remember).invoke({"messages": [HumanMessage("Zoe has a parrot named Kiwi")]})
    assert first["messages"][-1].content == "Zoe has a parrot named Kiwi"
    second = await compiled(aremember).ainvoke({"messages": [HumanMessage("Zoe likes jazz")]})
    assert second["messages"][-1].content == "Zoe has a parrot named Kiwi"
    assert sorted(i.key for i in memfold_store.search(ns)) == ["jazz", "kiwi"]
