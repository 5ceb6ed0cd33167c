"""The SQLite backend of the Store protocol (the embedded default)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from memfold.config import StoreSettings
from memfold.errors import ConflictError, NotFound
from memfold.index.bm25 import ScopeStatsCache, Stemmer
from memfold.model import (
    Area,
    JSONDict,
    MemoryRecord,
    Scope,
    Status,
)
from memfold.policy.filters import Filter
from memfold.store.base import IndexRow
from memfold.store.codec import (
    MEMORY_COLUMNS,
    MEMORY_COLUMNS_NO_VEC,
    blob_to_passages,
    blob_to_vec,
    memory_params,
    row_to_memory,
)
from memfold.store.sql.idempotency import IdempotencyTables
from memfold.store.sql.keys import KeyTables
from memfold.store.sql.readings import ReadingTables
from memfold.store.sql.review import ReviewTables
from memfold.store.sql.transcripts import TranscriptTables
from memfold.store.sql.usage import UsageTables
from memfold.store.sqlite.bulk_insert import insert_rows
from memfold.store.sqlite.connection import Connections
from memfold.store.sqlite.dialect import SQLITE
from memfold.store.sqlite.erase import EraseTablesMixin
from memfold.store.sqlite.filter_sql import filter_sql
from memfold.store.sqlite.jobs import JobsTableMixin
from memfold.store.sqlite.keyword_cache import RankingCache
from memfold.store.sqlite.keyword_stats import ScopedBm25Mixin
from memfold.store.sqlite.lifecycle import LifecycleScanMixin
from memfold.store.sqlite.log import LogTablesMixin
from memfold.store.sqlite.scopes import ScopeQueriesMixin


def _passages(blob: bytes | None, vec: np.ndarray | None) -> np.ndarray | None:
    """A feed row's passage matrix (None when it has none, or no vector to size it)."""
    return None if blob is None or vec is None else blob_to_passages(blob, int(vec.shape[0]))


def _placeholders(n: int) -> str:
    return ",".join("?" * n)


_DEFAULTS = StoreSettings()

# The columns put_memory sets (all but id), and those the full-text index reads.
_UPDATE_COLUMNS = tuple(c.strip() for c in MEMORY_COLUMNS.split(","))[1:]
_FULL_TEXT_COLUMNS = frozenset({"text", "scope_key"})
# A write hands back the row it stored (SQLite >= 3.35); an older library reads it.
_RETURNING = f" RETURNING {MEMORY_COLUMNS}" if sqlite3.sqlite_version_info >= (3, 35) else ""


