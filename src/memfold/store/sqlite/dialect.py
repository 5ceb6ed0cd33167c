"""SQLite's spellings for the shared SQL (store/sql/dialect.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memfold.store.sql.dialect import Dialect


class SQLiteDialect(Dialect):
    """``?`` parameters, times as ISO 8601 text, JSON as text; BINARY collation
    already orders by code point (UTF-8 bytes)."""

    no_limit = -1
    earliest = ""  # every stored ISO time sorts after the empty text
    greatest = "max"
    returning_id = ""  # the connection's lastrowid
    list_chunk = 500  # well under the oldest SQLite's 999 parameters

    def sql(self, text: str) -> str:
        return text

    def any_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} IN ({','.join('?' * len(values))})", list(values)

    def time(self, when: datetime | None) -> Any:
        return None if when is None else when.isoformat()

    def json(self, value: Any) -> Any:
        return json.dumps(value, ensure_ascii=False)

    def from_json(self, stored: Any) -> Any:
        return None if stored is None else json.loads(stored)

    def by_code_point(self, column: str) -> str:
        return column

    def utc_day(self, column: str) -> str:
        return f"substr({column}, 1, 10)"  # memfold writes UTC times


SQLITE = SQLiteDialect()
