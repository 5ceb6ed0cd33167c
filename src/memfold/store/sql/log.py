"""The audit log, links and key/value meta, for both backends: reading the log, undo
marks, removing links, meta. Appending to the log and adding and reading links are
each backend's own (sqlite/log.py, postgres/log.py): PostgreSQL appends an entry and
its memory index in one statement and keeps links in creation order, SQLite takes
two statements and keeps table order."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from memfold.model import LinkKind, LogEntry, utcnow
from memfold.store.base import NewLogEntry
from memfold.store.codec import LOG_COLUMNS
from memfold.store.sql.tables import SQLTables

# The columns a new entry sets (``_log_params``); the backend's append supplies the SQL.
LOG_INSERT_COLUMNS = (
    "time, path, action, input_ids, output_ids, similarity, confidence, reasoning, judge, "
    "model, prompt_version, prompt_tokens, completion_tokens, before, after, undoes"
)
LOG_INSERT_COUNT = LOG_INSERT_COLUMNS.count(",") + 1


class LogTables(SQLTables):
    """Links, the consolidation log, meta (see the module docstring). Writes join a
    transaction."""

    # A log row as a record: the backend's codec (its JSON columns differ).
    _log_entry: Callable[[tuple[Any, ...]], LogEntry]

    # links ------------------------------------------------------------------
    def remove_links(self, links: Sequence[tuple[str, str, LinkKind]]) -> None:
        self._write_many(
            "DELETE FROM links WHERE src = ? AND dst = ? AND kind = ?",
            [(s, d, k.value) for s, d, k in links],
        )

    # audit log --------------------------------------------------------------
    def _log_params(self, entry: NewLogEntry) -> tuple[Any, ...]:
        """A new entry's values in ``LOG_INSERT_COLUMNS`` order, stamped now."""
        return (
            self._dialect.time(utcnow()),
            entry.path,
            entry.action,
            self._dialect.json(entry.input_ids),
            self._dialect.json(entry.output_ids),
            entry.similarity,
            entry.confidence,
            entry.reasoning,
            entry.judge,
            entry.model,
            entry.prompt_version,
            entry.prompt_tokens,
            entry.completion_tokens,
            self._dialect.json(entry.before or {}),
            self._dialect.json(entry.after or {}),
            entry.undoes,
        )

    def get_log(self, log_id: int) -> LogEntry | None:
        rows = self._rows(f"SELECT {LOG_COLUMNS} FROM consolidation_log WHERE id = ?", (log_id,))
        return self._log_entry(rows[0]) if rows else None

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
            params.append(self._dialect.time(since))
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        rows = self._rows(
            f"SELECT {LOG_COLUMNS} FROM consolidation_log{where} ORDER BY id DESC LIMIT ?",
            [*params, limit],
        )
        return [self._log_entry(r) for r in rows]

    def logs_after_touching(self, log_id: int, memory_ids: Iterable[str]) -> list[LogEntry]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return []
        touching, values = self._dialect.any_of("memory_id", ids)
        rows = self._rows(
            f"SELECT {LOG_COLUMNS} FROM consolidation_log WHERE id > ? AND undone_by IS NULL "
            f"AND undoes IS NULL AND id IN (SELECT log_id FROM log_memories WHERE {touching}) "
            "ORDER BY id",
            [log_id, *values],
        )
        return [self._log_entry(r) for r in rows]

    def mark_log_undone(self, log_id: int, undone_by: int) -> None:
        self._write("UPDATE consolidation_log SET undone_by = ? WHERE id = ?", (undone_by, log_id))

    # key/value --------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._write(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
