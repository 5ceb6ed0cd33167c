"""Schemas 12-13: each memory's stems as terms of its scope only (``fts_terms``), so a
scope's BM25 search reads doclists of that scope alone, however many tenants share the
file (issue 14). A schema-11 file upgrades; the triggers keep the index equal to the
memories on insert, update, a move to another scope and delete; a plain SQLite, without
memfold's SQL function, still reads and checks the file."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.index.bm25 import Bm25Params, Stemmer
from memfold.model import Scope, Status
from memfold.store.sqlite import SQLiteStore
from memfold.store.sqlite.fts import scope_term
from memfold.store.sqlite.schema import MIGRATIONS

A, B = Scope(user_id="a"), Scope(user_id="b")
BM25 = Bm25Params(1.2, 0.3, 100)


def _schema_11_file(path: Path) -> None:
    conn = sqlite3.connect(path)
    for version, script in MIGRATIONS:
        if version <= 11:
            conn.executescript(script)
    rows = [
        ("a1", A, "Ana drinks green tea every morning"),
        ("a2", A, "Ana moved to Lisbon last spring"),
        ("b1", B, "Ben drinks black tea at night"),
    ]
    for seq, (mid, scope, text) in enumerate(rows, start=1):
        conn.execute(
            "INSERT INTO memories (id, scope_key, user_id, text, created_at, updated_at, "
            "content_hash, seq) VALUES (?, ?, ?, ?, '2025-01-01T00:00:00+00:00', "
            "'2025-01-01T00:00:00+00:00', ?, ?)",
            (mid, scope.key(), scope.user_id, text, mid, seq),
        )
    conn.execute("PRAGMA user_version=11")
    conn.commit()
    conn.close()


def _bm25_search(store: SQLiteStore, scope: Scope, query: str) -> list[str]:
    hits = store.keyword_search(scope, query, 10, statuses=(Status.ACTIVE,), bm25=BM25)
    return sorted(mid for mid, _ in hits)


def _check_index(store: SQLiteStore) -> None:
    """FTS5's own check that its index matches the memories table (rank 1: content):
    it fails when a delete named other terms than the insert did."""
    store._w("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)")


def test_a_schema_11_file_upgrades_to_scope_terms(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _schema_11_file(path)
    store = SQLiteStore(path)
    assert store.schema_version() >= 12
    _check_index(store)
    assert _bm25_search(store, A, "tea drinks") == ["a1"]
    assert _bm25_search(store, B, "tea") == ["b1"]
    # the scope's own term counts the scope's memories only
    found = store._q(
        "SELECT doc FROM memories_vocab WHERE term = ?", (scope_term(A.key(), "drink"),)
    )
    assert found == [(1,)]
    store.close()


def test_the_scope_terms_follow_every_change(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _schema_11_file(path)
    store = SQLiteStore(path)
    record = store.get_memory("a2")
    assert record is not None
    record.text = "Ana moved to Porto"
    store.put_memory(record)
    assert _bm25_search(store, A, "Lisbon") == [] and _bm25_search(store, A, "Porto") == ["a2"]
    # moved by plain SQL: the trigger computes the terms of the new scope
    store._w("UPDATE memories SET scope_key = ?, user_id = 'b' WHERE id = 'a1'", (B.key(),))
    assert _bm25_search(store, A, "tea") == [] and _bm25_search(store, B, "tea") == ["a1", "b1"]
    store.delete_memory_row("b1")
    assert _bm25_search(store, B, "tea") == ["a1"]
    _check_index(store)
    store.close()


def test_a_plain_sqlite_reads_and_checks_the_file(tmp_path: Path) -> None:
    """Schema 12 computed the terms in a generated column: integrity_check, quick_check
    and SELECT * then needed memfold's SQL function in every reader."""
    path = tmp_path / "old.db"
    _schema_11_file(path)
    SQLiteStore(path).close()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        assert len(conn.execute("SELECT * FROM memories").fetchall()) == 3
        term = scope_term(A.key(), "drink")
        found = conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?", (f'"{term}"',)
        )
        assert len(found.fetchall()) == 1
    finally:
        conn.close()


def _doclist_lengths(mem: Memory, query: str) -> int:
    """The memories in the doclists of every term one BM25 keyword search of scope a
    names in its FTS5 queries (each term's document count in the index)."""
    store = mem.store
    assert isinstance(store, SQLiteStore)
    bm25_args: dict[str, Any] = {"statuses": (Status.ACTIVE,), "bm25": BM25}
    store.keyword_search(A, query, 10, **bm25_args)  # statistics counted
    matches: list[str] = []
    plain = store._q

    def recording(sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if "MATCH" in sql:
            matches.append(str(params[0]))
        return plain(sql, params)

    store._q = recording  # type: ignore[method-assign]
    try:
        assert store.keyword_search(A, query, 10, **bm25_args)
    finally:
        del store._q
    terms = {t.replace('""', '"') for m in matches for t in re.findall(r'"((?:[^"]|"")*)"', m)}
    assert terms
    total = 0
    for term in terms:
        stem = Stemmer().stem(term) if term.isalpha() else term  # a word: as FTS5 indexes it
        found = store._q("SELECT doc FROM memories_vocab WHERE term = ?", (stem,))
        total += int(found[0][0]) if found else 0
    return total


def test_a_scope_search_reads_doclists_of_that_scope_alone(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    """Not a timing: the doclists scope a's search names hold the same memories with
    3,000 memories on the same words in scope b as without (terms of the whole text
    column hold scope b's memories too, and FTS5 steps through them for each of a's)."""
    settings = Settings.model_validate({"search": {"keyword_max_df_share": 1.0}})
    with Memory(db_path, embedder=embedder, consolidate="off", settings=settings) as mem:
        texts = [f"Ana had coffee and tea in Lisbon on day {i}" for i in range(30)]
        mem.add_many([{"text": t, "user_id": "a"} for t in texts])
        alone = _doclist_lengths(mem, "coffee tea in Lisbon")
        rng = np.random.default_rng(4)
        vectors = rng.standard_normal((3000, embedder.dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        others = [f"Ben had coffee and tea in Lisbon, note {i}" for i in range(3000)]
        mem.add_many([{"text": t, "user_id": "b"} for t in others], embeddings=vectors)
        shared = _doclist_lengths(mem, "coffee tea in Lisbon")
    assert shared == alone, (alone, shared)
