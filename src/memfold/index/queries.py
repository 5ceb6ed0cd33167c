"""Reading the vector index: nearest rows of a scope for one query or many, a scope's
vectors, one memory's vector. A mixin of ``VectorIndex`` (``vector_index``), which
loads scopes, keeps them in step with the store and holds the lock these run under.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager

import numpy as np

from memfold.errors import EmbeddingMismatch
from memfold.index.scope_block import ScopeBlock
from memfold.model import Area, Status, Vector


class IndexQueries:
    """Mixin of ``VectorIndex``: the searches and reads of loaded (or loadable) scopes."""

    model_id: str
    dim: int
    _lock: threading.RLock
    _blocks: OrderedDict[str, ScopeBlock]
    _where: dict[str, tuple[str, int]]
    _scope: Callable[[str], AbstractContextManager[ScopeBlock | None]]

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
        passages: bool = False,
    ) -> list[tuple[str, float]]:
        """Top-k (id, cosine) in one scope, best first. ``only``: candidates limited to
        these ids (a metadata filter's matches), before the top-k cut. ``passages``: a
        long memory scores the best cosine of its whole vector and its passages (a
        query's search); else its whole vector only (consolidation's comparisons)."""
        if k <= 0:
            return []
        with self._scope(scope_key) as block:
            if block is None or block.n == 0:
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
            scores = block.scores(np.asarray(query, dtype=np.float32))
            if passages:
                block.passages.best_into(scores, np.asarray(query, dtype=np.float32))
            keep = block.mask(statuses, areas)
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
            return block.top(scores, np.flatnonzero(keep), k)

    def search_many(
        self,
        scope_key: str,
        queries: Sequence[Vector],
        k: int,
        *,
        min_score: float,
        exclude: Sequence[str | None] = (),
        statuses: Sequence[Status] = (Status.ACTIVE,),
    ) -> list[list[tuple[str, float]]]:
        """``search`` for several queries of one scope at once (the on-save candidates
        of a batch of pending saves): one matrix-matrix product over the scope. Query
        i leaves out ``exclude[i]`` (its own memory)."""
        if k <= 0 or not queries:
            return [[] for _ in queries]
        matrix = np.asarray(np.stack(queries), dtype=np.float32)
        if matrix.shape[1:] != (self.dim,):
            raise EmbeddingMismatch(
                f"query vectors have shape {matrix.shape[1:]}, the index holds {self.dim}-d"
            )
        with self._scope(scope_key) as block:
            if block is None or block.n == 0:
                return [[] for _ in queries]
            if block.foreign:
                raise EmbeddingMismatch(
                    f"{len(block.foreign)} memories in this scope were not embedded with "
                    f"{self.model_id} ({self.dim}-d); run `memfold reembed` to migrate them"
                )
            scores = block.scores_many(matrix)
            above = scores >= min_score
            above &= block.mask(statuses, None)[:, None]
            # The few (position, query) pairs above the floor, grouped by query in
            # position order: one pass over the scores, not one per query. The flat
            # indices of the (C-ordered) mask split into the pairs np.nonzero gives,
            # in the same order, several times faster.
            positions, columns = np.divmod(np.flatnonzero(above), len(queries))
            order = np.argsort(columns, kind="stable")
            positions, columns = positions[order], columns[order]
            bounds = np.searchsorted(columns, np.arange(len(queries) + 1))
            out = []
            for i in range(len(queries)):
                candidates = positions[bounds[i] : bounds[i + 1]]
                mine = exclude[i] if i < len(exclude) else None
                own = self._where.get(mine) if mine is not None else None
                if own is not None and own[0] == scope_key:
                    candidates = candidates[candidates != own[1]]
                out.append(block.top(scores[:, i], candidates, k))
            return out

    def vectors(
        self, scope_key: str, *, statuses: Sequence[Status] = (Status.ACTIVE,)
    ) -> tuple[list[str], np.ndarray]:
        """Ids and a copy of the vectors of one scope (for pair scans and clustering)."""
        with self._scope(scope_key) as block:
            if block is None or block.n == 0:
                return [], np.zeros((0, self.dim), dtype=np.float32)
            keep = block.mask(statuses, None)
            for memory_id in block.foreign:
                keep[self._where[memory_id][1]] = False
            rows = np.flatnonzero(keep)
            return [block.ids[int(i)] for i in rows], block.rows(rows)

    def vectors_of(self, scope_key: str, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Those of ``ids`` (distinct) whose vector the scope holds, in the order given,
        and their vectors as rows: one read of the rows, not one lookup per memory."""
        with self._scope(scope_key) as block:
            if block is None:
                return [], np.zeros((0, self.dim), dtype=np.float32)
            found: list[tuple[int, str]] = []
            for memory_id in ids:
                where = self._where.get(memory_id)
                if where is not None and where[0] == scope_key and memory_id not in block.foreign:
                    found.append((where[1], memory_id))
            found.sort()  # rows() reads positions in ascending order
            matrix = block.rows(np.array([pos for pos, _ in found], dtype=np.int64))
        row_of = {memory_id: row for row, (_, memory_id) in enumerate(found)}
        kept = [memory_id for memory_id in ids if memory_id in row_of]
        return kept, matrix[[row_of[memory_id] for memory_id in kept]]

    def scores_of(
        self, scope_key: str, ids: Sequence[str], query: Vector
    ) -> tuple[list[str], np.ndarray]:
        """Those of ``ids`` (distinct) whose vector the scope holds, in the order given,
        and each one's cosine to ``query`` as a search scores it: the best of its whole
        vector and its passages (one read of the rows, as ``vectors_of``)."""
        q = np.asarray(query, dtype=np.float32)
        with self._scope(scope_key) as block:
            if block is None:
                return [], np.zeros(0, dtype=np.float32)
            found: list[tuple[int, str]] = []
            for memory_id in ids:
                where = self._where.get(memory_id)
                if where is not None and where[0] == scope_key and memory_id not in block.foreign:
                    found.append((where[1], memory_id))
            found.sort()  # rows() reads positions in ascending order
            scores = block.rows(np.array([pos for pos, _ in found], dtype=np.int64)) @ q
            if len(block.passages):
                for row, (pos, _) in enumerate(found):
                    rows = block.passages.rows_of(pos)
                    if rows is not None:
                        scores[row] = max(float(scores[row]), float(np.max(rows @ q)))
        row_of = {memory_id: row for row, (_, memory_id) in enumerate(found)}
        kept = [memory_id for memory_id in ids if memory_id in row_of]
        return kept, scores[[row_of[memory_id] for memory_id in kept]]

    def vector_of(self, memory_id: str, scope_key: str | None = None) -> Vector | None:
        """The memory's vector; None if unknown or not this model's. ``scope_key``: its
        scope, loaded if it is not (without it, only loaded scopes are looked in)."""
        if scope_key is not None:
            with self._scope(scope_key):
                return self._lookup(memory_id)
        with self._lock:
            return self._lookup(memory_id)

    def _lookup(self, memory_id: str) -> Vector | None:
        where = self._where.get(memory_id)
        if where is None:
            return None
        block = self._blocks[where[0]]
        if memory_id in block.foreign:
            return None
        return block.row(where[1])
