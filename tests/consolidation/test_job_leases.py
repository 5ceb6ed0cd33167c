"""Job leases: a dead owner's jobs come back at once, a live one's never; a job applies once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.engine.lease import Owner, current_owner, owner_is_dead
from memfold.engine.on_save import process_jobs
from memfold.engine.worker import drain
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision

# Claims every pending job with a lease of an hour, says so, then waits to be killed.
CLAIMER = textwrap.dedent(
    """
    import sys, time
    from memfold.engine.lease import current_owner
    from memfold.store.sqlite import SQLiteStore
    store = SQLiteStore(sys.argv[1])
    jobs = store.claim_jobs(100, current_owner(), lease_s=3600.0)
    print(current_owner(), len(jobs), flush=True)
    time.sleep(600)
    """
)


def _replace_first(item: SaveItem) -> Decision:
    return Decision(Action.REPLACE, [item.candidates[0].memory.id], confidence=0.99)


def _queue_duplicates(db_path: Path, embedder: LocalEmbedder, n: int) -> list[str]:
    """One memory, then ``n`` near-duplicates queued (not decided)."""
    with Memory(db_path, embedder=embedder, consolidate="off") as setup:
        setup.add("Sam likes tea", user_id="s", embedding=base())
    with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
        return [
            mem.add(f"Sam likes tea ({i})", user_id="s", embedding=vec_with_cosine(0.99)).memory.id
            for i in range(n)
        ]


def test_a_killed_claimers_jobs_are_finished_by_the_next_flush(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    ids = _queue_duplicates(db_path, embedder, 3)
    proc = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, str(db_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        owner, claimed = proc.stdout.readline().split()
        assert int(claimed) == 3
        judge = ScriptedJudge(lambda it: Decision(Action.KEEP_SEPARATE))
        # While the claimer lives, its jobs are its own: nobody takes them.
        with Memory(db_path, embedder=embedder, judge=judge, consolidate="sync") as mem:
            assert mem.flush() == 0
            running = mem.store.list_jobs("running")
            assert [j.owner for j in running] == [owner] * 3
            assert judge.calls == 0
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    judge = ScriptedJudge(lambda it: Decision(Action.KEEP_SEPARATE, confidence=0.9))
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="sync") as mem:
        # Reopening found the owner gone: its jobs are pending again, long before the
        # hour-long lease would have run out.
        assert mem.store.count_jobs("running") == 0
        assert mem.store.count_jobs("pending") == 3
        (job, *_) = mem.store.list_jobs("pending")
        assert job.last_error is not None and owner in job.last_error
        assert mem.flush() == 3
        assert mem.store.count_jobs("pending") == mem.store.count_jobs("running") == 0
        decided = Counter(e.input_ids[0] for e in mem.log(100) if e.path == "on_save")
        assert decided == Counter({i: 1 for i in ids})


def test_owner_ids_tell_the_dead_from_the_living() -> None:
    me = Owner.parse(current_owner())
    assert me is not None and me.pid == os.getpid()
    assert not owner_is_dead(current_owner())
    # Our own pid with another token: an earlier process that had our pid.
    assert owner_is_dead(str(Owner(me.host, me.pid, "0" * 12, me.thread)))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=60)
    assert owner_is_dead(str(Owner(socket.gethostname(), gone.pid, "abc", 1)))
    # Another host, or an id we cannot read: only an expired lease frees its jobs.
    assert not owner_is_dead(str(Owner(me.host + "-elsewhere", gone.pid, "abc", 1)))
    assert not owner_is_dead("not an owner id")


def test_expired_lease_is_claimed_again_and_the_old_owner_cannot_apply(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    (new_id,) = _queue_duplicates(db_path, embedder, 1)
    judge = ScriptedJudge(_replace_first)
    with Memory(db_path, embedder=embedder, judge=judge, consolidate="queue") as mem:
        store = mem.store
        (first,) = store.claim_jobs(8, "host:1:a:1", lease_s=60.0)
        assert store.claim_jobs(8, "host:2:b:2", lease_s=60.0) == []  # held
        later = time.time() + 61.0
        (second,) = store.claim_jobs(8, "host:2:b:2", lease_s=60.0, now=later)
        assert second.id == first.id and second.attempts == 2
        # The first owner wakes up and tries to apply: refused, nothing written.
        (stale,) = process_jobs(mem.ctx, judge, [first])
        assert stale.lost and stale.log_id is None
        assert mem.get(new_id).status is Status.ACTIVE and mem.log() == []
        (fresh,) = process_jobs(mem.ctx, judge, [second])
        assert fresh.log_id is not None
        assert [e.action for e in mem.log()] == ["REPLACE"]


def test_heartbeat_renews_the_lease_while_the_judge_works(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    _queue_duplicates(db_path, embedder, 1)
    settings = Settings(consolidation={"lease_s": 30.0, "heartbeat_s": 0.02})
    leases: list[float] = []

    def slow(item: SaveItem) -> Decision:
        # Wait (bounded) until the heartbeat has moved our lease on at least once.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            (job,) = mem.store.list_jobs("running")
            assert job.lease_until is not None
            leases.append(job.lease_until.timestamp())
            if leases[-1] > leases[0]:
                break
            time.sleep(0.01)
        return Decision(Action.KEEP_SEPARATE)

    judge = ScriptedJudge(slow)
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        assert mem.flush() == 1
    assert len(leases) >= 2 and leases[-1] > leases[0]


def test_sync_add_and_a_concurrent_drain_apply_each_save_once(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    judge = ScriptedJudge(_replace_first)
    stop = threading.Event()
    passes: list[int] = []

    def drainer() -> None:
        with Memory(db_path, embedder=embedder, judge=judge, consolidate="queue") as other:
            while not stop.is_set():
                passes.append(drain(other.ctx, other.judge))

    with Memory(db_path, embedder=embedder, judge=judge, consolidate="sync") as mem:
        mem.add("Sam likes tea", user_id="s", embedding=base())
        thread = threading.Thread(target=drainer)
        thread.start()
        try:
            results = [
                mem.add(f"Sam likes tea, take {i}", user_id="s", embedding=vec_with_cosine(0.99))
                for i in range(40)
            ]
        finally:
            stop.set()
            thread.join(timeout=60)
        assert len(passes) > 0  # the drain really ran beside the adds
        # Every sync add decided its own save (its job was claimed when stored)...
        assert all(r.decision is not None and r.log_id is not None for r in results)
        per_save = Counter(e.input_ids[0] for e in mem.log(1000) if e.path == "on_save")
        # ...and no save has more than one log row: no decision applied twice.
        assert per_save == Counter({r.memory.id: 1 for r in results})
        assert sum(passes) == 0
        assert mem.store.count_jobs("pending") == mem.store.count_jobs("running") == 0
