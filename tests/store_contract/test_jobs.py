"""Durable jobs with leases on every backend."""

from __future__ import annotations

from typing import Any

import pytest

from memfold.errors import LeaseLost
from memfold.model import JobStatus


def test_claims_leases_and_finishing(store: Any) -> None:
    ids = [store.enqueue_job(f"m{i}") for i in range(4)]
    assert ids == sorted(ids)
    assert store.count_jobs("pending") == 4
    a = store.claim_jobs(2, "owner-a", lease_s=30, now=1000.0)
    b = store.claim_jobs(5, "owner-b", lease_s=30, now=1000.0)
    assert [j.id for j in a] == ids[:2] and [j.id for j in b] == ids[2:]
    assert all(j.status is JobStatus.RUNNING and j.attempts == 1 for j in a + b)
    assert store.claim_jobs(5, "owner-c", lease_s=30, now=1010.0) == []
    assert store.claim_job(ids[0], "owner-c", lease_s=30, now=1010.0) is None
    with pytest.raises(LeaseLost):
        store.finish_job(ids[0], "owner-b")
    store.finish_job(ids[0], "owner-a")
    assert store.get_job(ids[0]).status is JobStatus.DONE
    assert store.job_owners() == ["owner-a", "owner-b"]
    assert store.renew_leases("owner-b", lease_s=100, now=1020.0) == 2
    # owner-a's other lease expires at 1030; owner-b's were renewed to 1120
    stolen = store.claim_jobs(5, "owner-c", lease_s=30, now=1050.0)
    assert [j.id for j in stolen] == [ids[1]] and stolen[0].attempts == 2
    assert store.release_job(ids[1], "owner-a", "late") is False
    assert store.release_job(ids[1], "owner-c", "conflict") is True
    job = store.get_job(ids[1])
    assert (job.status, job.attempts, job.last_error) == (JobStatus.PENDING, 2, "conflict")


def test_defer_refunds_the_attempt_and_waits(store: Any) -> None:
    jid = store.enqueue_job("m1")
    store.claim_job(jid, "w", lease_s=30, now=100.0)
    assert store.defer_job(jid, "w", "rate limited", delay_s=50, now=100.0)
    job = store.get_job(jid)
    assert (job.attempts, job.backoffs) == (0, 1)
    assert store.count_jobs("pending", ready=True, now=120.0) == 0
    assert store.count_jobs("pending", ready=True, now=151.0) == 1
    assert store.claim_jobs(1, "w", lease_s=30, now=120.0) == []
    assert [j.id for j in store.claim_jobs(1, "w", lease_s=30, now=151.0)] == [jid]


def test_a_conflict_requeues_with_the_attempt_refunded_and_counted_apart(store: Any) -> None:
    jid = store.enqueue_job("m1")
    store.claim_job(jid, "w", lease_s=30, now=100.0)
    assert store.requeue_conflict(jid, "other", "conflict", delay_s=0.5, now=100.0) is False
    assert store.requeue_conflict(jid, "w", "conflict: m2 moved", delay_s=0.5, now=100.0)
    job = store.get_job(jid)
    assert (job.status, job.attempts, job.conflicts, job.backoffs) == (
        JobStatus.PENDING,
        0,
        1,
        0,
    )
    assert job.last_error == "conflict: m2 moved"
    assert store.claim_jobs(1, "w", lease_s=30, now=100.2) == []
    (again,) = store.claim_jobs(1, "w", lease_s=30, now=100.6)
    assert (again.attempts, again.conflicts) == (1, 1)
    # Only the holder may requeue it: a job already requeued is not requeued twice.
    assert store.requeue_conflict(jid, "w", "conflict", delay_s=0.0, now=101.0)
    assert store.requeue_conflict(jid, "w", "conflict", delay_s=0.0, now=101.0) is False
    assert store.get_job(jid).conflicts == 2


def test_reclaim_dead_owners_and_expired_leases(store: Any) -> None:
    j1, j2, j3 = (store.enqueue_job(f"m{i}") for i in range(3))
    store.claim_job(j1, "dead", lease_s=1000, now=0.0)
    store.claim_job(j2, "alive", lease_s=10, now=0.0)
    store.claim_job(j3, "alive", lease_s=1000, now=0.0)
    assert store.reclaim_jobs(["dead"], now=50.0) == 2  # j1 (dead owner), j2 (expired)
    assert [j.id for j in store.list_jobs("pending")] == [j1, j2]
    assert [j.id for j in store.list_jobs("running")] == [j3]
    assert "gone" in (store.get_job(j1).last_error or "")
