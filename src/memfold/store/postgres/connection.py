"""PostgreSQL connections: a pool, nestable transactions, migrations, error translation.

Outside a transaction each query borrows a pooled connection (autocommit) for that
query alone. ``transaction()`` pins one connection to the calling thread until the
outermost block ends; nested blocks join it, as on SQLite. Like SQLite's ``BEGIN
IMMEDIATE``, a transaction first takes the store's writer lock (a transaction-level
advisory lock, waiting at most ``lock_timeout_ms``): writers take turns, so a read
then a write in one transaction sees nothing change in between (the engine's version
checks rely on it), and change numbers become visible in order (an index that has
seen number k has seen every number below it). Reads outside a transaction never
wait. Per-row locking for concurrent writers is later work. Driver errors become
memfold errors here and nowhere else: a lost or refused connection is
``StoreUnavailable`` (transient), a serialization failure, deadlock, lock timeout or
unique-key clash is ``ConflictError`` (the caller re-plans).
"""

from __future__ import annotations

import re
import struct
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
from psycopg import errors as pg_errors
from psycopg.abc import Buffer
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo
from psycopg_pool import ConnectionPool, PoolTimeout

from memfold.errors import ConfigError, ConflictError, ReadOnlyStore, StoreUnavailable
from memfold.store.postgres.schema import BOOTSTRAP, LATEST_VERSION, MIGRATIONS, VERSION_KEY

# Query parameters: positional (%s) or named (%(name)s).
Params = Sequence[Any] | Mapping[str, Any]
_CONFLICTS = (
    pg_errors.SerializationFailure,
    pg_errors.DeadlockDetected,
    pg_errors.LockNotAvailable,
    pg_errors.UniqueViolation,
)
# Advisory lock keys (hashed with the schema name, so stores in other schemas of one
# database do not wait on each other): migrations, and the writer lock.
MIGRATE_LOCK = "memfold.migrate:"
WRITE_LOCK = "memfold.write:"
_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext(%s || current_schema()))"


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)


@contextmanager
def translated(url: str) -> Iterator[None]:
    """Driver errors as memfold errors (see the module docstring)."""
    try:
        yield
    except pg_errors.ReadOnlySqlTransaction as exc:
        raise ReadOnlyStore(
            f"{redact(url)} is open read-only: writes are refused (open it without "
            "read_only to write)"
        ) from exc
    except _CONFLICTS as exc:
        raise ConflictError(f"PostgreSQL refused a concurrent change: {_first_line(exc)}") from exc
    except (psycopg.OperationalError, PoolTimeout) as exc:
        raise StoreUnavailable(
            f"PostgreSQL at {redact(url)} is unavailable: {_first_line(exc)}"
        ) from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class _VectorDumper(Dumper):
    """A numpy vector as pgvector's binary ``vector`` (dim, unused, big-endian float32)."""

    format = Format.BINARY

    def dump(self, obj: Any) -> Buffer:
        arr = np.asarray(obj, dtype=">f4").ravel()
        return struct.pack(">HH", arr.shape[0], 0) + arr.tobytes()


class _VectorLoader(Loader):
    format = Format.BINARY

    def load(self, data: Buffer) -> Any:
        return np.frombuffer(bytes(data), dtype=">f4", offset=4).astype(np.float32)


class _VectorTextLoader(Loader):
    format = Format.TEXT

    def load(self, data: Buffer) -> Any:
        text = bytes(data).decode()
        return np.array(text.strip("[]").split(","), dtype=np.float32)


