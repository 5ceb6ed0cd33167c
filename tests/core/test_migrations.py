"""Versioned, idempotent migrations: an older file upgrades, a second open changes nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memfold.store.sqlite import SQLiteStore
from memfold.store.sqlite.schema import LATEST_VERSION, MIGRATIONS


def _schema(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute("SELECT name, coalesce(sql, '') FROM sqlite_master").fetchall())


def test_fresh_file_is_latest_and_wal(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    assert store.schema_version() == LATEST_VERSION
    mode = store._db.get().execute("PRAGMA journal_mode").fetchone()[0]
    busy = store._db.get().execute("PRAGMA busy_timeout").fetchone()[0]
    assert mode == "wal" and busy == 30_000
    store.close()


def test_reopen_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    SQLiteStore(path).close()
    first = _schema(path)
    store = SQLiteStore(path)
    assert store._db.migrate() == LATEST_VERSION
    store.close()
    assert _schema(path) == first


def test_version_1_file_upgrades_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    version, script = MIGRATIONS[0]
    conn.executescript(script)
    conn.execute(f"PRAGMA user_version={version}")
    conn.execute(
        "INSERT INTO memories (id, scope_key, user_id, text, created_at, updated_at, "
        "content_hash, seq) VALUES ('old1', 'u=a|a=|s=', 'a', 'kept', '2025-01-01T00:00:00+00:00', "
        "'2025-01-01T00:00:00+00:00', 'h', 1)"
    )
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.schema_version() == LATEST_VERSION
    record = store.get_memory("old1")
    assert record is not None and record.text == "kept"
    tables = {name for name, _ in _schema(path)}
    assert {"consolidation_queue", "feedback", "review_runs", "llm_calls"} <= tables
    store.close()
