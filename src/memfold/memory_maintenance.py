"""Store upkeep methods of ``Memory`` that are neither reading nor saving: building the
database's vector index. A mixin, as memory_read.py is, so memory.py stays short."""

from __future__ import annotations

from memfold.engine.context import Context
from memfold.engine.vector_index_build import VectorIndexBuilt, build_vector_index


class MaintenanceMethods:
    ctx: Context

    def build_vector_index(self) -> VectorIndexBuilt:
        """PostgreSQL: build pgvector's HNSW index for the embedder's dimension, so
        searches of big scopes use it (small scopes are scanned exactly either way).
        Writes wait while it builds; returns whether it was built now. SQLite:
        ``InvalidInput`` (its in-process index needs no build)."""
        return build_vector_index(self.ctx)
