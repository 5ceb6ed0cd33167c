"""Exact in-process vector index over the scopes asked about, kept in step with the
store's change feed.

Each scope's rows sit in their own float32 chunks (``scope_block``), so a search is
one matrix-vector product over that scope's rows (the numpy floor) plus a mask. The
searches and reads are in ``queries`` (a mixin); this module loads, follows the store,
grows and drops scopes.

Loading. A scope is read from the store (``Store.index_rows``: its count, then its
rows, into one matrix of that size) the first time it is searched, scanned or read;
the other scopes of the store are never read. The read runs outside the index lock
(searches of loaded scopes go on meanwhile). Before answering, the index asks the
store for its highest change number and applies the rows written since, by this
process or another one, to the loaded scopes only: a row of a scope not loaded is
skipped, since that scope is read fresh when asked. After a scope is read, the
changes since the read began are applied again (they are whole rows, so applying one
twice changes nothing): a write that landed during the read, or a row moved between
scopes, ends up where the store has it.

Memory. Loaded scopes are kept in least-recently-used order; after a load or a
sync, the least recently used are dropped until the rest fit ``budget_bytes`` (the
scope in use always stays, even alone over budget). A dropped scope is read again
when next asked.

Growth. A matrix that fills up is never copied: a new chunk is appended (as large
as the scope so far, 64 to 65,536 rows), so a write never stalls readers behind a
copy of the rows already there (a full copy used to take 0.55 s at 100k rows, 1.5 s
at 300k, under the lock, in every reader at its first foreign write). The
alternatives were worse: building a grown copy outside the lock and swapping it
still copies everything, doubles memory meanwhile and must replay the writes made
during the copy; amortized capacity alone still copies, only less often. A search
over several chunks writes each chunk's scores into one preallocated vector, the
same arithmetic as one product. Only the per-scope id list grows by reallocation
(pointers, 8 bytes a row).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

import numpy as np

from memfold.index.merge import ChunkMerger
from memfold.index.queries import IndexQueries
from memfold.index.rows import IndexRow
from memfold.index.scope_block import ScopeBlock

_SYNC_CHUNK = 4096  # feed (or loaded) rows applied at a time


def _close(rows: Iterable[IndexRow]) -> None:
    """End a store's row stream now, even when an error left it unfinished: a SQLite
    cursor still open keeps its read snapshot, and the thread's next write would fail
    on it (SQLITE_BUSY_SNAPSHOT) for as long as an exception's traceback holds it."""
    close = getattr(rows, "close", None)
    if callable(close):
        close()


class ChangeFeed(Protocol):
    """What the index reads from a store (a subset of the Store protocol)."""

    def max_seq(self) -> int: ...
    def changes_since(self, seq: int) -> Iterable[IndexRow]: ...
    def scope_sizes(self) -> dict[str, int]: ...
    def index_rows(self, scope_key: str) -> tuple[int, Iterator[IndexRow]]: ...


