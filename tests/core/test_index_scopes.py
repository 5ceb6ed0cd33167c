"""The vector index loads only the scopes asked about, drops the least recently used
past its budget, follows other writers and erasures, and grows without copying."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memfold import Memory
from memfold.config import Settings
from memfold.embed.local import LocalEmbedder
from memfold.errors import ConfigError, EmbeddingMismatch
from memfold.index.scope_block import MAX_CHUNK, MIN_CHUNK
from memfold.index.vector_index import VectorIndex
from memfold.model import Area, Scope, Status
from memfold.store.base import IndexRow
from memfold.store.sqlite import SQLiteStore

USERS = ("ann", "bob", "cyd")
PER_USER = 40


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    vecs = rng.normal(size=(n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs


def _key(user: str) -> str:
    return Scope(user, None, None).key()


class CountingStore(SQLiteStore):
    """A real SQLite store that counts what the index reads from it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.scopes_read: list[str] = []
        self.feed_rows = 0

    def index_rows(self, scope_key: str) -> tuple[int, Iterator[IndexRow]]:
        self.scopes_read.append(scope_key)
        return super().index_rows(scope_key)

    def changes_since(self, seq: int) -> Iterator[IndexRow]:
        for row in super().changes_since(seq):
            self.feed_rows += 1
            yield row


@pytest.fixture
def filled(db_path: Path, embedder: LocalEmbedder) -> Path:
    """Three users' memories with random vectors, written by a Memory now closed."""
    rng = np.random.default_rng(5)
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        for user in USERS:
            items = [{"text": f"{user} fact {i}", "user_id": user} for i in range(PER_USER)]
            mem.add_many(items, embeddings=_unit(rng, PER_USER, embedder.dim))
    return db_path


def _index(store: SQLiteStore, embedder: LocalEmbedder, budget: int | None = None) -> VectorIndex:
    return VectorIndex(embedder.model_id, embedder.dim, source=store, budget_bytes=budget)


def test_only_the_asked_scope_is_read(filled: Path, embedder: LocalEmbedder) -> None:
    store = CountingStore(filled)
    index = _index(store, embedder)
    index.sync()
    assert index.loaded_scopes() == [] and store.feed_rows == 0  # no full read at open
    q = _unit(np.random.default_rng(1), 1, embedder.dim)[0]
    hits = index.search(_key("bob"), q, 5)
    assert len(hits) == 5
    assert store.scopes_read == [_key("bob")]
    assert index.loaded_scopes() == [_key("bob")] and len(index) == PER_USER
    assert store.feed_rows == 0  # nothing written since: the catch-up read no row
    index.search(_key("bob"), q, 5)
    index.sync()
    assert store.scopes_read == [_key("bob")]  # loaded once
    # Review runs still see every scope of the store, loaded or not.
    assert sorted(index.scope_keys()) == sorted(_key(u) for u in USERS)
    store.close()


def test_memory_search_loads_one_scope(filled: Path, embedder: LocalEmbedder) -> None:
    with Memory(filled, embedder=embedder, consolidate="off") as mem:
        assert mem.search("fact", user_id="cyd", mode="vector", k=100)
        assert mem.ctx.index.loaded_scopes() == [_key("cyd")]
        assert len(mem.ctx.index) == PER_USER


def test_eviction_under_a_tiny_budget_reloads_the_same_results(
    filled: Path, embedder: LocalEmbedder
) -> None:
    store = CountingStore(filled)
    index = _index(store, embedder, budget=1)  # every scope is over budget
    queries = _unit(np.random.default_rng(2), 4, embedder.dim)
    first = {u: [index.search(_key(u), q, 10) for q in queries] for u in USERS}
    assert index.loaded_scopes() == [_key("cyd")]  # the one in use stays
    assert index.loaded_bytes() > 1
    again = {u: [index.search(_key(u), q, 10) for q in queries] for u in USERS}
    assert again == first
    assert store.scopes_read == [_key(u) for u in USERS] * 2
    assert index.vector_of("dropped-or-unknown") is None
    store.close()