class Connections:
    """A pool of connections to one database (see the module docstring)."""

    def __init__(
        self,
        url: str,
        *,
        min_size: int,
        max_size: int,
        connect_timeout_s: float,
        lock_timeout_ms: int,
        read_only: bool = False,
    ) -> None:
        self.url = url
        self.read_only = read_only
        self._lock_timeout_ms = lock_timeout_ms
        self.location = redact(url)
        self._local = threading.local()
        self._timeout = connect_timeout_s
        try:
            first = psycopg.connect(
                url, autocommit=True, connect_timeout=max(1, round(connect_timeout_s))
            )
        except psycopg.ProgrammingError as exc:  # the URL itself does not parse
            raise ConfigError(f"bad PostgreSQL URL {redact(url)}: {_first_line(exc)}") from None
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(
                f"cannot connect to PostgreSQL at {redact(url)}: {_first_line(exc)}"
            ) from None
        try:
            with first:
                if read_only:
                    self._check_version(first)
                else:
                    self._migrate(first)
                info = TypeInfo.fetch(first, "vector")
        except psycopg.Error as exc:
            raise ConfigError(
                f"cannot set up a memfold store in PostgreSQL at {redact(url)}: "
                f"{_first_line(exc)} (the pgvector extension must be installed, and "
                "'CREATE EXTENSION vector' run once by a superuser if this role may not)"
            ) from None
        if info is None:  # pragma: no cover - the bootstrap created it
            raise ConfigError(f"PostgreSQL at {redact(url)} has no 'vector' type (pgvector)")
        self._vector_oid = info.oid
        self.pool = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            timeout=connect_timeout_s,
            kwargs={"autocommit": True, "connect_timeout": max(1, round(connect_timeout_s))},
            configure=self._configure,
            name="memfold",
            open=False,
        )
        with translated(url):
            self.pool.open(wait=True, timeout=connect_timeout_s)

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        # Times come back in UTC whatever the server's zone; waiting on a lock (the
        # writer lock, a row) gives up like SQLite's busy timeout (0: wait forever).
        conn.execute("SET TIME ZONE 'UTC'")
        conn.execute(f"SET lock_timeout = {int(self._lock_timeout_ms)}")
        if self.read_only:  # every transaction, and every statement outside one
            conn.execute("SET default_transaction_read_only = on")
        dumper = type("VectorDumper", (_VectorDumper,), {"oid": self._vector_oid})
        conn.adapters.register_dumper(np.ndarray, dumper)
        conn.adapters.register_loader(self._vector_oid, _VectorLoader)
        conn.adapters.register_loader(self._vector_oid, _VectorTextLoader)

    # migrations -----------------------------------------------------------------------
    def _migrate(self, conn: psycopg.Connection[Any]) -> int:
        """Bring the schema to the latest version in one transaction; the version before."""
        with conn.transaction():
            conn.execute(_LOCK_SQL, (MIGRATE_LOCK,))
            for statement in BOOTSTRAP:
                conn.execute(statement)
            row = conn.execute("SELECT value FROM meta WHERE key = %s", (VERSION_KEY,)).fetchone()
            found = int(row[0]) if row else 0
            if found > LATEST_VERSION:
                raise ConfigError(
                    f"the store at {self.location} has schema version {found}, newer than "
                    f"this memfold ({LATEST_VERSION}); upgrade memfold"
                )
            for version, script in MIGRATIONS:
                if version > found:
                    conn.execute(script)
            if found < LATEST_VERSION:
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES (%s, %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (VERSION_KEY, str(LATEST_VERSION)),
                )
        return found

    def _check_version(self, conn: psycopg.Connection[Any]) -> None:
        """Read-only: no migration, so the schema must be there and current."""
        exists = conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()
        row = (
            conn.execute("SELECT value FROM meta WHERE key = %s", (VERSION_KEY,)).fetchone()
            if exists and exists[0]
            else None
        )
        found = int(row[0]) if row else 0
        if found != LATEST_VERSION:
            what = "holds no memfold store" if found == 0 else f"is at schema version {found}"
            raise ConfigError(
                f"cannot open {self.location} read-only: it {what} and this memfold needs "
                f"version {LATEST_VERSION}; open it once without read_only"
            )

    def schema_version(self) -> int:
        rows = self.query("SELECT value FROM meta WHERE key = %s", (VERSION_KEY,))
        return int(rows[0][0]) if rows else 0

    # queries --------------------------------------------------------------------------
    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """The thread's transaction connection, else a pooled one for this call."""
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with translated(self.url), self.pool.connection(timeout=self._timeout) as pooled:
            yield pooled

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection[Any]]:
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with translated(self.url), self.pool.connection(timeout=self._timeout) as pooled:
            self._local.conn = pooled
            try:
                with pooled.transaction():
                    if not self.read_only:
                        pooled.execute(_LOCK_SQL, (WRITE_LOCK,))
                    yield pooled
            finally:
                self._local.conn = None

    def in_transaction(self) -> bool:
        return getattr(self._local, "conn", None) is not None

    def query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        with self.connection() as conn, translated(self.url):
            cur = conn.execute(sql, params, binary=True)
            return cur.fetchall() if cur.description else []

    def write(self, sql: str, params: Params = ()) -> int:
        """Run one statement in a transaction; its row count (RETURNING: the first value)."""
        with self.transaction() as conn, translated(self.url):
            cur = conn.execute(sql, params, binary=True)
            if cur.description:
                row = cur.fetchone()
                return int(row[0]) if row else 0
            return cur.rowcount

    def write_unlocked(self, sql: str, params: Params = ()) -> int:
        """Run one statement that needs no writer lock: a row of a table that no version
        check, change number or job depends on (an LLM call's usage). Inside the
        thread's open transaction it joins it; else it runs alone in autocommit, atomic
        by itself: one round trip, not four (BEGIN, the lock, the statement, COMMIT).
        Returns what ``write`` returns."""
        with self.connection() as conn, translated(self.url):
            cur = conn.execute(sql, params, binary=True)
            if cur.description:
                row = cur.fetchone()
                return int(row[0]) if row else 0
            return cur.rowcount

    def write_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        if not rows:
            return 0
        with self.transaction() as conn, translated(self.url), conn.cursor(binary=True) as cur:
            cur.executemany(sql, rows)
            return cur.rowcount

    def next_seqs(self, n: int = 1) -> list[int]:
        """``n`` fresh change numbers, increasing, drawn under the writer lock."""
        with self.transaction() as conn, translated(self.url):
            rows = conn.execute(
                "SELECT nextval('change_seq') FROM generate_series(1, %s)", (n,)
            ).fetchall()
            return sorted(int(r[0]) for r in rows)

    def close_thread(self) -> None:
        """Nothing is pinned to a thread outside a transaction."""

    def close(self) -> None:
        self.pool.close()


__all__ = ["Connections", "redact", "translated"]
