"""Memory rows on every backend: CRUD with row versions, listing, counting, transactions."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from helpers.store_records import rec, vec
from memfold.errors import ConflictError, NotFound
from memfold.model import Area, Scope, Status


def test_insert_get_roundtrip_keeps_every_field(store: Any) -> None:
    when = datetime(2024, 5, 1, 12, 30, 15, 123456, tzinfo=UTC)
    original = rec(
        "m1",
        "Alice moved to Lisbon in 2023",
        Scope("u1", "agent", "s1"),
        area=Area.SOLUTIONS,
        importance=0.8,
        created_at=when,
        updated_at=when,
        valid_from=when,
        metadata={"tags": ["move", "city"], "n": 3, "flag": True, "nested": {"k": None}},
        sources=["msg-1", "msg-2"],
        consolidated_from=["old-1"],
        embedding=vec(0.25, -0.5, 1.0, 2.0),
    )
    store.insert_memories([original])
    got = store.get_memory("m1")
    assert got is not None
    assert got.to_dict() == original.to_dict()
    assert got.embedding is not None and got.embedding.dtype == np.float32
    assert original.embedding is not None
    assert np.array_equal(got.embedding, original.embedding)
    assert got.created_at == when
    assert store.get_memory("missing") is None
    assert set(store.get_memories(["m1", "missing", "m1"])) == {"m1"}


def test_put_memory_checks_the_row_version(store: Any) -> None:
    store.insert_memories([rec("m1", "Bob likes tea")])
    first = store.get_memory("m1")
    store.put_memory(first.copy(text="Bob likes green tea", version=2), expected_version=1)
    assert store.get_memory("m1").text == "Bob likes green tea"
    with pytest.raises(ConflictError):
        store.put_memory(first.copy(text="stale write", version=2), expected_version=1)
    assert store.get_memory("m1").text == "Bob likes green tea"
    with pytest.raises(NotFound):
        store.put_memory(rec("nope", "x"), expected_version=1)


def test_a_failed_transaction_writes_nothing(store: Any) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        store.insert_memories([rec("m1", "first")])
        store.set_meta("k", "v")
        with store.transaction():  # nested: joins the outer one
            store.insert_memories([rec("m2", "second")])
        raise RuntimeError("boom")
    assert store.count_memories() == 0
    assert store.get_meta("k") is None
    with store.transaction():
        store.insert_memories([rec("m1", "first")])
    assert store.count_memories() == 1


def test_list_count_iterate_and_find(store: Any) -> None:
    other = Scope("u2")
    records = [rec(f"m{i}", f"memory number {i}") for i in range(5)]
    records.append(rec("x1", "someone else", other, status=Status.SUPERSEDED))
    store.insert_memories(records)
    assert [m.id for m in store.list_memories(Scope("u1"))] == [f"m{i}" for i in range(5)]
    page = store.list_memories(Scope("u1"), limit=2, offset=1)
    assert [m.id for m in page] == ["m1", "m2"]
    assert page[0].embedding is None
    assert store.list_memories(Scope("u1"), limit=1, with_embeddings=True)[0].embedding is not None
    assert store.count_memories() == 6
    assert store.count_memories(other) == 1
    assert store.count_memories(status=Status.SUPERSEDED) == 1
    assert store.list_memories(statuses=[Status.SUPERSEDED])[0].id == "x1"
    assert [m.id for m in store.iter_memories(batch=2)] == [r.id for r in records]
    found = store.find_by_hash(Scope("u1"), records[3].content_hash)
    assert [m.id for m in found] == ["m3"]
    order = store.insertion_order(["m4", "m0", "x1"])
    assert order["m0"] < order["m4"] < order["x1"]


def test_access_counts_leave_version_and_change_feed_alone(store: Any) -> None:
    store.insert_memories([rec("m1", "Carol plays chess")])
    seq = store.max_seq()
    when = datetime.now(UTC)
    store.add_accesses([("m1", 2, when), ("unknown", 1, when)])
    got = store.get_memory("m1")
    assert got.access_count == 2
    assert got.last_access_at is not None
    assert abs((got.last_access_at - when).total_seconds()) < 1e-3
    assert got.version == 1
    assert store.max_seq() == seq


def test_expiries_move_in_place_on_active_memories_only(store: Any) -> None:
    store.insert_memories(
        [rec("m1", "The sale ends tonight"), rec("m2", "Old", status=Status.EXPIRED)]
    )
    seq = store.max_seq()
    later = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    store.set_expiries([("m1", later), ("m2", later), ("unknown", later)])
    got = store.get_memory("m1")
    assert got.expires_at == later and got.version == 1
    assert store.get_memory("m2").expires_at is None  # an expired memory stays expired
    assert store.max_seq() == seq  # no change for the feed, as access counts
    store.set_expiries([("m1", None)])
    assert store.get_memory("m1").expires_at is None


def test_ids_scopes_and_filters(store: Any) -> None:
    a, b = Scope("ann", "bot"), Scope("ann", None, "s9")
    store.insert_memories(
        [
            rec("abc123", "one", a, metadata={"kind": "x"}),
            rec("abd999", "two", a, status=Status.ARCHIVED),
            rec("zzz000", "three", b, metadata={"kind": "y"}),
        ]
    )
    assert store.ids_with_prefix("ab", 10) == ["abc123", "abd999"]
    assert store.ids_with_prefix("abc", 10) == ["abc123"]
    assert store.ids_with_prefix("ab", 1) == ["abc123"]
    counts = store.scope_counts(user_id="ann")
    assert sorted(counts) == sorted([(a.key(), 1, 2), (b.key(), 1, 1)])
    assert store.active_ids_in("ann", None, None) == ["abc123", "zzz000"]
    assert store.active_ids_in(None, "bot", None) == ["abc123"]
    assert store.matching_ids(a, statuses=[Status.ACTIVE, Status.ARCHIVED]) == {
        "abc123",
        "abd999",
    }
    assert store.scope_sizes() == {a.key(): 2, b.key(): 1}
    assert store.embedding_models() == {"test-model:3": 3}


def test_links_and_meta(store: Any) -> None:
    from memfold.model import Link, LinkKind

    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    store.add_links([Link("a", "b", LinkKind.SUPERSEDES, 1.0, t0)])
    store.add_links([Link("a", "b", LinkKind.SUPERSEDES, 0.5, t0 + timedelta(days=1))])
    store.add_links([Link("c", "a", LinkKind.ASSOCIATION, 0.8, t0)])
    links = store.links_for(["a"])
    assert {(lk.src, lk.dst, lk.kind, lk.weight) for lk in links} == {
        ("a", "b", LinkKind.SUPERSEDES, 0.5),
        ("c", "a", LinkKind.ASSOCIATION, 0.8),
    }
    store.remove_links([("a", "b", LinkKind.SUPERSEDES)])
    assert [(lk.src, lk.dst) for lk in store.links_for(["b"])] == []
    assert store.get_meta("x") is None
    store.set_meta("x", "1")
    store.set_meta("x", "2")
    assert store.get_meta("x") == "2"


def test_transactions_take_turns_so_no_update_is_lost(store: Any) -> None:
    """Read then write in one transaction, from two threads at once: the second reads
    what the first wrote (SQLite's BEGIN IMMEDIATE, PostgreSQL's writer lock)."""
    store.insert_memories([rec("a", "v1")])
    barrier = threading.Barrier(2)

    def bump(n: int) -> None:
        barrier.wait()
        with store.transaction():
            current = store.get_memory("a")
            time.sleep(0.2)  # the other thread tries meanwhile
            store.put_memory(current.copy(text=f"{current.text}+{n}", version=current.version + 1))
        store.close_thread()

    threads = [threading.Thread(target=bump, args=(n,)) for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = store.get_memory("a")
    assert final.version == 3
    assert sorted(final.text.split("+")[1:]) == ["1", "2"]
