"""Guards overrule the judge; faults end as SKIP; jobs survive crashes and never apply twice."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import Memory, Status, StoreUnavailable
from memfold.embed.local import LocalEmbedder
from memfold.engine.on_save import process_jobs
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision


def _target(item: SaveItem) -> str:
    return item.candidates[0].memory.id


def test_merge_at_085_becomes_keep_separate(db_path: Path, embedder: LocalEmbedder) -> None:
    judge = ScriptedJudge(
        lambda it: Decision(
            Action.MERGE, [_target(it)], text="Sam likes tea and coffee", confidence=0.99
        )
    )
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="sync") as mem:
        mem.add("Sam likes tea", user_id="s", embedding=base())
        r = mem.add("Sam likes coffee", user_id="s", embedding=vec_with_cosine(0.85))
        assert r.decision is not None
        assert r.decision.action is Action.KEEP_SEPARATE
        assert r.decision.downgraded_from is Action.MERGE
        assert len(mem.list(user_id="s")) == 2
        entry = mem.log(1)[0]
        assert entry.action == "KEEP_SEPARATE" and "downgraded from MERGE" in entry.reasoning


def test_foreign_ids_are_rejected(db_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as setup:
        other = setup.add("Bob likes tea", user_id="bob", embedding=base()).memory
    judge = ScriptedJudge(lambda it: Decision(Action.REPLACE, [other.id], confidence=0.99))
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="sync") as mem:
        mem.add("Sam likes tea", user_id="s", embedding=base())
        r = mem.add("Sam likes tea!", user_id="s", embedding=vec_with_cosine(0.99))
        assert r.decision is not None and r.decision.action is Action.SKIP
        assert mem.get(other.id).status is Status.ACTIVE
        assert mem.log(1)[0].action == "SKIP"
        assert mem.store.count_jobs("pending") == 0  # a bad answer is final, not retried


def test_merge_dropping_a_number_is_refused(db_path: Path, embedder: LocalEmbedder) -> None:
    judge = ScriptedJudge(
        lambda it: Decision(Action.MERGE, [_target(it)], text="Sam runs marathons", confidence=0.99)
    )
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="sync") as mem:
        mem.add("Sam runs marathons", user_id="s", embedding=base())
        r = mem.add(
            "Sam ran the 2026 marathon in 3 hours", user_id="s", embedding=vec_with_cosine(0.97)
        )
        assert r.decision is not None and r.decision.action is not Action.MERGE
        assert len(mem.list(user_id="s")) == 2


def test_no_judge_call_below_discovery_threshold(db_path: Path, embedder: LocalEmbedder) -> None:
    judge = ScriptedJudge(lambda it: Decision(Action.KEEP_SEPARATE))
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="sync") as mem:
        mem.add("Sam likes tea", user_id="s", embedding=base())
        r = mem.add("Unrelated", user_id="s", embedding=vec_with_cosine(0.69))
        assert r.decision is None and judge.calls == 0
        mem.add("Same text other scope", user_id="t", embedding=base())
        assert judge.calls == 0
        mem.add("Close one", user_id="s", embedding=vec_with_cosine(0.71))
        assert judge.calls == 1
        assert mem.store.count_jobs("pending") == 0


def test_transient_skip_leaves_job_pending_then_retries(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    answers = iter(
        [
            Decision(Action.SKIP, reasoning="LLM timeout", transient=True),
            Decision(Action.UPDATE, [], text="x"),  # replaced below
        ]
    )

    def decide(item: SaveItem) -> Decision:
        d = next(answers)
        if d.action is Action.UPDATE:
            return Decision(
                Action.UPDATE, [_target(item)], text=item.candidates[0].memory.text, confidence=0.99
            )
        return d

    judge = ScriptedJudge(decide)
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="sync") as mem:
        a = mem.add("Sam likes tea", user_id="s", embedding=base()).memory
        r = mem.add("Sam likes tea", user_id="s", embedding=vec_with_cosine(0.99))
        assert r.decision is not None and r.decision.action is Action.SKIP
        assert mem.store.count_jobs("pending") == 1
        assert mem.get(r.memory.id).status is Status.ACTIVE
        # Backing off: flush() does not wait for it; it stays pending, not yet claimable.
        assert mem.flush() == 0
        (job,) = mem.store.list_jobs("pending")
        assert job.next_attempt_at is not None and job.attempts == 0
        later = job.next_attempt_at.timestamp() + 1
        jobs = mem.store.claim_jobs(8, "w", lease_s=60.0, now=later)
        assert [j.id for j in jobs] == [job.id]
        assert process_jobs(mem.ctx, judge, jobs)[0].log_id is not None
        assert mem.get(r.memory.id).superseded_by == a.id
        assert mem.store.count_jobs("pending") == 0


def test_failure_inside_apply_rolls_back_and_keeps_job(
    db_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = ScriptedJudge(
        lambda it: Decision(Action.MERGE, [_target(it)], text="Sam likes tea", confidence=0.99)
    )
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="background") as mem:
        mem._worker.stop()  # type: ignore[union-attr]  # drive jobs by hand
        mem._worker = None
        a = mem.add("Sam likes tea", user_id="s", embedding=base()).memory
        mem.flush()
        b = mem.add("Sam likes tea.", user_id="s", embedding=vec_with_cosine(0.99)).memory

        def crash(*args: object, **kwargs: object) -> int:
            raise RuntimeError("power cut while logging")

        monkeypatch.setattr(mem.store, "append_log", crash)
        with pytest.raises(RuntimeError):
            mem.flush()
        monkeypatch.undo()
        assert mem.store.count_memories() == 2
        assert {m.id for m in mem.list(user_id="s")} == {a.id, b.id}
        assert mem.log() == []
        # The failed batch gave its job back (the attempt spent); another worker claims it.
        jobs = mem.store.claim_jobs(8, "other", lease_s=60.0)
        assert [j.memory_id for j in jobs] == [b.id]
        (outcome,) = process_jobs(mem.ctx, judge, jobs)
        assert outcome.log_id is not None
        assert len(mem.list(user_id="s")) == 1
        # Running the same job again never applies the decision twice.
        again = process_jobs(mem.ctx, judge, jobs)
        assert again[0].log_id is None
        assert len([e for e in mem.log() if e.action == "MERGE"]) == 1


def test_a_store_failure_while_applying_applies_nothing_and_runs_again(
    db_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection lost in the middle of applying a decision (StoreUnavailable, raised
    inside its transaction) rolls it all back; the job waits out a backoff, is not given
    up, and applies once when it runs again."""
    judge = ScriptedJudge(
        lambda it: Decision(Action.UPDATE, [_target(it)], text="Sam likes tea", confidence=0.99)
    )
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="queue") as mem:
        a = mem.add("Sam likes tea", user_id="s", embedding=base()).memory
        mem.flush()
        b = mem.add("Sam likes tea.", user_id="s", embedding=vec_with_cosine(0.99)).memory
        real_append = mem.store.append_log
        calls = {"n": 0}

        def lost_once(entry: Any) -> int:
            calls["n"] += 1
            if calls["n"] == 1:
                raise StoreUnavailable("server closed the connection unexpectedly")
            return real_append(entry)

        monkeypatch.setattr(mem.store, "append_log", lost_once)
        (job,) = mem.store.claim_jobs(8, "w", lease_s=60.0)
        (outcome,) = process_jobs(mem.ctx, judge, [job])
        assert outcome.retry and outcome.log_id is None
        assert {m.id for m in mem.list(user_id="s")} == {a.id, b.id}  # nothing applied
        assert mem.log() == []  # not even a SKIP: the save was not given up
        (waiting,) = mem.store.list_jobs("pending")
        assert waiting.attempts == 0 and waiting.next_attempt_at is not None
        later = waiting.next_attempt_at.timestamp() + 1
        again = mem.store.claim_jobs(8, "w", lease_s=60.0, now=later)
        (done,) = process_jobs(mem.ctx, judge, again)
        assert done.log_id is not None
        assert [m.id for m in mem.list(user_id="s")] == [a.id]
        assert [e.action for e in mem.log()] == ["UPDATE"]


