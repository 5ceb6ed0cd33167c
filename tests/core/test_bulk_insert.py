"""add_many writes its memories in one statement (store/sqlite/bulk_insert.py): FTS5
writes a segment at every statement's savepoint, so one statement a row cost a segment
per memory (issue 14's add_many regression). The rows, their order and the full-text
index stay as before."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.index.bm25 import Bm25Params
from memfold.model import Scope, Status
from memfold.store.sqlite import SQLiteStore
from memfold.store.sqlite.bulk_insert import insert_rows
from memfold.store.sqlite.connection import register_functions
from memfold.store.sqlite.schema import MIGRATIONS

ROWS = 341


def test_add_many_writes_in_one_statement_in_order(db_path: Path, embedder: LocalEmbedder) -> None:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((ROWS, embedder.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = [f"Ana filed note {i} under code zq{i}" for i in range(ROWS)]
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        store = mem.store
        assert isinstance(store, SQLiteStore)
        # SQLite traces each statement as it starts and again as each trigger starts,
        # with the statement's text and values: one text for each statement run
        inserts: set[str] = set()

        def traced(sql: str) -> None:
            if sql.startswith("INSERT INTO memories ("):
                inserts.add(sql)

        conn = store._db.get()
        conn.set_trace_callback(traced)
        try:
            results = mem.add_many(
                [{"text": t, "user_id": "ana"} for t in texts], embeddings=vectors
            )
        finally:
            conn.set_trace_callback(None)
        assert len(inserts) == 1, len(inserts)  # executemany: one a row (341)
        ids = [r.memory.id for r in results]
        order = store.insertion_order(ids)
        assert [order[i] for i in ids] == sorted(order.values())
        assert [r.memory.text for r in results] == texts
        store._w("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)")
        bm25 = Bm25Params(1.2, 0.3, 100)
        assert store._q("SELECT count(*) FROM temp.memfold_bulk_memories") == [(0,)]
        for i in (0, 1, 170, 339, 340):
            hits = store.keyword_search(
                Scope(user_id="ana"), f"zq{i}", 10, statuses=(Status.ACTIVE,), bm25=bm25
            )
            assert [mid for mid, _ in hits] == [ids[i]]


def test_rows_of_different_widths_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "t.db")
    conn.execute("CREATE TABLE t (a, b)")
    with pytest.raises(ValueError, match="every row needs 2 values"):
        insert_rows(conn, "t", "a, b", [(1, 2), (3,)])
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
    conn.close()


def test_a_failing_batch_inserts_nothing_and_leaves_nothing_staged(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    conn.execute("CREATE TABLE t (a PRIMARY KEY, b)")
    conn.execute("BEGIN")
    conn.execute("SAVEPOINT batch")
    with pytest.raises(sqlite3.IntegrityError):
        insert_rows(conn, "t", "a, b", [(1, "x"), (2, "y"), (1, "again")])
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM temp.memfold_bulk_t").fetchone() == (0,)
    conn.execute("ROLLBACK TO batch")
    insert_rows(conn, "t", "a, b", [(3, "z"), (4, "w")])
    conn.execute("COMMIT")
    assert conn.execute("SELECT a, b FROM t ORDER BY rowid").fetchall() == [(3, "z"), (4, "w")]
    conn.close()


def test_a_file_from_before_upgrades_to_merging_segments_from_two(tmp_path: Path) -> None:
    """Schema 15: FTS5's automerge 2 (one segment a batch would otherwise leave a file
    with more segments than one statement a row did, and every search reads each)."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    register_functions(conn)  # as the code before does
    for version, script in MIGRATIONS:
        if version < 15:
            conn.executescript(script)
    conn.execute("PRAGMA user_version=14")
    ana = Scope(user_id="ana")
    for n, text in enumerate(["Ana drinks green tea", "Ana moved to Lisbon"], start=1):
        conn.execute(
            "INSERT INTO memories (id, scope_key, user_id, text, created_at, updated_at, "
            "content_hash, seq) VALUES (?, ?, 'ana', ?, '2025-01-01T00:00:00+00:00', "
            "'2025-01-01T00:00:00+00:00', ?, ?)",
            (f"m{n}", ana.key(), text, f"h{n}", n),
        )
    conn.commit()
    automerge = "SELECT v FROM memories_fts_config WHERE k = 'automerge'"
    assert conn.execute(automerge).fetchall() == []  # FTS5's default, 4
    conn.close()
    store = SQLiteStore(path)
    assert store.schema_version() >= 15
    assert store._q(automerge) == [(2,)]
    store._w("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)")
    bm25 = Bm25Params(1.2, 0.3, 100)
    hits = store.keyword_search(ana, "tea", 10, statuses=(Status.ACTIVE,), bm25=bm25)
    assert [mid for mid, _ in hits] == ["m1"]
    store.close()
