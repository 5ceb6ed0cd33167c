"""Shared pieces of the reliability suite: environment, store probes, undo check.

The probes read the SQLite file with the standard ``sqlite3`` module, not through
memfold, so what they count does not depend on the code they measure.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
PYTHON = sys.executable
UNFINISHED = ("pending", "running")


def child_env(folder: Path) -> dict[str, str]:
    """The environment of a child process: no MEMFOLD_* or OpenAI settings from the
    caller's shell, no user config file, and this package importable."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("MEMFOLD_") and k not in ("OPENAI_API_KEY", "PYTHONPATH")
    }
    env["XDG_CONFIG_HOME"] = str(folder / "xdg-config")
    env["XDG_DATA_HOME"] = str(folder / "xdg-data")
    env["PYTHONPATH"] = str(BENCH)
    env["PYTHONUNBUFFERED"] = "1"
    return env


@contextmanager
def isolated_env(folder: Path) -> Iterator[None]:
    """The same isolation for in-process runs; the caller's environment is restored."""
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(child_env(folder))
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _text(raw: bytes) -> str:
    """SQLite text as Python sees it; lone surrogates kept, other bad bytes replaced."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return raw.decode("utf-8", "replace")


def connect(path: Path) -> sqlite3.Connection:
    """A read-only connection that never fails on odd text."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    conn.text_factory = _text
    return conn


def integrity(path: Path) -> str:
    with connect(path) as conn:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
    conn.close()
    return "; ".join(str(r[0]) for r in rows)


def unfinished_jobs(path: Path) -> list[tuple[int, str]]:
    """(job id, status) of every job still pending or running."""
    conn = connect(path)
    try:
        rows = conn.execute(
            "SELECT id, status FROM jobs WHERE status IN (?, ?) ORDER BY id", UNFINISHED
        ).fetchall()
    finally:
        conn.close()
    return [(int(r[0]), str(r[1])) for r in rows]


def fingerprint(path: Path) -> str:
    """A digest of a store's content (every table, as SQL), or of the file's bytes when it
    is not a SQLite database; "missing" when there is no such file."""
    if not path.exists():
        return "missing"
    if path.is_dir():
        return "dir:" + ",".join(sorted(p.name for p in path.iterdir()))
    digest = hashlib.sha256()
    try:
        conn = connect(path)
        try:
            for line in conn.iterdump():
                digest.update(line.encode("utf-8", "surrogatepass"))
        finally:
            conn.close()
        return "db:" + digest.hexdigest()
    except sqlite3.DatabaseError:
        return "bytes:" + hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(slots=True)
class LogRow:
    """One consolidation_log row, parsed here (not by memfold)."""

    id: int
    path: str
    action: str
    input_ids: list[str]
    output_ids: list[str]
    confidence: float | None
    judge: str
    reasoning: str
    before: dict[str, Any]
    after: dict[str, Any]
    undone_by: int | None
    undoes: int | None

    def snap(self, which: str, memory_id: str) -> dict[str, Any] | None:
        state = self.before if which == "before" else self.after
        found = (state.get("memories") or {}).get(memory_id)
        return found if isinstance(found, dict) else None


def log_rows(path: Path) -> list[LogRow]:
    conn = connect(path)
    try:
        rows = conn.execute(
            "SELECT id, path, action, input_ids, output_ids, confidence, judge, reasoning, "
            "before, after, undone_by, undoes FROM consolidation_log ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    return [
        LogRow(
            id=int(r[0]),
            path=str(r[1]),
            action=str(r[2]),
            input_ids=list(json.loads(r[3] or "[]")),
            output_ids=list(json.loads(r[4] or "[]")),
            confidence=None if r[5] is None else float(r[5]),
            judge=str(r[6]),
            reasoning=str(r[7]),
            before=dict(json.loads(r[8] or "{}")),
            after=dict(json.loads(r[9] or "{}")),
            undone_by=r[10],
            undoes=r[11],
        )
        for r in rows
    ]


def memory_texts(path: Path) -> dict[str, tuple[str, str]]:
    """id -> (status, text) of every memory in the file."""
    conn = connect(path)
    try:
        rows = conn.execute("SELECT id, status, text FROM memories").fetchall()
    finally:
        conn.close()
    return {str(r[0]): (str(r[1]), str(r[2])) for r in rows}


def copy_db(src: Path, dst: Path) -> None:
    """A consistent copy of a (WAL-mode) store through SQLite's backup API."""
    source = sqlite3.connect(src, timeout=30)
    target = sqlite3.connect(dst)
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()


@dataclass(slots=True)
class UndoCheck:
    rows_tried: int = 0
    failures: int = 0
    not_restored: int = 0
    errors: list[str] = field(default_factory=list)


def undo_everything(db: Path, scratch: Path, embedder: Any) -> UndoCheck:
    """On a copy of ``db``: undo every log row, newest first (so no later change blocks
    it), and count the undos that raise. Afterwards no memory may be left superseded or
    archived: every consolidation has been taken back."""
    from memfold import Memory

    copy = scratch / (db.stem + "-undo.db")
    for suffix in ("", "-wal", "-shm"):
        Path(str(copy) + suffix).unlink(missing_ok=True)
    copy_db(db, copy)
    check = UndoCheck()
    rows = [r for r in log_rows(copy) if r.undoes is None and r.undone_by is None]
    with Memory(copy, embedder=embedder, consolidate="off") as mem:
        for row in reversed(rows):
            check.rows_tried += 1
            try:
                mem.undo(row.id)
            except Exception as exc:
                check.failures += 1
                if len(check.errors) < 10:
                    check.errors.append(f"#{row.id} {row.action}: {type(exc).__name__}: {exc}")
    check.not_restored = sum(1 for status, _ in memory_texts(copy).values() if status != "active")
    for suffix in ("", "-wal", "-shm"):
        Path(str(copy) + suffix).unlink(missing_ok=True)
    return check
