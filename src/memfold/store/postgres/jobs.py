"""PostgreSQL's part of the jobs table (the rest is store/sql/jobs.py): a claim is one
statement. The claimable rows are locked with ``FOR UPDATE SKIP LOCKED`` (workers
claiming at once each take different jobs, none waits for another) and updated to
running with the owner and its lease."""

from __future__ import annotations

import time
from typing import Any

from memfold.model import Job, utcnow
from memfold.store.codec import JOB_COLUMNS, row_to_job
from memfold.store.sql.jobs import JobTables

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


class JobsTableMixin(JobTables):
    """Claims in one statement (see the module docstring)."""

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