def test_the_budget_keeps_recent_scopes_and_drops_the_oldest(
    filled: Path, embedder: LocalEmbedder
) -> None:
    store = CountingStore(filled)
    probe = _index(store, embedder)
    q = _unit(np.random.default_rng(3), 1, embedder.dim)[0]
    probe.search(_key("ann"), q, 1)
    one = probe.loaded_bytes()
    index = _index(store, embedder, budget=2 * one + one // 2)  # room for two scopes
    for user in ("ann", "bob", "ann", "cyd"):
        index.search(_key(user), q, 1)
    assert index.loaded_scopes() == [_key("ann"), _key("cyd")]  # bob least recent
    store.close()


def test_a_second_memory_on_the_file_is_seen(filled: Path, embedder: LocalEmbedder) -> None:
    rng = np.random.default_rng(4)
    reader = Memory(filled, embedder=embedder, consolidate="off")
    writer = Memory(filled, embedder=embedder, consolidate="off")
    index = reader.ctx.index
    vecs = _unit(rng, 3, embedder.dim)
    assert reader.ctx.synced_index().search(_key("ann"), vecs[0], 1)[0][1] < 0.99
    new = writer.add_many(
        [{"text": f"late fact {i}", "user_id": u} for i, u in enumerate(("ann", "bob", "bob"))],
        embeddings=vecs,
        consolidate=False,
    )
    assert len(new) == 3
    hits = reader.ctx.synced_index().search(_key("ann"), vecs[0], 1)
    assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert index.loaded_scopes() == [_key("ann")]  # bob's rows were skipped, not loaded
    got = reader.ctx.synced_index().search(_key("bob"), vecs[2], 1)  # read fresh
    assert got[0][1] == pytest.approx(1.0, abs=1e-5)
    # A soft delete in the other process hides the row from plain search.
    writer.delete(got[0][0])
    left = reader.ctx.synced_index().search(_key("bob"), vecs[2], 5)
    assert got[0][0] not in [m for m, _ in left]
    reader.close()
    writer.close()


def test_forget_removes_rows_from_a_loaded_scope(filled: Path, embedder: LocalEmbedder) -> None:
    reader = Memory(filled, embedder=embedder, consolidate="off")
    writer = Memory(filled, embedder=embedder, consolidate="off")
    victim = writer.store.get_memory(writer.list(user_id="ann", limit=1)[0].id)
    assert victim is not None and victim.embedding is not None
    hits = reader.ctx.synced_index().search(_key("ann"), victim.embedding, 1)
    assert hits[0][0] == victim.id and reader.ctx.index.vector_of(victim.id) is not None
    writer.forget(victim.id)  # hard erasure: a tombstone in the feed
    after = reader.ctx.synced_index().search(_key("ann"), victim.embedding, PER_USER)
    assert victim.id not in [m for m, _ in after] and len(after) == PER_USER - 1
    assert reader.ctx.index.vector_of(victim.id) is None
    # A whole scope forgotten while loaded: its rows go; a new row read after it.
    q = victim.embedding
    assert len(reader.ctx.synced_index().search(_key("bob"), q, 100)) == PER_USER
    writer.forget(user_id="bob")
    assert reader.ctx.synced_index().search(_key("bob"), q, 100) == []
    added = writer.add("bob starts over", user_id="bob")
    hits = reader.ctx.synced_index().search(_key("bob"), q, 100)
    assert [m for m, _ in hits] == [added.memory.id]
    reader.close()
    writer.close()


class FakeFeed:
    """A change feed handing out given rows, to test ordering corner cases."""

    def __init__(self, top: int, changes: list[IndexRow], scope: list[IndexRow]) -> None:
        self.top, self.changes, self.scope = top, changes, scope
        self.undercount = 0  # rows written between the count and the read

    def max_seq(self) -> int:
        return self.top

    def changes_since(self, seq: int) -> Iterator[IndexRow]:
        return iter([r for r in self.changes if r.seq > seq])

    def scope_sizes(self) -> dict[str, int]:
        return {}

    def index_rows(self, scope_key: str) -> tuple[int, Iterator[IndexRow]]:
        rows = [r for r in self.scope if r.scope_key == scope_key]
        return len(rows) - self.undercount, iter(rows)


def test_feed_rows_past_the_read_top_wait_and_old_tombstones_lose() -> None:
    vec = np.zeros(4, dtype=np.float32)
    vec[0] = 1.0
    row = IndexRow(1, "x", "s", Status.ACTIVE, Area.MAIN, vec, "m")
    feed = FakeFeed(1, [], [row])
    index = VectorIndex("m", 4, source=feed)
    assert index.search("s", vec, 5) == [("x", 1.0)]
    # Written after max_seq() was read (seq 3 > top 2): not applied, nor passed over.
    feed.top = 2
    feed.changes = [
        IndexRow(3, "y", "s", Status.ACTIVE, Area.MAIN, vec, "m"),
        IndexRow(2, "x", "", Status.ARCHIVED, Area.MAIN, None, None, deleted=True),
    ]
    index.sync()
    assert index.search("s", vec, 5) == []
    feed.top = 3
    index.sync()
    assert [m for m, _ in index.search("s", vec, 5)] == ["y"]
    # Deleted (seq 4), then restored under the same id (seq 5): the feed gives the live
    # row first, the older tombstone after it; the row stays.
    feed.top = 5
    feed.changes = [
        IndexRow(5, "x", "s", Status.ACTIVE, Area.MAIN, vec, "m"),
        IndexRow(4, "x", "", Status.ARCHIVED, Area.MAIN, None, None, deleted=True),
    ]
    index.sync()
    assert sorted(m for m, _ in index.search("s", vec, 5)) == ["x", "y"]


def _grow(index: VectorIndex, vecs: np.ndarray, statuses: list[Status], seed: int) -> None:
    rng = np.random.default_rng(seed)
    done = 0
    while done < len(vecs):  # uneven batches: every growth path (one row, many rows)
        step = int(rng.integers(1, 200))
        index.apply(
            [
                IndexRow(i + 1, f"m{i}", "s", statuses[i], Area.MAIN, vecs[i], "m")
                for i in range(done, min(len(vecs), done + step))
            ]
        )
        done += step


def _assert_exact(index: VectorIndex, vecs: np.ndarray, statuses: list[Status]) -> None:
    active = np.array([s is Status.ACTIVE for s in statuses])
    for q in _unit(np.random.default_rng(10), 10, vecs.shape[1]):
        scores = vecs @ q
        want = [f"m{i}" for i in np.argsort(-np.where(active, scores, -9), kind="stable")[:25]]
        got = index.search("s", q, 25)
        assert [m for m, _ in got] == want
        assert [s for _, s in got] == pytest.approx(sorted(scores[active], reverse=True)[:25])
    ids, matrix = index.vectors("s", statuses=tuple(Status))
    assert ids == [f"m{i}" for i in range(len(vecs))] and np.array_equal(matrix, vecs)
    assert np.array_equal(index.vector_of("m1234"), vecs[1234])  # type: ignore[arg-type]


def test_growth_in_chunks_keeps_search_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    dim, n = 16, 3 * MIN_CHUNK + 6000
    vecs = _unit(np.random.default_rng(9), n, dim)
    statuses = [Status.ACTIVE if i % 5 else Status.SUPERSEDED for i in range(n)]
    index = VectorIndex("m", dim)
    with monkeypatch.context() as patch:  # chunks left unmerged
        patch.setattr(VectorIndex, "_merge_chunks", lambda self, key: None)
        _grow(index, vecs, statuses, 1)
    block = index._blocks["s"]
    assert len(block.chunks) > 3 and block.capacity >= n
    assert all(c.matrix.shape[0] <= max(MAX_CHUNK, 200) for c in block.chunks)
    _assert_exact(index, vecs, statuses)
    block.merge_now()
    assert len(block.chunks) == 1 and block.capacity >= n
    _assert_exact(index, vecs, statuses)
    # As it runs: scopes of <= INLINE_MERGE rows merged at once, larger by the thread.
    index = VectorIndex("m", dim)
    _grow(index, vecs, statuses, 2)
    index.settle()
    assert len(index._blocks["s"].chunks) == 1
    _assert_exact(index, vecs, statuses)


def test_a_merge_keeps_rows_written_while_it_copied() -> None:
    dim = 8
    vecs = _unit(np.random.default_rng(12), 400, dim)
    index = VectorIndex("m", dim)
    index.apply([IndexRow(1, "m0", "s", Status.ACTIVE, Area.MAIN, vecs[0], "m")])
    block = index._blocks["s"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(VectorIndex, "_merge_chunks", lambda self, key: None)
        for i in range(1, 300):
            index.apply([IndexRow(i + 1, f"m{i}", "s", Status.ACTIVE, Area.MAIN, vecs[i], "m")])
        started = block.begin_merge()
        assert started is not None and len(block.chunks) > 1
        merged = block.copy_rows(*started)
        # Written after the copy: an update, a deletion and a new row (room left).
        assert block.capacity > block.n
        index.apply(
            [
                IndexRow(400, "m5", "s", Status.ACTIVE, Area.MAIN, vecs[399], "m"),
                IndexRow(401, "m7", "", Status.ARCHIVED, Area.MAIN, None, None, deleted=True),
                IndexRow(402, "new", "s", Status.ACTIVE, Area.MAIN, vecs[398], "m"),
            ]
        )
    assert block.finish_merge(merged, started[1], started[2]) and len(block.chunks) == 1
    assert index.search("s", vecs[399], 1)[0][0] == "m5"
    assert index.search("s", vecs[398], 1)[0][0] == "new"
    assert "m7" not in [m for m, _ in index.search("s", vecs[7], 400)]
    assert index.search("s", vecs[150], 1)[0][0] == "m150"
    # A scope that grew a chunk during the copy keeps its chunks (merged later).
    block.reserve(block.capacity - block.n + 1)  # a second chunk
    started = block.begin_merge()
    assert started is not None
    merged = block.copy_rows(*started)
    block.reserve(block.capacity - block.n + 1)  # a third, during the copy
    assert not block.finish_merge(merged, started[1], started[2])
    assert len(block.chunks) == 3 and block.dirty is None
    index.apply([IndexRow(500, "m300", "s", Status.ACTIVE, Area.MAIN, vecs[300], "m")])
    assert index.search("s", vecs[300], 1)[0][0] == "m300"


def test_the_budget_setting_is_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().search.index_budget_mb >= 256
    monkeypatch.setenv("MEMFOLD_SEARCH__INDEX_BUDGET_MB", "0")
    with pytest.raises(ConfigError, match="index_budget_mb"):
        Settings()


def test_a_scope_read_with_more_rows_than_counted_and_foreign_rows() -> None:
    rng = np.random.default_rng(11)
    vecs = _unit(rng, 10, 4)
    rows = [
        IndexRow(i + 1, f"r{i}", "s", Status.ACTIVE, Area.MAIN, vecs[i], "m") for i in range(10)
    ]
    feed = FakeFeed(10, [], rows)
    feed.undercount = 3  # the count was taken before the last three rows were written
    index = VectorIndex("m", 4, source=feed)
    got = index.search("s", vecs[9], 10)
    assert len(got) == 10 and got[0][0] == "r9" and got[0][1] == pytest.approx(1.0)
    ids, matrix = index.vectors("s")
    assert ids == [f"r{i}" for i in range(10)] and np.array_equal(matrix, vecs)
    # A row embedded by another model makes the scope unsearchable until re-embedded.
    other = IndexRow(11, "o", "t", Status.ACTIVE, Area.MAIN, vecs[0], "another-model")
    feed.scope = [*rows, other]
    with pytest.raises(EmbeddingMismatch):
        index.search("t", vecs[0], 1)
    assert index.vector_of("o", "t") is None
