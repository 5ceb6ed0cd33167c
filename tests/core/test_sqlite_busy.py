"""Lock conflicts on one SQLite file never reach a caller as sqlite3's "database is
locked": a conflict SQLite answers at once (without its busy handler) is tried again
as the ``store.busy_retr*`` settings say, and what is left is StoreBusy (issue 27)."""

from __future__ import annotations

import itertools
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.errors import StoreBusy, StoreUnavailable
from memfold.index import vector_index
from memfold.index.rows import IndexRow
from memfold.index.vector_index import VectorIndex
from memfold.model import Area, Status
from memfold.store.sqlite import SQLiteStore
from memfold.store.sqlite.busy import BusyRetry
from memfold.store.sqlite.connection import LATEST_VERSION

META_WRITE = "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"


def _hold_write_lock(path: Path) -> sqlite3.Connection:
    """Another connection holds the file's write lock. On a new file (not in WAL yet)
    this is where another process stands while its open switches the file to WAL."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def _locked(name: str = "SQLITE_BUSY") -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError("database is locked")
    exc.sqlite_errorname = name
    return exc


# -- the failure of issue 27: two processes opening one new file ----------------------


def test_a_new_file_opens_while_another_connection_switches_it_to_wal(tmp_path: Path) -> None:
    # The landed code raised sqlite3.OperationalError here at once (0.0 s), a 30 s busy
    # timeout notwithstanding: SQLite does not call its busy handler for the WAL switch.
    path = tmp_path / "m.db"
    holder = _hold_write_lock(path)
    release = threading.Timer(0.3, holder.execute, args=("ROLLBACK",))
    release.start()
    started = time.monotonic()
    try:
        store = SQLiteStore(path)
    finally:
        release.join()
        holder.close()
    try:
        assert time.monotonic() - started >= 0.25  # it waited for the other switch
        assert store.schema_version() == LATEST_VERSION
        assert store._db.get().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        store.close()


def test_retries_spent_on_open_raise_store_busy_not_sqlite_error(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    holder = _hold_write_lock(path)
    started = time.monotonic()
    try:
        with pytest.raises(StoreBusy, match="locked by another connection") as caught:
            SQLiteStore(path, busy_retries=3, busy_retry_wait_ms=5, busy_retry_max_wait_ms=20)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert time.monotonic() - started < 5  # 5 + 10 + 20 ms of waits, not 30 s
    err = caught.value
    assert not isinstance(err, sqlite3.Error)
    assert isinstance(err, StoreUnavailable) and err.transient
    assert isinstance(err.__cause__, sqlite3.OperationalError)
    assert "store.busy_retries=3" in str(err)
    SQLiteStore(path).close()  # nothing half-made was left behind: it opens now


def test_memory_takes_its_retries_from_the_settings(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    path = tmp_path / "m.db"
    settings = Settings(store={"busy_retries": 2, "busy_retry_wait_ms": 1})
    holder = _hold_write_lock(path)
    try:
        with pytest.raises(StoreBusy, match=r"store\.busy_retries=2"):
            Memory(path, settings=settings, embedder=embedder, consolidate="off")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with Memory(path, settings=settings, embedder=embedder, consolidate="off") as mem:
        assert mem.add("opened once the lock was gone", user_id="u").memory.text


# -- writes ---------------------------------------------------------------------------


def test_a_write_that_waited_out_the_busy_timeout_is_store_busy(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore(path, busy_timeout_ms=100)
    holder = _hold_write_lock(path)
    started = time.monotonic()
    try:
        with pytest.raises(StoreBusy, match="beginning a write"):
            store._w(META_WRITE, ("k", "v"))
        # the busy handler used the whole budget: no retries on top of it
        assert time.monotonic() - started < 2
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert not store._db.in_transaction() and not store._db.get().in_transaction
    store._w(META_WRITE, ("k", "v"))  # the connection is usable again
    assert store._q("SELECT value FROM meta WHERE key = 'k'") == [("v",)]
    store.close()


def test_a_write_over_an_unfinished_read_is_store_busy_at_once(tmp_path: Path) -> None:
    """SQLITE_BUSY_SNAPSHOT: this connection's own read, still open on a snapshot
    older than another writer's commit. No wait ends it: raised at once."""
    path = tmp_path / "m.db"
    store = SQLiteStore(path)
    store._w_many(META_WRITE, [("a", "1"), ("b", "2")])
    cursor = store._db.get().execute("SELECT key FROM meta")
    assert cursor.fetchone() is not None  # the read stays open
    other = sqlite3.connect(path, isolation_level=None)
    other.execute(META_WRITE, ("c", "3"))
    other.close()
    started = time.monotonic()
    with pytest.raises(StoreBusy, match="SQLITE_BUSY_SNAPSHOT") as caught:
        store._w(META_WRITE, ("d", "4"))
    assert time.monotonic() - started < 1
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    cursor.close()
    store._w(META_WRITE, ("d", "4"))
    assert len(store._q("SELECT key FROM meta WHERE key IN ('a', 'b', 'c', 'd')")) == 4
    store.close()


