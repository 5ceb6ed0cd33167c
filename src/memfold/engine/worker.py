"""Draining the durable job queue: inline, in a background thread, or as a process.

Every batch is claimed under this thread's owner id with a lease that a heartbeat
renews while the batch runs (``engine.lease``). Jobs backing off after a transient
failure are not claimable before their next-attempt time, so a drain ends when
only those are left: they stay pending for a later run.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

from memfold.engine.context import Context
from memfold.engine.lease import current_owner, heartbeat, reclaim_dead
from memfold.engine.lifecycle.tick import tick
from memfold.engine.on_save import Outcome, process_jobs
from memfold.judge.base import Judge
from memfold.judge.rules import RuleJudge
from memfold.model import Job

log = logging.getLogger(__name__)


def run_batch(ctx: Context, judge: Judge, jobs: Sequence[Job]) -> list[Outcome]:
    """Process claimed jobs under a heartbeat. If processing raises, the jobs of the batch
    this worker still holds go back to pending (the attempt spent) before it propagates."""
    owner = (jobs[0].owner if jobs else None) or current_owner()
    with heartbeat(ctx.store, owner, ctx.settings.consolidation):
        try:
            return process_jobs(ctx, judge, jobs)
        except BaseException as exc:
            for job in jobs:
                try:
                    ctx.store.release_job(job.id, owner, f"worker failed: {exc!r}"[:500])
                except Exception:  # the store is failing too: the lease will expire
                    log.warning("could not release job %d", job.id, exc_info=True)
            raise


def decide_now(ctx: Context, judge: Judge, job: Job) -> Outcome:
    """Decide one job this thread already holds (a sync ``add``)."""
    (outcome,) = run_batch(ctx, judge, [job])
    return outcome


def drain(
    ctx: Context,
    judge: Judge,
    *,
    max_batches: int | None = None,
    on_batch: Callable[[list[Outcome]], None] | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Reclaim the jobs of dead workers, then process claimable jobs until none are left
    (or ``max_batches``, or ``stop`` is set: checked between batches). Returns the jobs
    finished here (not those deferred or lost)."""
    cfg = ctx.settings.consolidation
    owner = current_owner()
    reclaim_dead(ctx.store)
    handled = 0
    batches = 0
    claim = cfg.rules_claim_size if isinstance(judge, RuleJudge) else cfg.batch_size
    while max_batches is None or batches < max_batches:
        if stop is not None and stop.is_set():
            break
        jobs = ctx.store.claim_jobs(claim, owner, lease_s=cfg.lease_s)
        if not jobs:
            break
        outcomes = run_batch(ctx, judge, jobs)
        handled += sum(1 for o in outcomes if not (o.retry or o.lost))
        batches += 1
        if on_batch is not None:
            on_batch(outcomes)
    return handled


def run_worker(
    ctx: Context,
    judge: Judge,
    *,
    once: bool = False,
    stop: threading.Event | None = None,
    report: Callable[[int], None] | None = None,
) -> int:
    """The ``memfold worker`` loop: drain, wait ``worker_poll_s``, again, until ``stop`` is
    set (or after one pass with ``once``). A pass that raises is logged and the loop goes
    on: one bad batch never ends the worker. Returns the jobs finished."""
    stop = stop or threading.Event()
    poll = ctx.settings.consolidation.worker_poll_s
    total = 0
    schedule = TickSchedule(ctx, judge)
    while not stop.is_set():  # set before the first pass: stopped while starting
        try:
            handled = drain(ctx, judge, stop=stop)
        except Exception:
            log.exception("a consolidation pass failed; the worker goes on")
            handled = 0
        total += handled
        schedule.added(handled)  # each save decided was one add
        if not stop.is_set():  # a tick may take seconds: not on the way out
            schedule.maybe_tick()
        if handled and report is not None:
            report(handled)
        if once or stop.wait(poll):
            return total
    return total


class TickSchedule:
    """The lifecycle tick every ``lifecycle.tick_every_adds`` adds (0: never), at most
    once per ``lifecycle.tick_min_interval_s`` (a tick reads the whole hot tier: seconds
    at 100k memories, so a busy store must not tick every few adds). A tick that fails
    is logged; the worker goes on and the next add counts toward the next one."""

    def __init__(self, ctx: Context, judge: Judge) -> None:
        self._ctx = ctx
        self._judge = judge
        self._lock = threading.Lock()
        self._adds = 0
        self._last: float | None = None  # time.monotonic() of this worker's last tick

    def added(self, n: int) -> None:
        with self._lock:
            self._adds += n

    def maybe_tick(self) -> bool:
        cfg = self._ctx.settings.lifecycle
        with self._lock:
            if cfg.tick_every_adds <= 0 or self._adds < cfg.tick_every_adds:
                return False
            now = time.monotonic()
            if self._last is not None and now - self._last < cfg.tick_min_interval_s:
                return False
            self._adds = 0
            self._last = now
        try:
            tick(self._ctx, self._judge)
        except Exception:
            log.exception("lifecycle tick failed; the worker goes on")
            return False
        return True


class BackgroundWorker:
    """A daemon thread that drains jobs while the Memory is open (and runs the lifecycle
    tick every ``lifecycle.tick_every_adds`` adds)."""

    def __init__(self, ctx: Context, judge: Judge) -> None:
        self._ctx = ctx
        self._judge = judge
        self.schedule = TickSchedule(ctx, judge)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="memfold-worker", daemon=True)
        self._thread.start()

    def notify(self, adds: int = 0) -> None:
        """Work is waiting (``adds`` memories were just added)."""
        self.schedule.added(adds)
        self._idle.clear()
        self._wake.set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)

    def _gather(self) -> None:
        """Give a burst of saves time to pile up, so one judge call decides several."""
        cfg = self._ctx.settings.consolidation
        deadline = time.monotonic() + cfg.batch_wait_s
        while time.monotonic() < deadline and not self._stop.is_set():
            if self._ctx.store.count_jobs("pending", ready=True) >= cfg.batch_size:
                return
            self._stop.wait(min(cfg.worker_poll_s, 0.05))

    def _run(self) -> None:
        poll = self._ctx.settings.consolidation.worker_poll_s
        while not self._stop.is_set():
            self._wake.wait(poll)
            self._wake.clear()
            if self._stop.is_set():
                break
            self._gather()
            try:
                drain(self._ctx, self._judge)
            except Exception:  # the worker must outlive any one bad batch
                log.exception("background consolidation failed; jobs stay pending")
            self.schedule.maybe_tick()
            if not self._wake.is_set():
                self._idle.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)
