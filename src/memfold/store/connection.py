"""SQLite connections: one per thread, WAL, busy timeout, nestable transactions."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memfold.store.schema import LATEST_VERSION, MIGRATIONS


class Connections:
    """Hands each thread its own connection to one SQLite file.

    Several threads and processes can share the file: WAL lets readers run
    beside a writer, and ``BEGIN IMMEDIATE`` with a busy timeout serializes
    writers instead of failing them.
    """

    def __init__(self, path: Path, *, busy_timeout_ms: int) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.migrate()

    def get(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                str(self.path),
                isolation_level=None,
                check_same_thread=False,
                timeout=self.busy_timeout_ms / 1000,
            )
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
            self._local.depth = 0
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self.get()
        depth: int = self._local.depth
        if depth:
            self._local.depth = depth + 1
            try:
                yield conn
            finally:
                self._local.depth = depth
            return
        conn.execute("BEGIN IMMEDIATE")
        self._local.depth = 1
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")
        finally:
            self._local.depth = 0

    def in_transaction(self) -> bool:
        return bool(getattr(self._local, "depth", 0))

    def migrate(self) -> int:
        """Bring the file to the latest schema; returns the version found before."""
        with self.transaction() as conn:
            found = int(conn.execute("PRAGMA user_version").fetchone()[0])
            for version, script in MIGRATIONS:
                if version <= found:
                    continue
                for statement in _split_sql(script):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version={version}")
        return found

    def schema_version(self) -> int:
        return int(self.get().execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements; trigger bodies keep their inner semicolons."""
    statements: list[str] = []
    current: list[str] = []
    for line in script.splitlines():
        current.append(line)
        candidate = "\n".join(current).strip()
        if candidate.endswith(";") and sqlite3.complete_statement(candidate):
            statements.append(candidate)
            current = []
    rest = "\n".join(current).strip()
    if rest:
        statements.append(rest)
    return statements


__all__ = ["LATEST_VERSION", "Connections"]
