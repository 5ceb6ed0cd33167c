"""One scope's rows in the vector index, held in chunks that are never copied.

A scope read from the store is one chunk of exactly its size. Growing a scope appends
a new chunk (as large as the scope so far, 64 to 65,536 rows), so no write ever
copies the rows already there, and a reader never waits on such a copy. A search
runs one matrix-vector product per chunk into one preallocated score vector: the
same arithmetic as one product over a contiguous matrix, plus one BLAS call per
chunk (a scope grown from nothing to a million rows one add at a time has about
25 chunks; read again after an eviction, it is one). A row's position in the scope
never changes; a row that left the scope (deleted, moved) is marked dead.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memfold.model import Area, Status, Vector

STATUS_CODES = {s: i for i, s in enumerate(Status)}
AREA_CODES = {a: i for i, a in enumerate(Area)}
DEAD = len(STATUS_CODES)  # a row whose memory moved away or was deleted
MIN_CHUNK = 64
MAX_CHUNK = 262_144  # a growth chunk is the scope's capacity so far, up to this
INLINE_MERGE = 4096  # chunks of a scope this small are merged at once (a ~1 ms copy)
# Bytes per row beyond its vector and codes: the id string, its list slot and its
# entry in the index's id -> position map (measured ~150-200 bytes for uuid ids).
ROW_OVERHEAD = 200


@dataclass(slots=True)
class Chunk:
    start: int  # scope position of the chunk's first row
    matrix: np.ndarray  # (capacity, dim) float32
    status: np.ndarray  # (capacity,) int8, DEAD where unused
    area: np.ndarray  # (capacity,) int8


class ScopeBlock:
    """The rows of one scope: ids by position, vectors and status/area codes in chunks."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ids: list[str] = []
        self.chunks: list[Chunk] = []
        self._starts: list[int] = []
        self.capacity = 0
        self.foreign: set[str] = set()  # ids whose vector is another model's (or none)
        self.dirty: set[int] | None = None  # rows written while a merge copies them
        self.passages = Passages(dim)  # long memories' passage vectors, by position

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def nbytes(self) -> int:
        """What this scope's rows cost in memory. Capacity not yet used is left out: its
        pages (zeroed on demand by the OS) take no memory until rows are written."""
        return self.n * (self.dim * 4 + 2 + ROW_OVERHEAD) + self.passages.nbytes

    # writing -----------------------------------------------------------------
    def reserve(self, extra: int) -> None:
        """Room for ``extra`` more rows, in one new chunk if there is not enough."""
        need = self.n + extra - self.capacity
        if need > 0:
            self.add_chunk(max(need, min(max(self.capacity, MIN_CHUNK), MAX_CHUNK)))

    def add_chunk(self, rows: int) -> None:
        self.chunks.append(
            Chunk(
                self.capacity,
                np.zeros((rows, self.dim), dtype=np.float32),
                np.full(rows, DEAD, dtype=np.int8),
                np.zeros(rows, dtype=np.int8),
            )
        )
        self._starts.append(self.capacity)
        self.capacity += rows

    def extend(
        self,
        ids: Sequence[str],
        vectors: Sequence[Vector | None],
        statuses: Sequence[Status],
        areas: Sequence[Area],
    ) -> None:
        """Append rows that fit in the last chunk, in one copy (None: unscorable row)."""
        chunk = self.chunks[-1]
        lo = self.n - chunk.start
        hi = lo + len(ids)
        if hi > chunk.status.shape[0]:
            raise ValueError(f"{len(ids)} rows do not fit the last chunk")
        for i, vec in enumerate(vectors):  # row by row: as fast as np.stack, no temporary
            if vec is not None:
                chunk.matrix[lo + i] = vec
        chunk.status[lo:hi] = [STATUS_CODES[s] for s in statuses]
        chunk.area[lo:hi] = [AREA_CODES[a] for a in areas]
        self.ids.extend(ids)

    def append(self, memory_id: str) -> int:
        """A new (not yet filled) row for ``memory_id``; returns its position."""
        self.reserve(1)
        self.ids.append(memory_id)
        return self.n - 1

    def locate(self, pos: int) -> tuple[Chunk, int]:
        chunk = self.chunks[bisect_right(self._starts, pos) - 1]
        return chunk, pos - chunk.start

    def set_row(self, pos: int, vec: Vector | None, status: Status, area: Area) -> None:
        """Fill a row; ``vec`` None: a memory this index cannot score (zero vector)."""
        chunk, i = self.locate(pos)
        if vec is None:
            chunk.matrix[i] = 0.0
        else:
            chunk.matrix[i] = vec
        chunk.status[i] = STATUS_CODES[status]
        chunk.area[i] = AREA_CODES[area]
        if self.dirty is not None:
            self.dirty.add(pos)

    def kill(self, pos: int) -> None:
        chunk, i = self.locate(pos)
        chunk.status[i] = DEAD
        self.passages.drop(pos)
        if self.dirty is not None:
            self.dirty.add(pos)

    # merging chunks (the index holds its lock for begin and finish, not for copy) ----
    def begin_merge(self) -> tuple[list[Chunk], int, int] | None:
        """Start merging the chunks into one of the same capacity: the chunks, rows and
        capacity now (None: one chunk, or a merge already under way)."""
        if len(self.chunks) < 2 or self.dirty is not None:
            return None
        self.dirty = set()
        return list(self.chunks), self.n, self.capacity

    def copy_rows(self, chunks: list[Chunk], n: int, capacity: int) -> Chunk:
        """One chunk holding the first ``n`` rows of ``chunks`` (rows written meanwhile
        may be torn: finish_merge copies them again)."""
        merged = Chunk(
            0,
            np.zeros((capacity, self.dim), dtype=np.float32),
            np.full(capacity, DEAD, dtype=np.int8),
            np.zeros(capacity, dtype=np.int8),
        )
        for chunk in chunks:
            used = min(chunk.status.shape[0], n - chunk.start)
            if used > 0:
                self._copy_into(merged, chunk, chunk.start, chunk.start + used)
        return merged

    def finish_merge(self, merged: Chunk, n: int, capacity: int) -> bool:
        """Swap in a merged chunk, after copying again the rows written since the copy
        began; False (merge dropped) if the scope grew a chunk meanwhile."""
        dirty, self.dirty = self.dirty, None
        if self.capacity != capacity or dirty is None:
            return False
        for chunk in self.chunks:
            lo = max(chunk.start, n)
            hi = min(chunk.start + chunk.status.shape[0], self.n)
            if hi > lo:
                self._copy_into(merged, chunk, lo, hi)
        for pos in dirty:
            if pos < n:
                chunk, i = self.locate(pos)
                merged.matrix[pos] = chunk.matrix[i]
                merged.status[pos] = chunk.status[i]
                merged.area[pos] = chunk.area[i]
        self.chunks, self._starts = [merged], [0]
        return True

    def merge_now(self) -> None:
        started = self.begin_merge()
        if started is not None:
            self.finish_merge(self.copy_rows(*started), started[1], started[2])

    @staticmethod
    def _copy_into(merged: Chunk, chunk: Chunk, lo: int, hi: int) -> None:
        """Copy scope positions [lo, hi) of ``chunk`` into ``merged``."""
        a, b = lo - chunk.start, hi - chunk.start
        merged.matrix[lo:hi] = chunk.matrix[a:b]
        merged.status[lo:hi] = chunk.status[a:b]
        merged.area[lo:hi] = chunk.area[a:b]

    # reading -----------------------------------------------------------------
    def _spans(self) -> list[tuple[Chunk, int, int]]:
        """(chunk, first scope position, rows used) for every chunk holding rows."""
        out = []
        for chunk in self.chunks:
            used = min(chunk.status.shape[0], self.n - chunk.start)
            if used <= 0:
                break
            out.append((chunk, chunk.start, used))
        return out

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Dot product of every row with ``query`` (float32), one entry per position."""
        spans = self._spans()
        if len(spans) == 1:
            chunk, _, used = spans[0]
            out: np.ndarray = chunk.matrix[:used] @ query
            return out
        out = np.empty(self.n, dtype=np.float32)
        for chunk, lo, used in spans:
            np.matmul(chunk.matrix[:used], query, out=out[lo : lo + used])
        return out

    def scores_many(self, queries: np.ndarray) -> np.ndarray:
        """Dot products of every row with each query row: (positions x queries), one
        matrix-matrix product per chunk instead of one pass over the rows per query."""
        out = np.empty((self.n, queries.shape[0]), dtype=np.float32)
        for chunk, lo, used in self._spans():
            np.matmul(chunk.matrix[:used], queries.T, out=out[lo : lo + used])
        return out

    def top(self, scores: np.ndarray, candidates: np.ndarray, k: int) -> list[tuple[str, float]]:
        """The k best (id, score) of ``candidates`` (positions), best first, ties in
        position order."""
        if candidates.size == 0:
            return []
        sub = scores[candidates]
        top = np.argpartition(-sub, k - 1)[:k] if candidates.size > k else np.arange(sub.size)
        top = top[np.argsort(-sub[top], kind="stable")]
        return [(self.ids[int(candidates[i])], float(sub[i])) for i in top]

    def mask(self, statuses: Sequence[Status], areas: Sequence[Area] | None) -> np.ndarray:
        """True at the positions whose status (and area, if given) is allowed."""
        allowed = np.zeros(DEAD + 1, dtype=bool)
        for s in statuses:
            allowed[STATUS_CODES[s]] = True
        allowed_area = None
        if areas:
            allowed_area = np.zeros(len(AREA_CODES), dtype=bool)
            for a in areas:
                allowed_area[AREA_CODES[a]] = True
        keep = np.empty(self.n, dtype=bool)
        for chunk, lo, used in self._spans():
            part = keep[lo : lo + used]
            np.take(allowed, chunk.status[:used], out=part)
            if allowed_area is not None:
                part &= allowed_area[chunk.area[:used]]
        return keep

    def rows(self, positions: np.ndarray) -> np.ndarray:
        """A copy of the vectors at ``positions`` (sorted ascending), in that order."""
        out = np.empty((positions.shape[0], self.dim), dtype=np.float32)
        done = 0
        for chunk, lo, used in self._spans():
            a, b = np.searchsorted(positions, [lo, lo + used])
            if b > a:
                out[done : done + b - a] = chunk.matrix[positions[a:b] - lo]
                done += b - a
        return out

    def row(self, pos: int) -> Vector:
        chunk, i = self.locate(pos)
        vec: Vector = chunk.matrix[i].copy()
        return vec


class Passages:
    """The passage vectors of a scope's long memories (policy/passages.py), each set
    tied to its memory's position: rows appended to one matrix (grown by doubling), a
    replaced or dropped set's rows marked dead and the matrix compacted when half of
    it is dead. A search scores a memory by the best of its whole vector and its
    passages (``best_into``); consolidation reads whole vectors only."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._owner = np.zeros(0, dtype=np.int64)  # position of each row; -1: dead
        self._n = 0
        self._spans: dict[int, tuple[int, int]] = {}  # position -> its rows [start, end)
        self._dead = 0

    def __len__(self) -> int:
        """Memories with passages."""
        return len(self._spans)

    @property
    def nbytes(self) -> int:
        return self._n * (self.dim * 4 + 8)

    def put(self, pos: int, matrix: np.ndarray | None) -> None:
        """Replace the passages of the memory at ``pos`` (None: it has none)."""
        self.drop(pos)
        if matrix is None or matrix.shape[0] == 0:
            return
        rows = matrix.shape[0]
        if self._n + rows > self._matrix.shape[0]:
            self._grow(self._n + rows)
        self._matrix[self._n : self._n + rows] = matrix
        self._owner[self._n : self._n + rows] = pos
        self._spans[pos] = (self._n, self._n + rows)
        self._n += rows

    def drop(self, pos: int) -> None:
        span = self._spans.pop(pos, None)
        if span is None:
            return
        self._owner[span[0] : span[1]] = -1
        self._dead += span[1] - span[0]
        if self._dead * 2 > self._n:
            self._compact()

    def rows_of(self, pos: int) -> np.ndarray | None:
        span = self._spans.get(pos)
        return None if span is None else self._matrix[span[0] : span[1]]

    def best_into(self, scores: np.ndarray, query: np.ndarray) -> None:
        """Raise each position's entry of ``scores`` to its best passage's cosine."""
        if not self._spans:
            return
        owner = self._owner[: self._n]
        live = owner >= 0
        found = self._matrix[: self._n] @ query
        np.maximum.at(scores, owner[live], found[live])

    def _grow(self, need: int) -> None:
        capacity = max(need, 2 * self._matrix.shape[0], 64)
        matrix = np.zeros((capacity, self.dim), dtype=np.float32)
        owner = np.full(capacity, -1, dtype=np.int64)
        matrix[: self._n] = self._matrix[: self._n]
        owner[: self._n] = self._owner[: self._n]
        self._matrix, self._owner = matrix, owner

    def _compact(self) -> None:
        spans = sorted(self._spans.items(), key=lambda kv: kv[1][0])
        size = sum(end - start for _, (start, end) in spans)
        matrix = np.zeros((max(size, 64), self.dim), dtype=np.float32)
        owner = np.full(matrix.shape[0], -1, dtype=np.int64)
        at = 0
        for pos, (start, end) in spans:
            matrix[at : at + end - start] = self._matrix[start:end]
            owner[at : at + end - start] = pos
            self._spans[pos] = (at, at + end - start)
            at += end - start
        self._matrix, self._owner, self._n, self._dead = matrix, owner, at, 0