class SQLiteStore(
    JobsTableMixin,
    ReviewTables,
    UsageTables,
    EraseTablesMixin,
    ScopeQueriesMixin,
    ScopedBm25Mixin,
    LifecycleScanMixin,
    TranscriptTables,
    ReadingTables,
    KeyTables,
    IdempotencyTables,
    LogTablesMixin,
):
    _dialect = SQLITE  # the shared tables' SQL (store/sql/)

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout_ms: int = _DEFAULTS.busy_timeout_ms,
        busy_retries: int = _DEFAULTS.busy_retries,
        busy_retry_wait_ms: float = _DEFAULTS.busy_retry_wait_ms,
        busy_retry_max_wait_ms: float = _DEFAULTS.busy_retry_max_wait_ms,
        keyword_max_df_share: float = 1.0,
        keyword_df_refresh_share: float = 0.1,
        keyword_prune_min_docs: int = 2000,
        keyword_scan_max_docs: int = 5000,
        keyword_rank_cache_queries: int = 64,
        keyword_rank_cache_depth: int = 64,
        create_parent: bool = False,
        read_only: bool = False,
    ) -> None:
        self.path = Path(path).expanduser()
        self.location = str(self.path)
        self.read_only = read_only  # every write raises ReadOnlyStore (connection.py)
        self._db = Connections(
            self.path,
            busy_timeout_ms=busy_timeout_ms,
            busy_retries=busy_retries,
            busy_retry_wait_ms=busy_retry_wait_ms,
            busy_retry_max_wait_ms=busy_retry_max_wait_ms,
            create_parent=create_parent,
            read_only=read_only,
        )
        self._max_df_share = keyword_max_df_share
        self._prune_min_docs = keyword_prune_min_docs
        self._scope_stats = ScopeStatsCache(keyword_df_refresh_share, keyword_scan_max_docs)
        self._stemmer = Stemmer()
        self._rankings = RankingCache(keyword_rank_cache_queries, keyword_rank_cache_depth)

    # plumbing ---------------------------------------------------------------
    def close(self) -> None:
        self._db.close()

    def close_thread(self) -> None:
        """Close the calling thread's connection (a helper thread about to end)."""
        self._db.close_thread()

    def transaction(self) -> AbstractContextManager[None]:
        return self._tx()

    @contextmanager
    def _tx(self) -> Iterator[None]:
        with self._db.transaction():
            yield

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._db.read(sql, params)

    def _w(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._db.transaction() as conn:
            cur = conn.execute(sql, params)
            return (
                int(cur.lastrowid or 0)
                if sql.lstrip().upper().startswith("INSERT")
                else cur.rowcount
            )

    def _w_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        with self._db.transaction() as conn:
            return conn.executemany(sql, rows).rowcount

    def schema_version(self) -> int:
        return self._db.schema_version()

    def _next_seq(self, n: int = 1) -> int:
        """First of ``n`` fresh change numbers (call inside a write transaction)."""
        row = self._q(
            "SELECT max(coalesce((SELECT max(seq) FROM memories), 0), "
            "coalesce((SELECT max(seq) FROM tombstones), 0))"
        )
        return int(row[0][0]) + 1

    # memories ---------------------------------------------------------------
    def insert_memories(self, records: Sequence[MemoryRecord]) -> None:
        if not records:
            return
        with self._db.transaction() as conn:
            base = self._next_seq(len(records))
            # one statement, not one a row: FTS5 writes a segment per statement
            insert_rows(
                conn,
                "memories",
                f"{MEMORY_COLUMNS}, seq",
                [(*memory_params(r), base + i) for i, r in enumerate(records)],
            )

    def insert_memory_returning(self, record: MemoryRecord) -> MemoryRecord:
        """``insert_memories([record])``; the row as stored (RETURNING, SQLite >= 3.35:
        no read after the write; no trigger changes a ``memories`` row)."""
        with self._db.transaction() as conn:
            stored = conn.execute(
                f"INSERT INTO memories ({MEMORY_COLUMNS}, seq) VALUES "
                f"({_placeholders(len(_UPDATE_COLUMNS) + 2)}){_RETURNING}",
                (*memory_params(record), self._next_seq()),
            ).fetchall()
            return row_to_memory(stored[0]) if stored else self._stored(record.id)

    def get_memory(self, memory_id: str) -> MemoryRecord | None:
        rows = self._q(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ?", (memory_id,))
        return row_to_memory(rows[0]) if rows else None

    def get_memories(self, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        wanted = list(dict.fromkeys(ids))
        out: dict[str, MemoryRecord] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            for row in self._q(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN ({_placeholders(len(chunk))})",
                chunk,
            ):
                out[row[0]] = row_to_memory(row)
        return out

    def put_memory(self, record: MemoryRecord, *, expected_version: int | None = None) -> None:
        self.put_memory_returning(record, expected_version=expected_version)

    def put_memory_returning(
        self, record: MemoryRecord, *, expected_version: int | None = None
    ) -> MemoryRecord:
        """``put_memory``; the row as stored (RETURNING: no read after the write)."""
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT version, text, scope_key FROM memories WHERE id = ?", (record.id,)
            ).fetchone()
            if row is None:
                raise NotFound(f"no memory with id {record.id!r}")
            if expected_version is not None and row[0] != expected_version:
                raise ConflictError(
                    f"memory {record.id} is at version {row[0]}, expected {expected_version}"
                )
            # A write that keeps the text and scope (a status, area or version change:
            # most consolidation writes) leaves those columns out, so the full-text
            # trigger (UPDATE OF text, scope_key) does not delete and add the same words
            # again: the same index, at a fraction of the cost.
            same_words = (row[1], row[2]) == (record.text, record.scope.key())
            pairs = [
                (col, value)
                for col, value in zip(_UPDATE_COLUMNS, memory_params(record)[1:], strict=True)
                if not (same_words and col in _FULL_TEXT_COLUMNS)
            ]
            assignments = ", ".join(f"{col} = ?" for col, _ in pairs)
            stored = conn.execute(
                f"UPDATE memories SET {assignments}, seq = ? WHERE id = ?{_RETURNING}",
                (*(value for _, value in pairs), self._next_seq(), record.id),
            ).fetchall()
            return row_to_memory(stored[0]) if stored else self._stored(record.id)

    def _stored(self, memory_id: str) -> MemoryRecord:
        """The row just written, read (a library without RETURNING)."""
        stored = self.get_memory(memory_id)
        if stored is None:  # written in this transaction: never
            raise NotFound(f"no memory with id {memory_id!r}")
        return stored

    def delete_memory_row(self, memory_id: str) -> None:
        with self._db.transaction() as conn:
            seq = self._next_seq()
            conn.execute("DELETE FROM readings WHERE memory_id = ?", (memory_id,))
            if conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,)).rowcount:
                conn.execute("INSERT INTO tombstones (id, seq) VALUES (?, ?)", (memory_id, seq))

    def _filters(
        self,
        scope: Scope | None,
        statuses: Sequence[Status] | None,
        areas: Sequence[Area] | None,
        where: Filter | None = None,
    ) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if scope is not None:
            clauses.append("scope_key = ?")
            params.append(scope.key())
        if statuses:
            clauses.append(f"status IN ({_placeholders(len(statuses))})")
            params.extend(s.value for s in statuses)
        if areas:
            clauses.append(f"area IN ({_placeholders(len(areas))})")
            params.extend(a.value for a in areas)
        if where is not None:  # a metadata filter (policy/filters.py)
            sql, more = filter_sql(where)
            clauses.append(sql)
            params.extend(more)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params

    def list_memories(
        self,
        scope: Scope | None = None,
        *,
        statuses: Sequence[Status] | None = None,
        areas: Sequence[Area] | None = None,
        limit: int | None = None,
        offset: int = 0,
        with_embeddings: bool = False,
        where: Filter | None = None,
    ) -> list[MemoryRecord]:
        where_sql, params = self._filters(scope, statuses, areas, where)
        cols = MEMORY_COLUMNS if with_embeddings else MEMORY_COLUMNS_NO_VEC
        sql = f"SELECT {cols} FROM memories{where_sql} ORDER BY rowid LIMIT ? OFFSET ?"
        return [row_to_memory(r) for r in self._q(sql, [*params, limit or -1, offset])]

    def iter_memories(self, *, batch: int = 1000) -> Iterator[MemoryRecord]:
        last = 0
        while True:
            rows = self._q(
                f"SELECT rowid, {MEMORY_COLUMNS} FROM memories WHERE rowid > ? "
                "ORDER BY rowid LIMIT ?",
                (last, batch),
            )
            if not rows:
                return
            for row in rows:
                yield row_to_memory(row[1:])
            last = rows[-1][0]

    def count_memories(self, scope: Scope | None = None, status: Status | None = None) -> int:
        where, params = self._filters(scope, [status] if status else None, None)
        return int(self._q(f"SELECT count(*) FROM memories{where}", params)[0][0])

    def find_by_hash(self, scope: Scope, content_hash: str) -> list[MemoryRecord]:
        rows = self._q(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE scope_key = ? AND content_hash = ?",
            (scope.key(), content_hash),
        )
        return [row_to_memory(r) for r in rows]

    def insertion_order(self, ids: Iterable[str]) -> dict[str, int]:
        """Each memory's rowid: increasing with insertion, unchanged by updates."""
        wanted = list(dict.fromkeys(ids))
        out: dict[str, int] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            sql = f"SELECT id, rowid FROM memories WHERE id IN ({_placeholders(len(chunk))})"
            out.update((str(i), int(r)) for i, r in self._q(sql, chunk))
        return out

    def record_access(self, ids: Sequence[str], when: datetime) -> None:
        """One retrieval of each id at ``when`` (the older API; searches now batch
        theirs through ``add_accesses``, engine/access.py)."""
        self.add_accesses([(i, 1, when) for i in ids])

    def add_accesses(self, accesses: Sequence[tuple[str, int, datetime]]) -> None:
        """Add counted retrievals, (id, count, latest time) each, in one transaction:
        access_count grows by count, last_access_at becomes the later of the two. Not a
        content change: version and seq stay. An id no longer stored is skipped."""
        if not accesses:
            return
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE memories SET access_count = access_count + ?, "
                "last_access_at = max(coalesce(last_access_at, ''), ?) WHERE id = ?",
                [(n, when.isoformat(), i) for i, n, when in accesses],
            )

    def set_stabilities(self, values: Sequence[tuple[str, float]]) -> None:
        """(id, stability) each, in one transaction; version and seq unchanged."""
        if not values:
            return
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE memories SET stability = ? WHERE id = ?", [(s, i) for i, s in values]
            )

    def set_expiries(self, values: Sequence[tuple[str, datetime | None]]) -> None:
        """(id, expires_at) each, active memories only, in one transaction; version and
        seq unchanged."""
        if not values:
            return
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE memories SET expires_at = ? WHERE id = ? AND status = 'active'",
                [(None if t is None else t.isoformat(), i) for i, t in values],
            )

    def stats(self) -> JSONDict:
        by_status = dict(self._q("SELECT status, count(*) FROM memories GROUP BY status"))
        by_area = dict(
            self._q("SELECT area, count(*) FROM memories WHERE status='active' GROUP BY area")
        )
        scopes = self._q("SELECT count(DISTINCT scope_key) FROM memories")[0][0]
        return {
            "path": self.location,
            "schema_version": self.schema_version(),
            "memories": sum(by_status.values()),
            "by_status": by_status,
            "active_by_area": by_area,
            "scopes": scopes,
            "links": self._q("SELECT count(*) FROM links")[0][0],
            "log_entries": self._q("SELECT count(*) FROM consolidation_log")[0][0],
            "jobs_pending": self.count_jobs("pending"),
            # pending jobs backing off after a transient failure (not before next_attempt_at)
            "jobs_waiting": self.count_jobs("pending") - self.count_jobs("pending", ready=True),
            "jobs_running": self.count_jobs("running"),
            "embedding_models": self.embedding_models(),
            "file_bytes": self.path.stat().st_size if self.path.exists() else 0,
        }

    # change feed -------------------------------------------------------------
    def max_seq(self) -> int:
        row = self._q(
            "SELECT max(coalesce((SELECT max(seq) FROM memories), 0), "
            "coalesce((SELECT max(seq) FROM tombstones), 0))"
        )
        return int(row[0][0])

    def changes_since(self, seq: int) -> Iterator[IndexRow]:
        """Rows written after ``seq``, oldest change first, streamed (not all in memory).
        Tombstones come in change order with the rows: a memory deleted and written again
        (an undo undone) ends live."""
        cursor = self._db.get().execute(
            "SELECT seq, id, scope_key, status, area, embedding, embedding_model, 0, passages "
            "FROM memories WHERE seq > ? "
            "UNION ALL SELECT seq, id, '', NULL, NULL, NULL, NULL, 1, NULL FROM tombstones "
            "WHERE seq > ? ORDER BY 1",
            (seq, seq),
        )
        try:
            while rows := cursor.fetchmany(2048):
                for r in rows:
                    if r[7]:
                        yield IndexRow(r[0], r[1], "", Status.ARCHIVED, Area.MAIN, None, None, True)
                        continue
                    vec = blob_to_vec(r[5])
                    yield IndexRow(
                        r[0], r[1], r[2], Status(r[3]), Area(r[4]), vec, r[6],
                        passages=_passages(r[8], vec),
                    )  # fmt: skip
        finally:
            cursor.close()  # left early: its read snapshot ends here, not at a later write

    def scope_sizes(self) -> dict[str, int]:
        return {
            str(k): int(v)
            for k, v in self._q("SELECT scope_key, count(*) FROM memories GROUP BY scope_key")
        }

    def index_rows(self, scope_key: str) -> tuple[int, Iterator[IndexRow]]:
        # Both use memories_scope_status: a range of the index, not a table scan.
        count = "SELECT count(*) FROM memories WHERE scope_key = ?"
        return int(self._q(count, (scope_key,))[0][0]), self._scope_rows(scope_key)

    def _scope_rows(self, scope_key: str) -> Iterator[IndexRow]:
        cursor = self._db.get().execute(
            "SELECT seq, id, scope_key, status, area, embedding, embedding_model, passages "
            "FROM memories WHERE scope_key = ?",
            (scope_key,),
        )
        try:
            while rows := cursor.fetchmany(2048):
                for r in rows:  # read-only views of the blobs: the index copies them
                    vec = None if r[5] is None else np.frombuffer(r[5], dtype=np.float32)
                    yield IndexRow(
                        r[0], r[1], r[2], Status(r[3]), Area(r[4]), vec, r[6],
                        passages=_passages(r[7], vec),
                    )  # fmt: skip
        finally:
            cursor.close()  # left early: its read snapshot ends here, not at a later write

    def embedding_models(self) -> dict[str, int]:
        rows = self._q(
            "SELECT coalesce(embedding_model, '') || ':' || coalesce(embedding_dim, 0), count(*) "
            "FROM memories GROUP BY embedding_model, embedding_dim"
        )
        return {str(k): int(v) for k, v in rows}
