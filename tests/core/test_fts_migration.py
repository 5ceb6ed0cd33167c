"""Schema 7: the FTS5 index gets each memory's scope token. A file written at schema 6
upgrades (its index rebuilt, tokens of rows deleted before gone from the file), and the
triggers keep the index equal to the memories on insert, update and delete."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memfold.model import Scope, Status
from memfold.store.sqlite import SQLiteStore
from memfold.store.sqlite.fts import scope_token
from memfold.store.sqlite.schema import MIGRATIONS

A, B = Scope(user_id="a"), Scope(user_id="b")
GONE = "Qxjfadeword"  # only in a memory deleted before the upgrade


def _old_file(path: Path) -> None:
    """A schema-6 file written by an older memfold, freed space zeroed (as memfold's
    own connections do), so only the FTS5 segments can still hold a deleted row."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA secure_delete=ON")
    for version, script in MIGRATIONS:
        if version <= 6:
            conn.executescript(script)
    rows = [
        ("a1", A, "Ana drinks green tea every morning"),
        ("a2", A, "Ana moved to Lisbon last spring"),
        ("b1", B, "Ben drinks black tea at night"),
        ("gone", A, f"The {GONE} note was wrong"),
    ]
    for seq, (mid, scope, text) in enumerate(rows, start=1):
        conn.execute(
            "INSERT INTO memories (id, scope_key, user_id, text, created_at, updated_at, "
            "content_hash, seq) VALUES (?, ?, ?, ?, '2025-01-01T00:00:00+00:00', "
            "'2025-01-01T00:00:00+00:00', ?, ?)",
            (mid, scope.key(), scope.user_id, text, mid, seq),
        )
    conn.commit()
    conn.execute("DELETE FROM memories WHERE id = 'gone'")  # FTS5 keeps its tokens
    conn.execute("PRAGMA user_version=6")
    conn.commit()
    conn.close()


def _search(store: SQLiteStore, scope: Scope, query: str) -> list[str]:
    hits = store.keyword_search(scope, query, 10, statuses=(Status.ACTIVE,))
    return sorted(mid for mid, _ in hits)


def _check_index(store: SQLiteStore) -> None:
    """FTS5's own check that its index matches the memories table (rank 1: content)."""
    store._w("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)")


def test_a_schema_6_file_upgrades_to_scoped_keyword_search(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _old_file(path)
    assert GONE.lower().encode() in path.read_bytes()  # the check below can fail
    store = SQLiteStore(path)
    assert store.schema_version() >= 7
    _check_index(store)
    assert _search(store, A, "tea") == ["a1"] and _search(store, B, "tea") == ["b1"]
    tokens = store._q(
        "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",
        (f'fts_scope : "{scope_token(A.key())}"',),
    )
    assert tokens[0][0] == 2
    store.checkpoint(wait_s=5.0)
    store.close()
    assert GONE.lower().encode() not in path.read_bytes()  # the old segments are dropped


def test_triggers_keep_the_index_in_step(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _old_file(path)
    store = SQLiteStore(path)
    record = store.get_memory("a2")
    assert record is not None
    record.text = "Ana moved to Porto"
    store.put_memory(record)
    assert _search(store, A, "Lisbon") == [] and _search(store, A, "Porto") == ["a2"]
    # a memory moved to another scope is found there only
    store._w("UPDATE memories SET scope_key = ?, user_id = 'b' WHERE id = 'a1'", (B.key(),))
    assert _search(store, A, "tea") == [] and _search(store, B, "tea") == ["a1", "b1"]
    store.delete_memory_row("b1")
    assert _search(store, B, "tea") == ["a1"]
    _check_index(store)
    store.close()
