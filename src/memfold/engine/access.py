"""Access counts kept off the search path.

A search only appends its hits to an ``AccessBuffer`` (a dict under a lock: no I/O,
never a wait on the database). The buffer is written to the memories table
(``access_count``, ``last_access_at``) by ``Store.add_accesses`` in one short
transaction:

- by its own daemon thread, once it holds ``store.access_flush_count`` accesses or its
  oldest is ``store.access_flush_age_s`` seconds old;
- on ``Memory.flush()`` and ``Memory.close()``, and at interpreter exit for a Memory
  never closed.

A flush that fails (the file busy past its busy timeout, locked, a disk error) puts
its accesses back and the thread tries again ``access_flush_age_s`` later; nothing is
dropped while the Memory is open, and ``close()`` logs a warning naming how many it
could not write. A crash (SIGKILL, power loss) loses the accesses not yet flushed: at
most ``access_flush_count`` of them or ``access_flush_age_s`` seconds' worth.

With ``spacing`` (the lifecycle settings), a flush also grows the stability of each
memory it writes by the spacing effect (policy.retention.stability_after_access: the
longer since the previous access, the more), in the same transaction: a search still
never writes.

``overlay`` adds this process's unwritten accesses to a record read from the store,
so ``Memory.get()`` shows them without a flush (other processes' unwritten ones
appear once those processes flush). A forked child starts with an empty buffer (what
it inherited is the parent's to write).
"""

from __future__ import annotations

import atexit
import dataclasses
import logging
import os
import threading
import time
import weakref
from collections.abc import Iterable
from datetime import datetime

from memfold.config import LifecycleSettings
from memfold.model import MemoryRecord
from memfold.policy.retention import days_between, last_touch, stability_after_access
from memfold.store.base import Store

log = logging.getLogger(__name__)

Tally = tuple[int, datetime]  # (accesses, the latest of their times)

_OPEN: weakref.WeakSet[AccessBuffer] = weakref.WeakSet()


