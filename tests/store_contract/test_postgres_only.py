"""What only the PostgreSQL backend has: connection errors, migrations in ``meta``,
concurrent claims with SKIP LOCKED, change numbers in commit order."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest

from helpers.store_records import rec
from memfold.errors import ConflictError, MemfoldError, StoreUnavailable
from memfold.store.postgres import PostgresStore
from memfold.store.postgres.schema import LATEST_VERSION, VERSION_KEY


def test_an_unreachable_server_is_a_clear_memfold_error(tmp_path: Any) -> None:
    url = f"postgresql://memfold:s3cret@/db?host={tmp_path}&port=1"
    with pytest.raises(StoreUnavailable) as caught:
        PostgresStore(url, connect_timeout_s=1)
    assert "cannot connect to PostgreSQL" in str(caught.value)
    assert "s3cret" not in str(caught.value)
    assert isinstance(caught.value, MemfoldError)


def test_migrations_are_recorded_and_run_once(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    assert store.get_meta(VERSION_KEY) == str(LATEST_VERSION)
    store.insert_memories([rec("a", "kept")])
    store.close()
    again = PostgresStore(pg_url)  # opening again migrates nothing and keeps the rows
    assert again.schema_version() == LATEST_VERSION
    assert again.count_memories() == 1
    again.close()


def test_concurrent_claims_never_share_a_job(pg_url: str) -> None:
    store = PostgresStore(pg_url, pool_max_size=8)
    for i in range(60):
        store.enqueue_job(f"m{i}")
    taken: dict[str, list[int]] = {}

    def worker(name: str) -> None:
        mine: list[int] = []
        while jobs := store.claim_jobs(3, name, lease_s=60):
            mine.extend(j.id for j in jobs)
        taken[name] = mine

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    claimed = [j for ids in taken.values() for j in ids]
    assert len(claimed) == 60 and len(set(claimed)) == 60
    store.close()


def test_concurrent_version_checks_let_one_writer_win(pg_url: str) -> None:
    store = PostgresStore(pg_url, pool_max_size=8)
    store.insert_memories([rec("a", "v1")])
    base = store.get_memory("a")
    assert base is not None
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def write(n: int) -> None:
        barrier.wait()
        try:
            store.put_memory(base.copy(text=f"writer {n}", version=2), expected_version=1)
            outcomes.append("ok")
        except ConflictError:
            outcomes.append("conflict")

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict", "conflict", "conflict", "ok"]
    final = store.get_memory("a")
    assert final is not None and final.version == 2 and final.text.startswith("writer ")
    store.close()


def test_a_versioned_write_is_one_statement_with_its_change_number(pg_url: str) -> None:
    """put_memory checks the version, writes and draws the change number in one UPDATE
    (before: a SELECT ... FOR UPDATE, a nextval, the UPDATE)."""
    store = PostgresStore(pg_url)
    store.insert_memories([rec("a", "v1"), rec("b", "other")])
    base = store.get_memory("a")
    assert base is not None
    seq_before = store.max_seq()
    sent: list[str] = []
    real_query, real_write = store._db.query, store._db.write

    def query(sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        sent.append(sql)
        return real_query(sql, params)

    def write(sql: str, params: Any = ()) -> int:
        sent.append(sql)
        return real_write(sql, params)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(store._db, "query", query)
        patched.setattr(store._db, "write", write)
        with store.transaction():
            store.put_memory(base.copy(text="v2", version=2), expected_version=1)
    assert len(sent) == 1 and sent[0].startswith("UPDATE memories")
    got = store.get_memory("a")
    assert got is not None and (got.text, got.version) == ("v2", 2)
    assert store.max_seq() == seq_before + 1
    assert [r.id for r in store.changes_since(seq_before)] == ["a"]
    store.close()


def test_change_numbers_become_visible_in_order(pg_url: str) -> None:
    """A writer holding change number n blocks later writers until it commits, so a
    reader never sees n + 1 without n."""
    store = PostgresStore(pg_url, pool_max_size=8)
    holding = threading.Event()
    release = threading.Event()

    def slow_writer() -> None:
        with store.transaction():
            store.insert_memories([rec("slow", "first")])
            holding.set()
            release.wait(10)

    slow = threading.Thread(target=slow_writer)
    slow.start()
    holding.wait(10)
    fast = threading.Thread(target=lambda: store.insert_memories([rec("fast", "second")]))
    fast.start()
    fast.join(0.5)
    assert fast.is_alive()  # waits for the slow writer's change number to commit
    assert store.max_seq() == 0
    release.set()
    slow.join()
    fast.join()
    rows = list(store.changes_since(0))
    assert [r.id for r in rows] == ["slow", "fast"]
    store.close()


def test_driver_errors_do_not_leak(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.insert_memories([rec("a", "x")])
    with pytest.raises(ConflictError):
        store.insert_memories([rec("a", "duplicate id")])
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND datname = current_database()"
        )
    # a pooled connection the server closed is replaced, or reported as unavailable
    try:
        assert store.count_memories() == 1
    except StoreUnavailable:
        assert store.count_memories() == 1
    store.close()


def test_the_feed_orders_deletes_and_reinserts_by_change_number(pg_url: str) -> None:
    """A memory deleted then created again (undo, then undo of the undo) is live at the
    end of the feed: rows and tombstones come in one change order."""
    store = PostgresStore(pg_url)
    store.insert_memories([rec("a", "first"), rec("b", "other")])
    store.delete_memory_row("a")
    store.insert_memories([rec("a", "back again")])
    feed = [(r.id, r.deleted) for r in store.changes_since(0)]
    assert feed == [("b", False), ("a", True), ("a", False)]
    store.erase_memories(list(store.get_memories(["a", "b"]).values()), derived=[])
    tail = [r for r in store.changes_since(0) if r.deleted]
    assert len({r.seq for r in tail}) == len(tail) == 3  # one change number per tombstone
    store.close()


def test_migration_2_keeps_rows_and_scopes_keyword_search(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store written at schema 1 opens at the latest schema with its rows, and its
    keyword search then matches through the scope token."""
    import memfold.store.postgres.connection as connection
    from memfold.model import Scope, Status
    from memfold.store.postgres.schema import MIGRATIONS

    with monkeypatch.context() as patched:
        patched.setattr(connection, "MIGRATIONS", MIGRATIONS[:1])
        patched.setattr(connection, "LATEST_VERSION", 1)
        old = PostgresStore(pg_url)
        # the rows are written by today's codec: the columns migrations 4, 7 and 11 add
        # come first (each migration adds its column only if it is missing)
        old._db.write("ALTER TABLE memories ADD COLUMN expires_at TIMESTAMPTZ")
        old._db.write(
            "ALTER TABLE memories ADD COLUMN category_source TEXT NOT NULL DEFAULT 'given'"
        )
        old._db.write("ALTER TABLE memories ADD COLUMN passages BYTEA")
        old.insert_memories([rec("a", "Kim grows tomatoes"), rec("b", "tomatoes", Scope("u9"))])
        assert old.schema_version() == 1
        old.close()
    store = PostgresStore(pg_url)
    assert store.schema_version() == LATEST_VERSION
    hits = store.keyword_search(Scope("u1"), "tomatoes", 5, statuses=[Status.ACTIVE])
    assert [h[0] for h in hits] == ["a"]
    # only stop words for PostgreSQL: nothing matches (not the whole scope)
    assert store.keyword_search(Scope("u1"), "about above", 5, statuses=[Status.ACTIVE]) == []
    store.close()
