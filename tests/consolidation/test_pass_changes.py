"""PassChanges (engine/pass_changes.py) reads, bit by bit, the same rows in the same order
as one ``changes_since(since)`` read whole: rewrites, deletions and a re-insert included."""

from __future__ import annotations

from pathlib import Path

from helpers.scripted import vec_with_cosine
from memfold import Memory, Status
from memfold.embed.local import LocalEmbedder
from memfold.engine.pass_changes import PassChanges
from memfold.store.base import Store


def _whole(store: Store, since: int) -> list[tuple[int, str, bool, Status]]:
    return [(r.seq, r.id, r.deleted, r.status) for r in store.changes_since(since)]


def test_pass_changes_equal_changes_since_read_whole(
    db_path: Path | str, embedder: LocalEmbedder
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        ids = [
            mem.add(f"Sam fact {i}", user_id="s", embedding=vec_with_cosine(0.9, i + 1)).memory.id
            for i in range(4)
        ]
        store = mem.store
        since = store.max_seq()
        feed = PassChanges(store, since)

        def check() -> None:
            assert [(r.seq, r.id, r.deleted, r.status) for r in feed.rows()] == _whole(store, since)

        check()  # nothing written yet
        first = store.get_memory(ids[0])
        assert first is not None
        store.put_memory(first.copy(status=Status.SUPERSEDED, version=first.version + 1))
        check()
        mem.add("Sam fact new", user_id="s", embedding=vec_with_cosine(0.8, 9))
        check()
        again = store.get_memory(ids[0])
        assert again is not None
        store.put_memory(again.copy(status=Status.ACTIVE, version=again.version + 1))
        second = store.get_memory(ids[1])
        assert second is not None
        store.delete_memory_row(ids[1])
        check()
        check()  # a read with nothing new in between
        store.insert_memories([second])  # written again after its deletion (an undo)
        third = store.get_memory(ids[2])
        assert third is not None
        store.put_memory(third.copy(status=Status.ARCHIVED, version=third.version + 1))
        check()
        assert len(feed.rows()) == 5  # ids[0], the new one, ids[1] deleted and back, ids[2]
