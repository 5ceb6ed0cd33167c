"""The decisions of a consolidation pass committed in groups (stores with savepoints).

A commit per decision pays a transaction's begin, commit and WAL write each time. On a
store whose transactions nest as savepoints (``store.base.Savepoints``: SQLite), a pass
keeps one transaction open for up to ``consolidation.apply_group_size`` decisions or
``apply_group_max_s`` seconds. ``engine.changes.commit`` applies each decision and marks
its job done in a savepoint of its own, checked against the row versions it was planned
on, so a decision that fails (a version conflict, a lost lease, an error) rolls back
alone and the rest of the group stands. A crash before the group commits loses its
decisions whole: their jobs are still claimed by the dead worker, are claimed again once
reclaimed, and nothing is half applied or applied twice.

The group is committed before a search (the process's vector index, shared with other
threads, must never read a row that may yet be rolled back) and before the embedding a
decision's drift check computes: the write lock is not held across either, nor across
a judge call (the group covers applying only). Other stores commit each decision alone.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from types import TracebackType

from memfold.engine.context import Context
from memfold.store.base import Savepoints


class WriteGroup:
    """Open with ``with``; ``begin()`` before a decision's writes, ``done()`` after,
    ``flush()`` before a search or an embedding. Leaving the ``with`` commits what is
    open, or rolls it back when an exception leaves it."""

    def __init__(self, ctx: Context) -> None:
        cfg = ctx.settings.consolidation
        self._ctx = ctx
        self._size = cfg.apply_group_size if isinstance(ctx.store, Savepoints) else 1
        self._max_s = cfg.apply_group_max_s
        self._open: AbstractContextManager[None] | None = None
        self._count = 0
        self._opened_at = 0.0

    def __enter__(self) -> WriteGroup:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        tx, self._open = self._open, None
        if tx is not None:
            tx.__exit__(exc_type, exc, tb)  # commits, or rolls back and lets exc go on

    def begin(self) -> None:
        """Before a decision's writes: open the group's transaction if none is open."""
        if self._size <= 1 or self._open is not None:
            return
        tx = self._ctx.store.transaction()
        tx.__enter__()
        self._open, self._count, self._opened_at = tx, 0, time.monotonic()

    def done(self) -> None:
        """After a decision's writes: commit once the group is full or old enough."""
        if self._open is None:
            return
        self._count += 1
        if self._count >= self._size or time.monotonic() - self._opened_at >= self._max_s:
            self.flush()

    def flush(self) -> None:
        """Commit what the group holds (nothing open: nothing to do)."""
        tx, self._open = self._open, None
        if tx is not None:
            tx.__exit__(None, None, None)
