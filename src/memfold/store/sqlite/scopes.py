"""SQLite's part of the scope queries (the rest is store/sql/scopes.py): ids by prefix,
a range on the unique index (BINARY collation orders by code point)."""

from __future__ import annotations

from memfold.store.sql.scopes import ScopeTables

_ID_CHARS_MAX = "\U0010ffff"


class ScopeQueriesMixin(ScopeTables):
    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` memory ids (any status) that start with ``prefix``, sorted.
        A range on the unique index: ``prefix <= id < prefix + U+10FFFF``."""
        rows = self._q(
            "SELECT id FROM memories WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
            (prefix, prefix + _ID_CHARS_MAX, limit),
        )
        return [str(r[0]) for r in rows if str(r[0]).startswith(prefix)]
