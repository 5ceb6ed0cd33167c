"""PostgreSQL's part of the links and audit log tables (the rest is store/sql/log.py):
adding links (an upsert), reading them in creation order (``links_for_sorted``), and
appending a log entry with its rows of the memory index in one statement."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memfold.model import Link, LinkKind
from memfold.store.base import NewLogEntry
from memfold.store.postgres.codec import row_to_log
from memfold.store.postgres.connection import Connections
from memfold.store.sql.log import LOG_INSERT_COLUMNS, LOG_INSERT_COUNT, LogTables

_APPEND_LOG = (
    f"WITH entry AS (INSERT INTO consolidation_log ({LOG_INSERT_COLUMNS}) "
    f"VALUES ({', '.join(['%s'] * LOG_INSERT_COUNT)}) RETURNING id), "
    "indexed AS (INSERT INTO log_memories (log_id, memory_id) "
    "SELECT entry.id, m FROM entry CROSS JOIN unnest(%s::text[]) AS m "
    "ON CONFLICT DO NOTHING) SELECT id FROM entry"
)


class LogTablesMixin(LogTables):
    """Links and log appends (see the module docstring). Writes join a transaction."""

    _db: Connections
    _log_entry = staticmethod(row_to_log)

    # links ------------------------------------------------------------------
    def add_links(self, links: Sequence[Link]) -> None:
        self._db.write_many(
            "INSERT INTO links (src, dst, kind, weight, created_at) VALUES (%s, %s, %s, %s, %s) "
            "ON CONFLICT (src, dst, kind) DO UPDATE SET weight = excluded.weight, "
            "created_at = excluded.created_at",
            [(lk.src, lk.dst, lk.kind.value, lk.weight, lk.created_at) for lk in links],
        )

    def links_for(self, ids: Iterable[str]) -> list[Link]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        rows = self._q(
            "SELECT src, dst, kind, weight, created_at FROM links "
            "WHERE src = ANY(%s) OR dst = ANY(%s) ORDER BY created_at, src, dst, kind",
            (wanted, wanted),
        )
        return [Link(r[0], r[1], LinkKind(r[2]), r[3], r[4]) for r in rows]

    # audit log --------------------------------------------------------------
    def append_log(self, entry: NewLogEntry) -> int:
        # One statement: the entry, and its rows of the memory index (a data-modifying
        # WITH; both or neither).
        touched = sorted(set(entry.input_ids) | set(entry.output_ids))
        return self._w(_APPEND_LOG, (*self._log_params(entry), touched))
