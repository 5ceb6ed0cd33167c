"""PostgreSQL's part of the scope queries (the rest is store/sql/scopes.py): ids by
prefix, with ``starts_with`` (the database's collation need not order by code point,
so a range would not do)."""

from __future__ import annotations

from memfold.store.sql.scopes import ScopeTables


class ScopeQueriesMixin(ScopeTables):
    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` memory ids (any status) that start with ``prefix``, sorted by
        code point (``COLLATE "C"``, as on SQLite)."""
        rows = self._q(
            'SELECT id FROM memories WHERE starts_with(id, %s) ORDER BY id COLLATE "C" LIMIT %s',
            (prefix, limit),
        )
        return [str(r[0]) for r in rows]
