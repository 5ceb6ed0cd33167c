"""The SQLite backend: ``SQLiteStore`` (``store``) with its tables in mixins (jobs,
review queue and runs, usage, scopes, erasure), the connection pool and migrations
(``connection``, ``schema``), keyword search (``fts``) and metadata filters as SQL
(``filter_sql``)."""

from memfold.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
