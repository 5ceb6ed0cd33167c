"""The Store protocol: what the engine needs from a database.

Backends (SQLite now, PostgreSQL + pgvector later) implement it; no SQL or
driver types cross this boundary. Every write method is atomic on its own and
joins the caller's ``transaction()`` when one is open.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

import numpy as np

from memfold.index.bm25 import Bm25Params
from memfold.index.rows import IndexRow
from memfold.model import (
    ApiKey,
    Area,
    Job,
    JSONDict,
    Link,
    LinkKind,
    LogEntry,
    MemoryRecord,
    PairLabel,
    QueueItem,
    ReviewRun,
    Scope,
    Status,
)
from memfold.policy.filters import Filter
from memfold.policy.messages import Message, NewMessage
from memfold.policy.summary_parts import NewSummaryPart, SummaryPart

__all__ = ["DatabaseVectorSearch", "IdempotencyEntry", "IndexRow", "NewLogEntry", "Store"]


@dataclass(slots=True)
class NewLogEntry:
    path: str
    action: str
    input_ids: list[str]
    output_ids: list[str]
    similarity: float | None = None
    confidence: float | None = None
    reasoning: str = ""
    judge: str = ""
    model: str | None = None
    prompt_version: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    before: JSONDict | None = None
    after: JSONDict | None = None
    undoes: int | None = None


@dataclass(frozen=True, slots=True)
class IdempotencyEntry:
    """A stored idempotency key (engine/idempotency.py): ``state`` 'running' (claimed,
    no outcome yet) or 'done' (``status``, ``content_type`` and ``body`` the outcome)."""

    owner: str
    key: str
    fingerprint: str
    claim: str
    state: str
    status: int | None
    content_type: str | None
    body: str | None
    created_at: datetime
    expires_at: datetime


class Store(Protocol):
    location: str

    def close(self) -> None: ...
    def close_thread(self) -> None:
        """Release what the calling thread holds (a helper thread about to end)."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """One atomic unit; nested calls join the outer transaction."""
        ...

    # memories
    def insert_memories(self, records: Sequence[MemoryRecord]) -> None: ...
    def get_memory(self, memory_id: str) -> MemoryRecord | None: ...
    def get_memories(self, ids: Iterable[str]) -> dict[str, MemoryRecord]: ...
    def put_memory(self, record: MemoryRecord, *, expected_version: int | None = None) -> None:
        """Write every field of an existing memory. Raises ConflictError on a version mismatch."""
        ...

    def delete_memory_row(self, memory_id: str) -> None:
        """Hard delete; only undo uses it, for a memory an undone action created."""
        ...

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
        """``where``: a metadata filter (policy/filters.py), applied in the query."""
        ...

    def iter_memories(self, *, batch: int = 1000) -> Iterator[MemoryRecord]: ...
    def count_memories(self, scope: Scope | None = None, status: Status | None = None) -> int: ...
    def find_by_hash(self, scope: Scope, content_hash: str) -> list[MemoryRecord]: ...
    def add_accesses(self, accesses: Sequence[tuple[str, int, datetime]]) -> None:
        """(id, count, latest time) each: access_count += count, last_access_at = the
        later time; one transaction, version and seq unchanged, unknown ids skipped."""
        ...

    def lifecycle_rows(self, statuses: Sequence[Status]) -> list[MemoryRecord]:
        """Memories of ``statuses`` with only what the lifecycle tick decides on (no text,
        sources, metadata or vector: store/lifecycle_scan.py), in insertion order."""
        ...

    def set_stabilities(self, values: Sequence[tuple[str, float]]) -> None:
        """(id, stability) each: the spacing effect of retrievals (engine/access.py); like
        add_accesses, not a content change (version and seq unchanged), unknown ids skipped."""
        ...

    def set_expiries(self, values: Sequence[tuple[str, datetime | None]]) -> None:
        """(id, expires_at) each, in one transaction; version and seq unchanged: an
        expiry pushed back on a read (LangGraph's refresh_on_read), not a content change.
        Only active memories are touched (an expired one stays expired)."""
        ...

    def stats(self) -> JSONDict: ...

    def schema_version(self) -> int:
        """The store's schema version (a cheap read: the service's health check)."""
        ...

    # change feed for in-process indexes
    def max_seq(self) -> int: ...
    def changes_since(self, seq: int) -> Iterator[IndexRow]: ...
    def scope_sizes(self) -> dict[str, int]:
        """Memories per scope key (any status): lets an index allocate once."""
        ...

    def index_rows(self, scope_key: str) -> tuple[int, Iterator[IndexRow]]:
        """How many memories one scope holds (any status) and the index's row of each,
        streamed: an index loads the scopes it is asked about, not the whole store. The
        count sizes the index's matrix; rows written meanwhile may make it off by a few."""
        ...

    def embedding_models(self) -> dict[str, int]: ...

    # keyword search: (id, bm25 rank score; lower is better); ``bm25``: BM25 with the
    # scope's own statistics instead of the backend's table-wide ranking
    def keyword_search(
        self,
        scope: Scope,
        query: str,
        k: int,
        *,
        statuses: Sequence[Status],
        areas: Sequence[Area] | None = None,
        where: Filter | None = None,
        bm25: Bm25Params | None = None,
    ) -> list[tuple[str, float]]: ...

    def keyword_scores(
        self, scope: Scope, query: str, ids: Sequence[str], *, bm25: Bm25Params
    ) -> dict[str, float]:
        """``keyword_search``'s BM25 rank for these memories alone (those holding no
        query word left out)."""
        ...

    # ids, scopes, filtered candidates
    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` memory ids (any status) starting with ``prefix``, sorted."""
        ...

    def scope_counts(
        self,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> list[tuple[str, int, int]]:
        """(scope key, active, total) per scope holding memories; None matches any id."""
        ...

    def active_ids_in(
        self, user_id: str | None, agent_id: str | None, session_id: str | None
    ) -> list[str]:
        """Active memories whose scope has the given ids (None matches any), oldest first."""
        ...

    def matching_ids(
        self,
        scope: Scope,
        *,
        statuses: Sequence[Status],
        areas: Sequence[Area] | None = None,
        where: Filter | None = None,
    ) -> set[str]: ...

    # links
    def add_links(self, links: Sequence[Link]) -> None: ...
    def remove_links(self, links: Sequence[tuple[str, str, LinkKind]]) -> None: ...
    def links_for(self, ids: Iterable[str]) -> list[Link]: ...

    # audit log
    def append_log(self, entry: NewLogEntry) -> int: ...
    def get_log(self, log_id: int) -> LogEntry | None: ...
    def list_log(
        self, *, limit: int = 50, memory_id: str | None = None, since: datetime | None = None
    ) -> list[LogEntry]: ...
    def logs_after_touching(self, log_id: int, memory_ids: Iterable[str]) -> list[LogEntry]: ...
    def mark_log_undone(self, log_id: int, undone_by: int) -> None: ...

    # durable jobs (outbox) with leases: a claim names its owner and holds a lease
    # (Unix seconds) the owner renews; times default to now.
    def enqueue_job(self, memory_id: str, kind: str = "consolidate") -> int: ...
    def claim_jobs(
        self, limit: int, owner: str, *, lease_s: float, now: float | None = None
    ) -> list[Job]:
        """Oldest claimable jobs: pending whose next attempt has come, or running with an
        expired lease. Each claim spends an attempt."""
        ...

    def claim_job(
        self, job_id: int, owner: str, *, lease_s: float, now: float | None = None
    ) -> Job | None:
        """That job if it is claimable, atomically; None if another worker holds or did it."""
        ...

    def renew_leases(self, owner: str, *, lease_s: float, now: float | None = None) -> int: ...
    def finish_job(self, job_id: int, owner: str) -> None:
        """Done. Raises LeaseLost if ``owner`` no longer holds it (rolls back the caller)."""
        ...

    def release_job(
        self, job_id: int, owner: str, error: str | None, *, delay_s: float = 0.0
    ) -> bool:
        """Pending again, claimable after ``delay_s`` (at once by default); the attempt
        stays spent (a crash, a failed pass)."""
        ...

    def defer_job(
        self,
        job_id: int,
        owner: str,
        error: str | None,
        *,
        delay_s: float,
        now: float | None = None,
    ) -> bool:
        """A transient failure: pending, not claimable for ``delay_s``; attempt refunded."""
        ...

    def requeue_conflict(
        self,
        job_id: int,
        owner: str,
        error: str | None,
        *,
        delay_s: float,
        now: float | None = None,
    ) -> bool:
        """A version conflict: pending, not claimable for ``delay_s``; the attempt refunded,
        the job's ``conflicts`` counted up."""
        ...

    def job_owners(self) -> list[str]: ...
    def reclaim_jobs(self, owners: Sequence[str], *, now: float | None = None) -> int:
        """Running jobs of dead ``owners`` or with an expired lease: pending again."""
        ...

    def count_jobs(
        self, status: str = "pending", *, ready: bool = False, now: float | None = None
    ) -> int: ...
    def get_job(self, job_id: int) -> Job | None: ...
    def list_jobs(self, status: str | None = None) -> list[Job]: ...
    def insertion_order(self, ids: Iterable[str]) -> dict[str, int]:
        """Each memory's place in insertion order (increasing; never changes)."""
        ...

    # key/value
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...

    # LLM call accounting
    def record_llm_call(
        self,
        *,
        task: str,
        role: str,
        model: str | None,
        prompt_tokens: int,
        completion_tokens: int,
        latency_ms: float,
        outcome: str,
        error: str | None = None,
        time: datetime | None = None,
    ) -> int: ...
    def tokens_today(self, *, role: str | None = None) -> int: ...
    def llm_usage(self, since: datetime | None = None) -> list[JSONDict]: ...

    # batch review: queue, feedback, runs
    def queue_pairs(
        self, scope_key: str, pairs: Iterable[tuple[str, str, float, int, int]]
    ) -> int: ...
    def queue_items(
        self,
        *,
        statuses: Sequence[str] | None = None,
        scope_key: str | None = None,
        label: PairLabel | None = None,
        ids: Sequence[int] | None = None,
        limit: int | None = None,
    ) -> list[QueueItem]: ...
    def get_queue_item(self, item_id: int) -> QueueItem | None: ...
    def queue_item_for_pair(self, memory_a: str, memory_b: str) -> QueueItem | None: ...
    def reopen_queue_item(
        self, item_id: int, version_a: int, version_b: int, note: str
    ) -> None: ...
    def classify_queue_item(
        self,
        item_id: int,
        label: PairLabel,
        confidence: float,
        reasoning: str,
        run_id: int | None,
    ) -> None: ...
    def set_queue_status(
        self,
        item_id: int,
        status: str,
        *,
        note: str | None = None,
        proposal: JSONDict | None = None,
        run_id: int | None = None,
    ) -> None: ...
    def queue_counts(self) -> JSONDict: ...
    def memories_queued_since(self, scope_key: str, since: datetime) -> tuple[int, int]: ...
    def queue_summary(self, since: datetime) -> JSONDict: ...
    def active_versions(self, scope_key: str) -> dict[str, int]: ...
    def count_review_changes(self, since: datetime, actions: Sequence[str]) -> int: ...
    def add_feedback(self, memory_id: str, kind: str, context: str | None) -> int: ...
    def feedback_total(self, since: datetime | None = None) -> int: ...
    def feedback_counts(
        self, memory_ids: Iterable[str] | None = None
    ) -> dict[str, dict[str, int]]: ...
    def feedback_rules_applied(self, memory_id: str) -> set[str]: ...
    def mark_feedback_applied(self, memory_id: str, rule: str, log_id: int | None) -> None: ...
    def feedback_flagged(self, rule: str) -> list[str]: ...
    def start_review_run(self, scope_key: str | None) -> int: ...
    def finish_review_run(self, run: ReviewRun) -> None: ...
    def list_review_runs(self, since: datetime | None = None) -> list[ReviewRun]: ...

    # readings of memories' texts (store/sql/readings.py): a cache, erased with them
    def put_readings(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """Store (memory id, reading key, words as JSON) rows, replacing earlier ones."""
        ...

    def get_readings(self, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """The stored (reading key, words as JSON) of each of ``ids`` that has one."""
        ...

    # conversations (store/<backend>/transcripts.py): rows only ever inserted
    def append_messages(
        self, session_key: str, messages: Sequence[NewMessage], now: datetime
    ) -> list[Message]:
        """One transaction; a time before the session's last message: InvalidInput."""
        ...

    def messages(
        self, session_key: str, start: int = 0, end: int | None = None
    ) -> list[Message]: ...
    def count_messages(self, session_key: str) -> int: ...
    def append_summary_part(
        self, session_key: str, part: NewSummaryPart, now: datetime
    ) -> SummaryPart: ...
    def summary_parts(self, session_key: str) -> list[SummaryPart]: ...
    def transcript_sessions(self) -> list[str]: ...
    def delete_transcripts(self, session_keys: Sequence[str]) -> int: ...

    # API keys of the service (store/<backend>/keys.py): the secret's hash only
    def insert_api_key(self, key: ApiKey, secret_hash: str) -> None:
        """A new key; an id or hash already stored: InvalidInput."""
        ...

    def api_key_by_hash(self, secret_hash: str) -> ApiKey | None:
        """The key with this hash, revoked or not (the caller checks)."""
        ...

    def list_api_keys(self, *, include_revoked: bool = False) -> list[ApiKey]:
        """Oldest first."""
        ...

    def revoke_api_key(self, key_id: str, at: datetime) -> ApiKey | None:
        """Set revoked_at (kept when already revoked); None: no such key."""
        ...

    # idempotency keys (store/sql/idempotency.py; engine/idempotency.py)
    def claim_idempotency_key(
        self,
        owner: str,
        key: str,
        *,
        fingerprint: str,
        claim: str,
        now: datetime,
        expires_at: datetime,
    ) -> IdempotencyEntry | None:
        """Purge the rows expired at ``now``; then None when the key was free (now
        claimed, 'running', with this token), else its row (nothing written). One
        transaction: of two claims of one key, one wins, in any number of processes."""
        ...

    def finish_idempotency_key(
        self,
        owner: str,
        key: str,
        *,
        claim: str,
        status: int,
        content_type: str | None,
        body: str,
        expires_at: datetime,
    ) -> bool:
        """Store the claim's outcome; False: the claim is no longer held."""
        ...

    def release_idempotency_key(self, owner: str, key: str, *, claim: str) -> bool:
        """Drop a claim whose request did not run; False: no longer held."""
        ...

    def idempotency_entry(self, owner: str, key: str) -> IdempotencyEntry | None:
        """The key's row, expired or not."""
        ...


@runtime_checkable
class Savepoints(Protocol):
    """A store whose transactions nest as savepoints (SQLite): the decisions of a
    consolidation pass may share one transaction, each still atomic on its own."""

    def atomic(self) -> AbstractContextManager[None]:
        """A savepoint inside the thread's transaction (rolled back alone when it
        raises), else a transaction."""
        ...


class WrittenRows(Protocol):
    """A store whose memory writes hand back each row as stored (PostgreSQL, SQLite >=
    3.35: RETURNING), so a logged change need not read its rows again after writing them
    (``engine.changes.commit``, which asks the store's class, not a wrapper's). Same
    checks and atomicity as ``insert_memories`` and ``put_memory``. A class whose
    ``links_for`` orders links by creation time sets ``links_for_sorted = True``: the
    change's links after are then derived from its edits, not read."""

    def insert_memory_returning(self, record: MemoryRecord) -> MemoryRecord: ...

    def put_memory_returning(
        self, record: MemoryRecord, *, expected_version: int | None = None
    ) -> MemoryRecord: ...


@runtime_checkable
class DatabaseVectorSearch(Protocol):
    """A store that finds nearest vectors itself (PostgreSQL: pgvector's HNSW index or
    an exact scan), so a search need not load the scope into the process."""

    def vector_indexes(self) -> dict[int, str]: ...

    def ensure_vector_index(
        self, dim: int, *, m: int = ..., ef_construction: int = ...
    ) -> bool: ...

    def vector_search(
        self,
        scope: Scope,
        query: np.ndarray,
        k: int,
        *,
        statuses: Sequence[Status] = ...,
        areas: Sequence[Area] | None = None,
        model: str | None = None,
        only: Collection[str] | None = None,
        ef_search: int = ...,
        exact_max_rows: int = ...,
    ) -> list[tuple[str, float]]: ...
