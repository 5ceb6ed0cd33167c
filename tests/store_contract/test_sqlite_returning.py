"""A logged change on SQLite takes its rows' after-state from the writes themselves
(INSERT/UPDATE ... RETURNING, issue 14's drain): no read of ``memories`` after the first
write, and the log holds exactly what a read after the writes gives."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.changes import ChangeSet, commit, link
from memfold.engine.snapshot import state
from memfold.engine.undo import undo
from memfold.errors import ConflictError, NotFound
from memfold.model import LinkKind, MemoryRecord, Status
from memfold.store.sqlite import SQLiteStore
from memfold.store.sqlite import store as sqlite_store


@contextmanager
def statements(store: SQLiteStore) -> Iterator[list[str]]:
    """Every statement the calling thread's connection runs meanwhile (triggers' too)."""
    sent: list[str] = []
    conn = store._db.get()
    conn.set_trace_callback(lambda sql: sent.append(re.sub(r"\s+", " ", sql).strip()))
    try:
        yield sent
    finally:
        conn.set_trace_callback(None)


def same(one: MemoryRecord | None, other: MemoryRecord | None) -> bool:
    """Equal records, the embeddings compared as arrays."""
    assert one is not None and other is not None
    fields = {**asdict(one), "embedding": None} == {**asdict(other), "embedding": None}
    assert one.embedding is not None and other.embedding is not None
    return fields and np.array_equal(one.embedding, other.embedding)


def test_a_logged_change_reads_no_memory_row_after_its_writes(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        ctx, store = mem.ctx, mem.store
        assert isinstance(store, SQLiteStore)
        a = mem.add("Ana lives in Lyon", user_id="u", metadata={"zeta": 1, "a": [2.5]}).memory
        b = mem.add("Ana lives in Oslo", user_id="u").memory
        c = mem.add("Ana has a cat", user_id="u").memory
        store.add_links([link(a.id, b.id, LinkKind.RELATED), link(b.id, c.id, LinkKind.RELATED)])
        merged = a.copy(id="m" * 32, version=1, text="Ana lives in Lyon and Oslo")
        change = ChangeSet(
            path="manual",
            action="MERGE",
            input_ids=[a.id, b.id, c.id],
            expected={a.id: a.version, b.id: b.version, c.id: c.version, merged.id: None},
            creates=[merged],
            writes=[
                # a status-only write (text left out of the UPDATE) and a text change
                a.copy(status=Status.SUPERSEDED, superseded_by=merged.id, version=a.version + 1),
                b.copy(text="Ana lived in Oslo", version=b.version + 1),
            ],
            deletes=[c.id],
            add_links=[
                link(merged.id, a.id, LinkKind.DERIVED_FROM),
                link(a.id, b.id, LinkKind.RELATED, 0.25),
            ],
            remove_links=[link(b.id, c.id, LinkKind.RELATED)],
        )
        with statements(store) as sent:
            log_id = commit(ctx, change)
        first_write = next(i for i, s in enumerate(sent) if s.startswith(("INSERT", "UPDATE")))
        # Rows read whole: before the writes only (before this change: again after them;
        # a write's own version check reads three columns, not the row).
        whole_rows = [i for i, s in enumerate(sent) if s.startswith("SELECT id, user_id,")]
        assert whole_rows and max(whole_rows) < first_write, sent
        entry = store.get_log(log_id)
        assert entry is not None and entry.after is not None
        touched = change.touched()
        link_ids = [*touched, *(lk.src for lk in change.remove_links)]
        rows = store.get_memories(touched)
        assert entry.after == state({m: rows.get(m) for m in touched}, store.links_for(link_ids))
        assert rows[b.id].text == "Ana lived in Oslo" and c.id not in rows
        undo(ctx, log_id)
        back = store.get_memories([a.id, b.id, c.id])
        assert store.get_memory(merged.id) is None
        assert {m.status for m in back.values()} == {Status.ACTIVE}
        assert back[a.id].metadata == {"zeta": 1, "a": [2.5]}
        assert back[b.id].text == "Ana lives in Oslo"


@pytest.mark.parametrize("returning", [True, False], ids=["returning", "sqlite<3.35"])
def test_returning_writes_hand_back_the_stored_row_and_check_as_before(
    db_path: Path, embedder: LocalEmbedder, returning: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not returning:  # a library without RETURNING: the row is read after the write
        monkeypatch.setattr(sqlite_store, "_RETURNING", "")
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        store = mem.store
        assert isinstance(store, SQLiteStore)
        a = mem.add("Bo plays chess on Sundays", user_id="u").memory
        stored = store.put_memory_returning(
            a.copy(status=Status.ARCHIVED, version=a.version + 1), expected_version=a.version
        )
        assert same(stored, store.get_memory(a.id))
        made = store.insert_memory_returning(a.copy(id="n" * 32, text="Bo plays go"))
        assert same(made, store.get_memory("n" * 32))
        # its words went to the full-text index (the insert trigger ran)
        assert store._q("SELECT count(*) FROM memories_fts WHERE text MATCH 'go'") == [(1,)]
        with pytest.raises(ConflictError):
            store.put_memory_returning(a.copy(version=9), expected_version=a.version)
        with pytest.raises(NotFound):
            store.put_memory_returning(a.copy(id="x" * 32))
        assert same(store.get_memory(a.id), stored)
