"""SQLite table of durable jobs: claims with leases, heartbeats, backoff, reclaim.

A claim names its owner and holds a lease (``lease_until``, Unix seconds) that the
owner renews while it works. A job is claimable when it is pending and its
``next_attempt_at`` has come, or running with an expired lease. Finishing and
releasing check that the caller still holds the job, so a job whose lease passed
to another worker is never applied twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from memfold.errors import LeaseLost
from memfold.model import Job, JobStatus, utcnow
from memfold.store.codec import JOB_COLUMNS, row_to_job

if TYPE_CHECKING:
    from memfold.store.sqlite.connection import Connections

_CLAIMABLE = (
    "(status = 'pending' AND coalesce(next_attempt_at, 0) <= ?) "
    "OR (status = 'running' AND coalesce(lease_until, 0) < ?)"
)


class JobsTableMixin:
    """The durable outbox of on-save work (see the module docstring)."""

    _q: Callable[..., list[tuple[Any, ...]]]
    _w: Callable[..., int]
    _tx: Callable[[], AbstractContextManager[None]]
    _db: Connections

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One job's decision, inside the transaction of a pass (``engine.write_group``):
        a savepoint, rolled back alone when it raises; outside a transaction, a
        transaction of its own."""
        with self._db.savepoint():
            yield

    def enqueue_job(self, memory_id: str, kind: str = "consolidate") -> int:
        now = utcnow().isoformat()
        return self._w(
            "INSERT INTO jobs (memory_id, kind, status, created_at, updated_at) "
            "VALUES (?, ?, 'pending', ?, ?)",
            (memory_id, kind, now, now),
        )

    def _take(
        self, rows: list[tuple[Any, ...]], owner: str, lease_s: float, now: float
    ) -> list[Job]:
        stamp = utcnow().isoformat()
        for row in rows:
            self._w(
                "UPDATE jobs SET status = 'running', claimed_by = ?, claimed_at = ?, "
                "lease_until = ?, attempts = attempts + 1, updated_at = ? WHERE id = ?",
                (owner, stamp, now + lease_s, stamp, row[0]),
            )
        jobs = [row_to_job(r) for r in rows]
        for job in jobs:
            job.attempts += 1
            job.owner = owner
            job.status = JobStatus.RUNNING
        return jobs

    def claim_jobs(
        self, limit: int, owner: str, *, lease_s: float, now: float | None = None
    ) -> list[Job]:
        """Up to ``limit`` claimable jobs, oldest first, now held by ``owner``."""
        at = time.time() if now is None else now
        sql = f"SELECT {JOB_COLUMNS} FROM jobs WHERE {_CLAIMABLE} ORDER BY id LIMIT ?"
        if not self._q(f"SELECT 1 FROM jobs WHERE {_CLAIMABLE} LIMIT 1", (at, at)):
            return []  # idle: no write lock taken
        with self._tx():
            return self._take(self._q(sql, (at, at, limit)), owner, lease_s, at)

    def claim_job(
        self, job_id: int, owner: str, *, lease_s: float, now: float | None = None
    ) -> Job | None:
        """That one job, if it is claimable; None when another worker holds or did it."""
        at = time.time() if now is None else now
        with self._tx():
            rows = self._q(
                f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = ? AND ({_CLAIMABLE})",
                (job_id, at, at),
            )
            jobs = self._take(rows, owner, lease_s, at)
        return jobs[0] if jobs else None

    def renew_leases(self, owner: str, *, lease_s: float, now: float | None = None) -> int:
        """The heartbeat: extend the lease of every job ``owner`` runs."""
        at = time.time() if now is None else now
        return self._w(
            "UPDATE jobs SET lease_until = ? WHERE status = 'running' AND claimed_by = ?",
            (at + lease_s, owner),
        )

    def _held(self, job_id: int, owner: str, sql: str, params: Sequence[Any]) -> bool:
        return bool(
            self._w(
                f"{sql} WHERE id = ? AND status = 'running' AND claimed_by = ?",
                (*params, job_id, owner),
            )
        )

    def finish_job(self, job_id: int, owner: str) -> None:
        """Mark done; raises LeaseLost (rolling back the caller's transaction) if ``owner``
        no longer holds the job."""
        sql = "UPDATE jobs SET status = 'done', lease_until = NULL, updated_at = ?"
        if not self._held(job_id, owner, sql, (utcnow().isoformat(),)):
            raise LeaseLost(f"job {job_id} is no longer held by {owner}")

    def release_job(
        self, job_id: int, owner: str, error: str | None, *, delay_s: float = 0.0
    ) -> bool:
        """Back to pending, claimable after ``delay_s`` (at once by default), the attempt
        spent (a crash, a failed pass)."""
        sql = (
            "UPDATE jobs SET status = 'pending', last_error = ?, claimed_by = NULL, "
            "lease_until = NULL, next_attempt_at = ?, updated_at = ?"
        )
        return self._held(
            job_id, owner, sql, (error, time.time() + max(delay_s, 0.0), utcnow().isoformat())
        )

    def defer_job(
        self,
        job_id: int,
        owner: str,
        error: str | None,
        *,
        delay_s: float,
        now: float | None = None,
    ) -> bool:
        """A transient failure: pending again after ``delay_s``; the attempt is refunded."""
        at = time.time() if now is None else now
        sql = (
            "UPDATE jobs SET status = 'pending', last_error = ?, claimed_by = NULL, "
            "lease_until = NULL, attempts = max(attempts - 1, 0), backoffs = backoffs + 1, "
            "next_attempt_at = ?, updated_at = ?"
        )
        return self._held(job_id, owner, sql, (error, at + delay_s, utcnow().isoformat()))

    def requeue_conflict(
        self,
        job_id: int,
        owner: str,
        error: str | None,
        *,
        delay_s: float,
        now: float | None = None,
    ) -> bool:
        """A version conflict (re-planned, not a failure): pending again after ``delay_s``,
        the attempt refunded and one more conflict counted."""
        at = time.time() if now is None else now
        sql = (
            "UPDATE jobs SET status = 'pending', last_error = ?, claimed_by = NULL, "
            "lease_until = NULL, attempts = max(attempts - 1, 0), conflicts = conflicts + 1, "
            "next_attempt_at = ?, updated_at = ?"
        )
        return self._held(job_id, owner, sql, (error, at + max(delay_s, 0.0), utcnow().isoformat()))

    def job_owners(self) -> list[str]:
        """Owners of running jobs."""
        rows = self._q(
            "SELECT DISTINCT claimed_by FROM jobs WHERE status = 'running' "
            "AND claimed_by IS NOT NULL"
        )
        return [str(r[0]) for r in rows]

    def reclaim_jobs(self, owners: Sequence[str], *, now: float | None = None) -> int:
        """Running jobs held by ``owners`` (found dead) or with an expired lease: pending
        again, ready at once; the attempt they were on stays spent."""
        at = time.time() if now is None else now
        marks = ",".join("?" * len(owners))
        anyone = f" OR claimed_by IN ({marks})" if owners else ""
        probe = "SELECT 1 FROM jobs WHERE status = 'running' AND "
        probe += f"(coalesce(lease_until, 0) < ?{anyone}) LIMIT 1"
        if not self._q(probe, (at, *owners)):
            return 0  # nothing to reclaim: no write lock taken
        stamp = utcnow().isoformat()
        reset = (
            "UPDATE jobs SET status = 'pending', last_error = ?, claimed_by = NULL, "
            "lease_until = NULL, updated_at = ? WHERE status = 'running' AND "
        )
        with self._tx():
            total = self._w(
                reset + "coalesce(lease_until, 0) < ?",
                ("lease expired before the job finished", stamp, at),
            )
            for owner in owners:
                total += self._w(reset + "claimed_by = ?", (f"owner {owner} is gone", stamp, owner))
        return total

    def count_jobs(
        self, status: str = "pending", *, ready: bool = False, now: float | None = None
    ) -> int:
        """Jobs in ``status``; ``ready``: only pending jobs whose next attempt has come."""
        if not ready:
            return int(self._q("SELECT count(*) FROM jobs WHERE status = ?", (status,))[0][0])
        at = time.time() if now is None else now
        sql = "SELECT count(*) FROM jobs WHERE status = ? AND coalesce(next_attempt_at, 0) <= ?"
        return int(self._q(sql, (status, at))[0][0])

    def get_job(self, job_id: int) -> Job | None:
        rows = self._q(f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,))
        return row_to_job(rows[0]) if rows else None

    def list_jobs(self, status: str | None = None) -> list[Job]:
        where = "" if status is None else " WHERE status = ?"
        rows = self._q(
            f"SELECT {JOB_COLUMNS} FROM jobs{where} ORDER BY id",
            () if status is None else (status,),
        )
        return [row_to_job(r) for r in rows]
