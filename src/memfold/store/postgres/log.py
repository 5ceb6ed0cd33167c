"""PostgreSQL's part of the links and audit log tables (the rest is store/sql/log.py):
adding links (an upsert), reading them in creation order (``links_for_sorted``), and
appending a log entry with its rows of the memory index in one statement."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from psycopg.types.json import Jsonb

from memfold.model import Link, LinkKind
from memfold.model import utcnow as _now
from memfold.store.base import NewLogEntry
from memfold.store.postgres.codec import row_to_log
from memfold.store.postgres.connection import Connections
from memfold.store.sql.log import LogTables


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
        return self._w(
            "WITH entry AS (INSERT INTO consolidation_log (time, path, action, input_ids, "
            "output_ids, similarity, confidence, reasoning, judge, model, prompt_version, "
            "prompt_tokens, completion_tokens, before, after, undoes) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "RETURNING id), indexed AS (INSERT INTO log_memories (log_id, memory_id) "
            "SELECT entry.id, m FROM entry CROSS JOIN unnest(%s::text[]) AS m "
            "ON CONFLICT DO NOTHING) SELECT id FROM entry",
            (
                _now(),
                entry.path,
                entry.action,
                Jsonb(entry.input_ids),
                Jsonb(entry.output_ids),
                entry.similarity,
                entry.confidence,
                entry.reasoning,
                entry.judge,
                entry.model,
                entry.prompt_version,
                entry.prompt_tokens,
                entry.completion_tokens,
                Jsonb(entry.before or {}),
                Jsonb(entry.after or {}),
                entry.undoes,
                touched,
            ),
        )
