"""SQLite put_memory leaves the text and scope columns out of an update that keeps them
(no full-text re-index of the same words); keyword search must see every write alike."""

from __future__ import annotations

from pathlib import Path

from helpers.store_records import rec
from memfold.model import Scope, Status
from memfold.store.sqlite import SQLiteStore

ACTIVE = (Status.ACTIVE,)
ANY = (Status.ACTIVE, Status.SUPERSEDED)


def _ids(store: SQLiteStore, scope: Scope, query: str, statuses: tuple[Status, ...]) -> set[str]:
    return {mid for mid, _ in store.keyword_search(scope, query, 10, statuses=statuses)}


def test_keyword_search_follows_status_text_and_scope_writes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "fts.db")
    home, other = Scope("u1"), Scope("u2")
    store.insert_memories([rec("m1", "Alice keeps bees in Lisbon", home)])
    store.insert_memories([rec("m2", "Bob sails near Porto", home)])
    first = store.get_memory("m1")
    assert first is not None and _ids(store, home, "bees", ACTIVE) == {"m1"}

    # Same words, another status: found by status, the words still indexed once.
    store.put_memory(first.copy(status=Status.SUPERSEDED, version=2), expected_version=1)
    assert _ids(store, home, "bees", ACTIVE) == set()
    assert _ids(store, home, "bees", ANY) == {"m1"}
    vocab = dict(store._q("SELECT term, doc FROM memories_vocab WHERE term = 'bee'"))
    assert vocab == {"bee": 1}

    # New words: the old ones are gone from the index.
    second = store.get_memory("m1")
    assert second is not None
    store.put_memory(second.copy(text="Alice keeps goats in Faro", status=Status.ACTIVE))
    assert _ids(store, home, "bees", ANY) == set()
    assert _ids(store, home, "goats", ACTIVE) == {"m1"}

    # Another scope, same words: found there only.
    third = store.get_memory("m1")
    assert third is not None
    store.put_memory(third.copy(scope=other))
    assert _ids(store, home, "goats", ACTIVE) == set()
    assert _ids(store, other, "goats", ACTIVE) == {"m1"}
    assert _ids(store, home, "sails", ACTIVE) == {"m2"}
    store.close()
