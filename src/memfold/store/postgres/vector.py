"""Vector search inside PostgreSQL: pgvector's HNSW index, or an exact scan of the scope.

The ``embedding`` column has no fixed dimension, so each dimension gets its own partial
expression index (schema migration 3): ``memories_hnsw_<dim>`` on
``(embedding::vector(<dim>)) vector_cosine_ops WHERE embedding_dim = <dim>``. Queries
repeat that expression and predicate with the dimension written into the SQL (an int,
never user text), so the planner can match the partial index even in a generic plan.

``vector_search`` picks one of two paths:

* exact: ``ORDER BY embedding <=> q`` over the scope's rows of the statuses searched
  (found through the ``(scope_key, status)`` index), when the scope holds at most
  ``exact_max_rows`` of them (counted with a bounded count: a scope's first
  ``exact_max_rows + 1`` rows at most), when no index exists for the dimension, or as
  the fallback below;
* HNSW: the index's ``hnsw.ef_search`` nearest rows of the dimension (set per
  transaction to at least ``k``; pgvector 0.6 has no iterative scan, so the index
  never yields more), then the scope and status filter keeps those of the scope.
  When fewer than ``k`` survive (the scope is a small share of the dimension's rows),
  the search falls back to the exact scan of the scope, so a result is never short
  because of the filter.

Scores are cosine similarities, ``1 - (a <=> b)``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memfold.config import StoreSettings
from memfold.model import Area, Scope, Status
from memfold.store.postgres.connection import Connections

_DEFAULTS = StoreSettings()


def index_name(dim: int) -> str:
    return f"memories_hnsw_{int(dim)}"


class VectorSearchMixin:
    _db: Connections
    _q: Callable[..., list[tuple[Any, ...]]]
    _w: Callable[..., int]

    def vector_indexes(self) -> dict[int, str]:
        """The dimensions that have an HNSW index, and each index's name."""
        rows = self._q("SELECT dim, name FROM vector_indexes ORDER BY dim")
        return {int(d): str(n) for d, n in rows}

    def ensure_vector_index(
        self,
        dim: int,
        *,
        m: int = _DEFAULTS.pg_hnsw_m,
        ef_construction: int = _DEFAULTS.pg_hnsw_ef_construction,
    ) -> bool:
        """Build the HNSW index of one dimension unless it exists; True if built now.

        Runs in one transaction under the writer lock: writes wait while it builds
        (minutes for hundreds of thousands of rows)."""
        dim, m, ef_construction = int(dim), int(m), int(ef_construction)
        if dim < 1:
            raise ValueError(f"dim must be positive, got {dim}")
        name = index_name(dim)
        with self._db.transaction() as conn:
            if conn.execute("SELECT 1 FROM vector_indexes WHERE dim = %s", (dim,)).fetchone():
                return False
            conn.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON memories USING hnsw "
                f"((embedding::vector({dim})) vector_cosine_ops) "
                f"WITH (m = {m}, ef_construction = {ef_construction}) "
                f"WHERE embedding_dim = {dim}"
            )
            conn.execute(
                "INSERT INTO vector_indexes (dim, name, m, ef_construction) "
                "VALUES (%s, %s, %s, %s)",
                (dim, name, m, ef_construction),
            )
        return True

    def vector_search(
        self,
        scope: Scope,
        query: np.ndarray,
        k: int,
        *,
        statuses: Sequence[Status] = (Status.ACTIVE,),
        areas: Sequence[Area] | None = None,
        model: str | None = None,
        only: Collection[str] | None = None,
        ef_search: int = _DEFAULTS.pg_hnsw_ef_search,
        exact_max_rows: int = _DEFAULTS.pg_exact_max_rows,
    ) -> list[tuple[str, float]]:
        """The ``k`` memories of ``scope`` (of ``statuses``, of ``areas`` when given)
        nearest to ``query`` by cosine, best first, as ``(id, cosine)``; only embeddings
        of the query's dimension count, and of ``model`` when given (vectors of another
        model are not comparable even at the same dimension). ``only``: candidates
        limited to these ids (a metadata filter's matches), always by the exact path.
        See the module docstring for the two paths."""
        q = np.asarray(query, dtype=np.float32).ravel()
        dim = int(q.shape[0])
        if k < 1 or dim < 1:
            return []
        where = _Where(
            scope.key(),
            [str(s) for s in statuses],
            None if areas is None else [str(a) for a in areas],
            model,
            None if only is None else sorted(only),
        )
        if where.ids is not None and not where.ids:
            return []
        exact = (
            where.ids is not None
            or dim not in self.vector_indexes()
            or (self._bounded_count(where, exact_max_rows) <= exact_max_rows)
        )
        if not exact:
            hits = self._hnsw(where, q, k, max(int(ef_search), k))
            if len(hits) >= k:
                return hits
        return self._exact(where, q, k)

    def _bounded_count(self, where: _Where, limit: int) -> int:
        rows = self._q(
            f"SELECT count(*) FROM (SELECT 1 FROM memories WHERE {where.sql} LIMIT %s) AS s",
            (*where.params, limit + 1),
        )
        return int(rows[0][0])

    def _exact(self, where: _Where, q: np.ndarray, k: int) -> list[tuple[str, float]]:
        dim = int(q.shape[0])
        rows = self._q(
            f"SELECT id, 1 - (embedding::vector({dim}) <=> %s::vector({dim})) AS cos "
            f"FROM memories WHERE {where.sql} "
            f"AND embedding_dim = {dim} AND embedding IS NOT NULL "
            f"ORDER BY embedding::vector({dim}) <=> %s::vector({dim}), id LIMIT %s",
            (q, *where.params, q, k),
        )
        return [(str(i), float(c)) for i, c in rows]

    def _hnsw(
        self, where: _Where, q: np.ndarray, k: int, ef_search: int
    ) -> list[tuple[str, float]]:
        dim = int(q.shape[0])
        # The inner query has only the index's predicate and order, so the plan is the
        # HNSW scan whatever the statistics say of the scope (a scope estimated small
        # would otherwise be read through the (scope_key, status) index and sorted).
        sql = (
            f"SELECT id, 1 - dist FROM (SELECT id, scope_key, status, area, embedding_model, "
            f"embedding::vector({dim}) <=> %s::vector({dim}) AS dist "
            f"FROM memories WHERE embedding_dim = {dim} ORDER BY dist LIMIT %s) AS memories "
            f"WHERE {where.sql} ORDER BY dist, id LIMIT %s"
        )
        with self._db.connection() as conn, conn.transaction():
            conn.execute(f"SET LOCAL hnsw.ef_search = {int(ef_search)}")
            conn.execute("SET LOCAL enable_seqscan = off")
            rows = conn.execute(sql, (q, ef_search, *where.params, k), binary=True).fetchall()
        return [(str(i), float(c)) for i, c in rows]


@dataclass(frozen=True)
class _Where:
    """The row filter of one vector search, as SQL over ``memories`` and its params."""

    scope_key: str
    statuses: list[str]
    areas: list[str] | None
    model: str | None
    ids: list[str] | None

    @property
    def sql(self) -> str:
        parts = ["scope_key = %s", "status = ANY(%s)"]
        if self.areas is not None:
            parts.append("area = ANY(%s)")
        if self.model is not None:
            parts.append("embedding_model = %s")
        if self.ids is not None:
            parts.append("id = ANY(%s)")
        return " AND ".join(parts)

    @property
    def params(self) -> tuple[Any, ...]:
        extra = [p for p in (self.areas, self.model, self.ids) if p is not None]
        return (self.scope_key, self.statuses, *extra)
