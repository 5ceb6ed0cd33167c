"""PostgreSQL's spellings for the shared SQL (store/sql/dialect.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from psycopg.types.json import Jsonb

from memfold.store.sql.dialect import Dialect

_EARLIEST = datetime.fromisoformat("0001-01-01T00:00:00+00:00")


@lru_cache(maxsize=2048)
def _format_params(text: str) -> str:
    """``?`` -> ``%s`` and a literal ``%`` -> ``%%`` outside quoted strings (psycopg's
    format style); the shared statements are few, so each is converted once."""
    parts = text.split("'")
    for i in range(0, len(parts), 2):  # even parts lie outside '...'
        parts[i] = parts[i].replace("%", "%%").replace("?", "%s")
    return "'".join(parts)


class PostgresDialect(Dialect):
    """``%s`` parameters, a list as one array (``= ANY``), ``timestamptz`` and
    ``jsonb`` columns taking and giving Python values, ``COLLATE "C"``."""

    no_limit = None
    earliest = _EARLIEST
    greatest = "greatest"
    returning_id = " RETURNING id"
    list_chunk = None

    def sql(self, text: str) -> str:
        return _format_params(text)

    def any_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} = ANY(?)", [list(values)]

    def time(self, when: datetime | None) -> Any:
        return when

    def json(self, value: Any) -> Any:
        return Jsonb(value)

    def from_json(self, stored: Any) -> Any:
        return stored  # psycopg decodes jsonb

    def by_code_point(self, column: str) -> str:
        return f'{column} COLLATE "C"'

    def utc_day(self, column: str) -> str:
        return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')"


POSTGRES = PostgresDialect()
