"""Failures while consolidating: transient ones back off, a bad save is skipped alone,
a slow decision times out, and the worker loop outlives a failed pass."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.engine import apply, on_save
from memfold.engine.on_save import process_jobs
from memfold.engine.worker import run_worker
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision, Job


def _replace_first(item: SaveItem) -> Decision:
    return Decision(Action.REPLACE, [item.candidates[0].memory.id], confidence=0.99)


def _next_attempt(job: Job) -> float:
    assert job.next_attempt_at is not None
    return job.next_attempt_at.timestamp()


def _seed(mem: Memory) -> str:
    """An existing memory every later save is judged against."""
    first = mem.add("Sam likes tea", user_id="s", embedding=base())
    mem.flush()
    return first.memory.id


def test_transient_failures_back_off_without_spending_attempts(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    settings = Settings(consolidation={"backoff_s": 100.0, "backoff_max_s": 250.0})
    down = Decision(Action.SKIP, reasoning="LLM down", transient=True)
    answers: list[Decision] = []
    judge = ScriptedJudge(lambda it: answers.pop(0) if answers else _replace_first(it))
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        target = _seed(mem)
        new = mem.add("Sam likes tea!", user_id="s", embedding=vec_with_cosine(0.99)).memory
        answers.extend([down] * 7)  # more failures than max_attempts (5)
        before = time.time()
        assert mem.flush() == 0
        (job,) = mem.store.list_jobs("pending")
        assert job.attempts == 0 and job.backoffs == 1 and job.last_error == "LLM down"
        assert job.next_attempt_at is not None
        assert before + 100.0 <= job.next_attempt_at.timestamp() <= time.time() + 100.0
        # Not claimable before its time: flush() returns at once, the judge is not asked.
        calls = judge.calls
        assert mem.flush() == 0 and judge.calls == calls
        assert mem.stats()["jobs_waiting"] == 1
        delays = []
        for _ in range(6):
            at = _next_attempt(job) + 1.0
            claimed = mem.store.claim_jobs(8, "w", lease_s=60.0, now=at)
            assert [j.id for j in claimed] == [job.id]
            started = time.time()
            (outcome,) = process_jobs(mem.ctx, judge, claimed)
            assert outcome.retry and outcome.log_id is None
            (job,) = mem.store.list_jobs("pending")
            delays.append(round(_next_attempt(job) - started))
        assert delays == [200, 250, 250, 250, 250, 250]  # doubling, capped
        assert job.attempts == 0 and job.backoffs == 7
        assert mem.log() == []  # never a permanent SKIP
        at = _next_attempt(job) + 1.0
        claimed = mem.store.claim_jobs(8, "w", lease_s=60.0, now=at)
        (outcome,) = process_jobs(mem.ctx, judge, claimed)
        assert outcome.log_id is not None
        assert mem.get(target).superseded_by == new.id


def test_a_save_that_breaks_the_judge_is_skipped_alone(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    def decide(item: SaveItem) -> Decision:
        if "POISON" in item.new.text:
            raise UnicodeError("the judge cannot read this text")
        return Decision(Action.KEEP_SEPARATE, confidence=0.9, reasoning="fine")

    judge = ScriptedJudge(decide)
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="queue") as mem:
        _seed(mem)
        texts = ["Sam likes tea a lot", "Sam likes tea POISON", "Sam likes tea daily"]
        ids = [
            mem.add(t, user_id="s", embedding=vec_with_cosine(0.95 - n / 100, axis=n + 1)).memory.id
            for n, t in enumerate(texts)
        ]
        assert mem.flush() == 3
        assert mem.store.count_jobs("pending") == mem.store.count_jobs("running") == 0
        by_save = {e.input_ids[0]: e for e in mem.log(50)}
        assert by_save[ids[0]].action == by_save[ids[2]].action == "KEEP_SEPARATE"
        poisoned = by_save[ids[1]]
        assert poisoned.action == "SKIP" and "UnicodeError" in poisoned.reasoning
        assert all(mem.get(i).status is Status.ACTIVE for i in ids)


def test_a_decision_that_fails_to_apply_is_skipped_alone(
    db_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_plan = apply.plan

    def plan(ctx: Any, new: Any, *args: Any, **kwargs: Any) -> Any:
        if "POISON" in new.text:
            raise KeyError("a reply naming something that is not there")
        return real_plan(ctx, new, *args, **kwargs)

    monkeypatch.setattr(on_save, "plan", plan)
    judge = ScriptedJudge(lambda it: Decision(Action.KEEP_SEPARATE, confidence=0.9))
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="queue") as mem:
        _seed(mem)
        poison = mem.add("Sam likes tea POISON", user_id="s", embedding=vec_with_cosine(0.95))
        fine = mem.add("Sam likes tea daily", user_id="s", embedding=vec_with_cosine(0.94, 2))
        assert mem.flush() == 2
        assert judge.calls == 1  # one batch, one judge call
        by_save = {e.input_ids[0]: e for e in mem.log(50)}
        skipped = by_save[poison.memory.id]
        assert skipped.action == "SKIP"
        assert "failed while applying KEEP_SEPARATE: KeyError" in skipped.reasoning
        assert by_save[fine.memory.id].action == "KEEP_SEPARATE"


def test_a_decision_past_timeout_s_is_a_transient_skip(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    release = threading.Event()

    def hang(item: SaveItem) -> Decision:
        release.wait(60)
        return _replace_first(item)

    settings = Settings(consolidation={"timeout_s": 0.2})
    judge = ScriptedJudge(hang)
    try:
        with Memory(
            db_path, settings=settings, embedder=embedder, judge=judge, consolidate="sync"
        ) as mem:
            mem.add("Sam likes tea", user_id="s", embedding=base())
            r = mem.add("Sam likes tea!", user_id="s", embedding=vec_with_cosine(0.99))
            assert r.decision is not None and r.decision.action is Action.SKIP
            assert r.decision.transient and "timeout_s" in r.decision.reasoning
            (job,) = mem.store.list_jobs("pending")
            assert job.backoffs == 1 and job.attempts == 0
            assert mem.get(r.memory.id).status is Status.ACTIVE and mem.log() == []
    finally:
        release.set()


def test_a_job_that_keeps_failing_is_given_up_after_max_attempts(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    settings = Settings(consolidation={"max_attempts": 2})
    judge = ScriptedJudge(_replace_first)
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        _seed(mem)
        new = mem.add("Sam likes tea!", user_id="s", embedding=vec_with_cosine(0.99)).memory
        for n in range(2):  # two workers claim it and die (their leases run out)
            mem.store.claim_jobs(8, f"dead:{n}:x:1", lease_s=0.0, now=time.time() - 10)
        assert mem.flush() == 1
        (entry,) = mem.log()
        assert entry.action == "SKIP" and "gave up after 2 attempts" in entry.reasoning
        assert judge.calls == 0 and mem.get(new.id).status is Status.ACTIVE


def test_the_worker_loop_outlives_a_failing_pass(
    db_path: Path, embedder: LocalEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    judge = ScriptedJudge(lambda it: Decision(Action.KEEP_SEPARATE, confidence=0.9))
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="queue") as mem:
        _seed(mem)
        mem.add("Sam likes tea a lot", user_id="s", embedding=vec_with_cosine(0.95))
        real_claim = mem.store.claim_jobs
        failures = [RuntimeError("database disk image is malformed")]

        def claim(*args: Any, **kwargs: Any) -> Any:
            if failures:
                raise failures.pop()
            return real_claim(*args, **kwargs)

        mem.store.claim_jobs = claim  # type: ignore[method-assign]
        stop = threading.Event()
        done: list[int] = []
        report: Callable[[int], None] = done.append
        caplog.set_level(logging.ERROR, logger="memfold.engine.worker")
        thread = threading.Thread(
            target=lambda: run_worker(mem.ctx, mem.judge, stop=stop, report=report)
        )
        thread.start()
        deadline = time.monotonic() + 60
        while not done and time.monotonic() < deadline:
            time.sleep(0.02)
        alive = thread.is_alive()
        stop.set()
        thread.join(timeout=60)
        assert alive and done == [1]
        assert any("pass failed" in r.getMessage() for r in caplog.records)
        assert mem.store.count_jobs("pending") == 0
