"""What the shared table mixins need of a backend store, and how they run through it.

A backend store provides ``_q`` (a query's rows), ``_w`` (one statement in a
transaction: an INSERT's new id where the dialect's ``returning_id`` asks for it,
else the rows changed), ``_w_many`` (one statement for each row, in one transaction;
the rows changed), optionally ``_w_unlocked`` (a write without the writer lock)
and ``_tx`` (a transaction that nested calls join), and names its
``Dialect``. The helpers below take statements written with ``?`` parameters.
Nothing here adds a round trip: each helper is one call of the backend's method.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, ClassVar

from memfold.store.sql.dialect import Dialect

Rows = list[tuple[Any, ...]]


class SQLTables:
    """The base of the shared mixins (see the module docstring)."""

    _dialect: ClassVar[Dialect]
    _q: Callable[..., Rows]
    _w: Callable[..., int]
    _w_many: Callable[..., int]
    _tx: Callable[[], AbstractContextManager[None]]

    def _w_unlocked(self, sql: str, params: Sequence[Any] = ()) -> int:
        """``_w`` for a row no version check, change number or job depends on (an LLM
        call's usage): a backend with a write that skips its writer lock (PostgreSQL)
        overrides this; SQLite has none, every write takes its lock."""
        return self._w(sql, params)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """A query's rows."""
        return self._q(self._dialect.sql(sql), params)

    def _write(self, sql: str, params: Sequence[Any] = ()) -> int:
        """An UPDATE or DELETE (or an INSERT whose result is not used): rows changed."""
        return self._w(self._dialect.sql(sql), params)

    def _insert(self, sql: str, params: Sequence[Any]) -> int:
        """One INSERT into a table with an integer ``id``: the new row's id."""
        return self._w(self._dialect.sql(sql) + self._dialect.returning_id, params)

    def _write_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        """The statement once for each row, in one transaction: the rows changed."""
        if not rows:
            return 0
        return self._w_many(self._dialect.sql(sql), rows)
