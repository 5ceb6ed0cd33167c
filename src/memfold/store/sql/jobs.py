"""The durable jobs table, for both backends: enqueue, leases, finishing, releasing,
reclaiming, counting. Claiming is each backend's own (sqlite/jobs.py: a read then an
update under SQLite's writer lock; postgres/jobs.py: one ``FOR UPDATE SKIP LOCKED``
statement).

A claim names its owner and holds a lease (``lease_until``, Unix seconds) that the
owner renews while it works. A job is claimable when it is pending and its
``next_attempt_at`` has come, or running with an expired lease. Finishing and
releasing check that the caller still holds the job, so a job whose lease passed to
another worker is never applied twice.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from memfold.errors import LeaseLost
from memfold.model import Job, utcnow
from memfold.store.codec import JOB_COLUMNS, row_to_job
from memfold.store.sql.tables import SQLTables

# Back to pending, no longer held: the start of every release's UPDATE.
_UNCLAIM = "UPDATE jobs SET status = 'pending', last_error = ?, claimed_by = NULL, "


class JobTables(SQLTables):
    """The durable outbox of on-save work, but for claiming (see the module docstring)."""

    def enqueue_job(self, memory_id: str, kind: str = "consolidate") -> int:
        now = self._dialect.time(utcnow())
        return self._insert(
            "INSERT INTO jobs (memory_id, kind, status, created_at, updated_at) "
            "VALUES (?, ?, 'pending', ?, ?)",
            (memory_id, kind, now, now),
        )

    def renew_leases(self, owner: str, *, lease_s: float, now: float | None = None) -> int:
        """The heartbeat: extend the lease of every job ``owner`` runs."""
        at = time.time() if now is None else now
        return self._write(
            "UPDATE jobs SET lease_until = ? WHERE status = 'running' AND claimed_by = ?",
            (at + lease_s, owner),
        )

    def _held(self, job_id: int, owner: str, sql: str, params: Sequence[Any]) -> bool:
        return bool(
            self._write(
                f"{sql} WHERE id = ? AND status = 'running' AND claimed_by = ?",
                (*params, job_id, owner),
            )
        )

    def finish_job(self, job_id: int, owner: str) -> None:
        """Mark done; raises LeaseLost (rolling back the caller's transaction) if ``owner``
        no longer holds the job."""
        sql = "UPDATE jobs SET status = 'done', lease_until = NULL, updated_at = ?"
        if not self._held(job_id, owner, sql, (self._dialect.time(utcnow()),)):
            raise LeaseLost(f"job {job_id} is no longer held by {owner}")

    def release_job(
        self, job_id: int, owner: str, error: str | None, *, delay_s: float = 0.0
    ) -> bool:
        """Back to pending, claimable after ``delay_s`` (at once by default), the attempt
        spent (a crash, a failed pass)."""
        sql = _UNCLAIM + "lease_until = NULL, next_attempt_at = ?, updated_at = ?"
        ready = time.time() + max(delay_s, 0.0)
        return self._held(job_id, owner, sql, (error, ready, self._dialect.time(utcnow())))

    def _refund(
        self, job_id: int, owner: str, error: str | None, counter: str, ready: float
    ) -> bool:
        """Pending again at ``ready``, the attempt refunded and ``counter`` counted."""
        sql = (
            f"{_UNCLAIM}lease_until = NULL, attempts = {self._dialect.greatest}(attempts - 1, 0), "
            f"{counter} = {counter} + 1, next_attempt_at = ?, updated_at = ?"
        )
        return self._held(job_id, owner, sql, (error, ready, self._dialect.time(utcnow())))

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
        return self._refund(job_id, owner, error, "backoffs", at + delay_s)

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
        return self._refund(job_id, owner, error, "conflicts", at + max(delay_s, 0.0))

    def job_owners(self) -> list[str]:
        """Owners of running jobs, sorted."""
        rows = self._rows(
            "SELECT DISTINCT claimed_by FROM jobs WHERE status = 'running' "
            "AND claimed_by IS NOT NULL ORDER BY claimed_by"
        )
        return [str(r[0]) for r in rows]

    def reclaim_jobs(self, owners: Sequence[str], *, now: float | None = None) -> int:
        """Running jobs held by ``owners`` (found dead) or with an expired lease: pending
        again, ready at once; the attempt they were on stays spent."""
        at = time.time() if now is None else now
        stamp = self._dialect.time(utcnow())
        reset = _UNCLAIM + "lease_until = NULL, updated_at = ? WHERE status = 'running' AND "
        with self._tx():
            total = self._write(
                reset + "coalesce(lease_until, 0) < ?",
                ("lease expired before the job finished", stamp, at),
            )
            for owner in owners:
                total += self._write(
                    reset + "claimed_by = ?", (f"owner {owner} is gone", stamp, owner)
                )
        return total

    def count_jobs(
        self, status: str = "pending", *, ready: bool = False, now: float | None = None
    ) -> int:
        """Jobs in ``status``; ``ready``: only pending jobs whose next attempt has come."""
        if not ready:
            return int(self._rows("SELECT count(*) FROM jobs WHERE status = ?", (status,))[0][0])
        at = time.time() if now is None else now
        sql = "SELECT count(*) FROM jobs WHERE status = ? AND coalesce(next_attempt_at, 0) <= ?"
        return int(self._rows(sql, (status, at))[0][0])

    def get_job(self, job_id: int) -> Job | None:
        rows = self._rows(f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,))
        return row_to_job(rows[0]) if rows else None

    def list_jobs(self, status: str | None = None) -> list[Job]:
        where = "" if status is None else " WHERE status = ?"
        rows = self._rows(
            f"SELECT {JOB_COLUMNS} FROM jobs{where} ORDER BY id",
            () if status is None else (status,),
        )
        return [row_to_job(r) for r in rows]
