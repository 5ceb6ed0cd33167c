"""The PostgreSQL + pgvector backend of the Store protocol (``memfold[postgres]``).

Same behaviour as the SQLite backend, table for table: every write method is atomic
and joins an open ``transaction()``; ``put_memory`` checks the row version under a row
lock; the change feed (``max_seq``/``changes_since``) feeds the same in-process
vector index as on SQLite. Links and the log, jobs, review tables, usage, scope
queries, keyword search and erasure are mixins beside this file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any

import numpy as np

from memfold.errors import ConflictError, NotFound
from memfold.index.bm25 import ScopeStatsCache, Stemmer
from memfold.model import Area, JSONDict, MemoryRecord, Scope, Status
from memfold.policy.filters import Filter
from memfold.store.base import IndexRow
from memfold.store.codec import blob_to_passages
from memfold.store.postgres.codec import (
    MEMORY_COLUMNS,
    MEMORY_COLUMNS_NO_VEC,
    MEMORY_FIELDS,
    memory_params,
    row_to_memory,
)
from memfold.store.postgres.connection import Connections, Params
from memfold.store.postgres.dialect import POSTGRES
from memfold.store.postgres.erase import EraseTablesMixin
from memfold.store.postgres.filter_sql import filter_sql
from memfold.store.postgres.jobs import JobsTableMixin
from memfold.store.postgres.keyword import KeywordSearchMixin
from memfold.store.postgres.lifecycle import LifecycleScanMixin
from memfold.store.postgres.log import LogTablesMixin
from memfold.store.postgres.scopes import ScopeQueriesMixin
from memfold.store.postgres.vector import VectorSearchMixin
from memfold.store.sql.idempotency import IdempotencyTables
from memfold.store.sql.keys import KeyTables
from memfold.store.sql.readings import ReadingTables
from memfold.store.sql.review import ReviewTables
from memfold.store.sql.transcripts import TranscriptTables
from memfold.store.sql.usage import UsageTables


def _passages(blob: Any, vec: np.ndarray | None) -> np.ndarray | None:
    """A feed row's passage matrix (None when it has none, or no vector to size it)."""
    if blob is None or vec is None:
        return None
    return blob_to_passages(bytes(blob), int(vec.shape[0]))


_FEED_BATCH = 2048  # change-feed rows read per query
_INSERT = (
    f"INSERT INTO memories ({MEMORY_COLUMNS}, seq) "
    f"VALUES ({', '.join(['%s'] * (len(MEMORY_FIELDS) + 1))})"
)
_UPDATE_NEXT_SEQ = (
    "UPDATE memories SET "
    + ", ".join(f"{c} = %s" for c in MEMORY_FIELDS[1:])
    + ", seq = nextval('change_seq') WHERE id = %s"
)
# One row, its change number drawn in the statement, the row as stored handed back.
_INSERT_RETURNING = (
    f"INSERT INTO memories ({MEMORY_COLUMNS}, seq) "
    f"VALUES ({', '.join(['%s'] * len(MEMORY_FIELDS))}, nextval('change_seq')) "
    f"RETURNING {MEMORY_COLUMNS}"
)


