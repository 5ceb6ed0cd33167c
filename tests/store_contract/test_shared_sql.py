"""The shared SQL (store/sql/): each dialect's spellings, and the behaviours the shared
tables must keep on both backends where the old per-backend code differed in how."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memfold.policy.summary_parts import NewSummaryPart, PartKind
from memfold.store.postgres.dialect import POSTGRES
from memfold.store.sqlite.dialect import SQLITE


def test_postgres_parameters_outside_quotes_only() -> None:
    sql = "SELECT '?', x FROM t WHERE a = ? AND b LIKE 'a%' AND c = ? AND d % 2 = 0"
    assert POSTGRES.sql(sql) == (
        "SELECT '?', x FROM t WHERE a = %s AND b LIKE 'a%' AND c = %s AND d %% 2 = 0"
    )
    assert SQLITE.sql(sql) == sql


def test_a_list_parameter() -> None:
    assert SQLITE.any_of("id", [1, 2, 3]) == ("id IN (?,?,?)", [1, 2, 3])
    assert POSTGRES.any_of("id", (1, 2)) == ("id = ANY(?)", [[1, 2]])


def test_chunks_bound_sqlite_lists_only() -> None:
    values = list(range(1201))
    assert [len(c) for c in SQLITE.chunks(values)] == [500, 500, 201]
    assert [len(c) for c in POSTGRES.chunks(values)] == [1201]
    assert list(SQLITE.chunks([])) == [] and list(POSTGRES.chunks([])) == []


def test_a_pair_given_twice_is_queued_once_at_its_first_values(store: Any) -> None:
    key = "u:alice"
    pairs = [("b", "a", 0.9, 2, 1), ("a", "b", 0.7, 5, 5), ("a", "c", 0.8, 1, 1)]
    assert store.queue_pairs(key, pairs) == 2
    item = store.queue_item_for_pair("a", "b")
    assert (item.similarity, item.version_a, item.version_b) == (0.9, 1, 2)
    store.set_queue_status(item.id, "dropped")
    again = [("a", "b", 0.6, 3, 3), ("b", "a", 0.5, 4, 4)]
    assert store.queue_pairs(key, again) == 1  # re-opened once, at the first values
    item = store.queue_item_for_pair("a", "b")
    assert (item.status, item.similarity, item.version_a) == ("pending", 0.6, 3)
    assert store.queue_pairs(key, []) == 0


def test_erasing_more_sessions_than_one_list_holds(store: Any) -> None:
    now = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    keys = [f"u:ana|s:{n}" for n in range(501)]  # past SQLite's 500 values a list
    with store.transaction():
        for key in keys:
            store.append_summary_part(key, NewSummaryPart(PartKind.SUMMARY, "gist", 0, 1), now)
    assert store.delete_transcripts([*keys, keys[0]]) == 501  # a key given twice counts once
    assert store.transcript_sessions() == []
    assert store.delete_transcripts([]) == 0
