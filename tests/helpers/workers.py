"""Several ``memfold worker`` processes draining one store while saves arrive: the check
that every save is decided once, shared by the SQLite and PostgreSQL tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import IO

from memfold import Memory, Status

WORKERS = 3
# A worker stops after the batch it is deciding; the queue is empty by then.
STOP_TIMEOUT_S = 60
# Restatements of a few facts: most saves find a candidate and change the store
# (UPDATE / REPLACE), so a save decided twice would show in the log.
FACTS = [
    "Sam prefers Rust for systems work",
    "Sam lives in Lyon with two cats",
    "The staging database runs PostgreSQL 15 on port 5433",
    "Nora's sister teaches chemistry in Oslo",
]


# Three workers folding restatements of four facts collide on the same few memories all
# the time. A collision is a version conflict: re-planned without spending an attempt,
# up to consolidation.max_conflict_retries (100) per job, so the default budgets hold
# (before, each conflict spent one of max_attempts (5) and 1-2 saves were given up). A
# job that conflicts forever still fails the test (its save is left as a SKIP).


def start_workers(
    args: Sequence[str], env: dict[str, str], logs: Sequence[IO[str]]
) -> list[subprocess.Popen[str]]:
    """``memfold worker ARGS`` once per log file, polling every 0.05 s, its stdout and
    stderr written to that file: a pipe read only at the end would fill up (64 KiB of
    warnings) and block a worker in the middle of a drain."""
    exe = str(Path(sys.executable).parent / "memfold")
    full_env = {**env, "MEMFOLD_CONSOLIDATION__WORKER_POLL_S": "0.05"}
    return [
        subprocess.Popen(
            [exe, "worker", *args], stdout=log, stderr=subprocess.STDOUT, text=True, env=full_env
        )
        for log in logs
    ]


def stop_workers(procs: Sequence[subprocess.Popen[str]], logs: Sequence[IO[str]]) -> list[str]:
    """SIGTERM each worker, wait for it to exit; what each wrote. Not SIGINT: run from a
    shell without job control (CI) the workers inherit SIGINT ignored, and one still
    starting (before its handlers) under load would lose it and poll forever; SIGTERM
    ends such a worker (it holds nothing yet) and stops a running one after its batch.
    tests/consolidation/test_worker_signals.py covers SIGINT."""
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    hung = []
    for proc in procs:
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()  # no worker outlives the test
            proc.wait()
            hung.append(proc.pid)
    outputs = []
    for log in logs:
        log.seek(0)
        outputs.append(log.read())
    # What a worker that did not stop had written says where it was.
    assert not hung, f"workers {hung} did not stop within {STOP_TIMEOUT_S} s of SIGTERM: {outputs}"
    return outputs


def worker_pids(mem: Memory) -> set[str]:
    """Process ids of the owners (host:pid:token:thread) of claimed or finished jobs."""
    jobs = [*mem.store.list_jobs("done"), *mem.store.list_jobs("running")]
    return {j.owner.split(":")[1] for j in jobs if j.owner}


def wait_for_drain(mem: Memory, timeout_s: float = 240.0) -> None:
    deadline = time.monotonic() + timeout_s
    while mem.store.count_jobs("pending") + mem.store.count_jobs("running"):
        assert time.monotonic() < deadline, "the workers did not drain the queue"
        time.sleep(0.1)


def drain_with_workers(mem: Memory, args: Sequence[str], env: dict[str, str]) -> list[str]:
    """Queue restatements into ``mem`` (consolidate="queue") while the workers poll, until
    at least two workers have taken some; wait for the queue to empty, stop the workers,
    check what they did. Returns the ids of the saves."""
    ids = [mem.add(FACTS[0], user_id="sam").memory.id]  # the store exists for them
    with ExitStack() as stack:
        logs = [stack.enter_context(tempfile.TemporaryFile("w+")) for _ in range(WORKERS)]
        procs = start_workers(args, env, logs)
        try:
            # A slow start under load must not leave one worker alone with all saves.
            rounds = 0
            while rounds < 12 or (len(worker_pids(mem)) < 2 and rounds < 200):
                for fact in FACTS:
                    text = fact if rounds % 2 == 0 else f"{fact}."
                    ids.append(mem.add(text, user_id="sam").memory.id)
                rounds += 1
                time.sleep(0.05)
            wait_for_drain(mem)
            workers = worker_pids(mem)
            done = mem.store.list_jobs("done")
        finally:
            outputs = stop_workers(procs, logs)
    errors = [out for out in outputs if "Traceback" in out and "KeyboardInterrupt" not in out]
    assert not errors, errors
    # Every save's job was finished once, by one of the worker processes, and more than
    # one of them did some.
    assert sorted(j.memory_id for j in done) == sorted(ids)
    assert workers <= {str(p.pid) for p in procs} and len(workers) >= 2, workers
    entries = [e for e in mem.log(100_000) if e.path == "on_save"]
    per_save = Counter(e.input_ids[0] for e in entries)
    # No save has more than one log row: none was decided twice...
    assert max(per_save.values()) == 1
    skipped = [e.reasoning for e in entries if e.action == "SKIP"]
    assert not skipped, skipped  # (a job given up, or a decision that failed)
    assert set(per_save) <= set(ids)
    # ...and folding really happened: one active memory per fact, nothing lost.
    active = mem.list(user_id="sam", limit=1000)
    kept = sorted(m.text.rstrip(".") for m in active)
    # (helpers/ is not rewritten by pytest: say what differed.)
    assert kept == sorted(FACTS), [(m.id, m.text, m.created_at.isoformat()) for m in active]
    records = mem.store.get_memories(ids)
    assert len(records) == len(ids)
    assert all(r.status in (Status.ACTIVE, Status.SUPERSEDED) for r in records.values())
    return ids


def environment(**extra: str) -> dict[str, str]:
    """This process's environment without a store location, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("MEMFOLD_PATH", "MEMFOLD_URL")}
    return {**env, **extra}
