"""The facade: ``Memory``. (``AsyncMemory``, the same methods awaitable, is in async_memory.)"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Unpack, overload

import numpy as np

from memfold.config import Settings, default_store_path
from memfold.embed import Embedder, make_embedder
from memfold.embed.calibration import scale_for
from memfold.embed.lazy import LazyEmbedder
from memfold.engine import edits, erase, scopes
from memfold.engine.access import AccessBuffer
from memfold.engine.context import Context
from memfold.engine.conversation import add as conv
from memfold.engine.feedback import feedback as record_feedback
from memfold.engine.idempotency import add_once
from memfold.engine.ingest import NewMemory, build_records, store_claimed, store_records
from memfold.engine.lease import current_owner, reclaim_dead
from memfold.engine.lifecycle.expiry import add_warnings
from memfold.engine.review.api import Review
from memfold.engine.undo import undo as undo_change
from memfold.engine.worker import BackgroundWorker, TickSchedule, decide_now, drain
from memfold.errors import InvalidInput
from memfold.index.vector_index import VectorIndex
from memfold.judge.base import Judge
from memfold.judge.select import make_judge
from memfold.memory_input import new_memory
from memfold.memory_links import LinkMethods
from memfold.memory_maintenance import MaintenanceMethods
from memfold.model import AddResult, Area, Category, ConsolidateMode, LogEntry, MemoryRecord
from memfold.policy.validate import (
    clean_enum,
    clean_int,
    clean_metadata,
    clean_path,
    clean_string,
    clean_text,
    clean_timeout,
    clean_unit,
)
from memfold.store.select import BackendStore, file_read_only, open_postgres, postgres_url
from memfold.store.sqlite import SQLiteStore

log = logging.getLogger(__name__)


# Aliases: inside the classes below, ``list`` names the method, not the builtin.
# (_Records, _Hits, _Logs, _Scopes: in memory_read, with the reading methods.)
_Results = list[AddResult]
_Ints = list[int]


class Memory(LinkMethods, MaintenanceMethods):
    """A memory store that consolidates itself on every save (reading methods: get,
    search, list, list_scopes, history, log are in memory_read.ReadMethods; stats,
    usage, export, import_, reembed, tick, rehydrate, build_vector_index in
    memory_maintenance.MaintenanceMethods; links, export_graph in
    memory_links.LinkMethods).

    ``path``: the SQLite file (argument, else ``MEMFOLD_PATH``, else the user
    data dir). ``url``: a PostgreSQL store instead, "postgresql://..." (argument, else
    ``MEMFOLD_URL``; ``memfold[postgres]``; memfold.store.select). ``consolidate``:
    "background" (default: a worker thread decides
    after ``add`` returns), "sync" (``add`` decides and returns the decision),
    "queue" (``add`` only queues; a separate ``memfold worker`` process decides)
    or "off" (store only). ``read_only``: open the file with SQLite's ``mode=ro`` (a url:
    read-only PostgreSQL transactions): no migration, no worker, no access counting,
    every write raises ReadOnlyStore; None (default) opens a file without write
    permission read-only and any other file, and any url, writable.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        judge: Judge | None = None,
        consolidate: str | None = None,
        read_only: bool | None = None,
        url: str | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.url = postgres_url(path, url, self.settings)
        location = clean_path(path) if path is not None else self.settings.store.path
        self.path = (location or default_store_path()).expanduser()  # unused with a url
        mode = consolidate or self.settings.consolidation.mode
        self.mode = clean_enum(mode, ConsolidateMode, "consolidate")
        # a url: read-only only when asked (no file permission to go by)
        self.read_only = bool(read_only) if self.url else file_read_only(self.path, read_only)
        self.store: BackendStore = (
            open_postgres(self.url, self.settings, read_only=self.read_only)
            if self.url
            else SQLiteStore(
                self.path,
                busy_timeout_ms=self.settings.store.busy_timeout_ms,
                busy_retries=self.settings.store.busy_retries,
                busy_retry_wait_ms=self.settings.store.busy_retry_wait_ms,
                busy_retry_max_wait_ms=self.settings.store.busy_retry_max_wait_ms,
                keyword_max_df_share=self.settings.search.keyword_max_df_share,
                keyword_df_refresh_share=self.settings.search.keyword_df_refresh_share,
                keyword_prune_min_docs=self.settings.search.keyword_prune_min_docs,
                keyword_scan_max_docs=self.settings.search.keyword_scan_max_docs,
                keyword_rank_cache_queries=self.settings.search.keyword_rank_cache_queries,
                keyword_rank_cache_depth=self.settings.search.keyword_rank_cache_depth,
                create_parent=location is None,  # only the default folder is created
                read_only=self.read_only,
            )
        )
        # Built on first use: reading commands (get, list, log, stats) load no model.
        embedder = embedder or LazyEmbedder(self.settings.embed, make_embedder)
        self.ctx = Context(
            store=self.store,
            index=VectorIndex(
                embedder.model_id,
                embedder.dim,
                source=self.store,
                budget_bytes=self.settings.search.index_budget_mb * 2**20,
            ),
            embedder=embedder,
            settings=self.settings,
        )
        scale = scale_for(embedder.model_id)
        self.judge: Judge = judge or make_judge(self.settings, usage_sink=self.store, scale=scale)
        self._worker: BackgroundWorker | None = None
        # Seed 004's tick every lifecycle.tick_every_adds saves, where no worker counts
        # them: sync adds and the saves flush() decides (the background worker and
        # `memfold worker` keep their own schedule).
        self._ticks: TickSchedule | None = None
        if self.read_only:  # reads only: no job is reclaimed or run, no access counted
            return
        cfg = self.settings.store
        self.ctx.accesses = AccessBuffer(
            self.store,
            flush_count=cfg.access_flush_count,
            flush_age_s=cfg.access_flush_age_s,
            spacing=self.settings.lifecycle,
        )
        reclaim_dead(self.store)  # jobs a killed process left running are claimable now
        if self.mode is ConsolidateMode.BACKGROUND:
            self._worker = BackgroundWorker(self.ctx, self.judge)
        elif self.mode is not ConsolidateMode.OFF:
            self._ticks = TickSchedule(self.ctx, self.judge)

    # lifecycle ----------------------------------------------------------------
    def close(self) -> None:
        """Stop the worker, write the access counts still buffered, close the file."""
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        if self.ctx.accesses is not None:
            self.ctx.accesses.close()
            self.ctx.accesses = None
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # input ------------------------------------------------------------------
    def _new(self, text: object, **kw: Any) -> NewMemory:
        scope = self._scope(kw.get("user_id"), kw.get("agent_id"), kw.get("session_id"))
        return new_memory(self.settings, scope, text, kw)

    # writing ----------------------------------------------------------------
    @overload
    def add(self, text: str, **kw: Unpack[conv.AddOptions]) -> AddResult: ...
    @overload
    def add(
        self, *, messages: object, infer: bool = True, **kw: Unpack[conv.MessagesOptions]
    ) -> conv.MessagesAddResult: ...
    def add(
        self,
        text: str | None = None,
        *,
        messages: object = None,
        infer: bool = True,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        area: str | Area = Area.MAIN,
        category: str | Category | None = None,
        importance: float = 0.5,
        sources: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        embedding: Sequence[float] | None = None,
        created_at: datetime | str | None = None,
        expires_at: datetime | str | None = None,
        ttl: timedelta | float | None = None,
        idempotency_key: str | None = None,
    ) -> AddResult | conv.MessagesAddResult:
        """Store one memory; consolidation follows per the mode (see class doc). No
        ``category``: assigned by rules, then by the LLM judge's reply if one judges the
        save (``category_source``). ``expires_at``/``ttl`` (or the area's default):
        a tick marks it expired then; already past, it is stored expired (``warnings``).
        ``messages=[{"role": ..., "content": ...}]`` instead of a text: mem0's call
        (engine/conversation/add.py; README "mem0-compatible add").
        ``idempotency_key``: an add retried with the same key in the same scope returns
        the first one's result (``replayed``) instead of adding again, for
        ``server.idempotency_ttl_s`` (engine/idempotency.py)."""
        if idempotency_key is not None:
            args: dict[str, Any] = {"text": text, "messages": messages, "infer": infer}
            args.update(user_id=user_id, agent_id=agent_id, session_id=session_id, area=area)
            args.update(category=category, importance=importance, sources=sources)
            args.update(metadata=metadata, embedding=embedding, created_at=created_at)
            args.update(expires_at=expires_at, ttl=ttl)
            again: Callable[..., AddResult | conv.MessagesAddResult] = self.add
            scope = self._scope(user_id, agent_id, session_id)
            return add_once(self.ctx, scope, idempotency_key, args, lambda: again(**args))
        if messages is not None:
            kw: dict[str, Any] = {"area": area, "sources": sources, "embedding": embedding}
            kw.update(metadata=metadata, created_at=created_at, expires_at=expires_at, ttl=ttl)
            kw.update(category=category, importance=importance)
            scope = self._scope(user_id, agent_id, session_id)
            run = (self.ctx, self.judge, self.add, text, messages)
            return conv.add_messages(*run, infer=infer, scope=scope, options=kw)
        item = self._new(
            text,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            area=area,
            category=category,
            importance=importance,
            sources=sources,
            metadata=metadata,
            embedding=embedding,
            created_at=created_at,
            expires_at=expires_at,
            ttl=ttl,
        )
        (record,) = build_records(self.ctx, [item])
        warnings = add_warnings(record)
        if self.mode is ConsolidateMode.SYNC:
            # Stored with its job already claimed by this thread: no concurrent worker
            # can take it, so the decision applies once, here.
            job = store_claimed(self.ctx, record, current_owner())
            result = AddResult(record, job_id=job.id, warnings=warnings)
            outcome = decide_now(self.ctx, self.judge, job)
            result.decision, result.log_id = outcome.decision, outcome.log_id
            self._decided(1)
            result.memory = self.get(record.id)
            return result
        enqueue = self.mode is not ConsolidateMode.OFF
        job_ids = store_records(self.ctx, [record], enqueue=enqueue)
        result = AddResult(record, job_id=job_ids[0] if job_ids else None, warnings=warnings)
        if self._worker is not None:
            self._worker.notify(adds=1)
        return result

    def add_many(
        self,
        items: Iterable[Mapping[str, Any]],
        *,
        embeddings: Sequence[Sequence[float]] | np.ndarray | None = None,
        consolidate: bool = True,
    ) -> _Results:
        """Store many memories in one transaction. Each item takes ``add``'s keywords
        (``text`` required); ``embeddings`` optionally gives precomputed vectors;
        ``consolidate=False`` stores them unjudged whatever the mode (keyed items)."""
        batch: list[NewMemory] = []
        for n, raw in enumerate(items):
            if not isinstance(raw, Mapping):
                raise InvalidInput(f"item {n} must be a mapping with a 'text' key")
            unknown = set(raw) - _ADD_KEYS
            if unknown:
                raise InvalidInput(f"item {n} has unknown keys: {', '.join(sorted(unknown))}")
            kw = dict(raw)
            try:
                batch.append(self._new(kw.pop("text", None), **kw))
            except InvalidInput as exc:
                raise InvalidInput(f"item {n}: {exc}") from None
        if embeddings is not None:
            if len(embeddings) != len(batch):
                raise InvalidInput(f"{len(embeddings)} embeddings for {len(batch)} items")
            for item, vec in zip(batch, embeddings, strict=True):
                item.embedding = vec  # checked in build_records
        records = build_records(self.ctx, batch)
        enqueue = consolidate and self.mode is not ConsolidateMode.OFF
        job_ids = store_records(self.ctx, records, enqueue=enqueue)
        results = [
            AddResult(r, job_id=job_ids[i] if job_ids else None, warnings=add_warnings(r))
            for i, r in enumerate(records)
        ]
        if enqueue and self.mode is ConsolidateMode.SYNC:
            self.flush()
        elif self._worker is not None:
            self._worker.notify(adds=len(records))
        return results

    def update(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        area: str | Area | None = None,
        importance: float | None = None,
        metadata: Mapping[str, Any] | None = None,
        reason: str = "",
    ) -> MemoryRecord:
        """Manual edit: version + 1, re-embedded if the text changed, logged."""
        cfg = self.settings.store
        depth, size = cfg.max_metadata_depth, cfg.max_metadata_bytes
        record, _ = edits.update(
            self.ctx,
            self._resolve_id(memory_id),
            text=None if text is None else clean_text(text, max_chars=cfg.max_text_chars),
            area=None if area is None else clean_enum(area, Area, "area"),
            importance=None if importance is None else clean_unit(importance, "importance"),
            metadata=None
            if metadata is None
            else clean_metadata(metadata, max_depth=depth, max_bytes=size),
            reason=clean_string(reason, "reason"),
        )
        return record

    def delete(self, memory_id: str, *, reason: str = "") -> MemoryRecord:
        """Soft delete: status archived, logged, still returned by ``get``."""
        why = clean_string(reason, "reason")
        record, _ = edits.soft_delete(self.ctx, self._resolve_id(memory_id), reason=why)
        return record

    def delete_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        reason: str = "",
    ) -> scopes.DeleteAllResult:
        """Soft delete of every active memory whose scope has the given ids (None matches
        any; at least one is required): archived in one transaction, logged as ARCHIVE_ALL
        entries (one per ``store.delete_all_batch`` memories); ``undo`` of each entry
        restores its memories. Returns the ids archived and those log ids."""
        why = clean_string(reason, "reason")
        return scopes.delete_all(
            self.ctx, user_id=user_id, agent_id=agent_id, session_id=session_id, reason=why
        )

    def forget(
        self,
        memory_id: str | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        vacuum: bool = False,
        dry_run: bool = False,
    ) -> erase.ForgetReport:
        """Hard erasure of one memory, or of every memory of a scope (ids left None match
        any): text, vector, keyword rows, log snapshots, queue pairs, jobs, links and
        feedback go; a tombstone (id, scope, time) stays. Memories holding its words are
        erased too, what it superseded comes back. A scope's conversations (transcripts
        and summaries) go with it. Not undoable. See engine/erase.py.
        ``dry_run``: the report of what would happen, nothing changed."""
        ids = erase.targets(
            self.ctx,
            None if memory_id is None else self._resolve_id(memory_id),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
        )
        scope = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        sessions = erase.scope_sessions(self.ctx, **scope) if memory_id is None else []
        return erase.forget(
            self.ctx, ids, vacuum=bool(vacuum), dry_run=bool(dry_run), sessions=sessions
        )

    def undo(
        self,
        log_id: int,
        *,
        cascade: bool = False,
        may_undo: Callable[[LogEntry], bool] | None = None,
    ) -> _Ints:
        """Restore the state before log row ``log_id``; returns the undo log ids.

        Refused (``UndoRefused``) when later changes built on it, unless ``cascade``,
        which undoes those first, all in one transaction. ``may_undo``: the rows the
        caller may undo (the service passes its key's scope); a cascade that would reach
        another row is refused whole and does not name it."""
        log_id = clean_int(log_id, "log_id", minimum=1)
        return undo_change(self.ctx, log_id, cascade=bool(cascade), may_undo=may_undo)

    @property
    def review(self) -> Review:
        """Batch review: scan, classify, P90 gate, five-step merge, breaker, report."""
        return Review(self.ctx, self.judge)

    def feedback(self, memory_id: str, kind: str, context: str | None = None) -> _Ints:
        """Record recall feedback: used | ignored | contradicted | miss. Returns the log ids
        of importance changes it caused (none until the cold start is passed)."""
        return record_feedback(self.ctx, self._resolve_id(memory_id), kind, context)

    def flush(self, timeout: float | None = None) -> int:
        """Finish pending consolidation work now; returns the jobs finished here. Jobs
        backing off after a transient failure are not waited for: they stay pending until
        their next-attempt time (``stats()["jobs_waiting"]`` counts them). Also writes
        the buffered access counts of searches (kept for later if the file is busy).
        Read-only: does nothing."""
        timeout = clean_timeout(timeout)
        if self.ctx.accesses is not None:
            self.ctx.accesses.flush()
        if self.mode is ConsolidateMode.OFF or self.read_only:
            return 0
        handled = drain(self.ctx, self.judge)
        self._decided(handled)
        if self._worker is not None:
            self._worker.wait_idle(timeout)
        waiting = self.store.count_jobs("pending") - self.store.count_jobs("pending", ready=True)
        if waiting:
            log.info("flush: %d jobs wait to retry after a transient failure", waiting)
        return handled

    def _decided(self, saves: int) -> None:
        """Count saves decided in this thread; the lifecycle tick runs when due."""
        if self._ticks is not None and saves:
            self._ticks.added(saves)
            self._ticks.maybe_tick()


_ADD_KEYS = {"text", *conv.AddOptions.__annotations__}
