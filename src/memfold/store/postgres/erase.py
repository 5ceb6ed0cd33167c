"""PostgreSQL side of erasure (``Memory.forget``): rows removed, log rows scrubbed.

The same rows go as on SQLite (store/sqlite/erase.py). What keeps bytes afterwards
differs: PostgreSQL leaves a deleted or rewritten row as a dead tuple (with its GIN
entries) until VACUUM reclaims it, and its WAL until checkpoints recycle it; freed
space is never zeroed. So ``zeroed_throughout`` is always False (``forget`` then warns
that old copies may remain), ``checkpoint`` runs ``CHECKPOINT`` (False without the
privilege), and ``vacuum`` runs ``VACUUM FULL`` on every table that held the text,
rewriting them from their live rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from memfold.model import JSONDict, LogEntry, MemoryRecord, Scope
from memfold.model import utcnow as _now
from memfold.store.postgres.codec import (
    LOG_COLUMNS,
    MEMORY_COLUMNS_NO_VEC,
    row_to_log,
    row_to_memory,
)
from memfold.store.postgres.connection import Connections

_REMOVED = "[removed: about an erased memory]"
# Free-text columns of rows not tied to one memory (table, column), as on SQLite.
_FREE_TEXT: tuple[tuple[str, str], ...] = (
    ("llm_calls", "error"),
    ("jobs", "last_error"),
    ("feedback", "context"),
    ("idempotency_keys", "body"),  # a stored response quoting the memory (server replays)
)
_VACUUMED = (
    "memories",
    "idempotency_keys",
    "tombstones",
    "links",
    "consolidation_log",
    "log_memories",
    "jobs",
    "consolidation_queue",
    "feedback",
    "feedback_applied",
    "review_runs",
    "llm_calls",
)


def _forms(text: str) -> list[str]:
    """A text as written and as it appears inside a JSON string (either escaping)."""
    return list(
        dict.fromkeys(
            f
            for f in (text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1])
            if f
        )
    )


class EraseTablesMixin:
    """Hard erasure and the tombstones it leaves (table ``erasures``)."""

    _db: Connections
    _q: Callable[..., list[tuple[Any, ...]]]
    _w: Callable[..., int]
    _tx: Callable[[], AbstractContextManager[None]]

    # finding what to erase -----------------------------------------------------------
    # (a scope's memory ids: store/sql/scopes.py)
    def memories_made_from(self, ids: Sequence[str]) -> set[str]:
        """Memories whose ``consolidated_from`` names any of ``ids`` (merge results)."""
        if not ids:
            return set()
        rows = self._q(
            "SELECT id FROM memories WHERE consolidated_from ?| %s::text[]", (list(ids),)
        )
        return {str(r[0]) for r in rows}

    def memories_superseded_by(self, ids: Sequence[str]) -> list[MemoryRecord]:
        if not ids:
            return []
        rows = self._q(
            f"SELECT {MEMORY_COLUMNS_NO_VEC} FROM memories WHERE superseded_by = ANY(%s) "
            "ORDER BY rowid",
            (list(ids),),
        )
        return [row_to_memory(r) for r in rows]

    def log_ids_touching(self, ids: Sequence[str]) -> list[int]:
        if not ids:
            return []
        rows = self._q(
            "SELECT DISTINCT log_id FROM log_memories WHERE memory_id = ANY(%s) ORDER BY 1",
            (list(ids),),
        )
        return [int(r[0]) for r in rows]

    def log_ids_quoting(self, texts: Sequence[str]) -> list[int]:
        """Log rows whose reasoning or snapshots hold one of ``texts``."""
        found: set[int] = set()
        for text in texts:
            for form in _forms(text):
                rows = self._q(
                    "SELECT id FROM consolidation_log WHERE strpos(reasoning, %(f)s) > 0 "
                    "OR strpos(before::text, %(f)s) > 0 OR strpos(after::text, %(f)s) > 0",
                    {"f": form},
                )
                found.update(int(r[0]) for r in rows)
        return sorted(found)

    def logs_by_id(self, log_ids: Sequence[int]) -> list[LogEntry]:
        if not log_ids:
            return []
        rows = self._q(
            f"SELECT {LOG_COLUMNS} FROM consolidation_log WHERE id = ANY(%s) ORDER BY id",
            ([int(i) for i in log_ids],),
        )
        return [row_to_log(r) for r in rows]

    # erasing --------------------------------------------------------------------------
    def erase_memories(self, records: Sequence[MemoryRecord], derived: Iterable[str]) -> JSONDict:
        """Delete the memories and every row about them; leave a tombstone each (id,
        scope, time: no text). Returns the rows removed per table."""
        ids = [r.id for r in records]
        made = set(derived)
        counts: dict[str, int] = {}
        with self._tx():

            def run(table: str, sql: str) -> None:
                counts[table] = counts.get(table, 0) + self._w(sql, (ids,))

            # one change number each: feeds in-process vector indexes (changes_since)
            self._db.write_many(
                "INSERT INTO tombstones (id, seq) VALUES (%s, %s)",
                list(zip(ids, self._db.next_seqs(len(ids)), strict=True)),
            )
            run("memories", "DELETE FROM memories WHERE id = ANY(%s)")
            run("readings", "DELETE FROM readings WHERE memory_id = ANY(%s)")
            run("links", "DELETE FROM links WHERE src = ANY(%s)")
            run("links", "DELETE FROM links WHERE dst = ANY(%s)")
            run("jobs", "DELETE FROM jobs WHERE memory_id = ANY(%s)")
            run("feedback", "DELETE FROM feedback WHERE memory_id = ANY(%s)")
            run("feedback_applied", "DELETE FROM feedback_applied WHERE memory_id = ANY(%s)")
            queue_ids = {
                int(r[0])
                for r in self._q(
                    "SELECT id FROM consolidation_queue WHERE memory_a = ANY(%(i)s) "
                    "OR memory_b = ANY(%(i)s)",
                    {"i": ids},
                )
            }
            counts["review_runs"] = self._scrub_breaker_events(queue_ids, set(ids))
            run("review_queue", "DELETE FROM consolidation_queue WHERE memory_a = ANY(%s)")
            run("review_queue", "DELETE FROM consolidation_queue WHERE memory_b = ANY(%s)")
            now = _now()
            self._db.write_many(
                "INSERT INTO erasures (id, scope_key, user_id, agent_id, session_id, erased_at, "
                "derived) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO UPDATE SET "
                "erased_at = excluded.erased_at, derived = excluded.derived",
                [
                    (
                        r.id,
                        r.scope.key(),
                        r.scope.user_id,
                        r.scope.agent_id,
                        r.scope.session_id,
                        now,
                        r.id in made,
                    )
                    for r in records
                ],
            )
        return counts

    def _scrub_breaker_events(self, queue_ids: set[int], ids: set[str]) -> int:
        """Breaker events about an erased memory lose their reasons (they quote its words).
        Returns the runs changed."""
        changed = 0
        for run_id, breaker in self._q("SELECT id, breaker FROM review_runs ORDER BY id"):
            hit = False
            for event in (breaker or {}).get("events", []):
                reasons = event.get("reasons")
                if not reasons:
                    continue
                if event.get("queue_id") in queue_ids or any(
                    i in str(reason) for reason in reasons for i in ids
                ):
                    event["reasons"] = [_REMOVED]
                    hit = True
            if hit:
                self._w(
                    "UPDATE review_runs SET breaker = %s WHERE id = %s", (Jsonb(breaker), run_id)
                )
                changed += 1
        return changed

    def scrub_log_rows(self, states: Mapping[int, tuple[JSONDict, JSONDict]]) -> int:
        """Give these log rows the before/after states given and an empty reasoning."""
        self._db.write_many(
            "UPDATE consolidation_log SET before = %s, after = %s, reasoning = '' WHERE id = %s",
            [(Jsonb(b), Jsonb(a), log_id) for log_id, (b, a) in states.items()],
        )
        return len(states)

    def scrub_free_text(self, texts: Sequence[str]) -> int:
        """Replace any error message or feedback context quoting one of ``texts``."""
        forms = list(dict.fromkeys(f for t in texts for f in _forms(t)))
        if not forms:
            return 0
        changed = 0
        with self._tx():
            for table, column in _FREE_TEXT:
                changed += self._w(
                    f"UPDATE {table} SET {column} = %s WHERE {column} IS NOT NULL AND "
                    f"EXISTS (SELECT 1 FROM unnest(%s::text[]) AS f WHERE strpos({column}, f) > 0)",
                    (_REMOVED, forms),
                )
        return changed

    def optimize_keyword_index(self) -> None:
        """Nothing to merge: a deleted row's GIN entries go when VACUUM reclaims it."""

    def checkpoint(self, *, wait_s: float, wal_switches: int = 0) -> bool:
        """``CHECKPOINT``; then, where this role may and ``wal_switches`` > 0, WAL switches,
        each with a ``CHECKPOINT``, until every segment file now in ``pg_wal`` has been
        recycled, been the current segment again and been switched away from: twice the
        files plus one (at most ``wal_switches``). A checkpoint recycles a segment under
        a new name with its old bytes, and a switch zero-fills the rest of the segment it
        leaves, so afterwards no segment file holds what the erased rows logged
        (benchmarks/probe_pg_forget_wal.py). Archives, replicas and backups keep
        their copies (docs/reliability.md). False when this role may not checkpoint."""
        try:
            self._w("CHECKPOINT")
        except psycopg.errors.InsufficientPrivilege:
            return False
        if wal_switches <= 0:
            return True
        try:
            files = self._q("SELECT count(*) FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$'")
            needed = min(wal_switches, 2 * int(files[0][0]) + 1)
        except psycopg.errors.InsufficientPrivilege:
            needed = wal_switches  # may not list pg_wal: switch as often as allowed
        try:
            for _ in range(needed):
                self._q("SELECT pg_switch_wal()")
                self._w("CHECKPOINT")
        except psycopg.errors.InsufficientPrivilege:
            pass  # the segments are recycled at the server's own pace
        return True

    def vacuum(self) -> None:
        """``VACUUM FULL`` of every table that held memory text (outside any transaction)."""
        with self._db.connection() as conn:
            for table in _VACUUMED:
                conn.execute(f"VACUUM FULL {table}")

    # tombstones -----------------------------------------------------------------------
    def erased_ids(self, ids: Iterable[str]) -> dict[str, datetime]:
        """When each of ``ids`` that was erased was erased."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        rows = self._q("SELECT id, erased_at FROM erasures WHERE id = ANY(%s)", (wanted,))
        return {str(i): t for i, t in rows}

    def list_erasures(self, scope: Scope | None = None, limit: int = 1000) -> list[JSONDict]:
        where, params = ("", []) if scope is None else (" WHERE scope_key = %s", [scope.key()])
        rows = self._q(
            "SELECT id, user_id, agent_id, session_id, erased_at, derived FROM erasures"
            f"{where} ORDER BY erased_at DESC, id LIMIT %s",
            [*params, limit],
        )
        return [
            {
                "id": r[0],
                "user_id": r[1],
                "agent_id": r[2],
                "session_id": r[3],
                "erased_at": r[4].isoformat(),
                "derived": bool(r[5]),
            }
            for r in rows
        ]

    def zeroed_throughout(self) -> bool:
        """Never: PostgreSQL keeps dead tuples until VACUUM (see the module docstring)."""
        return False
