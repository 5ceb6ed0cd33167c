"""Audit log, review queue, feedback, review runs and LLM usage on every backend."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from helpers.store_records import rec
from memfold.model import PairLabel, ReviewRun, Scope, Status
from memfold.store.base import NewLogEntry


def test_log_rows_and_undo_marks(store: Any) -> None:
    first = store.append_log(
        NewLogEntry(
            path="on_save",
            action="MERGE",
            input_ids=["a", "b"],
            output_ids=["c"],
            similarity=0.93,
            reasoning="same fact",
            before={"memories": {"a": {"text": "ü"}}},
            after={"memories": {"c": {}}},
        )
    )
    second = store.append_log(
        NewLogEntry(path="on_save", action="UPDATE", input_ids=["c"], output_ids=["c"])
    )
    third = store.append_log(
        NewLogEntry(path="undo", action="UNDO", input_ids=["c"], output_ids=[], undoes=second)
    )
    entry = store.get_log(first)
    assert (entry.action, entry.input_ids, entry.output_ids) == ("MERGE", ["a", "b"], ["c"])
    assert entry.before == {"memories": {"a": {"text": "ü"}}}
    assert entry.similarity == 0.93 and entry.undone_by is None
    assert [e.id for e in store.list_log(limit=2)] == [third, second]
    assert [e.id for e in store.list_log(memory_id="a")] == [first]
    assert [e.id for e in store.logs_after_touching(first, ["c"])] == [second]
    store.mark_log_undone(second, third)
    assert store.get_log(second).undone_by == third
    assert store.logs_after_touching(first, ["c"]) == []
    assert store.list_log(since=datetime.now(UTC) + timedelta(hours=1)) == []
    assert store.get_log(999) is None


def test_queue_pairs_classify_and_summarise(store: Any) -> None:
    scope = Scope("u1")
    store.insert_memories([rec("a", "one"), rec("b", "two"), rec("c", "three")])
    key = scope.key()
    start = datetime.now(UTC) - timedelta(seconds=1)
    assert store.queue_pairs(key, [("b", "a", 0.9, 2, 1), ("a", "c", 0.85, 1, 1)]) == 2
    assert store.queue_pairs(key, [("a", "b", 0.95, 1, 1)]) == 0  # known, not dropped
    item = store.queue_item_for_pair("b", "a")
    assert (item.memory_a, item.memory_b, item.version_a, item.version_b) == ("a", "b", 1, 2)
    store.classify_queue_item(item.id, PairLabel.DUPLICATE, 0.91, "same", None)
    got = store.get_queue_item(item.id)
    assert (got.status, got.label, got.confidence) == ("classified", PairLabel.DUPLICATE, 0.91)
    store.set_queue_status(item.id, "held", note="breaker", proposal={"text": "x"})
    held = store.get_queue_item(item.id)
    assert (held.status, held.note, held.proposal) == ("held", "breaker", {"text": "x"})
    assert held.processed_at is not None
    other = store.queue_item_for_pair("a", "c")
    store.set_queue_status(other.id, "dropped")
    assert store.queue_pairs(key, [("c", "a", 0.88, 3, 4)]) == 1  # a dropped pair re-opens
    reopened = store.get_queue_item(other.id)
    assert (reopened.status, reopened.similarity, reopened.version_a) == ("pending", 0.88, 4)
    assert [i.id for i in store.queue_items(statuses=["pending"], scope_key=key)] == [other.id]
    assert [i.id for i in store.queue_items(label=PairLabel.DUPLICATE)] == [item.id]
    assert store.queue_items(ids=[]) == []
    assert store.queue_items(limit=1)[0].id == item.id
    counts = store.queue_counts()
    assert counts == {"by_status": {"held": 1, "pending": 1}, "by_label": {"DUPLICATE": 1}}
    summary = store.queue_summary(start)
    assert summary["queued"] == 2 and summary["ended"] == {"held": 1}
    store.put_memory(store.get_memory("c").copy(status=Status.SUPERSEDED, version=2))
    assert store.memories_queued_since(key, start) == (3, 1)
    assert store.active_versions(key) == {"a": 1, "b": 1}
    store.reopen_queue_item(item.id, 5, 6, "changed")
    again = store.get_queue_item(item.id)
    assert (again.status, again.label, again.version_a, again.note) == (
        "pending",
        None,
        5,
        "changed",
    )


def test_feedback_runs_and_usage(store: Any) -> None:
    start = datetime.now(UTC) - timedelta(seconds=1)
    store.add_feedback("m1", "used", None)
    store.add_feedback("m1", "used", "ctx")
    store.add_feedback("m2", "ignored", None)
    assert store.feedback_total() == 3
    assert store.feedback_total(datetime.now(UTC) + timedelta(hours=1)) == 0
    assert store.feedback_counts(["m1"]) == {"m1": {"used": 2}}
    assert store.feedback_counts() == {"m1": {"used": 2}, "m2": {"ignored": 1}}
    store.mark_feedback_applied("m1", "boost", 7)
    store.mark_feedback_applied("m1", "boost", 8)  # once per rule
    assert store.feedback_rules_applied("m1") == {"boost"}
    assert store.feedback_flagged("boost") == ["m1"]
    run_id = store.start_review_run("u=u1|a=|s=")
    run = store.list_review_runs()[0]
    assert (run.id, run.status, run.finished_at) == (run_id, "running", None)
    store.finish_review_run(
        ReviewRun(
            run_id,
            run.scope_key,
            run.started_at,
            None,
            "done",
            0.91,
            counts={"merged": 2},
            breaker={"events": []},
            llm_calls=3,
        )
    )
    done = store.list_review_runs(start)[0]
    assert (done.status, done.p90, done.counts, done.llm_calls) == ("done", 0.91, {"merged": 2}, 3)
    assert store.list_review_runs(datetime.now(UTC) + timedelta(hours=1)) == []
    assert store.count_review_changes(start, ["MERGE"]) == 0
    store.append_log(NewLogEntry(path="review", action="MERGE", input_ids=["a"], output_ids=[]))
    assert store.count_review_changes(start, ["MERGE", "REPLACE"]) == 1
    store.record_llm_call(
        task="consolidate",
        role="utility",
        model="m",
        prompt_tokens=10,
        completion_tokens=5,
        latency_ms=12.5,
        outcome="ok",
    )
    store.record_llm_call(
        task="consolidate",
        role="main",
        model=None,
        prompt_tokens=1,
        completion_tokens=1,
        latency_ms=1.0,
        outcome="error",
        error="down",
        time=datetime.now(UTC) - timedelta(days=3),
    )
    assert store.tokens_today() == 15
    assert store.tokens_today(role="main") == 0
    usage = store.llm_usage(start)
    assert usage == [
        {
            "day": datetime.now(UTC).strftime("%Y-%m-%d"),
            "task": "consolidate",
            "role": "utility",
            "model": "m",
            "outcome": "ok",
            "calls": 1,
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "mean_latency_ms": 12.5,
        }
    ]
    assert len(store.llm_usage()) == 2
