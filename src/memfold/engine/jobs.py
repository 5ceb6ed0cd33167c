"""The job side of on-save consolidation: bounded judge calls, backoff, poisoned items.

- One decision (a judge call for a batch, its retries included) is bounded by
  ``consolidation.timeout_s``: past it, every item of the call is a transient SKIP.
- A judge that raises on a batch is asked again item by item, so the item that
  breaks it is skipped alone (a permanent SKIP with the reason) and the rest proceed.
- A transient SKIP backs off (``backoff_s`` doubling up to ``backoff_max_s``) without
  spending an attempt; a job that spent ``max_attempts`` (workers that died holding it,
  passes that failed) is given up as a permanent SKIP.
- A version conflict (another worker rewrote a memory the decision was planned on) is
  no failure either: nothing was applied, the job is pending again after a short
  jittered wait, its attempt refunded, and it counts against ``max_conflict_retries``
  alone. Workers folding the same few facts meet many conflicts, each one another
  decision applied; only a job that never gets through is given up.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.engine.lease import backoff_delay
from memfold.errors import LeaseLost
from memfold.judge.base import Judge, SaveItem
from memfold.model import Action, Decision, Job

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(slots=True)
class Outcome:
    memory_id: str
    decision: Decision | None
    log_id: int | None = None
    retry: bool = False  # left pending for a later run (conflict, transient failure)
    lost: bool = False  # another worker holds the job now: nothing applied here

    @property
    def changed(self) -> bool:
        """Whether an applied decision may have changed what later saves are judged on:
        it rewrote or retired a memory. ADD and KEEP_SEPARATE leave every candidate as
        it was (a contradiction link is not a candidate's content)."""
        return (
            self.log_id is not None and self.decision is not None and self.decision.action.mutating
        )


def owner_of(job: Job) -> str:
    return job.owner or ""


def call_within(timeout_s: float, fn: Callable[[], T]) -> T:
    """``fn()`` in a helper thread; TimeoutError if it has not returned in ``timeout_s``
    (the thread is then abandoned: its result, whenever it comes, is dropped)."""
    box: list[T] = []
    error: list[BaseException] = []
    done = threading.Event()

    def run() -> None:
        try:
            box.append(fn())
        except BaseException as exc:  # handed to the caller
            error.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name="memfold-decide", daemon=True).start()
    if not done.wait(timeout_s):
        raise TimeoutError
    if error:
        raise error[0]
    return box[0]


def _skip(judge: Judge, reason: str, *, transient: bool) -> Decision:
    return Decision(Action.SKIP, reasoning=reason, judge=judge.name, transient=transient)


def decide(ctx: Context, judge: Judge, items: Sequence[SaveItem]) -> list[Decision]:
    """One decision per item, never raising (see the module docstring)."""
    timeout_s = ctx.settings.consolidation.timeout_s
    try:
        decisions = call_within(timeout_s, lambda: judge.decide(items))
        if len(decisions) != len(items):
            raise ValueError(f"the judge gave {len(decisions)} decisions for {len(items)} saves")
    except TimeoutError:
        reason = f"consolidation decision took longer than timeout_s ({timeout_s:g} s)"
        log.warning("%s; %d saves retried later", reason, len(items))
        return [_skip(judge, reason, transient=True) for _ in items]
    except Exception as exc:
        if len(items) > 1:
            log.warning("judge failed on a batch (%s); deciding its saves one by one", exc)
            return [decide(ctx, judge, [item])[0] for item in items]
        log.exception("judge failed on save %s", items[0].new.id)
        reason = f"the judge failed on this save: {type(exc).__name__}: {exc}"
        return [_skip(judge, reason, transient=False)]
    return decisions


def finish_plain(ctx: Context, job: Job, memory_id: str) -> Outcome:
    """Done without a decision (gone, no longer active, nothing similar)."""
    try:
        ctx.store.finish_job(job.id, owner_of(job))
    except LeaseLost:
        return Outcome(memory_id, None, lost=True)
    return Outcome(memory_id, None)


def defer(ctx: Context, job: Job, memory_id: str, decision: Decision) -> Outcome:
    """A transient SKIP: the job waits out a backoff; no attempt is spent."""
    delay = backoff_delay(job.backoffs, ctx.settings.consolidation)
    ctx.store.defer_job(job.id, owner_of(job), decision.reasoning, delay_s=delay)
    log.info("consolidation of %s deferred %.3g s: %s", memory_id, delay, decision.reasoning)
    return Outcome(memory_id, decision, retry=True)


