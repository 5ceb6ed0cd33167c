"""PostgreSQL table of durable jobs: claims with leases, heartbeats, backoff, reclaim.

The same rules as store/sqlite/jobs.py. A claim is one statement: the claimable rows
are locked with ``FOR UPDATE SKIP LOCKED`` (workers claiming at once each take
different jobs, none waits for another) and updated to running with the owner and
its lease. Finishing and releasing check that the caller still holds the job.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from memfold.errors import LeaseLost
from memfold.model import Job, utcnow
from memfold.store.codec import JOB_COLUMNS, row_to_job

_CLAIMABLE = (
    "((status = 'pending' AND coalesce(next_attempt_at, 0) <= %(at)s) "
    "OR (status = 'running' AND coalesce(lease_until, 0) < %(at)s))"
)
_TAKE = (
    "UPDATE jobs SET status = 'running', claimed_by = %(owner)s, claimed_at = %(stamp)s, "
    "lease_until = %(until)s, attempts = attempts + 1, updated_at = %(stamp)s "
    "FROM picked WHERE jobs.id = picked.id RETURNING "
    + ", ".join(f"jobs.{c.strip()}" for c in JOB_COLUMNS.split(","))
)


class JobsTableMixin:
    """The durable outbox of on-save work (see the module docstring)."""

    _q: Callable[..., list[tuple[Any, ...]]]
    _w: Callable[..., int]
    _tx: Callable[[], AbstractContextManager[None]]

    def enqueue_job(self, memory_id: str, kind: str = "consolidate") -> int:
        now = utcnow()
        return self._w(
            "INSERT INTO jobs (memory_id, kind, status, created_at, updated_at) "
            "VALUES (%s, %s, 'pending', %s, %s) RETURNING id",
            (memory_id, kind, now, now),
        )

    def _claim(self, pick: str, params: dict[str, Any], owner: str, lease_s: float) -> list[Job]:
        at = params["at"]
        rows = self._q(
            f"WITH picked AS ({pick}) {_TAKE}",
            {**params, "owner": owner, "stamp": utcnow(), "until": at + lease_s},
        )
        return sorted((row_to_job(r) for r in rows), key=lambda j: j.id)

    def claim_jobs(
        self, limit: int, owner: str, *, lease_s: float, now: float | None = None
    ) -> list[Job]:
        """Up to ``limit`` claimable jobs, oldest first, now held by ``owner``."""
        at = time.time() if now is None else now
        with self._tx():
            return self._claim(
                f"SELECT id FROM jobs WHERE {_CLAIMABLE} ORDER BY id LIMIT %(limit)s "
                "FOR UPDATE SKIP LOCKED",
                {"at": at, "limit": limit},
                owner,
                lease_s,
            )

    def claim_job(
        self, job_id: int, owner: str, *, lease_s: float, now: float | None = None
    ) -> Job | None:
        """That one job, if it is claimable; None when another worker holds or did it."""
        at = time.time() if now is None else now
        with self._tx():
            jobs = self._claim(
                f"SELECT id FROM jobs WHERE id = %(id)s AND {_CLAIMABLE} FOR UPDATE SKIP LOCKED",
                {"at": at, "id": job_id},
                owner,
                lease_s,
            )
        return jobs[0] if jobs else None

    def renew_leases(self, owner: str, *, lease_s: float, now: float | None = None) -> int:
        """The heartbeat: extend the lease of every job ``owner`` runs."""
        at = time.time() if now is None else now
        return self._w(
            "UPDATE jobs SET lease_until = %s WHERE status = 'running' AND claimed_by = %s",
            (at + lease_s, owner),
        )

    def _held(self, job_id: int, owner: str, sql: str, params: Sequence[Any]) -> bool:
        return bool(
            self._w(
                f"{sql} WHERE id = %s AND status = 'running' AND claimed_by = %s",
                (*params, job_id, owner),
            )
        )

    def finish_job(self, job_id: int, owner: str) -> None:
        """Mark done; raises LeaseLost (rolling back the caller's transaction) if ``owner``
        no longer holds the job."""
        sql = "UPDATE jobs SET status = 'done', lease_until = NULL, updated_at = %s"
        if not self._held(job_id, owner, sql, (utcnow(),)):
            raise LeaseLost(f"job {job_id} is no longer held by {owner}")

    def release_job(
        self, job_id: int, owner: str, error: str | None, *, delay_s: float = 0.0
    ) -> bool:
        """Back to pending, claimable after ``delay_s`` (at once by default), the attempt
        spent (a crash, a failed pass)."""
        sql = (
            "UPDATE jobs SET status = 'pending', last_error = %s, claimed_by = NULL, "
            "lease_until = NULL, next_attempt_at = %s, updated_at = %s"
        )
        return self._held(job_id, owner, sql, (error, time.time() + max(delay_s, 0.0), utcnow()))

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
            "UPDATE jobs SET status = 'pending', last_error = %s, claimed_by = NULL, "
            "lease_until = NULL, attempts = greatest(attempts - 1, 0), "
            "backoffs = backoffs + 1, next_attempt_at = %s, updated_at = %s"
        )
        return self._held(job_id, owner, sql, (error, at + delay_s, utcnow()))

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
            "UPDATE jobs SET status = 'pending', last_error = %s, claimed_by = NULL, "
            "lease_until = NULL, attempts = greatest(attempts - 1, 0), "
            "conflicts = conflicts + 1, next_attempt_at = %s, updated_at = %s"
        )
        return self._held(job_id, owner, sql, (error, at + max(delay_s, 0.0), utcnow()))

    def job_owners(self) -> list[str]:
        """Owners of running jobs."""
        rows = self._q(
            "SELECT DISTINCT claimed_by FROM jobs WHERE status = 'running' "
            "AND claimed_by IS NOT NULL ORDER BY claimed_by"
        )
        return [str(r[0]) for r in rows]

    def reclaim_jobs(self, owners: Sequence[str], *, now: float | None = None) -> int:
        """Running jobs held by ``owners`` (found dead) or with an expired lease: pending
        again, ready at once; the attempt they were on stays spent."""
        at = time.time() if now is None else now
        stamp = utcnow()
        reset = (
            "UPDATE jobs SET status = 'pending', last_error = %s, claimed_by = NULL, "
            "lease_until = NULL, updated_at = %s WHERE status = 'running' AND "
        )
        with self._tx():
            total = self._w(
                reset + "coalesce(lease_until, 0) < %s",
                ("lease expired before the job finished", stamp, at),
            )
            for owner in owners:
                total += self._w(
                    reset + "claimed_by = %s", (f"owner {owner} is gone", stamp, owner)
                )
        return total

    def count_jobs(
        self, status: str = "pending", *, ready: bool = False, now: float | None = None
    ) -> int:
        """Jobs in ``status``; ``ready``: only pending jobs whose next attempt has come."""
        if not ready:
            return int(self._q("SELECT count(*) FROM jobs WHERE status = %s", (status,))[0][0])
        at = time.time() if now is None else now
        sql = "SELECT count(*) FROM jobs WHERE status = %s AND coalesce(next_attempt_at, 0) <= %s"
        return int(self._q(sql, (status, at))[0][0])

    def get_job(self, job_id: int) -> Job | None:
        rows = self._q(f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = %s", (job_id,))
        return row_to_job(rows[0]) if rows else None

    def list_jobs(self, status: str | None = None) -> list[Job]:
        where = "" if status is None else " WHERE status = %s"
        rows = self._q(
            f"SELECT {JOB_COLUMNS} FROM jobs{where} ORDER BY id",
            () if status is None else (status,),
        )
        return [row_to_job(r) for r in rows]
