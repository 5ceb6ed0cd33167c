"""Consolidation on save: candidates, one judge call per batch, guards, apply.

A job is marked done in the same transaction that applies its decision, so a
crash at any point leaves either the job pending (it runs again) or the
decision applied and the job done (it never applies twice).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from memfold.engine.apply import plan
from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.engine.search import similar_active
from memfold.errors import ConflictError
from memfold.judge.base import Judge, SaveItem
from memfold.model import Action, Candidate, Decision, Job, MemoryRecord, Status, Vector
from memfold.policy.guards import apply_guards, refuse
from memfold.policy.result_check import ResultLimits, drift_problems

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Outcome:
    memory_id: str
    decision: Decision | None
    log_id: int | None = None
    retry: bool = False


def candidates_for(ctx: Context, record: MemoryRecord) -> list[Candidate]:
    """What was already known when ``record`` was saved: similar active memories that
    are not newer than it. (Two saves pending together are then judged once, newer
    against older, never each against the other.)"""
    cfg = ctx.settings.consolidation
    found = similar_active(
        ctx, record, k=cfg.candidates_fetched, min_similarity=cfg.discovery_threshold
    )
    older = [c for c in found if c.memory.created_at <= record.created_at]
    return older[: cfg.candidates_judged]


def process_jobs(ctx: Context, judge: Judge, jobs: Sequence[Job]) -> list[Outcome]:
    """Decide and apply a batch of pending on-save jobs (one judge call per batch)."""
    outcomes: list[Outcome] = []
    items: list[tuple[Job, SaveItem]] = []
    for job in jobs:
        record = ctx.store.get_memory(job.memory_id)
        if record is None or record.status is not Status.ACTIVE:
            ctx.store.finish_job(job.id)
            outcomes.append(Outcome(job.memory_id, None))
            continue
        candidates = candidates_for(ctx, record)
        if not candidates:
            # Nothing similar enough: no judge call at all.
            ctx.store.finish_job(job.id)
            outcomes.append(Outcome(job.memory_id, None))
            continue
        items.append((job, SaveItem(record, candidates)))
    if not items:
        return outcomes
    decisions = judge.decide([item for _, item in items])
    for (job, item), raw in zip(items, decisions, strict=True):
        outcomes.append(_apply_one(ctx, job, item, raw))
    return outcomes


def _apply_one(ctx: Context, job: Job, item: SaveItem, raw: Decision) -> Outcome:
    limits = ResultLimits.from_settings(ctx.settings)
    decision = apply_guards(raw, item.new, item.candidates, ctx.settings.consolidation, limits)
    if decision.action is Action.SKIP:
        return _skip(ctx, job, item, decision)
    decision, vectors = _check_drift(ctx, item, decision, limits)
    change = plan(ctx, item.new, item.candidates, decision, vectors)
    try:
        log_id = commit(ctx, change, inside=lambda _id: ctx.store.finish_job(job.id))
    except ConflictError as exc:
        # A target moved since the decision: re-plan on the next run, never overwrite.
        ctx.store.release_job(job.id, f"conflict: {exc}")
        return Outcome(item.new.id, decision, retry=True)
    return Outcome(item.new.id, decision, log_id)


def _check_drift(
    ctx: Context, item: SaveItem, decision: Decision, limits: ResultLimits
) -> tuple[Decision, dict[str, Vector]]:
    """A judge-written text (UPDATE, MERGE) must embed near one of its sources (the
    breaker's drift bound). Its vector is handed on so it is computed once."""
    text = decision.text
    if decision.action not in (Action.UPDATE, Action.MERGE) or text is None:
        return decision, {}
    by_id = {c.memory.id: c.memory for c in item.candidates}
    sources = [item.new, *(by_id[t] for t in decision.target_ids if t in by_id)]
    if any(s.text == text for s in sources):
        return decision, {}  # a source's own text: no drift
    vector = ctx.embed_one(text)
    problems = drift_problems(vector, [(s.id, s.embedding) for s in sources], limits.max_drift)
    if problems:
        return refuse(decision, problems), {}
    return decision, {text: vector}


def _skip(ctx: Context, job: Job, item: SaveItem, decision: Decision) -> Outcome:
    cfg = ctx.settings.consolidation
    if decision.transient and job.attempts < cfg.max_attempts:
        ctx.store.release_job(job.id, decision.reasoning)
        log.info("consolidation of %s skipped for now: %s", item.new.id, decision.reasoning)
        return Outcome(item.new.id, decision, retry=True)
    change = ChangeSet(
        path="on_save",
        action=Action.SKIP.value,
        input_ids=[item.new.id, *(c.memory.id for c in item.candidates)],
        similarity=item.candidates[0].similarity if item.candidates else None,
        confidence=decision.confidence,
        reasoning="; ".join([decision.reasoning, *decision.downgrade_reasons]).strip("; "),
        judge=decision.judge,
        model=decision.model,
        prompt_version=decision.prompt_version,
        prompt_tokens=decision.prompt_tokens,
        completion_tokens=decision.completion_tokens,
    )
    log_id = commit(ctx, change, inside=lambda _id: ctx.store.finish_job(job.id))
    return Outcome(item.new.id, decision, log_id)
