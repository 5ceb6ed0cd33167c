"""Metadata filters in SQL agree with ``policy.filters.matches``; erasure leaves no row;
a memory's stored reading is replaced and removed with it."""

from __future__ import annotations

from typing import Any

import pytest

from helpers.store_records import rec
from memfold.model import Scope, Status
from memfold.policy import filters

METADATA: list[dict[str, Any]] = [
    {},
    {"n": 1},
    {"n": 1.0},
    {"n": 2.5},
    {"n": "1"},
    {"n": True},
    {"n": None},
    {"tag": "alpha beta", "n": 3},
    {"tag": ["alpha", "gamma", 7, None]},
    {"tag": "Alpha"},
    {"tag": "é", "a.b": "dotted"},
    {"tag": {"nested": "alpha"}},
]
FILTERS: list[dict[str, Any]] = [
    {"n": 1},
    {"n": {"$ne": 1}},
    {"n": True},
    {"n": None},
    {"n": "1"},
    {"n": {"$in": [1, "x", None]}},
    {"n": {"$nin": [1, True]}},
    {"n": {"$gt": 1}},
    {"n": {"$lte": 2.5, "$gte": 1}},
    {"tag": {"$lt": "b"}},
    {"tag": {"$gte": "a"}},
    {"tag": {"$contains": "alpha"}},
    {"tag": {"$contains": 7}},
    {"tag": {"$contains": None}},
    {"a.b": "dotted"},
    {"$or": [{"n": 1}, {"tag": {"$contains": "gamma"}}]},
    {"$and": [{"n": {"$ne": None}}, {"tag": {"$nin": ["x"]}}]},
    {"missing": {"$ne": "x"}},
]


@pytest.mark.parametrize("raw", FILTERS, ids=[str(f) for f in FILTERS])
def test_filters_in_sql_match_the_python_reading(store: Any, raw: dict[str, Any]) -> None:
    scope = Scope("u1")
    store.insert_memories(
        [rec(f"m{i:02d}", f"memory {i}", metadata=m) for i, m in enumerate(METADATA)]
    )
    tree = filters.parse(raw, max_terms=50)
    assert tree is not None
    expected = {f"m{i:02d}" for i, m in enumerate(METADATA) if filters.matches(tree, m)}
    got = store.matching_ids(scope, statuses=[Status.ACTIVE], where=tree)
    assert got == expected


def test_erase_memories_leaves_a_tombstone_and_no_row(store: Any) -> None:
    from memfold.model import Link, LinkKind
    from memfold.store.base import NewLogEntry

    store.insert_memories([rec("a", "secret text"), rec("b", "keeps")])
    store.add_links([Link("a", "b", LinkKind.ASSOCIATION)])
    store.put_readings([("a", "k1", '[["secret","secret","ADJ","JJ","amod",1,0]]')])
    store.enqueue_job("a")
    store.add_feedback("a", "used", "mentions secret text")
    store.record_llm_call(
        task="t",
        role="r",
        model=None,
        prompt_tokens=1,
        completion_tokens=1,
        latency_ms=1,
        outcome="error",
        error="failed on 'secret text'",
    )
    store.queue_pairs(Scope("u1").key(), [("a", "b", 0.9, 1, 1)])
    log_id = store.append_log(
        NewLogEntry(
            path="on_save",
            action="ADD",
            input_ids=["a"],
            output_ids=["a"],
            reasoning="secret text",
            after={"text": "secret text"},
        )
    )
    seq = store.max_seq()
    assert store.log_ids_quoting(["secret text"]) == [log_id]
    assert store.log_ids_touching(["a"]) == [log_id]
    records = list(store.get_memories(["a"]).values())
    removed = store.erase_memories(records, derived=[])
    assert removed["memories"] == 1 and removed["links"] == 1 and removed["jobs"] == 1
    assert removed["readings"] == 1 and store.get_readings(["a"]) == {}
    scrubbed = {"memories": {}, "links": [], "erased": ["a"]}
    assert store.scrub_log_rows({log_id: (scrubbed, scrubbed)}) == 1
    assert store.get_log(log_id).before == scrubbed
    assert store.scrub_free_text(["secret text"]) == 1  # the feedback row went with "a"
    assert store.get_memory("a") is None
    assert store.log_ids_quoting(["secret text"]) == []
    assert store.get_log(log_id).reasoning == ""
    assert store.queue_items() == [] and store.links_for(["a"]) == []
    assert [(r.id, r.deleted) for r in store.changes_since(seq)] == [("a", True)]
    assert set(store.erased_ids(["a", "b"])) == {"a"}
    assert [e["id"] for e in store.list_erasures(Scope("u1"))] == ["a"]
    store.vacuum()
    assert store.count_memories() == 1


def test_a_stored_reading_is_replaced_and_goes_with_its_memory(store: Any) -> None:
    store.insert_memories([rec("a", "Ana moved."), rec("b", "Leo stays.")])
    store.put_readings([("a", "k1", "[1]"), ("b", "k1", "[2]")])
    store.put_readings([("a", "k2", "[3]")])
    assert store.get_readings(["a", "b", "a", "zz"]) == {"a": ("k2", "[3]"), "b": ("k1", "[2]")}
    store.delete_memory_row("a")
    assert store.get_readings(["a", "b"]) == {"b": ("k1", "[2]")}
