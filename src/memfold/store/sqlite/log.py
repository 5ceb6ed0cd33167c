"""SQLite's part of the links and audit log tables (the rest is store/sql/log.py):
adding links (INSERT OR REPLACE, so a re-added link moves to the end of table order,
which ``links_for`` keeps), reading them, and appending a log entry and its rows of
the memory index in two statements of one transaction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memfold.model import Link, LinkKind, parse_time, utcnow
from memfold.store.base import NewLogEntry
from memfold.store.codec import row_to_log
from memfold.store.sql.log import LOG_INSERT_COLUMNS, LOG_INSERT_COUNT, LogTables
from memfold.store.sqlite.connection import Connections

_APPEND_LOG = (
    f"INSERT INTO consolidation_log ({LOG_INSERT_COLUMNS}) "
    f"VALUES ({', '.join('?' * LOG_INSERT_COUNT)})"
)


class LogTablesMixin(LogTables):
    """Links and log appends (see the module docstring). Writes join a transaction."""

    _db: Connections
    _log_entry = staticmethod(row_to_log)

    # links ------------------------------------------------------------------
    def add_links(self, links: Sequence[Link]) -> None:
        if not links:
            return
        with self._db.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO links (src, dst, kind, weight, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (lk.src, lk.dst, lk.kind.value, lk.weight, lk.created_at.isoformat())
                    for lk in links
                ],
            )

    def links_for(self, ids: Iterable[str]) -> list[Link]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        src_in, values = self._dialect.any_of("src", wanted)
        dst_in, _ = self._dialect.any_of("dst", wanted)
        rows = self._q(
            f"SELECT src, dst, kind, weight, created_at FROM links WHERE {src_in} OR {dst_in}",
            [*values, *values],
        )
        return [Link(r[0], r[1], LinkKind(r[2]), r[3], parse_time(r[4]) or utcnow()) for r in rows]

    # audit log --------------------------------------------------------------
    def append_log(self, entry: NewLogEntry) -> int:
        with self._db.transaction() as conn:
            cur = conn.execute(_APPEND_LOG, self._log_params(entry))
            log_id = int(cur.lastrowid or 0)
            touched = set(entry.input_ids) | set(entry.output_ids)
            conn.executemany(
                "INSERT OR IGNORE INTO log_memories (log_id, memory_id) VALUES (?, ?)",
                [(log_id, m) for m in touched],
            )
            return log_id
