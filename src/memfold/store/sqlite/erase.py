"""SQLite side of erasure (``Memory.forget``): rows removed, log rows scrubbed, space zeroed.

Every connection runs with ``PRAGMA secure_delete=ON`` (store/sqlite/connection.py), so
deleted cells and freed pages are overwritten with zeros. What else keeps bytes:

- ``memories_fts`` is an external-content FTS5 table: its text lives in ``memories``,
  but its segments (``memories_fts_data``/``_idx``) keep a deleted row's tokens until
  the segments are merged. ``optimize`` merges them all into one, dropping them.
- In WAL mode old page images stay in the ``-wal`` file until a checkpoint;
  ``wal_checkpoint(TRUNCATE)`` copies the pages back and empties the file. The
  ``-shm`` file is an index of page numbers, not content.
- A file written before secure_delete was on may hold never-zeroed copies in free
  space; ``VACUUM`` rewrites the file from the live rows only.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from memfold.model import JSONDict, LogEntry, MemoryRecord, Scope, parse_time, utcnow
from memfold.store.codec import LOG_COLUMNS, MEMORY_COLUMNS_NO_VEC, row_to_log, row_to_memory
from memfold.store.sqlite.connection import Connections

_CHUNK = 500
# Free-text columns of rows not tied to one memory: an error message or a reason may
# quote an erased text. Table, text column, what replaces a value that quotes one.
_REMOVED = "[removed: about an erased memory]"
_FREE_TEXT: tuple[tuple[str, str], ...] = (
    ("llm_calls", "error"),
    ("jobs", "last_error"),
    ("feedback", "context"),
    ("idempotency_keys", "body"),  # a stored response quoting the memory (server replays)
)


def _ph(n: int) -> str:
    return ",".join("?" * n)


def _chunks(ids: Sequence[str]) -> Iterable[list[str]]:
    for start in range(0, len(ids), _CHUNK):
        yield list(ids[start : start + _CHUNK])


def _scrub_breaker_events(conn: sqlite3.Connection, queue_ids: set[int], ids: set[str]) -> int:
    """A review run's breaker events name a queue pair and give the result check's reasons,
    which quote words of the pair ("drops name 'X' of <id>"): those about an erased
    memory lose their reasons. Returns the runs changed."""
    changed = 0
    for run_id, raw in conn.execute("SELECT id, breaker FROM review_runs").fetchall():
        breaker = json.loads(raw or "{}")
        hit = False
        for event in breaker.get("events", []):
            reasons = event.get("reasons")
            if not reasons:
                continue
            about = event.get("queue_id") in queue_ids or any(
                i in str(reason) for reason in reasons for i in ids
            )
            if about:
                event["reasons"] = [_REMOVED]
                hit = True
        if hit:
            conn.execute(
                "UPDATE review_runs SET breaker = ? WHERE id = ?", (json.dumps(breaker), run_id)
            )
            changed += 1
    return changed


class EraseTablesMixin:
    """Hard erasure and the tombstones it leaves (table ``erasures``)."""

    _db: Connections
    _q: Callable[..., list[tuple[Any, ...]]]
    _next_seq: Callable[..., int]

    # finding what to erase -----------------------------------------------------------
    # (a scope's memory ids: store/sql/scopes.py)
    def memories_made_from(self, ids: Sequence[str]) -> set[str]:
        """Memories whose ``consolidated_from`` names any of ``ids`` (merge results)."""
        found: set[str] = set()
        for chunk in _chunks(list(ids)):
            rows = self._q(
                "SELECT DISTINCT m.id FROM memories m, json_each(m.consolidated_from) j "
                f"WHERE m.consolidated_from != '[]' AND j.value IN ({_ph(len(chunk))})",
                chunk,
            )
            found.update(str(r[0]) for r in rows)
        return found

    def memories_superseded_by(self, ids: Sequence[str]) -> list[MemoryRecord]:
        out: list[MemoryRecord] = []
        for chunk in _chunks(list(ids)):
            rows = self._q(
                f"SELECT {MEMORY_COLUMNS_NO_VEC} FROM memories "
                f"WHERE superseded_by IN ({_ph(len(chunk))})",
                chunk,
            )
            out.extend(row_to_memory(r) for r in rows)
        return out

    def log_ids_touching(self, ids: Sequence[str]) -> list[int]:
        found: set[int] = set()
        for chunk in _chunks(list(ids)):
            rows = self._q(
                f"SELECT DISTINCT log_id FROM log_memories WHERE memory_id IN ({_ph(len(chunk))})",
                chunk,
            )
            found.update(int(r[0]) for r in rows)
        return sorted(found)

    def log_ids_quoting(self, texts: Sequence[str]) -> list[int]:
        """Log rows whose reasoning or snapshots hold one of ``texts`` (as written, or
        JSON-escaped as in a snapshot). One scan of the log per text: for few texts."""
        found: set[int] = set()
        for text in texts:
            for form in dict.fromkeys((text, json.dumps(text)[1:-1])):
                rows = self._q(
                    "SELECT id FROM consolidation_log WHERE instr(reasoning, ?) > 0 "
                    "OR instr(before, ?) > 0 OR instr(after, ?) > 0",
                    (form, form, form),
                )
                found.update(int(r[0]) for r in rows)
        return sorted(found)

    def logs_by_id(self, log_ids: Sequence[int]) -> list[LogEntry]:
        out: list[LogEntry] = []
        for start in range(0, len(log_ids), _CHUNK):
            chunk = list(log_ids[start : start + _CHUNK])
            rows = self._q(
                f"SELECT {LOG_COLUMNS} FROM consolidation_log WHERE id IN ({_ph(len(chunk))}) "
                "ORDER BY id",
                chunk,
            )
            out.extend(row_to_log(r) for r in rows)
        return out

    # erasing --------------------------------------------------------------------------
    def erase_memories(self, records: Sequence[MemoryRecord], derived: Iterable[str]) -> JSONDict:
        """Delete the memories and every row about them; leave a tombstone each (id,
        scope, time: no text). Returns the rows removed per table."""
        ids = [r.id for r in records]
        made = set(derived)
        counts: dict[str, int] = {}
        now = utcnow().isoformat()
        with self._db.transaction() as conn:
            conn.execute("PRAGMA secure_delete=ON")

            def run(table: str, sql: str) -> None:
                for chunk in _chunks(ids):
                    n = conn.execute(sql.format(ph=_ph(len(chunk))), chunk).rowcount
                    counts[table] = counts.get(table, 0) + max(n, 0)

            # feeds in-process vector indexes (changes_since): the vector is dropped there
            seq = self._next_seq()
            conn.executemany(
                "INSERT INTO tombstones (id, seq) VALUES (?, ?)", [(i, seq) for i in ids]
            )
            run("memories", "DELETE FROM memories WHERE id IN ({ph})")  # FTS: trigger
            run("readings", "DELETE FROM readings WHERE memory_id IN ({ph})")
            run("links", "DELETE FROM links WHERE src IN ({ph})")
            run("links", "DELETE FROM links WHERE dst IN ({ph})")
            run("jobs", "DELETE FROM jobs WHERE memory_id IN ({ph})")
            run("feedback", "DELETE FROM feedback WHERE memory_id IN ({ph})")
            run("feedback_applied", "DELETE FROM feedback_applied WHERE memory_id IN ({ph})")
            queue_ids: set[int] = set()
            for chunk in _chunks(ids):
                rows = conn.execute(
                    f"SELECT id FROM consolidation_queue WHERE memory_a IN ({_ph(len(chunk))}) "
                    f"OR memory_b IN ({_ph(len(chunk))})",
                    [*chunk, *chunk],
                ).fetchall()
                queue_ids.update(int(r[0]) for r in rows)
            counts["review_runs"] = _scrub_breaker_events(conn, queue_ids, set(ids))
            run("review_queue", "DELETE FROM consolidation_queue WHERE memory_a IN ({ph})")
            run("review_queue", "DELETE FROM consolidation_queue WHERE memory_b IN ({ph})")
            conn.executemany(
                "INSERT OR REPLACE INTO erasures "
                "(id, scope_key, user_id, agent_id, session_id, erased_at, derived) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.id,
                        r.scope.key(),
                        r.scope.user_id,
                        r.scope.agent_id,
                        r.scope.session_id,
                        now,
                        int(r.id in made),
                    )
                    for r in records
                ],
            )
        return counts

    def scrub_log_rows(self, states: Mapping[int, tuple[JSONDict, JSONDict]]) -> int:
        """Give these log rows the before/after states given (engine/erase.py keeps ids,
        action and time, the erased ids each touched and what of the rest can be kept)
        and an empty reasoning."""
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE consolidation_log SET before = ?, after = ?, reasoning = '' WHERE id = ?",
                [(json.dumps(b), json.dumps(a), log_id) for log_id, (b, a) in states.items()],
            )
        return len(states)

    def scrub_free_text(self, texts: Sequence[str]) -> int:
        """Replace any error message or feedback context quoting one of ``texts``. Each
        table is read once (these values are few: failures, feedback notes)."""
        forms = list(dict.fromkeys(f for t in texts for f in (t, json.dumps(t)[1:-1]) if f))
        changed = 0
        with self._db.transaction() as conn:
            for table, column in _FREE_TEXT:
                rows = conn.execute(
                    f"SELECT rowid, {column} FROM {table} WHERE {column} IS NOT NULL"
                ).fetchall()
                hits = [(_REMOVED, r[0]) for r in rows if any(f in str(r[1]) for f in forms)]
                conn.executemany(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", hits)
                changed += len(hits)
        return changed

    def optimize_keyword_index(self) -> None:
        """Merge every FTS5 segment into one: deleted rows' tokens are gone after it."""
        with self._db.transaction() as conn:
            conn.execute("PRAGMA secure_delete=ON")
            conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")

    def checkpoint(self, *, wait_s: float, wal_switches: int = 0) -> bool:
        """Copy the WAL into the file and truncate it to zero bytes. False when a reader
        kept it from finishing within ``wait_s``. (``wal_switches``: PostgreSQL's.)"""
        conn = self._db.get()
        deadline = time.monotonic() + wait_s
        while True:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if not busy:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)

    def vacuum(self) -> None:
        """Rewrite the file from its live rows (outside any transaction)."""
        conn = self._db.get()
        conn.execute("PRAGMA secure_delete=ON")
        # takes the writer lock itself: a conflict is tried again, then StoreBusy
        self._db.run(lambda: conn.execute("VACUUM"), "VACUUM")
        # From here on every freed byte was zeroed: no old copy can linger.
        with self._db.transaction() as tx:
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('secure_delete_from', 'vacuum')"
            )

    # tombstones -----------------------------------------------------------------------
    def erased_ids(self, ids: Iterable[str]) -> dict[str, datetime]:
        """When each of ``ids`` that was erased was erased."""
        wanted = list(dict.fromkeys(ids))
        out: dict[str, datetime] = {}
        for chunk in _chunks(wanted):
            rows = self._q(
                f"SELECT id, erased_at FROM erasures WHERE id IN ({_ph(len(chunk))})", chunk
            )
            out.update((str(i), parse_time(t) or utcnow()) for i, t in rows)
        return out

    def list_erasures(self, scope: Scope | None = None, limit: int = 1000) -> list[JSONDict]:
        where, params = ("", []) if scope is None else (" WHERE scope_key = ?", [scope.key()])
        rows = self._q(
            "SELECT id, user_id, agent_id, session_id, erased_at, derived FROM erasures"
            f"{where} ORDER BY erased_at DESC, id LIMIT ?",
            [*params, limit],
        )
        return [
            {
                "id": r[0],
                "user_id": r[1],
                "agent_id": r[2],
                "session_id": r[3],
                "erased_at": r[4],
                "derived": bool(r[5]),
            }
            for r in rows
        ]

    def zeroed_throughout(self) -> bool:
        """Freed space was zeroed since the file was created, or since its last VACUUM."""
        rows = self._q("SELECT value FROM meta WHERE key = 'secure_delete_from'")
        return bool(rows) and rows[0][0] in ("creation", "vacuum")