class AccessBuffer:
    """Counts retrievals in memory and writes them in batches (see the module doc)."""

    def __init__(
        self,
        store: Store,
        *,
        flush_count: int,
        flush_age_s: float,
        spacing: LifecycleSettings | None = None,
    ) -> None:
        self._store = store
        self._spacing = spacing
        self._flush_count = flush_count
        self._flush_age_s = flush_age_s
        self._lock = threading.Lock()  # guards the fields below
        self._flushing = threading.Lock()  # one flush at a time
        self._pending: dict[str, Tally] = {}
        self._inflight: dict[str, Tally] = {}  # taken by a flush not yet committed
        self._count = 0  # accesses pending (a memory found by 3 searches counts 3)
        self._oldest: float | None = None  # monotonic time of the oldest pending access
        self._retry_at = 0.0  # after a failed flush, the thread waits until then
        self._failures = 0  # failed flushes in a row
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        _OPEN.add(self)

    # the search side ------------------------------------------------------------
    def record(self, ids: Iterable[str], when: datetime) -> None:
        """Count one retrieval of each id at ``when``. Never touches the database."""
        with self._lock:
            if self._closed:
                return
            added = 0
            for memory_id in ids:
                n, last = self._pending.get(memory_id, (0, when))
                self._pending[memory_id] = (n + 1, max(last, when))
                added += 1
            if not added:
                return
            self._count += added
            first = self._oldest is None  # the thread sleeps until told when one is due
            if first:
                self._oldest = time.monotonic()
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="memfold-access-flush", daemon=True
                )
                self._thread.start()
            wake = first or self._count >= self._flush_count
        if wake:
            self._wake.set()

    def pending(self) -> int:
        """Accesses recorded and not yet written (a flush in progress included)."""
        with self._lock:
            return self._count + sum(n for n, _ in self._inflight.values())

    def overlay(self, record: MemoryRecord) -> MemoryRecord:
        """``record`` (as read from the store) plus this process's unwritten accesses.
        Approximate for an instant: while a flush commits, they may count twice."""
        with self._lock:
            found = (self._pending.get(record.id), self._inflight.get(record.id))
        tallies = [t for t in found if t is not None]
        if not tallies:
            return record
        latest = max(when for _, when in tallies)
        if record.last_access_at is not None:
            latest = max(latest, record.last_access_at)
        return dataclasses.replace(
            record,
            access_count=record.access_count + sum(n for n, _ in tallies),
            last_access_at=latest,
        )

    # writing ----------------------------------------------------------------------
    def flush(self) -> int:
        """Write every pending access in one transaction; returns how many were written.
        On failure they go back into the buffer (logged) and 0 is returned."""
        with self._flushing:
            with self._lock:
                batch, self._inflight = self._pending, self._pending
                count, self._pending, self._count, self._oldest = self._count, {}, 0, None
            if not batch:
                return 0
            try:
                self._write(batch)
            except Exception as exc:  # busy, locked, disk error: keep them, retry later
                self._put_back(batch, count)
                level = logging.WARNING if self._failures == 1 else logging.DEBUG
                log.log(level, "access counts not written yet (%d kept): %s", count, exc)
                return 0
            with self._lock:
                self._inflight = {}
                self._failures = 0
            return count

    def _write(self, batch: dict[str, Tally]) -> None:
        rows = [(i, n, when) for i, (n, when) in batch.items()]
        if self._spacing is None:
            self._store.add_accesses(rows)
            return
        cfg = self._spacing
        with self._store.transaction():
            grown = []
            for memory in self._store.get_memories(batch).values():
                days = days_between(last_touch(memory), batch[memory.id][1])
                grown.append((memory.id, stability_after_access(memory.stability, days, cfg)))
            self._store.set_stabilities(grown)
            self._store.add_accesses(rows)

    def _put_back(self, batch: dict[str, Tally], count: int) -> None:
        with self._lock:
            for memory_id, (n, when) in batch.items():
                m, last = self._pending.get(memory_id, (0, when))
                self._pending[memory_id] = (n + m, max(last, when))
            self._inflight = {}
            self._count += count
            self._oldest = time.monotonic() - self._flush_age_s  # already due
            self._failures += 1
            self._retry_at = time.monotonic() + self._flush_age_s

    def _due_in(self) -> float | None:
        """Seconds until the next background flush is due; None when nothing is pending."""
        with self._lock:
            if self._oldest is None:
                return None
            now = time.monotonic()
            due = now if self._count >= self._flush_count else self._oldest + self._flush_age_s
            return max(0.0, max(due, self._retry_at) - now)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                wait = self._due_in()
                if wait is None or wait > 0:
                    self._wake.wait(wait)
                    self._wake.clear()
                    continue
                self.flush()
        finally:
            self._store.close_thread()

    def close(self, timeout: float = 10.0) -> int:
        """Stop the thread and write what is left; returns how many were written. What
        cannot be written (the file busy past its timeout) is lost, with a warning."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        written = self.flush()
        with self._lock:
            self._closed = True
            lost = self._count
            self._pending, self._count, self._oldest = {}, 0, None
        _OPEN.discard(self)
        if lost:
            log.warning("closing: %d access counts could not be written and are lost", lost)
        return written


def _after_fork_in_child() -> None:
    """A forked child starts with empty buffers and no flush thread: the counts it
    inherited are the parent's to write, and a lock held at the fork is not its own."""
    for buffer in list(_OPEN):
        buffer._lock = threading.Lock()
        buffer._flushing = threading.Lock()
        buffer._pending, buffer._inflight = {}, {}
        buffer._count, buffer._oldest, buffer._thread = 0, None, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@atexit.register
def _flush_at_exit() -> None:
    """A Memory never closed still writes its access counts when Python exits."""
    for buffer in list(_OPEN):
        try:
            buffer.flush()
        except Exception:  # exit goes on whatever one store does
            log.debug("access flush at exit failed", exc_info=True)
