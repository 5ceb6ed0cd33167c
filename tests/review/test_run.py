"""Whole runs on real SQLite files: each gate band, guards, undo."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from memfold import Memory, NotFound, Status
from memfold.embed.local import LocalEmbedder
from memfold.model import Category, PairLabel, utcnow
from review.support import FACTS, ScriptedJudge, fill_pairs, review_of, variant


def merged_count(mem: Memory) -> int:
    return sum(1 for e in mem.log(1000) if e.path == "review" and e.action == "MERGE")


@pytest.mark.parametrize(
    ("confidences", "band", "merges"),
    [
        ([0.99] * 9, "too_few", 0),
        ([0.84] * 12, "below_floor", 0),
        ([0.87] * 12, "conservative", 5),
        ([0.93] * 12, "high", 10),
    ],
)
def test_gate_bands_decide_the_number_of_merges(
    open_mem: Callable[..., Memory],
    judge: ScriptedJudge,
    confidences: list[float],
    band: str,
    merges: int,
) -> None:
    mem = open_mem(gate_min_pairs=10)
    ids = fill_pairs(mem, judge, confidences)
    run = review_of(mem, judge).run()
    (gate,) = run.counts["decisions"][0]["gates"].values()
    assert gate["band"] == band and run.counts.get("merged", 0) == merges == merged_count(mem)
    assert run.p90 == pytest.approx(confidences[0])
    if merges == 0:
        assert len(gate["diagnostic"]) == min(len(confidences), 10)
    active = mem.list(limit=None)
    assert len(active) == 2 * len(ids) - merges  # each merge: two archived, one new
    archived = mem.list(status="archived", limit=None)
    assert len(archived) == 2 * merges
    for rec in archived:
        new = mem.get(rec.superseded_by or "")
        assert new.status is Status.ACTIVE and rec.id in new.consolidated_from
        assert rec.text in new.text  # the union keeps both texts
    # The pairs of this run were classified in batches of at most classify_batch.
    assert max(judge.batch_sizes) <= mem.settings.review.classify_batch
    assert run.llm_calls == judge.classify_calls + merges
    assert run.prompt_tokens == 10 * len(ids) + 7 * merges


def test_merge_keeps_provenance_and_is_undoable(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1)
    old = utcnow() - timedelta(hours=1)
    a = mem.add(FACTS[0], created_at=old, importance=0.3, sources=["s1"]).memory
    later = old + timedelta(seconds=1)
    b = mem.add(variant(FACTS[0]), created_at=later, importance=0.8, sources=["s2"]).memory
    judge.script(a.text, b.text, PairLabel.DUPLICATE, 0.97)
    run = review_of(mem, judge).run()
    assert run.counts["merged"] == 1
    (entry,) = [e for e in mem.log() if e.action == "MERGE"]
    new = mem.get(entry.output_ids[0])
    assert new.importance == 0.8 and new.sources == ["s1", "s2"]
    assert new.consolidated_from == [a.id, b.id]
    links = mem.store.links_for([new.id])
    assert {(lk.dst, lk.kind.value) for lk in links} == {
        (a.id, "derived_from"),
        (b.id, "derived_from"),
    }
    assert new.embedding is not None and new.embedding_model == mem.ctx.embedder.model_id
    mem.undo(entry.id)
    assert mem.get(a.id).status is Status.ACTIVE and mem.get(b.id).status is Status.ACTIVE
    assert mem.get(a.id).superseded_by is None
    with pytest.raises(NotFound):
        mem.get(new.id)


def test_core_memories_are_never_merged(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1)
    old = utcnow() - timedelta(hours=1)
    mem.add(FACTS[0], created_at=old, category=Category.CORE)
    mem.add(variant(FACTS[0]), created_at=old)
    judge.script(FACTS[0], variant(FACTS[0]), PairLabel.DUPLICATE, 0.99)
    run = review_of(mem, judge).run()
    (item,) = mem.store.queue_items()
    assert item.label is PairLabel.RELATED and "core" in item.reasoning
    assert run.counts.get("merged", 0) == 0 and len(mem.list()) == 2


def test_young_pairs_wait_and_no_decision_stays_pending(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1, min_pair_age_s=600)
    mem.add(FACTS[0])
    mem.add(variant(FACTS[0]))  # both just written: younger than min_pair_age_s
    old = utcnow() - timedelta(hours=1)
    mem.add(FACTS[1], created_at=old)
    mem.add(variant(FACTS[1]), created_at=old)
    judge.script(FACTS[1], variant(FACTS[1]), None, 0.0)  # label None: no decision
    run = review_of(mem, judge).run()
    assert run.counts["waiting"] == 1 and run.counts["undecided"] == 1
    items = mem.store.queue_items()
    assert [it.status for it in items] == ["pending", "pending"]
    assert any(it.note.startswith("no decision") for it in items)
    assert judge.batch_sizes == [1]  # the young pair never reached the judge


def test_a_pair_waits_while_on_save_has_not_decided_and_is_labelled_after(
    db_path: Path, embedder: LocalEmbedder, judge: ScriptedJudge
) -> None:
    # No wait by age by default: a pair waits only while the on-save path may still act
    # on one of its memories (its job is pending), then a run labels and merges it.
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="queue") as mem:
        mem.add(FACTS[0])
        mem.add(variant(FACTS[0]))
        judge.script(FACTS[0], variant(FACTS[0]), PairLabel.DUPLICATE, 0.97)
        review = review_of(mem, judge)
        first = review.run()
        assert first.counts["waiting"] == 1 and judge.batch_sizes == []
        mem.flush()  # the scripted judge keeps them apart on save
        second = review.run()
        assert second.counts.get("merged") == 1, second.counts


def test_changed_memory_drops_the_pair(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1)
    ((a, b),) = fill_pairs(mem, judge, [0.99])
    review = review_of(mem, judge)
    review.scan(mem.ctx.store.get_memory(a).scope)  # type: ignore[union-attr]
    mem.update(b, importance=0.9)  # version 2: the queued pair is stale
    run = review.run()
    (item,) = mem.store.queue_items()
    assert item.status == "dropped" and "changed" in item.note
    assert run.counts.get("merged", 0) == 0 and mem.get(a).status is Status.ACTIVE


def test_daily_queue_share_halts_merges(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(max_daily_queue_share=0.2)
    fill_pairs(mem, judge, [0.99] * 12)
    run = review_of(mem, judge).run()
    (gate,) = run.counts["decisions"][0]["gates"].values()
    assert gate["band"] == "halted" and "queued today" in gate["reasons"][0]
    assert run.counts.get("merged", 0) == 0


def test_kill_switch_stops_merges(open_mem: Callable[..., Memory], judge: ScriptedJudge) -> None:
    mem = open_mem(kill_switch=True)
    fill_pairs(mem, judge, [0.99] * 12)
    run = review_of(mem, judge).run()
    assert run.counts.get("merged", 0) == 0 and len(mem.list(limit=None)) == 24


def test_superseded_contradiction_related(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1)
    old = utcnow() - timedelta(hours=2)
    # A DUPLICATE pair opens the gate; the others ride along.
    fill_pairs(mem, judge, [0.99])
    s_old = mem.add("Bob lives in Paris.", created_at=old).memory
    s_new = mem.add("Bob lives in Paris no longer.", created_at=old + timedelta(minutes=5)).memory
    judge.script(s_old.text, s_new.text, PairLabel.SUPERSEDED, 0.95)
    c1 = mem.add(FACTS[4], created_at=old).memory
    c2 = mem.add(variant(FACTS[4]), created_at=old).memory
    judge.script(c1.text, c2.text, PairLabel.CONTRADICTION, 0.9)
    review = review_of(mem, judge)
    run = review.run()
    assert run.counts["merged"] == 1
    assert run.counts["superseded"] == 1
    assert mem.get(s_old.id).status is Status.SUPERSEDED
    assert mem.get(s_old.id).superseded_by == s_new.id
    assert mem.get(s_new.id).status is Status.ACTIVE
    assert mem.get(c1.id).status is Status.ACTIVE and mem.get(c2.id).status is Status.ACTIVE
    kinds = {lk.kind.value for lk in mem.store.links_for([c1.id])}
    assert "contradicts" in kinds
    listed = review.pending()["contradictions"]
    assert [(it["memory_a"], it["memory_b"]) for it in listed] == [tuple(sorted((c1.id, c2.id)))]
    status = review.status()
    assert status["queue"]["by_status"]["review"] == 1 and status["breaker"]["open"] is False


def test_a_superseded_pair_needs_no_duplicate_to_open_a_gate(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem()  # default gates
    old = utcnow() - timedelta(hours=2)
    s_old = mem.add("Bob lives in Paris.", created_at=old).memory
    s_new = mem.add("Bob lives in Paris no longer.", created_at=old + timedelta(minutes=5)).memory
    judge.script(s_old.text, s_new.text, PairLabel.SUPERSEDED, 0.95)
    run = review_of(mem, judge).run()
    assert run.counts.get("merged", 0) == 0 and run.counts["superseded"] == 1
    assert mem.get(s_old.id).superseded_by == s_new.id


def test_superseded_without_evidence_is_held_for_a_person(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1)
    old = utcnow() - timedelta(hours=2)
    fill_pairs(mem, judge, [0.99])
    # Another year, no sign of change: two trips, not an update, whatever the judge says.
    y_old = mem.add("Paul visited Rome in 2019.", created_at=old).memory
    y_new = mem.add("Paul visited Rome in 2023.", created_at=old + timedelta(minutes=5)).memory
    judge.script(y_old.text, y_new.text, PairLabel.SUPERSEDED, 0.97)
    run = review_of(mem, judge).run()
    assert run.counts.get("superseded", 0) == 0
    assert mem.get(y_old.id).status is Status.ACTIVE
    assert mem.get(y_new.id).status is Status.ACTIVE
    review = review_of(mem, judge)
    (listed,) = review.pending()["supersedes"]
    # The parse names what it saw: two past events at different times.
    assert "two past events at different times ('2019' / '2023')" in listed["note"]
    assert review.pending()["contradictions"] == []
    # A person who knows better applies it: the older trip is superseded, undoably.
    log_id = review.approve(listed["id"])
    assert log_id is not None
    assert mem.get(y_old.id).status is Status.SUPERSEDED
    mem.undo(log_id)
    assert mem.get(y_old.id).status is Status.ACTIVE