def test_crash_after_store_before_decision_loses_nothing(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    script = textwrap.dedent(
        """
        import os, sys
        from memfold import Memory
        mem = Memory(sys.argv[1], consolidate="background")
        mem._worker.stop()
        mem.add("Sam likes tea", user_id="s")
        mem.add("Sam likes tea", user_id="s")
        os._exit(9)  # die with both jobs pending
        """
    )
    proc = subprocess.run([sys.executable, "-c", script, str(db_path)], timeout=120)
    assert proc.returncode == 9
    with Memory(db_path, embedder=embedder, consolidate="sync") as mem:
        assert mem.store.count_memories() == 2
        assert mem.store.count_jobs("pending") == 2
        # Both jobs run in one batch: the newer memory is judged against the older one,
        # never the older against the newer.
        assert mem.flush() == 2
        assert len(mem.list(user_id="s")) == 1
        assert mem.store.count_jobs("pending") == 0


def test_background_add_returns_then_flush_applies(db_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(db_path, embedder=embedder, consolidate="background") as mem:
        mem.add("Sam prefers Rust for systems work", user_id="s")
        r = mem.add("Sam prefers Rust for systems work", user_id="s")
        assert r.decision is None and r.job_id is not None
        mem.flush(timeout=30)
        assert mem.store.count_jobs("pending") == 0
        assert len(mem.list(user_id="s")) == 1
        assert mem.get(r.memory.id).status is Status.SUPERSEDED


WRITER = textwrap.dedent(
    """
    import sys
    from memfold import Memory
    with Memory(sys.argv[1], consolidate="sync") as mem:
        for i in range(12):
            mem.add(f"Sam's project number {i % 4} uses Rust and Postgres", user_id="s")
        mem.flush()
    """
)


def test_two_processes_adding_similar_memories(db_path: Path, embedder: LocalEmbedder) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db_path)]) for _ in range(2)]
    for proc in procs:
        assert proc.wait(timeout=240) == 0
    with Memory(db_path, embedder=embedder, consolidate="sync") as mem:
        mem.flush()
        everything = list(mem.store.iter_memories())
        assert len(everything) == 24  # nothing lost
        by_id = {m.id: m for m in everything}
        for m in everything:
            if m.status is Status.SUPERSEDED:
                assert m.superseded_by in by_id
        active_texts = [m.text for m in everything if m.status is Status.ACTIVE]
        assert len(active_texts) == len(set(active_texts)) == 4
        consumed: list[str] = []
        for entry in mem.log(1000):
            if entry.action in ("UPDATE", "MERGE", "REPLACE", "DELETE") and not entry.undone_by:
                consumed.append(entry.input_ids[0])
        assert len(consumed) == len(set(consumed))  # no memory consolidated twice
