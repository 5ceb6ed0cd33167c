"""Version conflicts on save: re-planned, never counted as failures, never applied twice,
given up only past their own budget (consolidation.max_conflict_retries)."""

from __future__ import annotations

from pathlib import Path

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.engine.jobs import conflict_delay
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision, Job, JobStatus


def _judge_that_races(mem_box: list[Memory], races: int) -> ScriptedJudge:
    """REPLACE the first candidate; for the first ``races`` calls another writer rewrites
    that candidate while the judge is thinking, so applying meets a version conflict."""
    state = {"left": races}

    def decide(item: SaveItem) -> Decision:
        target = item.candidates[0].memory
        if state["left"] > 0:
            state["left"] -= 1
            mem_box[0].update(target.id, importance=0.1 + state["left"] % 50 / 100)
        return Decision(Action.REPLACE, [target.id], confidence=0.99)

    return ScriptedJudge(decide)


def _on_save(mem: Memory) -> list[tuple[str, str]]:
    return [(e.action, e.reasoning) for e in mem.log(1000) if e.path == "on_save"]


def test_conflicts_spend_no_attempt_and_the_save_still_folds(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    # More conflicts than max_attempts: before, the job was given up after two of them
    # (a SKIP, the restatement left active beside the fact).
    settings = Settings(consolidation={"max_attempts": 2, "conflict_backoff_s": 0.0})
    box: list[Memory] = []
    judge = _judge_that_races(box, races=4)
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        box.append(mem)
        target = mem.add("Sam likes tea", user_id="s", embedding=base()).memory.id
        mem.flush()
        calls = judge.calls
        new = mem.add("Sam likes tea!", user_id="s", embedding=vec_with_cosine(0.99)).memory
        mem.flush()
        assert judge.calls - calls == 5  # four conflicts re-planned, then applied
        (job,) = [j for j in mem.store.list_jobs("done") if j.memory_id == new.id]
        assert (job.attempts, job.conflicts) == (1, 4)
        assert mem.store.count_jobs("pending") == 0
        assert [a for a, _ in _on_save(mem)] == ["REPLACE"]  # applied once
        assert mem.get(target).superseded_by == new.id
        assert mem.get(new.id).status is Status.ACTIVE


def test_a_job_that_never_gets_through_is_given_up_past_its_conflict_budget(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    settings = Settings(
        consolidation={"max_conflict_retries": 2, "max_attempts": 50, "conflict_backoff_s": 0.0}
    )
    box: list[Memory] = []
    judge = _judge_that_races(box, races=1_000)
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        box.append(mem)
        target = mem.add("Sam likes tea", user_id="s", embedding=base()).memory.id
        mem.flush()
        calls = judge.calls
        new = mem.add("Sam likes tea!", user_id="s", embedding=vec_with_cosine(0.99)).memory
        mem.flush()
        assert judge.calls - calls == 3  # two retries, then given up
        ((action, reasoning),) = _on_save(mem)
        assert action == "SKIP" and "gave up after 3 version conflicts" in reasoning
        (job,) = [j for j in mem.store.list_jobs() if j.memory_id == new.id]
        assert job.status is JobStatus.DONE and job.attempts == 1
        assert mem.get(target).status is Status.ACTIVE  # nothing half applied
        assert mem.get(new.id).status is Status.ACTIVE


def test_the_conflict_wait_is_jittered_and_capped() -> None:
    settings = Settings(consolidation={"conflict_backoff_s": 0.05, "conflict_backoff_max_s": 0.3})

    class Ctx:
        pass

    ctx = Ctx()
    ctx.settings = settings  # type: ignore[attr-defined]
    for conflicts, ceiling in [(0, 0.05), (2, 0.2), (3, 0.3), (40, 0.3)]:
        job = Job(1, "m", "consolidate", JobStatus.RUNNING, conflicts=conflicts)
        waits = [conflict_delay(ctx, job) for _ in range(200)]  # type: ignore[arg-type]
        assert all(0.0 <= w < ceiling for w in waits)
        assert max(waits) > ceiling / 2 and len(set(waits)) > 100
