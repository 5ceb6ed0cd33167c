"""SQLite's part of the jobs table (the rest is store/sql/jobs.py): claiming, as a read
then an update under SQLite's writer lock, which a claim takes only when a probe
finds something to claim (an idle poll, or a reclaim with nothing to do, never
queues behind the writer), and each job's decision as a savepoint."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from memfold.model import Job, JobStatus, utcnow
from memfold.store.codec import JOB_COLUMNS, row_to_job
from memfold.store.sql.jobs import JobTables

if TYPE_CHECKING:
    from memfold.store.sqlite.connection import Connections

_CLAIMABLE = (
    "(status = 'pending' AND coalesce(next_attempt_at, 0) <= ?) "
    "OR (status = 'running' AND coalesce(lease_until, 0) < ?)"
)


class JobsTableMixin(JobTables):
    """Claims, savepoints and the reclaim probe (see the module docstring)."""

    _db: Connections

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One job's decision, inside the transaction of a pass (``engine.write_group``):
        a savepoint, rolled back alone when it raises; outside a transaction, a
        transaction of its own."""
        with self._db.savepoint():
            yield

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

    def reclaim_jobs(self, owners: Sequence[str], *, now: float | None = None) -> int:
        """``JobTables.reclaim_jobs``, once a read finds a job to reclaim."""
        at = time.time() if now is None else now
        anyone = f" OR claimed_by IN ({','.join('?' * len(owners))})" if owners else ""
        probe = "SELECT 1 FROM jobs WHERE status = 'running' AND "
        probe += f"(coalesce(lease_until, 0) < ?{anyone}) LIMIT 1"
        if not self._q(probe, (at, *owners)):
            return 0  # nothing to reclaim: no write lock taken
        return super().reclaim_jobs(owners, now=at)