class PostgresStore(
    LogTablesMixin,
    JobsTableMixin,
    ReviewTables,
    UsageTables,
    EraseTablesMixin,
    ScopeQueriesMixin,
    KeywordSearchMixin,
    VectorSearchMixin,
    LifecycleScanMixin,
    TranscriptTables,
    ReadingTables,
    KeyTables,
    IdempotencyTables,
):
    _dialect = POSTGRES  # the shared tables' SQL (store/sql/)

    def __init__(
        self,
        url: str,
        *,
        pool_min_size: int = 1,
        pool_max_size: int = 10,
        connect_timeout_s: float = 10.0,
        lock_timeout_ms: int = 30_000,
        read_only: bool = False,
        keyword_scan_max_docs: int = 5000,
        keyword_df_refresh_share: float = 0.1,
    ) -> None:
        self._db = Connections(
            url,
            min_size=pool_min_size,
            max_size=pool_max_size,
            connect_timeout_s=connect_timeout_s,
            lock_timeout_ms=lock_timeout_ms,
            read_only=read_only,
        )
        self.location = self._db.location
        self._scope_stats = ScopeStatsCache(keyword_df_refresh_share, keyword_scan_max_docs)
        self._stemmer = Stemmer()

    # plumbing ---------------------------------------------------------------
    def close(self) -> None:
        self._db.close()

    def close_thread(self) -> None:
        self._db.close_thread()

    def transaction(self) -> AbstractContextManager[None]:
        return self._tx()

    @contextmanager
    def _tx(self) -> Iterator[None]:
        with self._db.transaction():
            yield

    def _q(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        return self._db.query(sql, params)

    def _w(self, sql: str, params: Params = ()) -> int:
        return self._db.write(sql, params)

    def _w_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        return self._db.write_many(sql, rows)

    def _w_unlocked(self, sql: str, params: Params = ()) -> int:
        return self._db.write_unlocked(sql, params)

    def schema_version(self) -> int:
        return self._db.schema_version()

    def _next_seq(self) -> int:
        return self._db.next_seqs(1)[0]

    # memories ---------------------------------------------------------------
    def insert_memories(self, records: Sequence[MemoryRecord]) -> None:
        if not records:
            return
        with self._db.transaction():
            seqs = self._db.next_seqs(len(records))
            rows = [(*memory_params(r), seq) for r, seq in zip(records, seqs, strict=True)]
            self._db.write_many(_INSERT, rows)

    def get_memory(self, memory_id: str) -> MemoryRecord | None:
        rows = self._q(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = %s", (memory_id,))
        return row_to_memory(rows[0]) if rows else None

    def get_memories(self, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        rows = self._q(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ANY(%s)", (wanted,))
        return {r[0]: row_to_memory(r) for r in rows}

    # links_for returns links ordered (created_at, src, dst, kind): engine.changes may
    # derive a change's links after from its edits instead of reading them.
    links_for_sorted = True

    def insert_memory_returning(self, record: MemoryRecord) -> MemoryRecord:
        """``insert_memories([record])`` in one statement; the row as stored."""
        with self._db.transaction():
            return row_to_memory(self._q(_INSERT_RETURNING, memory_params(record))[0])

    def put_memory(self, record: MemoryRecord, *, expected_version: int | None = None) -> None:
        self.put_memory_returning(record, expected_version=expected_version)

    def put_memory_returning(
        self, record: MemoryRecord, *, expected_version: int | None = None
    ) -> MemoryRecord:
        """``put_memory``; the row as stored (RETURNING: no read after the write)."""
        # One statement: the version check is part of the UPDATE's WHERE, and the change
        # number is drawn in it, under the writer lock the transaction holds (as
        # next_seqs would). Only when no row matched is the row read, to say why.
        params = memory_params(record)
        check = "" if expected_version is None else " AND version = %s"
        args = (*params[1:], record.id, *(() if expected_version is None else (expected_version,)))
        with self._db.transaction():
            stored = self._q(f"{_UPDATE_NEXT_SEQ}{check} RETURNING {MEMORY_COLUMNS}", args)
            if stored:
                return row_to_memory(stored[0])
            rows = self._q("SELECT version FROM memories WHERE id = %s", (record.id,))
            if not rows:
                raise NotFound(f"no memory with id {record.id!r}")
            raise ConflictError(
                f"memory {record.id} is at version {rows[0][0]}, expected {expected_version}"
            )

    def delete_memory_row(self, memory_id: str) -> None:
        with self._db.transaction():
            self._w("DELETE FROM readings WHERE memory_id = %s", (memory_id,))
            if self._w("DELETE FROM memories WHERE id = %s", (memory_id,)):
                self._w(
                    "INSERT INTO tombstones (id, seq) VALUES (%s, %s)",
                    (memory_id, self._next_seq()),
                )

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
            clauses.append("scope_key = %s")
            params.append(scope.key())
        if statuses:
            clauses.append("status = ANY(%s)")
            params.append([s.value for s in statuses])
        if areas:
            clauses.append("area = ANY(%s)")
            params.append([a.value for a in areas])
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
        sql = f"SELECT {cols} FROM memories{where_sql} ORDER BY rowid LIMIT %s OFFSET %s"
        return [row_to_memory(r) for r in self._q(sql, [*params, limit, offset])]

    def iter_memories(self, *, batch: int = 1000) -> Iterator[MemoryRecord]:
        last = 0
        while True:
            rows = self._q(
                f"SELECT rowid, {MEMORY_COLUMNS} FROM memories WHERE rowid > %s "
                "ORDER BY rowid LIMIT %s",
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
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE scope_key = %s AND content_hash = %s "
            "ORDER BY rowid",
            (scope.key(), content_hash),
        )
        return [row_to_memory(r) for r in rows]

    def insertion_order(self, ids: Iterable[str]) -> dict[str, int]:
        """Each memory's identity number: increasing with insertion, never changed."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        rows = self._q("SELECT id, rowid FROM memories WHERE id = ANY(%s)", (wanted,))
        return {str(i): int(r) for i, r in rows}

    def record_access(self, ids: Sequence[str], when: datetime) -> None:
        """Count a retrieval. Not a content change: version and seq stay."""
        self.add_accesses([(i, 1, when) for i in ids])

    def add_accesses(self, accesses: Sequence[tuple[str, int, datetime]]) -> None:
        """(id, count, latest time) each: one transaction; version and seq unchanged."""
        if not accesses:
            return
        self._db.write_many(
            "UPDATE memories SET access_count = access_count + %s, last_access_at = "
            "greatest(coalesce(last_access_at, %s), %s) WHERE id = %s",
            [(n, when, when, i) for i, n, when in accesses],
        )

    def set_stabilities(self, values: Sequence[tuple[str, float]]) -> None:
        """(id, stability) each, in one transaction; version and seq unchanged."""
        self._db.write_many(
            "UPDATE memories SET stability = %s WHERE id = %s", [(s, i) for i, s in values]
        )

    def set_expiries(self, values: Sequence[tuple[str, datetime | None]]) -> None:
        """(id, expires_at) each, active memories only, in one transaction; version and
        seq unchanged."""
        self._db.write_many(
            "UPDATE memories SET expires_at = %s WHERE id = %s AND status = 'active'",
            [(t, i) for i, t in values],
        )

    def stats(self) -> JSONDict:
        by_status = {
            str(k): int(v)
            for k, v in self._q("SELECT status, count(*) FROM memories GROUP BY status")
        }
        by_area = {
            str(k): int(v)
            for k, v in self._q(
                "SELECT area, count(*) FROM memories WHERE status = 'active' GROUP BY area"
            )
        }
        return {
            "path": self.location,
            "backend": "postgresql",
            "schema_version": self.schema_version(),
            "memories": sum(by_status.values()),
            "by_status": by_status,
            "active_by_area": by_area,
            "scopes": int(self._q("SELECT count(DISTINCT scope_key) FROM memories")[0][0]),
            "links": int(self._q("SELECT count(*) FROM links")[0][0]),
            "log_entries": int(self._q("SELECT count(*) FROM consolidation_log")[0][0]),
            "jobs_pending": self.count_jobs("pending"),
            "jobs_waiting": self.count_jobs("pending") - self.count_jobs("pending", ready=True),
            "jobs_running": self.count_jobs("running"),
            "embedding_models": self.embedding_models(),
            "file_bytes": int(self._q("SELECT pg_database_size(current_database())")[0][0]),
        }

    # change feed -------------------------------------------------------------
    def max_seq(self) -> int:
        row = self._q(
            "SELECT greatest(coalesce((SELECT max(seq) FROM memories), 0), "
            "coalesce((SELECT max(seq) FROM tombstones), 0))"
        )
        return int(row[0][0])

    def changes_since(self, seq: int) -> Iterator[IndexRow]:
        """Rows written and deleted after ``seq`` in change order, read in batches (one
        query each; every change number is unique, tombstones' too)."""
        last = seq
        while True:
            rows = self._q(
                "SELECT seq, id, scope_key, status, area, embedding, embedding_model, false, "
                "passages FROM memories WHERE seq > %(s)s UNION ALL "
                "SELECT seq, id, '', 'archived', 'main', NULL::vector, NULL, true, NULL::bytea "
                "FROM tombstones WHERE seq > %(s)s ORDER BY 1 LIMIT %(n)s",
                {"s": last, "n": _FEED_BATCH},
            )
            for r in rows:
                yield IndexRow(
                    int(r[0]), r[1], r[2], Status(r[3]), Area(r[4]), r[5], r[6], deleted=r[7],
                    passages=_passages(r[8], r[5]),
                )  # fmt: skip
            if len(rows) < _FEED_BATCH:
                return
            last = int(rows[-1][0])

    def scope_sizes(self) -> dict[str, int]:
        rows = self._q("SELECT scope_key, count(*) FROM memories GROUP BY scope_key")
        return {str(k): int(v) for k, v in rows}

    def index_rows(self, scope_key: str) -> tuple[int, Iterator[IndexRow]]:
        """How many memories one scope holds (any status), and each as the index sees
        it, read in batches."""
        count = self._q("SELECT count(*) FROM memories WHERE scope_key = %s", (scope_key,))
        return int(count[0][0]), self._scope_rows(scope_key)

    def _scope_rows(self, scope_key: str) -> Iterator[IndexRow]:
        last = 0
        while True:
            rows = self._q(
                "SELECT rowid, seq, id, scope_key, status, area, embedding, embedding_model, "
                "passages FROM memories WHERE scope_key = %s AND rowid > %s "
                "ORDER BY rowid LIMIT %s",
                (scope_key, last, _FEED_BATCH),
            )
            for r in rows:
                yield IndexRow(
                    int(r[1]), r[2], r[3], Status(r[4]), Area(r[5]), r[6], r[7],
                    passages=_passages(r[8], r[6]),
                )  # fmt: skip
            if len(rows) < _FEED_BATCH:
                return
            last = int(rows[-1][0])

    def embedding_models(self) -> dict[str, int]:
        rows = self._q(
            "SELECT coalesce(embedding_model, '') || ':' || coalesce(embedding_dim, 0), count(*) "
            "FROM memories GROUP BY embedding_model, embedding_dim"
        )
        return {str(k): int(v) for k, v in rows}
