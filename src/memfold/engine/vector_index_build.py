"""Building the database's own vector index (PostgreSQL: pgvector's HNSW index), which
``Memory.search`` uses for big scopes when ``store.pg_vector_search`` is "database"."""

from __future__ import annotations

from dataclasses import dataclass

from memfold.engine.context import Context
from memfold.errors import InvalidInput
from memfold.store.base import DatabaseVectorSearch


@dataclass(frozen=True)
class VectorIndexBuilt:
    dim: int
    built: bool  # False: it existed already
    name: str


def build_vector_index(ctx: Context) -> VectorIndexBuilt:
    """Build the HNSW index of the embedder's dimension unless it exists (one transaction
    under the writer lock: writes wait while it builds, about a minute per 300k rows on
    2 cores). ``InvalidInput`` on a store without one (SQLite searches in the process)."""
    store = ctx.store
    if not isinstance(store, DatabaseVectorSearch):
        raise InvalidInput(
            "this store has no database vector index: SQLite searches with the in-process "
            "index, which needs no build (a PostgreSQL store has one: memfold[postgres])"
        )
    cfg = ctx.settings.store
    dim = int(ctx.embedder.dim)
    built = store.ensure_vector_index(
        dim, m=cfg.pg_hnsw_m, ef_construction=cfg.pg_hnsw_ef_construction
    )
    return VectorIndexBuilt(dim=dim, built=built, name=store.vector_indexes()[dim])