def test_every_write_begins_as_a_writer(tmp_path: Path, embedder: LocalEmbedder) -> None:
    """Through adds and their consolidation: every transaction is BEGIN IMMEDIATE (no
    deferred BEGIN whose reads a write would later upgrade), every savepoint and every
    write runs inside one."""
    statements: list[str] = []
    with Memory(tmp_path / "m.db", embedder=embedder, consolidate="sync") as mem:
        assert isinstance(mem.store, SQLiteStore)
        mem.store._db.get().set_trace_callback(statements.append)
        for text in ("Sam likes green tea", "Sam likes green tea", "Sam moved to Oslo"):
            mem.add(text, user_id="s")
        mem.update(mem.list(user_id="s")[0].id, importance=0.9)
        mem.flush()
        mem.store._db.get().set_trace_callback(None)
    open_tx = False
    begins = 0
    for sql in (s.strip() for s in statements):
        head = sql.split(None, 1)[0].upper() if sql else ""
        if sql.startswith("--"):  # a trigger's statement, inside the one that fired it
            continue
        if head == "BEGIN":
            assert sql.upper() == "BEGIN IMMEDIATE", sql
            assert not open_tx
            open_tx, begins = True, begins + 1
        elif head in ("COMMIT", "ROLLBACK") and not sql.upper().startswith("ROLLBACK TO"):
            open_tx = False
        elif head in ("SAVEPOINT", "INSERT", "UPDATE", "DELETE", "REPLACE"):
            assert open_tx, f"{sql!r} outside a transaction"
    assert begins >= 4 and not open_tx


# -- the retry itself ------------------------------------------------------------------


def test_a_conflict_is_tried_again_then_succeeds() -> None:
    retry = BusyRetry(retries=5, wait_ms=1, max_wait_ms=4, budget_ms=30_000)
    calls: list[float] = []

    def statement() -> str:
        calls.append(time.monotonic())
        if len(calls) < 4:
            raise _locked()
        return "done"

    assert retry.run(statement, what="a test", path=Path("x.db")) == "done"
    assert len(calls) == 4
    gaps = [b - a for a, b in itertools.pairwise(calls)]
    assert all(gap >= 0.001 for gap in gaps)  # each retry waited


def test_spent_retries_raise_store_busy_from_the_last_error() -> None:
    retry = BusyRetry(retries=3, wait_ms=1, max_wait_ms=2, budget_ms=30_000)
    calls = 0

    def statement() -> None:
        nonlocal calls
        calls += 1
        raise _locked("SQLITE_BUSY_RECOVERY")

    with pytest.raises(StoreBusy, match=r"store\.busy_retries=3") as caught:
        retry.run(statement, what="a test", path=Path("x.db"))
    assert calls == 4  # the try and 3 retries
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)


def test_retries_stop_at_the_busy_timeout() -> None:
    retry = BusyRetry(retries=1000, wait_ms=5, max_wait_ms=5, budget_ms=60)
    calls = 0

    def statement() -> None:
        nonlocal calls
        calls += 1
        raise _locked()

    started = time.monotonic()
    with pytest.raises(StoreBusy):
        retry.run(statement, what="a test", path=Path("x.db"))
    assert time.monotonic() - started < 1
    assert 2 <= calls < 30


@pytest.mark.parametrize("retries, budget_ms", [(0, 30_000), (5, 0)])
def test_no_retry_when_the_settings_allow_none(retries: int, budget_ms: int) -> None:
    retry = BusyRetry(retries=retries, wait_ms=1, max_wait_ms=1, budget_ms=budget_ms)
    calls = 0

    def statement() -> None:
        nonlocal calls
        calls += 1
        raise _locked()

    with pytest.raises(StoreBusy):
        retry.run(statement, what="a test", path=Path("x.db"))
    assert calls == 1


def test_other_errors_and_stale_snapshots_are_not_retried() -> None:
    retry = BusyRetry(retries=5, wait_ms=1, max_wait_ms=1, budget_ms=30_000)
    calls = 0

    def no_table() -> None:
        nonlocal calls
        calls += 1
        raise sqlite3.OperationalError("no such table: nowhere")

    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        retry.run(no_table, what="a test", path=Path("x.db"))
    assert calls == 1

    def stale() -> None:
        nonlocal calls
        calls += 1
        raise _locked("SQLITE_BUSY_SNAPSHOT")

    calls = 0
    with pytest.raises(StoreBusy, match="SQLITE_BUSY_SNAPSHOT"):
        retry.run(stale, what="a test", path=Path("x.db"))
    assert calls == 1


# -- a read stream left unfinished ----------------------------------------------------


class _Feed:
    """A change feed whose row streams record whether they were closed."""

    def __init__(self) -> None:
        self.closed: list[str] = []

    def max_seq(self) -> int:
        return 3

    def scope_sizes(self) -> dict[str, int]:
        return {"u": 3}

    def _rows(self, name: str, seq: int) -> Iterator[IndexRow]:
        try:
            for i in range(seq + 1, 4):
                yield IndexRow(i, f"m{i}", "u", Status.ACTIVE, Area.MAIN, None, None)
        finally:
            self.closed.append(name)

    def index_rows(self, scope_key: str) -> tuple[int, Iterator[IndexRow]]:
        return 3, self._rows("index_rows", 0)

    def changes_since(self, seq: int) -> Iterator[IndexRow]:
        return self._rows("changes_since", seq)


def _failing(*args: object) -> None:
    raise RuntimeError("failed half-way through the rows")


def test_an_index_closes_a_row_stream_an_error_left_unfinished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A SQLite row stream left open keeps its cursor's read snapshot, and the thread's
    next write fails on it (SQLITE_BUSY_SNAPSHOT) for as long as something holds the
    stream: the traceback of the error that interrupted the reading does."""
    monkeypatch.setattr(vector_index, "_SYNC_CHUNK", 1)
    feed = _Feed()
    index = VectorIndex("m", 4, source=feed)
    monkeypatch.setattr(index, "_fill_new", _failing)
    with pytest.raises(RuntimeError) as loading:
        index._read("u")
    assert loading.value.__traceback__ is not None  # still holds the reading frame
    monkeypatch.setattr(index, "apply", _failing)
    with pytest.raises(RuntimeError) as following:
        index._replay(feed, 0, 3)
    assert following.value.__traceback__ is not None
    assert feed.closed == ["index_rows", "changes_since"]
