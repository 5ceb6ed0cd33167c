"""Exact in-process vector index, kept in step with the store's change feed.

Each scope gets its own contiguous float32 matrix, so a search is one
matrix-vector product over that scope's rows (the numpy floor) plus a mask.
Before answering, the index asks the store for its highest change number and
applies any rows written since, by this process or another one.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from memfold.errors import EmbeddingMismatch
from memfold.model import Area, Status, Vector
from memfold.store.base import IndexRow

_STATUS_CODES = {s: i for i, s in enumerate(Status)}
_AREA_CODES = {a: i for i, a in enumerate(Area)}
_DEAD = len(_STATUS_CODES)  # a row whose memory moved away or was deleted
_GROWTH = 1.25
_SYNC_CHUNK = 4096  # rows applied at a time, so a first load never holds two copies


class ChangeFeed(Protocol):
    """What the index reads from a store (a subset of the Store protocol)."""

    def max_seq(self) -> int: ...
    def changes_since(self, seq: int) -> Iterable[IndexRow]: ...
    def scope_sizes(self) -> dict[str, int]: ...


@dataclass
class _ScopeBlock:
    dim: int
    ids: list[str] = field(default_factory=list)
    matrix: np.ndarray = field(init=False)
    status: np.ndarray = field(init=False)
    area: np.ndarray = field(init=False)
    foreign: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.matrix = np.zeros((0, self.dim), dtype=np.float32)
        self.status = np.zeros(0, dtype=np.int8)
        self.area = np.zeros(0, dtype=np.int8)

    @property
    def n(self) -> int:
        return len(self.ids)

    def reserve(self, extra: int) -> None:
        need = self.n + extra
        if need <= self.matrix.shape[0]:
            return
        cap = max(need, int(self.matrix.shape[0] * _GROWTH) if self.n else need, 64)
        matrix = np.zeros((cap, self.dim), dtype=np.float32)
        matrix[: self.n] = self.matrix[: self.n]
        status = np.full(cap, _DEAD, dtype=np.int8)
        status[: self.n] = self.status[: self.n]
        area = np.zeros(cap, dtype=np.int8)
        area[: self.n] = self.area[: self.n]
        self.matrix, self.status, self.area = matrix, status, area


class VectorIndex:
    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id = model_id
        self.dim = dim
        self._blocks: dict[str, _ScopeBlock] = {}
        self._where: dict[str, tuple[str, int]] = {}
        self._seq = 0
        self._lock = threading.RLock()

    # keeping in step -----------------------------------------------------------
    def sync(self, feed: ChangeFeed) -> int:
        """Apply every change written since the last sync; returns how many rows."""
        with self._lock:
            if feed.max_seq() == self._seq:
                return 0
            if not self._where:
                # First load: allocate each scope's matrix once, at its final size.
                for scope_key, size in feed.scope_sizes().items():
                    self._block(scope_key).reserve(size)
            applied = 0
            chunk: list[IndexRow] = []
            for row in feed.changes_since(self._seq):
                chunk.append(row)
                if len(chunk) >= _SYNC_CHUNK:
                    self.apply(chunk)
                    applied += len(chunk)
                    chunk = []
            self.apply(chunk)
            return applied + len(chunk)

    def apply(self, rows: Sequence[IndexRow]) -> None:
        with self._lock:
            fresh: dict[str, int] = defaultdict(int)
            for row in rows:
                if not row.deleted and row.id not in self._where:
                    fresh[row.scope_key] += 1
            for scope_key, count in fresh.items():
                self._block(scope_key).reserve(count)
            for row in rows:
                self._apply_one(row)
                self._seq = max(self._seq, row.seq)

    def _block(self, scope_key: str) -> _ScopeBlock:
        block = self._blocks.get(scope_key)
        if block is None:
            block = self._blocks[scope_key] = _ScopeBlock(self.dim)
        return block

    def _apply_one(self, row: IndexRow) -> None:
        where = self._where.get(row.id)
        if where is not None and (row.deleted or where[0] != row.scope_key):
            old = self._blocks[where[0]]
            old.status[where[1]] = _DEAD
            old.foreign.discard(row.id)
            del self._where[row.id]
            where = None
        if row.deleted:
            return
        block = self._block(row.scope_key)
        if where is None:
            block.reserve(1)
            pos = block.n
            block.ids.append(row.id)
            self._where[row.id] = (row.scope_key, pos)
        else:
            pos = where[1]
        vec = row.embedding
        if vec is None or row.embedding_model != self.model_id or vec.shape[0] != self.dim:
            block.foreign.add(row.id)
            block.matrix[pos] = 0.0
        else:
            block.foreign.discard(row.id)
            block.matrix[pos] = vec
        block.status[pos] = _STATUS_CODES[row.status]
        block.area[pos] = _AREA_CODES[row.area]

    # reading ----------------------------------------------------------------
    def search(
        self,
        scope_key: str,
        query: Vector,
        k: int,
        *,
        statuses: Sequence[Status] = (Status.ACTIVE,),
        areas: Sequence[Area] | None = None,
        min_score: float | None = None,
        exclude: Iterable[str] = (),
        only: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top-k (id, cosine) in one scope, best first. ``only``: candidates limited to
        these ids (a metadata filter's matches), before the top-k cut."""
        with self._lock:
            block = self._blocks.get(scope_key)
            if block is None or block.n == 0 or k <= 0:
                return []
            if block.foreign:
                raise EmbeddingMismatch(
                    f"{len(block.foreign)} memories in this scope were not embedded with "
                    f"{self.model_id} ({self.dim}-d); run `memfold reembed` to migrate them"
                )
            if query.shape != (self.dim,):
                raise EmbeddingMismatch(
                    f"query vector has shape {query.shape}, the index holds {self.dim}-d vectors"
                )
            n = block.n
            scores = block.matrix[:n] @ query
            keep = self._mask(block, statuses, areas)
            for memory_id in exclude:
                where = self._where.get(memory_id)
                if where is not None and where[0] == scope_key:
                    keep[where[1]] = False
            if only is not None:
                allowed = np.zeros(n, dtype=bool)
                for memory_id in only:
                    where = self._where.get(memory_id)
                    if where is not None and where[0] == scope_key:
                        allowed[where[1]] = True
                keep &= allowed
            if min_score is not None:
                keep &= scores >= min_score
            candidates = np.flatnonzero(keep)
            if candidates.size == 0:
                return []
            sub = scores[candidates]
            if candidates.size > k:
                top = np.argpartition(-sub, k - 1)[:k]
            else:
                top = np.arange(candidates.size)
            top = top[np.argsort(-sub[top], kind="stable")]
            return [(block.ids[int(candidates[i])], float(sub[i])) for i in top]

    def _mask(
        self, block: _ScopeBlock, statuses: Sequence[Status], areas: Sequence[Area] | None
    ) -> np.ndarray:
        n = block.n
        allowed = np.zeros(_DEAD + 1, dtype=bool)
        for s in statuses:
            allowed[_STATUS_CODES[s]] = True
        keep: np.ndarray = allowed[block.status[:n]]
        if areas:
            allowed_area = np.zeros(len(_AREA_CODES), dtype=bool)
            for a in areas:
                allowed_area[_AREA_CODES[a]] = True
            keep &= allowed_area[block.area[:n]]
        return keep

    def vectors(
        self, scope_key: str, *, statuses: Sequence[Status] = (Status.ACTIVE,)
    ) -> tuple[list[str], np.ndarray]:
        """Ids and a copy of the vectors of one scope (for pair scans and clustering)."""
        with self._lock:
            block = self._blocks.get(scope_key)
            if block is None or block.n == 0:
                return [], np.zeros((0, self.dim), dtype=np.float32)
            keep = self._mask(block, statuses, None)
            for memory_id in block.foreign:
                keep[self._where[memory_id][1]] = False
            rows = np.flatnonzero(keep)
            return [block.ids[int(i)] for i in rows], block.matrix[rows].copy()

    def vector_of(self, memory_id: str) -> Vector | None:
        with self._lock:
            where = self._where.get(memory_id)
            if where is None:
                return None
            block = self._blocks[where[0]]
            if memory_id in block.foreign:
                return None
            vec: Vector = block.matrix[where[1]].copy()
            return vec

    def scope_keys(self) -> list[str]:
        with self._lock:
            return list(self._blocks)

    def __len__(self) -> int:
        return len(self._where)
