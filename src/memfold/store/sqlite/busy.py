"""Lock conflicts on SQLite that its busy handler does not wait out: which ones trying
again can resolve, and how a statement is tried again before it is raised as
``StoreBusy`` (store/sqlite/connection.py says where they come from)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from tenacity import (
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential,
)

from memfold.errors import StoreBusy

_T = TypeVar("_T")


def is_busy(exc: BaseException) -> bool:
    """SQLite's "database is locked" (SQLITE_BUSY) or "database table is locked"
    (SQLITE_LOCKED), whatever its extended code (SQLITE_BUSY_SNAPSHOT, ..._RECOVERY)."""
    name = getattr(exc, "sqlite_errorname", None)
    return (
        isinstance(exc, sqlite3.OperationalError)
        and isinstance(name, str)
        and name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
    )


def retryable(exc: BaseException) -> bool:
    """A lock conflict that trying again can resolve: not SQLITE_BUSY_SNAPSHOT, which a
    write begun while a read of the same connection is still open (an unfinished
    cursor, on a snapshot older than another writer's commit) meets until that read
    ends: no wait changes it."""
    return is_busy(exc) and getattr(exc, "sqlite_errorname", "") != "SQLITE_BUSY_SNAPSHOT"


@dataclass(frozen=True, slots=True)
class BusyRetry:
    """How a statement that met a lock conflict is tried again (see the module doc):
    up to ``retries`` more times, waiting ``wait_ms`` then twice as long each time, at
    most ``max_wait_ms``; none once ``budget_ms`` (the busy timeout) has passed since
    the first try, so a conflict the busy handler already waited out is not waited
    out again."""

    retries: int
    wait_ms: float
    max_wait_ms: float
    budget_ms: float

    def run(self, statement: Callable[[], _T], *, what: str, path: Path) -> _T:
        """``statement()``; after a lock conflict, tried again; StoreBusy (from the last
        sqlite3.OperationalError) once that is spent."""
        started = time.monotonic()
        try:
            return statement()
        except sqlite3.OperationalError as exc:
            if not retryable(exc):
                if is_busy(exc):
                    raise self.busy(what, path, started, exc) from exc
                raise
        return self.again(statement, started=started, what=what, path=path)

    def again(self, statement: Callable[[], _T], *, started: float, what: str, path: Path) -> _T:
        """The retries of ``statement()``, whose first try, begun at monotonic time
        ``started``, met a lock conflict."""
        wait_s, max_wait_s = self.wait_ms / 1000, self.max_wait_ms / 1000
        budget_s = self.budget_ms / 1000
        if self.retries <= 0 or time.monotonic() - started >= budget_s:
            raise self.busy(what, path, started)
        time.sleep(min(wait_s, max_wait_s))  # the first retry waits too
        retrying = Retrying(
            # the first retry and retries - 1 more, while the budget lasts
            stop=stop_after_attempt(self.retries)
            | stop_after_delay(max(0.0, budget_s - (time.monotonic() - started))),
            # after the k-th retry: wait_s * 2**k, at most max_wait_s
            wait=wait_exponential(multiplier=2 * wait_s, min=wait_s, max=max_wait_s),
            retry=retry_if_exception(retryable),
            reraise=True,
        )
        try:
            return retrying(statement)
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise self.busy(what, path, started, exc) from exc
            raise

    def busy(
        self, what: str, path: Path, started: float, exc: BaseException | None = None
    ) -> StoreBusy:
        """The StoreBusy of ``what``, tried since monotonic time ``started``."""
        if exc is not None and not retryable(exc):
            return StoreBusy(
                f"{path}: {what} met a read of the same connection still open on an "
                "older snapshot (SQLITE_BUSY_SNAPSHOT): a cursor left unfinished; "
                "nothing was written"
            )
        return StoreBusy(
            f"{path} is locked by another connection: {what} gave up after "
            f"{time.monotonic() - started:.2f} s (store.busy_timeout_ms={self.budget_ms:g}, "
            f"store.busy_retries={self.retries}); nothing was written, try again"
        )