def final_skip(
    ctx: Context, job: Job, item: SaveItem | None, memory_id: str, decision: Decision
) -> Outcome:
    """Log a permanent SKIP for this save and finish its job, in one transaction. If even
    that fails (the store itself is failing), the job is released and the error raised."""
    candidates = [] if item is None else list(item.candidates)
    change = ChangeSet(
        path="on_save",
        action=Action.SKIP.value,
        input_ids=[memory_id, *(c.memory.id for c in candidates)],
        similarity=candidates[0].similarity if candidates else None,
        confidence=decision.confidence,
        reasoning="; ".join([decision.reasoning, *decision.downgrade_reasons]).strip("; "),
        judge=decision.judge,
        model=decision.model,
        prompt_version=decision.prompt_version,
        prompt_tokens=decision.prompt_tokens,
        completion_tokens=decision.completion_tokens,
    )
    try:
        log_id = commit(ctx, change, inside=lambda _id: ctx.store.finish_job(job.id, owner_of(job)))
    except LeaseLost:
        return Outcome(memory_id, decision, lost=True)
    except Exception:
        ctx.store.release_job(job.id, owner_of(job), f"could not log a SKIP: {decision.reasoning}")
        raise
    return Outcome(memory_id, decision, log_id)


def poisoned(
    ctx: Context,
    job: Job,
    item: SaveItem | None,
    memory_id: str,
    decision: Decision | None,
    exc: BaseException,
) -> Outcome:
    """This save alone failed (its decision raised while applying, its record could not be
    read): a permanent SKIP with the reason; the rest of its batch goes on. A transient
    store failure (a connection lost mid-transaction: nothing of it was applied) is not
    the save's fault: the job waits out a backoff and runs again."""
    if getattr(exc, "transient", False):
        log.warning("consolidation of %s met a store failure (%s); retried later", memory_id, exc)
        reason = f"store failure: {type(exc).__name__}: {exc}"
        return defer(ctx, job, memory_id, Decision(Action.SKIP, reasoning=reason, transient=True))
    log.exception("consolidation of %s failed; skipped", memory_id, exc_info=exc)
    what = f"applying {decision.action.value}" if decision is not None else "preparing it"
    skip = Decision(
        Action.SKIP,
        reasoning=f"failed while {what}: {type(exc).__name__}: {exc}",
        judge="" if decision is None else decision.judge,
        model=None if decision is None else decision.model,
    )
    return final_skip(ctx, job, item, memory_id, skip)


def conflicted(
    ctx: Context, job: Job, item: SaveItem, decision: Decision, exc: BaseException
) -> Outcome:
    """The decision met a version conflict (nothing of it applied): pending again after
    ``conflict_delay``, or a final SKIP once ``max_conflict_retries`` are spent."""
    memory_id = item.new.id
    limit = ctx.settings.consolidation.max_conflict_retries
    if job.conflicts >= limit:
        reason = f"gave up after {job.conflicts + 1} version conflicts (last: {exc})"
        return final_skip(ctx, job, item, memory_id, Decision(Action.SKIP, reasoning=reason))
    delay = conflict_delay(ctx, job)
    if not ctx.store.requeue_conflict(job.id, owner_of(job), f"conflict: {exc}", delay_s=delay):
        return Outcome(memory_id, decision, lost=True)  # another worker holds it now
    log.debug("consolidation of %s met a conflict (%s); again in %.3g s", memory_id, exc, delay)
    return Outcome(memory_id, decision, retry=True)


def conflict_delay(ctx: Context, job: Job) -> float:
    """A random wait below ``conflict_backoff_s * 2^conflicts``, at most
    ``conflict_backoff_max_s``: jittered, so two workers that collided do not collide
    again on their next try, and short, since the other worker is already done."""
    cfg = ctx.settings.consolidation
    grown = cfg.conflict_backoff_s * 2.0 ** min(job.conflicts, 30)
    return random.random() * min(cfg.conflict_backoff_max_s, grown)


def gave_up(ctx: Context, job: Job) -> Outcome | None:
    """A job past ``max_attempts`` (workers that died holding it, failed passes): final
    SKIP. Version conflicts spend no attempt (``conflicted``)."""
    limit = ctx.settings.consolidation.max_attempts
    if job.attempts <= limit:
        return None
    reason = f"gave up after {job.attempts - 1} attempts (last error: {job.last_error or '?'})"
    return final_skip(ctx, job, None, job.memory_id, Decision(Action.SKIP, reasoning=reason))
