"""PostgreSQL tables of links, the audit log (with its memory index) and key/value meta."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from memfold.model import Link, LinkKind, LogEntry
from memfold.model import utcnow as _now
from memfold.store.base import NewLogEntry
from memfold.store.postgres.codec import LOG_COLUMNS, row_to_log
from memfold.store.postgres.connection import Connections


class LogTablesMixin:
    """Links between memories, the consolidation log, meta. Writes join a transaction."""

    _db: Connections
    _q: Callable[..., list[tuple[Any, ...]]]
    _w: Callable[..., int]

    # links ------------------------------------------------------------------
    def add_links(self, links: Sequence[Link]) -> None:
        self._db.write_many(
            "INSERT INTO links (src, dst, kind, weight, created_at) VALUES (%s, %s, %s, %s, %s) "
            "ON CONFLICT (src, dst, kind) DO UPDATE SET weight = excluded.weight, "
            "created_at = excluded.created_at",
            [(lk.src, lk.dst, lk.kind.value, lk.weight, lk.created_at) for lk in links],
        )

    def remove_links(self, links: Sequence[tuple[str, str, LinkKind]]) -> None:
        self._db.write_many(
            "DELETE FROM links WHERE src = %s AND dst = %s AND kind = %s",
            [(s, d, k.value) for s, d, k in links],
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

    def get_log(self, log_id: int) -> LogEntry | None:
        rows = self._q(f"SELECT {LOG_COLUMNS} FROM consolidation_log WHERE id = %s", (log_id,))
        return row_to_log(rows[0]) if rows else None

    def list_log(
        self, *, limit: int = 50, memory_id: str | None = None, since: datetime | None = None
    ) -> list[LogEntry]:
        clauses: list[str] = []
        params: list[Any] = []
        if memory_id is not None:
            clauses.append("id IN (SELECT log_id FROM log_memories WHERE memory_id = %s)")
            params.append(memory_id)
        if since is not None:
            clauses.append("time >= %s")
            params.append(since)
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        rows = self._q(
            f"SELECT {LOG_COLUMNS} FROM consolidation_log{where} ORDER BY id DESC LIMIT %s",
            [*params, limit],
        )
        return [row_to_log(r) for r in rows]

    def logs_after_touching(self, log_id: int, memory_ids: Iterable[str]) -> list[LogEntry]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return []
        rows = self._q(
            f"SELECT {LOG_COLUMNS} FROM consolidation_log WHERE id > %s AND undone_by IS NULL "
            "AND undoes IS NULL AND id IN (SELECT log_id FROM log_memories "
            "WHERE memory_id = ANY(%s)) ORDER BY id",
            (log_id, ids),
        )
        return [row_to_log(r) for r in rows]

    def mark_log_undone(self, log_id: int, undone_by: int) -> None:
        self._w("UPDATE consolidation_log SET undone_by = %s WHERE id = %s", (undone_by, log_id))

    # key/value --------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self._q("SELECT value FROM meta WHERE key = %s", (key,))
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._w(
            "INSERT INTO meta (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
