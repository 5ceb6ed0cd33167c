"""Section 2: several processes adding into one SQLite file at the same time.

Each process (``reliability.child``) adds its share of memories about the same people
in one shared scope, so their consolidations meet: restatements written by one process
are folded into memories written by another. Modes alternate background / sync. The
parent then reopens the file, flushes, and counts lost writes, errors raised and
decisions applied twice.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reliability.common import (
    PYTHON,
    LogRow,
    child_env,
    integrity,
    log_rows,
    unfinished_jobs,
)

CHILD_TIMEOUT_S = 900.0
MODES = ("background", "sync")


@dataclass(slots=True)
class ConcurrentResult:
    processes: int
    adds_each: int
    seconds: float = 0.0
    acked: int = 0
    lost: int = 0
    errors: int = 0
    bad_exits: int = 0
    double_applies: int = 0
    double_destructive: int = 0
    superseded_twice: int = 0
    unfinished_jobs: int = 0
    integrity_errors: int = 0
    applied: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


DESTRUCTIVE = ("UPDATE", "MERGE", "REPLACE", "DELETE")


@dataclass(slots=True)
class Doubles:
    saves: int = 0  # saves with more than one applied decision
    destructive: int = 0  # ... of which one decision was UPDATE/MERGE/REPLACE/DELETE
    superseded_twice: int = 0
    applied: int = 0
    examples: list[str] = field(default_factory=list)


def double_applies(db: Path) -> Doubles:
    """From the log rows that were not undone: saves with more than one applied (non-SKIP)
    decision, memories superseded more than once, and applied consolidations."""
    rows = [r for r in log_rows(db) if r.undoes is None and r.undone_by is None]
    by_save: dict[str, list[LogRow]] = defaultdict(list)
    for r in rows:
        if r.path == "on_save" and r.action != "SKIP" and r.input_ids:
            by_save[r.input_ids[0]].append(r)
    out = Doubles()
    for memory_id, decided in by_save.items():
        if len(decided) < 2:
            continue
        out.saves += 1
        out.destructive += any(r.action in DESTRUCTIVE for r in decided)
        if len(out.examples) < 8:
            seen = ", ".join(f"#{r.id} {r.action}" for r in decided)
            out.examples.append(f"save {memory_id[:8]} decided {len(decided)} times: {seen}")
    superseded: Counter[str] = Counter()
    for r in rows:
        for memory_id, after in (r.after.get("memories") or {}).items():
            before = r.snap("before", memory_id)
            if (
                isinstance(after, dict)
                and after.get("status") == "superseded"
                and (before is None or before.get("status") != "superseded")
            ):
                superseded[memory_id] += 1
    out.superseded_twice = sum(1 for n in superseded.values() if n > 1)
    out.applied = sum(1 for r in rows if r.action in DESTRUCTIVE)
    return out


def run_concurrent(
    folder: Path, embedder: Any, *, processes: int, adds: int, seed: int
) -> ConcurrentResult:
    from memfold import Memory
    from memfold.errors import NotFound

    result = ConcurrentResult(processes, adds)
    db = folder / "concurrent.db"
    env = child_env(folder)
    procs: list[tuple[subprocess.Popen[bytes], Path]] = []
    started = time.monotonic()
    for n in range(processes):
        ack = folder / f"concurrent-{n}.ack"
        args = [PYTHON, "-m", "reliability.child", str(db), str(ack)]
        args += ["--mode", MODES[n % len(MODES)], "--user", "team", "--names", "4"]
        args += ["--seed", str(seed * 100 + n), "--count", str(adds)]
        with (folder / f"concurrent-{n}.stderr").open("wb") as err:
            procs.append(
                (subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=err), ack)
            )
    acked: list[str] = []
    for proc, ack in procs:
        try:
            code = proc.wait(timeout=CHILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
            result.notes.append(f"{ack.name}: timed out")
        if code != 0:
            result.bad_exits += 1
            result.notes.append(f"{ack.name}: exit code {code}")
        lines = ack.read_bytes().split(b"\n")[:-1] if ack.exists() else []
        acked += [ln.decode() for ln in lines if ln and ln != b"ready"]
        summary = Path(str(ack) + ".json")
        if summary.exists():
            errors = json.loads(summary.read_text(encoding="utf-8"))["errors"]
            result.errors += len(errors)
            result.notes += errors[:5]
    result.seconds = round(time.monotonic() - started, 2)
    result.acked = len(acked)
    with Memory(db, embedder=embedder, consolidate="sync") as mem:
        try:
            mem.flush()
        except Exception as exc:
            result.errors += 1
            result.notes.append(f"parent flush: {type(exc).__name__}: {exc}")
        for memory_id in acked:
            try:
                mem.get(memory_id)
            except NotFound:
                result.lost += 1
    result.unfinished_jobs = len(unfinished_jobs(db))
    check = integrity(db)
    if check != "ok":
        result.integrity_errors = 1
        result.notes.append(f"integrity_check: {check[:200]}")
    doubles = double_applies(db)
    result.double_applies, result.double_destructive = doubles.saves, doubles.destructive
    result.superseded_twice, result.applied = doubles.superseded_twice, doubles.applied
    result.notes += doubles.examples
    return result
