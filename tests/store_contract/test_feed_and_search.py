"""Change feed and keyword search on every backend."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from helpers.store_records import rec, vec
from memfold.index.bm25 import Bm25Params
from memfold.model import Scope, Status


def test_change_feed_reports_inserts_updates_and_deletes_in_order(store: Any) -> None:
    assert store.max_seq() == 0
    store.insert_memories([rec("a", "alpha"), rec("b", "beta", Scope("u2"))])
    first = store.max_seq()
    rows = list(store.changes_since(0))
    assert [r.id for r in rows] == ["a", "b"]
    assert rows[0].seq < rows[1].seq == first
    assert np.array_equal(rows[0].embedding, vec(1.0, 0.0, 0.0))
    store.put_memory(store.get_memory("a").copy(status=Status.SUPERSEDED, version=2))
    later = list(store.changes_since(first))
    assert [(r.id, r.status) for r in later] == [("a", Status.SUPERSEDED)]
    store.delete_memory_row("b")
    gone = list(store.changes_since(later[-1].seq))
    assert [(r.id, r.deleted) for r in gone] == [("b", True)]
    assert store.max_seq() == gone[-1].seq


def test_feed_and_scope_rows_stream_past_one_batch(store: Any) -> None:
    mine = [rec(f"m{i:04d}", f"text {i}", embedding=vec(1.0, float(i), 0.0)) for i in range(2500)]
    store.insert_memories([*mine, rec("other", "elsewhere", Scope("u2"))])
    rows = list(store.changes_since(0))
    assert len(rows) == 2501 and len({r.seq for r in rows}) == 2501
    assert [r.seq for r in rows] == sorted(r.seq for r in rows)
    assert np.array_equal(rows[2499].embedding, vec(1.0, 2499.0, 0.0))
    store.delete_memory_row("m0005")
    size, stream = store.index_rows(Scope("u1").key())
    scope_rows = list(stream)
    assert size == len(scope_rows) == 2499
    assert {r.id for r in scope_rows} == {r.id for r in mine} - {"m0005"}
    assert all(r.scope_key == Scope("u1").key() for r in scope_rows)


def test_keyword_search_stays_in_its_scope(store: Any) -> None:
    mine, theirs = Scope("u1"), Scope("u2")
    store.insert_memories(
        [
            rec("a", "Dana keeps bees in the garden", mine),
            rec("b", "Dana sold the bees", theirs),
            rec("c", "The garden has roses", mine),
            rec("d", "Old note about bees", mine, status=Status.ARCHIVED),
        ]
    )
    for bm25 in (None, Bm25Params(k1=1.2, b=0.3, pool=100)):
        hits = store.keyword_search(mine, "bees?", 10, statuses=[Status.ACTIVE], bm25=bm25)
        assert [h[0] for h in hits] == ["a"], bm25
        both = store.keyword_search(
            mine, "garden bees", 10, statuses=[Status.ACTIVE, Status.ARCHIVED], bm25=bm25
        )
        assert set(h[0] for h in both) == {"a", "c", "d"}
        assert both[0][0] == "a"  # both words beat one
        assert all(x[1] <= y[1] for x, y in itertools.pairwise(both))  # lower first
        filtered = store.keyword_search(
            mine, "garden", 10, statuses=[Status.ACTIVE], where=None, bm25=bm25
        )
        assert {h[0] for h in filtered} == {"a", "c"}
    assert store.keyword_search(mine, "the of and", 10, statuses=[Status.ACTIVE]) == []
    assert store.keyword_search(mine, "'\"):*&|!", 10, statuses=[Status.ACTIVE]) == []


def test_the_feed_orders_deletes_and_reinserts_by_change_number(store: Any) -> None:
    """A memory deleted then written again (an undo, then the undo of that undo) is live
    at the end of the feed: rows and tombstones come in one change order."""
    store.insert_memories([rec("a", "first"), rec("b", "other")])
    store.delete_memory_row("a")
    store.insert_memories([rec("a", "back again")])
    feed = [(r.id, r.deleted) for r in store.changes_since(0)]
    assert feed == [("b", False), ("a", True), ("a", False)]
    seqs = [r.seq for r in store.changes_since(0)]
    assert seqs == sorted(seqs)
