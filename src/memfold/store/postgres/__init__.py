"""The PostgreSQL + pgvector backend (``pip install 'memfold[postgres]'``):
``PostgresStore`` (``store``) with its tables in mixins (links and log, jobs, review
queue and runs, usage, scopes, erasure), keyword search (``keyword``), the connection pool and
migrations (``connection``, ``schema``), rows (``codec``) and metadata filters as SQL
(``filter_sql``), mirroring store/sqlite/ file for file."""

from memfold.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