class VectorIndex(IndexQueries, ChunkMerger):
    """``source``: the store the index loads scopes from and follows (None: an index
    fed only by ``apply``, holding every scope it is given). ``budget_bytes``: the
    memory the loaded scopes may take (None: no limit)."""

    def __init__(
        self,
        model_id: str,
        dim: int,
        *,
        source: ChangeFeed | None = None,
        budget_bytes: int | None = None,
    ) -> None:
        self.model_id = model_id
        self.dim = dim
        self.budget_bytes = budget_bytes
        self._source = source
        self._blocks: OrderedDict[str, ScopeBlock] = OrderedDict()  # least recent first
        self._where: dict[str, tuple[str, int]] = {}
        self._seq = 0
        self._lock = threading.RLock()
        self._load_lock = threading.Lock()  # one scope read at a time
        self._to_merge: set[str] = set()
        self._merges = 0  # merge threads running
        self.loads = 0  # scopes read from the store so far (reloads after eviction count)

    # keeping in step -----------------------------------------------------------
    @property
    def seq(self) -> int:
        """The change number the index is in step with: every change up to it is applied
        to the loaded scopes (a scope loaded later is read whole, newer still)."""
        with self._lock:
            return self._seq

    def sync(self, feed: ChangeFeed | None = None) -> int:
        """Apply every change written since the last sync to the loaded scopes; returns
        how many feed rows were read. ``feed``: the store to follow, if none was given."""
        with self._lock:
            if self._source is None:
                self._source = feed
            source = self._source
            if source is None:
                return 0
            top = source.max_seq()
            if top == self._seq:
                return 0
            if not self._blocks:
                self._seq = top  # nothing loaded: nothing to apply
                return 0
            applied = self._replay(source, self._seq, top)
            self._evict()
            return applied

    def _replay(self, feed: ChangeFeed, since: int, top: int) -> int:
        """Apply the feed's rows in (since, top]. Rows past ``top`` (written after it was
        read) wait for the next sync: the memories and tombstones come from two reads,
        so without the bound a tombstone could move the cursor past a row not yet seen.
        A tombstone older than a live row of the same id (deleted, then restored) is
        ignored."""
        live_seq: dict[str, int] = {}
        seen = 0
        chunk: list[IndexRow] = []
        rows = feed.changes_since(since)
        try:
            for row in rows:
                seen += 1
                if row.deleted:
                    if live_seq.get(row.id, -1) > row.seq:
                        continue
                else:
                    live_seq[row.id] = row.seq
                if row.seq <= top:
                    chunk.append(row)
                if len(chunk) >= _SYNC_CHUNK:
                    self.apply(chunk)
                    chunk = []
        finally:
            _close(rows)
        self.apply(chunk)
        self._seq = max(self._seq, top)
        return seen

    def apply(self, rows: Sequence[IndexRow]) -> None:
        """Apply rows of the feed (rows of scopes not loaded are skipped when the index
        follows a store)."""
        with self._lock:
            lazy = self._source is not None
            fresh: dict[str, int] = defaultdict(int)
            for row in rows:
                if not row.deleted and row.id not in self._where:
                    fresh[row.scope_key] += 1
            for scope_key, count in fresh.items():
                block = self._blocks.get(scope_key)
                if block is None and not lazy:
                    block = self._blocks[scope_key] = ScopeBlock(self.dim)
                if block is not None:
                    block.reserve(count)
            for row in rows:
                self._apply_one(row)
                self._seq = max(self._seq, row.seq)
            for scope_key in fresh:
                self._merge_chunks(scope_key)

    def _apply_one(self, row: IndexRow) -> None:
        where = self._where.get(row.id)
        if where is not None and (row.deleted or where[0] != row.scope_key):
            old = self._blocks[where[0]]
            old.kill(where[1])
            old.foreign.discard(row.id)
            del self._where[row.id]
            where = None
        if row.deleted:
            return
        block = self._blocks.get(row.scope_key)
        if block is None:
            if self._source is not None:
                return  # not loaded: read fresh when asked
            block = self._blocks[row.scope_key] = ScopeBlock(self.dim)
        if where is None:
            pos = block.append(row.id)
            self._where[row.id] = (row.scope_key, pos)
        else:
            pos = where[1]
        self._fill(block, pos, row)

    def _fill(self, block: ScopeBlock, pos: int, row: IndexRow) -> None:
        if self._scorable(row):
            block.foreign.discard(row.id)
            block.set_row(pos, row.embedding, row.status, row.area)
            block.passages.put(pos, self._passages(row))
        else:
            block.foreign.add(row.id)
            block.set_row(pos, None, row.status, row.area)
            block.passages.drop(pos)

    def _passages(self, row: IndexRow) -> np.ndarray | None:
        """The row's passage vectors when they fit this index (its dimension)."""
        p = row.passages
        return p if p is not None and p.ndim == 2 and p.shape[1] == self.dim else None

    # loading and dropping scopes --------------------------------------------------
    @contextmanager
    def _scope(self, scope_key: str) -> Iterator[ScopeBlock | None]:
        """The scope's rows, read from the store if not loaded; the lock is held
        while the caller uses them."""
        while True:
            with self._lock:
                block = self._blocks.get(scope_key)
                if block is not None or self._source is None:
                    if block is not None:
                        self._blocks.move_to_end(scope_key)
                    yield block
                    return
            read = self._read(scope_key)
            with self._lock:
                if read is not None:
                    self._install(scope_key, *read)
                block = self._blocks.get(scope_key)
                if block is not None:  # else dropped again at once: read it again
                    self._blocks.move_to_end(scope_key)
                    self._evict()
                    yield block
                    return

    def _read(self, scope_key: str) -> tuple[ScopeBlock, int] | None:
        """Read one scope from the store (outside the index lock); None if another
        thread loaded it meanwhile. Returns the block and the change number to replay
        from."""
        with self._load_lock:
            with self._lock:
                source = self._source
                if source is None or scope_key in self._blocks:
                    return None
                if not self._blocks:
                    self._seq = max(self._seq, source.max_seq())
                start = self._seq
            size, rows = source.index_rows(scope_key)
            block = ScopeBlock(self.dim)
            if size > 0:
                block.add_chunk(size)  # one contiguous matrix, sized by the count
            batch: list[IndexRow] = []
            try:
                for row in rows:
                    batch.append(row)
                    if len(batch) == _SYNC_CHUNK:
                        self._fill_new(block, batch)
                        batch = []
            finally:
                _close(rows)
            self._fill_new(block, batch)
            self.loads += 1
            return block, start

    def _fill_new(self, block: ScopeBlock, rows: list[IndexRow]) -> None:
        """Rows read from the store: those that fit the allocated matrix in one vectorized
        copy, any beyond it (written since the count) one by one."""
        fit = rows[: block.capacity - block.n]
        if fit:
            start = block.n
            scorable = [self._scorable(row) for row in fit]
            block.extend(
                [row.id for row in fit],
                [row.embedding if ok else None for row, ok in zip(fit, scorable, strict=True)],
                [row.status for row in fit],
                [row.area for row in fit],
            )
            block.foreign.update(block.ids[start + i] for i, ok in enumerate(scorable) if not ok)
            for i, (row, ok) in enumerate(zip(fit, scorable, strict=True)):
                if ok and row.passages is not None:
                    block.passages.put(start + i, self._passages(row))
        for row in rows[len(fit) :]:
            self._fill(block, block.append(row.id), row)

    def _scorable(self, row: IndexRow) -> bool:
        vec = row.embedding
        return vec is not None and row.embedding_model == self.model_id and vec.shape[0] == self.dim

    def _install(self, scope_key: str, block: ScopeBlock, start: int) -> None:
        """Add a scope read from the store, then replay the changes since its read began."""
        for pos, memory_id in enumerate(block.ids):
            if memory_id in self._where:  # placed in another scope: the replay settles it
                block.kill(pos)
                block.foreign.discard(memory_id)
            else:
                self._where[memory_id] = (scope_key, pos)
        self._blocks[scope_key] = block
        assert self._source is not None
        self._replay(self._source, start, self._source.max_seq())
        self._merge_chunks(scope_key)

    def _evict(self) -> None:
        """Drop least recently used scopes until the loaded ones fit the budget; the most
        recently used one always stays."""
        if self.budget_bytes is None or len(self._blocks) < 2:
            return
        total = sum(b.nbytes for b in self._blocks.values())
        while total > self.budget_bytes and len(self._blocks) > 1:
            scope_key, block = self._blocks.popitem(last=False)
            total -= block.nbytes
            for memory_id in block.ids:
                where = self._where.get(memory_id)
                if where is not None and where[0] == scope_key:
                    del self._where[memory_id]

    def loaded_scopes(self) -> list[str]:
        """Scope keys held in memory now, least recently used first."""
        with self._lock:
            return list(self._blocks)

    def loaded_bytes(self) -> int:
        with self._lock:
            return sum(b.nbytes for b in self._blocks.values())

    def scope_keys(self) -> list[str]:
        """Every scope holding memories (in the store, when the index follows one)."""
        source = self._source
        if source is not None:
            return list(source.scope_sizes())
        with self._lock:
            return list(self._blocks)

    def __len__(self) -> int:
        """Rows held in the loaded scopes."""
        return len(self._where)
