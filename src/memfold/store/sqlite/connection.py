"""SQLite connections: one per thread, WAL, busy timeout, nestable transactions.

Lock conflicts. A write begins as a writer (``BEGIN IMMEDIATE``): it waits for the
writer lock with SQLite's busy handler (``store.busy_timeout_ms``) before it reads
anything, so no read snapshot is ever upgraded to a write, a conflict SQLite answers
at once (SQLITE_BUSY_SNAPSHOT; it can only come from a read of the same connection
still open, an unfinished cursor, and is raised as StoreBusy at once: waiting does not
end it). Other conflicts skip the busy handler too: switching a file not in WAL yet
to WAL while another connection holds its lock, which two processes opening a new
file together do (each open runs ``PRAGMA journal_mode=WAL``; one of them got
"database is locked" at once, whatever the busy timeout). The statements
that can meet such a conflict (the WAL switch, ``BEGIN IMMEDIATE``, ``COMMIT``,
``VACUUM``, a read outside a transaction) are tried again as ``BusyRetry`` says (the
``store.busy_retr*`` settings); a conflict left after that is raised as StoreBusy
(transient, nothing written), never as sqlite3.OperationalError.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from memfold.config import StoreSettings
from memfold.errors import InvalidInput, ReadOnlyStore, StoreBusy
from memfold.store.sqlite.busy import BusyRetry, is_busy, retryable
from memfold.store.sqlite.schema import LATEST_VERSION, MIGRATIONS
from memfold.store.sqlite.scope_terms import SCOPE_TERMS_SQL_FUNCTION, scope_terms

SQLITE_HEADER = b"SQLite format 3\x00"

_DEFAULTS = StoreSettings()
_T = TypeVar("_T")


def register_functions(conn: sqlite3.Connection) -> None:
    """The SQL functions the schema calls: the ``fts_terms`` generated column (migration
    12) is computed by one, on every insert and on every update or delete of a text."""
    conn.create_function(SCOPE_TERMS_SQL_FUNCTION, 2, scope_terms, deterministic=True)


class Connections:
    """Hands each thread its own connection to one SQLite file.

    Several threads and processes can share the file: WAL lets readers run
    beside a writer, and ``BEGIN IMMEDIATE`` with a busy timeout serializes
    writers instead of failing them; what the busy handler cannot wait out is tried
    again (``busy_retries``..., see the module doc), else raised as StoreBusy.
    ``read_only``: connections open with the ``mode=ro`` URI, nothing is migrated, and
    ``transaction()`` raises ReadOnlyStore.
    """

    def __init__(
        self,
        path: Path,
        *,
        busy_timeout_ms: int,
        busy_retries: int = _DEFAULTS.busy_retries,
        busy_retry_wait_ms: float = _DEFAULTS.busy_retry_wait_ms,
        busy_retry_max_wait_ms: float = _DEFAULTS.busy_retry_max_wait_ms,
        create_parent: bool = False,
        read_only: bool = False,
    ) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.retry = BusyRetry(
            busy_retries, busy_retry_wait_ms, busy_retry_max_wait_ms, busy_timeout_ms
        )
        self.read_only = read_only
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        if read_only:
            if not path.is_file():
                raise InvalidInput(f"cannot open {path} read-only: no such store file")
            check_location(path)
        else:
            check_location(path, create_parent=create_parent)
        try:
            if read_only:
                self._check_schema()
            else:
                self.migrate()
        except StoreBusy:
            self.close()
            raise
        except sqlite3.DatabaseError as exc:
            self.close()
            if is_busy(exc):
                raise self.retry.busy("opening the store", path, time.monotonic(), exc) from exc
            raise InvalidInput(f"cannot open {path} as a memfold store: {exc}") from None

    def get(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
            self._local.depth = 0
            with self._lock:
                self._all.append(conn)
        return conn

    def _open(self) -> sqlite3.Connection:
        timeout = self.busy_timeout_ms / 1000
        if self.read_only:
            # mode=ro: SQLite itself refuses every write on this connection (memfold
            # refuses them first, in transaction()); a WAL file is still read.
            uri = f"{self.path.absolute().as_uri()}?mode=ro"
            conn = sqlite3.connect(
                uri, uri=True, isolation_level=None, check_same_thread=False, timeout=timeout
            )
            register_functions(conn)
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            return conn
        conn = sqlite3.connect(
            str(self.path), isolation_level=None, check_same_thread=False, timeout=timeout
        )
        try:
            register_functions(conn)
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            # A file not in WAL yet (a new one) is switched under a write lock, and
            # SQLite answers "database is locked" at once, without its busy handler,
            # while another connection holds that lock (switching it too): retried.
            self.run(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchall(), "WAL switch")
        except BaseException:
            conn.close()
            raise
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        # Freed space is zeroed, so a deleted or rewritten text leaves no stale copy in
        # the file (what Memory.forget relies on; see engine/erase.py).
        conn.execute("PRAGMA secure_delete=ON")
        return conn

    def run(self, statement: Callable[[], _T], what: str) -> _T:
        """``statement()``, tried again after a lock conflict (see the module doc); one
        that outlasts the retries raises StoreBusy, never sqlite3.OperationalError."""
        return self.retry.run(statement, what=what, path=self.path)

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """A query's rows. Outside a transaction a lock conflict is tried again (a read
        changes nothing); inside one it raises StoreBusy, and the transaction's owner
        rolls back."""
        conn = self.get()
        started = time.monotonic()
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            if conn.in_transaction or not retryable(exc):
                raise self.retry.busy("a read", self.path, started, exc) from exc
        return self.retry.again(
            lambda: conn.execute(sql, params).fetchall(),
            started=started,
            what="a read",
            path=self.path,
        )

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
        if self.read_only:
            raise ReadOnlyStore(
                f"{self.path} is open read-only: writes are refused (open it without "
                "read_only=True, with write permission on the file, to change it)"
            )
        # A writer from the start: the lock is waited for (busy handler, then retries)
        # before anything is read, so no read snapshot is ever upgraded to a write.
        started = time.monotonic()
        self.run(lambda: conn.execute("BEGIN IMMEDIATE"), "beginning a write")
        self._local.depth = 1
        try:
            yield conn
            self.run(lambda: conn.execute("COMMIT"), "committing a write")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if is_busy(exc):
                raise self.retry.busy("a write", self.path, started, exc) from exc
            raise
        finally:
            self._local.depth = 0

    @contextmanager
    def savepoint(self) -> Iterator[sqlite3.Connection]:
        """An atomic unit: inside the thread's open transaction a SAVEPOINT, which an
        exception rolls back alone (the transaction goes on); else a transaction. If
        SQLite gave up the whole transaction (a disk or I/O error), the error propagates
        and the transaction's owner rolls back."""
        depth: int = getattr(self._local, "depth", 0)
        if not depth:
            with self.transaction() as conn:
                yield conn
            return
        conn = self.get()
        if not conn.in_transaction:  # SQLite rolled it back: write nothing outside it
            raise sqlite3.OperationalError("the enclosing transaction was rolled back")
        name = f"memfold_sp{depth}"
        conn.execute(f"SAVEPOINT {name}")
        self._local.depth = depth + 1
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
            raise
        else:
            conn.execute(f"RELEASE {name}")
        finally:
            self._local.depth = depth

    def close_thread(self) -> None:
        """Close the calling thread's connection (a helper thread about to end)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            return
        self._local.conn = None
        with self._lock:
            if conn in self._all:
                self._all.remove(conn)
        conn.close()

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

    def _check_schema(self) -> None:
        """A read-only open migrates nothing: the file must already be at this code's
        schema (an empty or older file is refused, naming the fix)."""
        found = self.schema_version()
        if found < LATEST_VERSION:
            what = "is not a memfold store yet" if found == 0 else f"has schema {found}"
            raise InvalidInput(
                f"cannot open {self.path} read-only: it {what} and this memfold needs "
                f"schema {LATEST_VERSION}; open it once writable to upgrade it"
            )

    def schema_version(self) -> int:
        return int(self.get().execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()


def check_location(path: Path, *, create_parent: bool = False) -> None:
    """Refuse a store path that is a folder, a file other than SQLite, or in a missing folder.

    Reads at most 16 bytes and writes nothing, so a refused file stays as it was.
    ``create_parent`` (the default location only) creates a missing folder instead.
    """
    if path.is_dir():
        raise InvalidInput(f"store path {path} is a folder, not a SQLite file")
    if path.exists():
        if not path.is_file():
            raise InvalidInput(f"store path {path} is not a regular file")
        try:
            with path.open("rb") as fh:
                head = fh.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise InvalidInput(f"cannot read store file {path}: {exc.strerror}") from None
        if head and head != SQLITE_HEADER:
            raise InvalidInput(f"{path} is not a SQLite database; refusing to use it as a store")
        return
    parent = path.parent
    if parent.is_dir():
        return
    if parent.exists():
        raise InvalidInput(f"store path {path}: {parent} is not a folder")
    if not create_parent:
        raise InvalidInput(f"store path {path}: folder {parent} does not exist")
    parent.mkdir(parents=True, exist_ok=True)


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


__all__ = ["LATEST_VERSION", "SQLITE_HEADER", "Connections", "check_location"]
