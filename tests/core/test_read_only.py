"""Read-only stores: a file without write permission (or ``read_only=True``) opens with
SQLite's mode=ro, is searched, listed and read, and refuses every write unchanged."""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfold import InvalidInput, Memory, ReadOnlyStore
from memfold.embed.local import LocalEmbedder
from memfold.store.sqlite.connection import register_functions
from memfold.store.sqlite.schema import LATEST_VERSION, MIGRATIONS


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def seeded(db_path: Path, embedder: LocalEmbedder) -> Path:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        mem.add("Sam lives in Berlin", user_id="s")
        mem.add("Sam keeps a cat named Miso", user_id="s")
    return db_path


@pytest.fixture
def read_only_file(seeded: Path) -> Iterator[Path]:
    seeded.chmod(0o444)
    yield seeded
    seeded.chmod(0o644)


def test_a_0444_file_is_searched_and_refuses_writes(
    read_only_file: Path, embedder: LocalEmbedder
) -> None:
    before = _digest(read_only_file)
    mem = Memory(read_only_file, embedder=embedder)  # background mode asked: no worker
    try:
        assert mem.read_only and mem.ctx.accesses is None
        hits = mem.search("Where does Sam live?", user_id="s", k=1, mode="keyword")
        assert hits[0].memory.text == "Sam lives in Berlin"
        assert mem.get(hits[0].memory.id).text == "Sam lives in Berlin"
        assert {m.text for m in mem.list(user_id="s")} == {
            "Sam lives in Berlin",
            "Sam keeps a cat named Miso",
        }
        with pytest.raises(ReadOnlyStore, match="open read-only"):
            mem.add("Sam moved to Paris", user_id="s")
        with pytest.raises(ReadOnlyStore):
            mem.add_many([{"text": "Sam likes tea", "user_id": "s"}])
        with pytest.raises(ReadOnlyStore):
            mem.update(hits[0].memory.id, importance=0.9)
        with pytest.raises(ReadOnlyStore):
            mem.delete(hits[0].memory.id)
        assert mem.flush() == 0
        names = {t.name for t in threading.enumerate()}
        assert "memfold-worker" not in names and "memfold-access-flush" not in names
    finally:
        mem.close()
    assert _digest(read_only_file) == before
    read_only_file.chmod(0o644)
    with Memory(read_only_file, embedder=embedder, consolidate="off") as mem:
        assert not mem.read_only
        assert {m.text: m.access_count for m in mem.list(user_id="s")} == {
            "Sam lives in Berlin": 0,  # a read-only search counts nothing
            "Sam keeps a cat named Miso": 0,
        }


def test_read_only_true_on_a_writable_file(seeded: Path, embedder: LocalEmbedder) -> None:
    with Memory(seeded, embedder=embedder, consolidate="sync", read_only=True) as mem:
        assert mem.search("cat", user_id="s", mode="keyword")[0].memory.text.endswith("Miso")
        with pytest.raises(ReadOnlyStore):
            mem.add("Sam adopted a second cat", user_id="s")
    conn = sqlite3.connect(seeded)
    assert conn.execute("SELECT count(*), sum(access_count) FROM memories").fetchone() == (2, 0)
    conn.close()


def test_read_only_open_leaves_a_dead_owners_job_alone(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
        mem.add("Sam lives in Berlin", user_id="s")
        # Held by "this pid with another token": a dead owner a writable open reclaims.
        dead = f"{socket.gethostname()}:{os.getpid()}:deadbeef0000:1"
        assert len(mem.store.claim_jobs(10, dead, lease_s=3600)) == 1
    with Memory(db_path, embedder=embedder, read_only=True) as mem:
        assert mem.store.count_jobs("running") == 1
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        assert mem.store.count_jobs("running") == 0  # reclaimed by a writable open


def test_read_only_refuses_an_older_schema_naming_the_fix(db_path: Path) -> None:
    conn = sqlite3.connect(db_path)  # a file written by the code before the last migration
    register_functions(conn)  # as that code's connections do (the schema's SQL functions)
    for version, script in MIGRATIONS[:-1]:
        conn.executescript(script)
        conn.execute(f"PRAGMA user_version={version}")
    conn.close()
    before = _digest(db_path)
    with pytest.raises(InvalidInput, match="open it once writable to upgrade it"):
        Memory(db_path, read_only=True)
    assert _digest(db_path) == before
    Memory(db_path, consolidate="off").close()  # a writable open upgrades it
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    conn.close()
    Memory(db_path, read_only=True).close()


def test_read_only_refuses_a_missing_or_empty_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such store file"):
        Memory(tmp_path / "missing.db", read_only=True)
    assert not (tmp_path / "missing.db").exists()
    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(InvalidInput, match="not a memfold store yet"):
        Memory(empty, read_only=True)
    assert empty.read_bytes() == b""
