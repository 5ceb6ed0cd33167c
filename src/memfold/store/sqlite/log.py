"""SQLite tables of links, the audit log (with its memory index) and key/value meta."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from memfold.model import Link, LinkKind, LogEntry, parse_time, utcnow
from memfold.store.base import NewLogEntry
from memfold.store.codec import LOG_COLUMNS, row_to_log
from memfold.store.sqlite.connection import Connections


def _placeholders(n: int) -> str:
    return ",".join("?" * n)


class LogTablesMixin:
    """Links between memories, the consolidation log, meta. Writes join a transaction."""

    _db: Connections
    _q: Callable[..., list[tuple[Any, ...]]]
    _w: Callable[..., int]

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

    def remove_links(self, links: Sequence[tuple[str, str, LinkKind]]) -> None:
        with self._db.transaction() as conn:
            conn.executemany(
                "DELETE FROM links WHERE src = ? AND dst = ? AND kind = ?",
                [(s, d, k.value) for s, d, k in links],
            )

    def links_for(self, ids: Iterable[str]) -> list[Link]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        ph = _placeholders(len(wanted))
        rows = self._q(
            f"SELECT src, dst, kind, weight, created_at FROM links "
            f"WHERE src IN ({ph}) OR dst IN ({ph})",
            [*wanted, *wanted],
        )
        return [Link(r[0], r[1], LinkKind(r[2]), r[3], parse_time(r[4]) or utcnow()) for r in rows]

    # audit log --------------------------------------------------------------
    def append_log(self, entry: NewLogEntry) -> int:
        with self._db.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO consolidation_log (time, path, action, input_ids, output_ids, "
                "similarity, confidence, reasoning, judge, model, prompt_version, prompt_tokens, "
                "completion_tokens, before, after, undoes) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    utcnow().isoformat(),
                    entry.path,
                    entry.action,
                    json.dumps(entry.input_ids),
                    json.dumps(entry.output_ids),
                    entry.similarity,
                    entry.confidence,
                    entry.reasoning,
                    entry.judge,
                    entry.model,
                    entry.prompt_version,
                    entry.prompt_tokens,
                    entry.completion_tokens,
                    json.dumps(entry.before or {}, ensure_ascii=False),
                    json.dumps(entry.after or {}, ensure_ascii=False),
                    entry.undoes,
                ),
            )
            log_id = int(cur.lastrowid or 0)
            touched = set(entry.input_ids) | set(entry.output_ids)
            conn.executemany(
                "INSERT OR IGNORE INTO log_memories (log_id, memory_id) VALUES (?, ?)",
                [(log_id, m) for m in touched],
            )
            return log_id

    def get_log(self, log_id: int) -> LogEntry | None:
        rows = self._q(f"SELECT {LOG_COLUMNS} FROM consolidation_log WHERE id = ?", (log_id,))
        return row_to_log(rows[0]) if rows else None

    def list_log(
        self, *, limit: int = 50, memory_id: str | None = None, since: datetime | None = None
    ) -> list[LogEntry]:
        clauses: list[str] = []
        params: list[Any] = []
        if memory_id is not None:
            clauses.append("id IN (SELECT log_id FROM log_memories WHERE memory_id = ?)")
            params.append(memory_id)
        if since is not None:
            clauses.append("time >= ?")
            params.append(since.isoformat())
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        rows = self._q(
            f"SELECT {LOG_COLUMNS} FROM consolidation_log{where} ORDER BY id DESC LIMIT ?",
            [*params, limit],
        )
        return [row_to_log(r) for r in rows]

    def logs_after_touching(self, log_id: int, memory_ids: Iterable[str]) -> list[LogEntry]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return []
        rows = self._q(
            f"SELECT {LOG_COLUMNS} FROM consolidation_log WHERE id > ? AND undone_by IS NULL "
            f"AND undoes IS NULL AND id IN (SELECT log_id FROM log_memories "
            f"WHERE memory_id IN ({_placeholders(len(ids))})) ORDER BY id",
            [log_id, *ids],
        )
        return [row_to_log(r) for r in rows]

    def mark_log_undone(self, log_id: int, undone_by: int) -> None:
        self._w("UPDATE consolidation_log SET undone_by = ? WHERE id = ?", (undone_by, log_id))

    # key/value --------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self._q("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._w("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
