"""Many memories inserted by one statement instead of one statement a row.

Why: inside a transaction, every statement that may abort half-way (an INSERT into
``memories`` does: its triggers write the FTS5 index) opens a statement savepoint, and
FTS5 writes its pending terms out as a new segment at each savepoint, then merges
those segments. ``executemany`` runs its statement once a row, so the index got a
segment per memory: about half the instructions of ``Memory.add_many``'s INSERT went
to FTS5's savepoints (callgrind, 3,000 rows, schemas 11 and 13; issue 14).

Here the rows go to a temporary table first (no index, no trigger, nothing to flush),
then one ``INSERT ... SELECT`` moves them in order: the triggers fire for each row as
before and FTS5 writes one segment for the batch. The rows, their order and the index's
terms are the same; the index has fewer segments, so searches read fewer. A failing
statement changes nothing of its own (the caller's transaction or savepoint undoes the
staging too: temporary tables take part in transactions). The staging table lives in
SQLite's temporary database (in memory, spilling to an unlinked temporary file as
statement journals do), emptied before each call returns, its freed pages zeroed.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class _Statements:
    width: int
    one_row: str
    create_staging: str
    zero_freed_pages: str
    stage: str
    move: str
    empty_staging: str


@functools.lru_cache(maxsize=16)
def _statements(table: str, columns: str) -> _Statements:
    names = ", ".join(c.strip() for c in columns.split(","))
    width = names.count(",") + 1
    marks = ", ".join("?" * width)
    staging = f"memfold_bulk_{table}"
    return _Statements(
        width=width,
        one_row=f"INSERT INTO {table} ({names}) VALUES ({marks})",
        create_staging=f"CREATE TEMP TABLE IF NOT EXISTS {staging} ({names})",
        zero_freed_pages="PRAGMA temp.secure_delete=ON",
        stage=f"INSERT INTO temp.{staging} VALUES ({marks})",
        move=f"INSERT INTO {table} ({names}) SELECT * FROM temp.{staging} ORDER BY rowid",
        empty_staging=f"DELETE FROM temp.{staging}",
    )


def insert_rows(
    conn: sqlite3.Connection, table: str, columns: str, rows: Sequence[Sequence[Any]]
) -> None:
    """Insert ``rows`` (a value for each of the comma-separated ``columns``) into
    ``table``, in order: one row directly, more through the staging table. Call it
    inside a transaction; the staging table is empty again when it returns. The names
    are put into the SQL as they are: memfold's own, never a caller's input."""
    if not rows:
        return
    sql = _statements(table, columns)
    if any(len(row) != sql.width for row in rows):
        raise ValueError(f"insert_rows: every row needs {sql.width} values ({columns})")
    if len(rows) == 1:
        conn.execute(sql.one_row, rows[0])
        return
    conn.execute(sql.create_staging)
    conn.execute(sql.zero_freed_pages)
    try:
        conn.executemany(sql.stage, rows)
        conn.execute(sql.move)
    finally:
        # never left holding rows (texts, vectors) for a later call, nor after a
        # failure its caller goes on from (forget must leave no copy behind)
        conn.execute(sql.empty_staging)
