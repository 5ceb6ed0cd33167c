"""Draining the durable job queue: inline, in a background thread, or as a process."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable

from memfold.engine.context import Context
from memfold.engine.on_save import Outcome, process_jobs
from memfold.judge.base import Judge

log = logging.getLogger(__name__)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


def drain(
    ctx: Context,
    judge: Judge,
    *,
    max_batches: int | None = None,
    on_batch: Callable[[list[Outcome]], None] | None = None,
) -> int:
    """Process pending jobs until none are left (or ``max_batches``); returns jobs handled."""
    handled = 0
    batches = 0
    name = worker_name()
    size = ctx.settings.consolidation.batch_size
    while max_batches is None or batches < max_batches:
        jobs = ctx.store.claim_jobs(size, name)
        if not jobs:
            break
        outcomes = process_jobs(ctx, judge, jobs)
        handled += len(jobs)
        batches += 1
        if on_batch is not None:
            on_batch(outcomes)
        if all(o.retry for o in outcomes):
            break  # only transient failures: leave them for a later run
    return handled


class BackgroundWorker:
    """A daemon thread that drains jobs while the Memory is open."""

    def __init__(self, ctx: Context, judge: Judge) -> None:
        self._ctx = ctx
        self._judge = judge
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="memfold-worker", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        self._idle.clear()
        self._wake.set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)

    def _gather(self) -> None:
        """Give a burst of saves time to pile up, so one judge call decides several."""
        cfg = self._ctx.settings.consolidation
        deadline = time.monotonic() + cfg.batch_wait_s
        while time.monotonic() < deadline and not self._stop.is_set():
            if self._ctx.store.count_jobs("pending") >= cfg.batch_size:
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
            if not self._wake.is_set():
                self._idle.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)
