"""Undoing a review change reopens its queue pair; rejecting a contradiction removes its
link as a logged, undoable change."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from memfold import InvalidInput, Memory, Status
from memfold.model import LinkKind, MemoryRecord, PairLabel, utcnow
from review.support import FACTS, ScriptedJudge, fill_pairs, review_of, variant


def only_log(mem: Memory, action: str) -> int:
    (entry,) = [e for e in mem.log(1000) if e.path == "review" and e.action == action]
    return entry.id


def contradicts(mem: Memory, a: str, b: str) -> bool:
    return any(
        lk.kind is LinkKind.CONTRADICTS and {lk.src, lk.dst} == {a, b}
        for lk in mem.store.links_for([a, b])
    )


def contradiction(mem: Memory, judge: ScriptedJudge) -> tuple[MemoryRecord, MemoryRecord]:
    old = utcnow() - timedelta(hours=1)
    c1 = mem.add(FACTS[4], created_at=old).memory
    c2 = mem.add(variant(FACTS[4]), created_at=old).memory
    judge.script(c1.text, c2.text, PairLabel.CONTRADICTION, 0.9)
    return c1, c2


def test_undo_of_a_review_merge_reopens_its_pair(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1)
    ((a, b),) = fill_pairs(mem, judge, [0.97])
    review = review_of(mem, judge)
    assert review.run().counts["merged"] == 1
    (item,) = mem.store.queue_items()
    assert item.status == "processed"
    merge_log = only_log(mem, "MERGE")
    (undo_id,) = mem.undo(merge_log)
    assert mem.get(a).status is Status.ACTIVE and mem.get(b).status is Status.ACTIVE
    (item,) = mem.store.queue_items()
    assert item.status == "pending" and item.label is None and item.confidence is None
    assert item.processed_at is None and item.proposal is None
    assert (item.version_a, item.version_b) == tuple(
        mem.get(m).version for m in (item.memory_a, item.memory_b)
    )
    assert f"log {merge_log}" in item.note and f"undone by log {undo_id}" in item.note
    # The next run decides the pair again, and merges it again.
    again = review.run()
    assert again.counts["classified"] == 1 and again.counts["merged"] == 1
    assert mem.store.queue_items()[0].status == "processed"
    assert mem.get(a).status is Status.ARCHIVED


def test_undo_of_a_review_link_reopens_its_pair(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem()
    fill_pairs(mem, judge, [0.9], label=PairLabel.RELATED)
    review_of(mem, judge).run()
    assert mem.store.queue_items()[0].status == "processed"
    mem.undo(only_log(mem, "LINK_RELATED"))
    (item,) = mem.store.queue_items()
    assert item.status == "pending" and item.label is None
    assert mem.store.links_for([item.memory_a]) == []


def test_undo_of_a_review_supersede_reopens_its_pair(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1)
    fill_pairs(mem, judge, [0.99])  # a DUPLICATE pair opens the gate
    old = utcnow() - timedelta(hours=2)
    s_old = mem.add("Bob lives in Paris.", created_at=old).memory
    s_new = mem.add("Bob lives in Paris no longer.", created_at=old + timedelta(minutes=5)).memory
    judge.script(s_old.text, s_new.text, PairLabel.SUPERSEDED, 0.95)
    assert review_of(mem, judge).run().counts["superseded"] == 1
    mem.undo(only_log(mem, "SUPERSEDE"))
    assert mem.get(s_old.id).status is Status.ACTIVE
    item = mem.store.queue_item_for_pair(s_new.id, s_old.id)
    assert item is not None and item.status == "pending" and item.label is None


def test_reject_of_a_contradiction_removes_its_link_undoably(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem()
    c1, c2 = contradiction(mem, judge)
    review = review_of(mem, judge)
    review.run()
    (listed,) = review.pending()["contradictions"]
    assert contradicts(mem, c1.id, c2.id)
    log_id = review.reject(listed["id"], "both are true")
    assert log_id is not None and not contradicts(mem, c1.id, c2.id)
    entry = mem.store.get_log(log_id)
    assert entry is not None and entry.path == "review" and entry.action == "UNLINK_CONTRADICTS"
    assert entry.judge == "user" and "both are true" in entry.reasoning
    item = mem.store.get_queue_item(listed["id"])
    assert item is not None and item.status == "rejected" and f"log {log_id}" in item.note
    for rec in (c1, c2):  # the memories themselves are untouched
        now = mem.get(rec.id)
        assert now.status is Status.ACTIVE and now.version == rec.version
    assert review.pending()["contradictions"] == []
    # Undo: the link is back and the pair is listed for a person again.
    mem.undo(log_id)
    assert contradicts(mem, c1.id, c2.id)
    assert [it["id"] for it in review.pending()["contradictions"]] == [listed["id"]]
    # Undoing the link itself (cascading over the reject) reopens the pair for a run.
    link_log = only_log(mem, "LINK_CONTRADICTS")
    second = review.reject(listed["id"])
    assert second is not None
    mem.undo(link_log, cascade=True)
    assert not contradicts(mem, c1.id, c2.id)
    item = mem.store.get_queue_item(listed["id"])
    assert item is not None and item.status == "pending"


def test_reject_without_a_link_left_or_of_a_held_merge_logs_nothing(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1)
    fill_pairs(mem, judge, [0.97])
    contradiction(mem, judge)
    judge.merge = lambda memories: "Noted."  # the result check holds the merge
    review = review_of(mem, judge)
    review.run()
    (held,) = review.pending()["held"]
    (listed,) = review.pending()["contradictions"]
    mem.store.remove_links([(listed["memory_a"], listed["memory_b"], LinkKind.CONTRADICTS)])
    before = len(mem.log(1000))
    assert review.reject(held["id"]) is None and review.reject(listed["id"]) is None
    assert len(mem.log(1000)) == before
    for item_id in (held["id"], listed["id"]):
        assert mem.store.get_queue_item(item_id).status == "rejected"  # type: ignore[union-attr]


def test_bad_reject_changes_nothing(open_mem: Callable[..., Memory], judge: ScriptedJudge) -> None:
    mem = open_mem()
    c1, c2 = contradiction(mem, judge)
    review = review_of(mem, judge)
    review.run()
    (listed,) = review.pending()["contradictions"]
    with pytest.raises(InvalidInput, match="reason"):
        review.reject(listed["id"], 42)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="integer"):
        review.reject("1")  # type: ignore[arg-type]
    assert contradicts(mem, c1.id, c2.id)
    assert mem.store.get_queue_item(listed["id"]).status == "review"  # type: ignore[union-attr]
