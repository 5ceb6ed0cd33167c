"""Section 1: SIGKILL writers and workers at random points, then reopen and count.

Each trial runs on a fresh store file. A writer process (``reliability.child``) adds
memories with the rule judge in one consolidation mode and acknowledges each id after
``add()`` returned; in queue mode a separate ``memfold worker`` process consolidates.
The parent sends SIGKILL at a random time after the writer is ready (in queue mode the
writer and the worker each at their own random time), reopens the file, calls
``flush()``, and counts what a crash must never cost.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reliability.common import (
    PYTHON,
    child_env,
    integrity,
    log_rows,
    undo_everything,
    unfinished_jobs,
)

MODES = ("background", "sync", "queue")
READY_TIMEOUT_S = 60.0


@dataclass(slots=True)
class Trial:
    mode: str
    kills: int = 0
    died_early: int = 0
    acked: int = 0
    lost: int = 0
    unfinished_jobs: int = 0
    integrity_errors: int = 0
    undo_rows: int = 0
    undo_failures: int = 0
    not_restored: int = 0
    applied: int = 0
    reopen_errors: int = 0
    recovery_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def _wait_ready(ack: Path, procs: list[subprocess.Popen[bytes]]) -> bool:
    """The writer is ready and has acknowledged its first add: the kill clock starts then,
    so a slow start on a busy machine cannot leave a trial with nothing to lose."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if ack.exists() and ack.read_bytes().startswith(b"ready\n") and _acked(ack):
            return True
        if procs[0].poll() is not None:
            return False
        time.sleep(0.01)
    return False


def _acked(ack: Path) -> list[str]:
    if not ack.exists():
        return []
    lines = ack.read_bytes().split(b"\n")
    # The last element is what followed the last newline: a torn write, not an ack.
    return [ln.decode() for ln in lines[:-1] if ln and ln != b"ready"]


def _spawn(args: list[str], env: dict[str, str], err: Path) -> subprocess.Popen[bytes]:
    with err.open("ab") as stderr:
        return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=stderr)


def run_trial(
    mode: str, index: int, folder: Path, rng: random.Random, embedder: Any, max_delay_s: float
) -> Trial:
    from memfold import Memory
    from memfold.errors import NotFound

    trial = Trial(mode)
    db = folder / f"kill-{mode}-{index}.db"
    ack = folder / f"kill-{mode}-{index}.ack"
    err = folder / f"kill-{mode}-{index}.stderr"
    env = child_env(folder)
    writer_mode = "queue" if mode == "queue" else mode
    writer = [PYTHON, "-m", "reliability.child", str(db), str(ack), "--mode", writer_mode]
    writer += ["--seed", str(index), "--user", f"u{index % 3}"]
    procs = [_spawn(writer, env, err)]
    if mode == "queue":
        worker = [PYTHON, "-m", "memfold.cli", "worker", "--path", str(db)]
        procs.append(_spawn(worker, env, err))
    if not _wait_ready(ack, procs):
        trial.notes.append("writer never became ready")
    started = time.monotonic()
    schedule = sorted((rng.uniform(0.0, max_delay_s), n) for n in range(len(procs)))
    for at, n in schedule:
        time.sleep(max(0.0, started + at - time.monotonic()))
        proc = procs[n]
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            trial.kills += 1
        else:
            trial.died_early += 1
            trial.notes.append(f"process {n} exited with {proc.returncode} before its kill")
        proc.wait()
    acked = _acked(ack)
    trial.acked = len(acked)
    began = time.monotonic()
    try:
        with Memory(db, embedder=embedder, consolidate="sync") as mem:
            try:
                mem.flush()
            except Exception as exc:
                trial.reopen_errors += 1
                trial.notes.append(f"flush: {type(exc).__name__}: {exc}")
            for memory_id in acked:
                try:
                    mem.get(memory_id)
                except NotFound:
                    trial.lost += 1
    except Exception as exc:
        trial.reopen_errors += 1
        trial.notes.append(f"reopen: {type(exc).__name__}: {exc}")
    trial.recovery_s = time.monotonic() - began
    left = unfinished_jobs(db)
    trial.unfinished_jobs = len(left)
    if left:
        statuses = ", ".join(f"#{job_id} {status}" for job_id, status in left[:5])
        trial.notes.append(f"{len(left)} jobs unfinished after reopen + flush(): {statuses}")
    check = integrity(db)
    if check != "ok":
        trial.integrity_errors += 1
        trial.notes.append(f"integrity_check: {check[:200]}")
    rows = log_rows(db)
    trial.applied = sum(1 for r in rows if r.action in ("UPDATE", "MERGE", "REPLACE", "DELETE"))
    undo = undo_everything(db, folder, embedder)
    trial.undo_rows, trial.undo_failures = undo.rows_tried, undo.failures
    trial.not_restored = undo.not_restored
    trial.notes += undo.errors
    if not trial.notes:  # keep the files of a trial that found something, for a look
        for path in folder.glob(f"kill-{mode}-{index}.*"):
            path.unlink()
        for suffix in ("-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    return trial


@dataclass(slots=True)
class KillResult:
    trials: list[Trial]

    def by_mode(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for mode in MODES:
            rows = [t for t in self.trials if t.mode == mode]
            if not rows:
                continue
            total: dict[str, Any] = {"trials": len(rows)}
            for key in (
                "kills",
                "died_early",
                "acked",
                "lost",
                "unfinished_jobs",
                "integrity_errors",
                "undo_rows",
                "undo_failures",
                "not_restored",
                "applied",
                "reopen_errors",
            ):
                total[key] = sum(getattr(t, key) for t in rows)
            total["max_recovery_s"] = round(max(t.recovery_s for t in rows), 3)
            out[mode] = total
        return out

    def totals(self) -> dict[str, int]:
        keys: tuple[str, ...] = ("kills", "acked", "lost", "unfinished_jobs", "integrity_errors")
        keys += ("undo_failures", "not_restored", "reopen_errors", "applied", "died_early")
        return {k: sum(getattr(t, k) for t in self.trials) for k in keys}

    def to_dict(self) -> dict[str, Any]:
        return {
            "by_mode": self.by_mode(),
            "totals": self.totals(),
            "trials": [asdict(t) for t in self.trials],
        }


def run_kills(
    folder: Path,
    embedder: Any,
    *,
    kills_per_mode: int,
    max_delay_s: float,
    seed: int,
    progress: Any = None,
) -> KillResult:
    """At least ``kills_per_mode`` SIGKILLs in each mode (queue trials kill two processes)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    trials: list[Trial] = []
    index = 0
    for mode in MODES:
        kills = idle = 0
        while kills < kills_per_mode and idle <= kills_per_mode:
            trial = run_trial(mode, index, folder, rng, embedder, max_delay_s)
            trials.append(trial)
            kills += trial.kills
            idle += trial.kills == 0  # a child that died before its kill: no kill counted
            index += 1
            if progress is not None:
                progress(trial)
    return KillResult(trials)
