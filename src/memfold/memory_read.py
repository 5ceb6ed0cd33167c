"""The reading half of ``Memory``: get, search, list, list_scopes, history, log.

A mixin so memory.py stays one screen of writing methods; ``Memory`` inherits it and
``AsyncMemory`` forwards to it. Also the two input helpers every method uses: the
scope of the id keywords, and ``_resolve_id`` (a full id or a unique prefix).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memfold.config import Settings
from memfold.engine import scopes
from memfold.engine.context import Context
from memfold.engine.ids import resolve_id
from memfold.engine.search import SearchMode, search
from memfold.errors import InvalidInput, NotFound
from memfold.model import Area, LogEntry, MemoryRecord, Scope, SearchHit, Status
from memfold.policy import filters as metadata_filters
from memfold.policy.validate import clean_enum, clean_int, clean_k, clean_scope, clean_text
from memfold.store.select import BackendStore

# Aliases: inside the classes, ``list`` names the method, not the builtin.
_Records = list[MemoryRecord]
_Hits = list[SearchHit]
_Logs = list[LogEntry]
_Scopes = list[scopes.ScopeInfo]


class ReadMethods:
    settings: Settings
    store: BackendStore
    ctx: Context

    # input ------------------------------------------------------------------
    def _scope(self, user_id: object, agent_id: object, session_id: object) -> Scope:
        return clean_scope(
            user_id, agent_id, session_id, default_user_id=self.settings.store.default_user_id
        )

    def _resolve_id(self, memory_id: object) -> str:
        """The full id of a memory given by id or by a unique prefix of at least
        ``store.id_prefix_min_chars`` characters. InvalidInput: too short or ambiguous
        (naming the matches); NotFound: no such memory."""
        return resolve_id(self.store, memory_id, min_chars=self.settings.store.id_prefix_min_chars)

    def _filters(self, filters: object) -> metadata_filters.Filter | None:
        cap = self.settings.search.filter_max_terms
        return metadata_filters.parse(filters, max_terms=cap)

    # reading ----------------------------------------------------------------
    def get(self, memory_id: str) -> MemoryRecord:
        """Any memory by id (or unique id prefix), whatever its status. Its access_count
        and last_access_at include this process's searches not yet written."""
        full = self._resolve_id(memory_id)
        record = self.store.get_memory(full)
        if record is None:  # erased since it was resolved
            raise NotFound(f"no memory with id {full!r}")
        if self.ctx.accesses is not None:
            record = self.ctx.accesses.overlay(record)
        return record

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        k: int | None = None,
        area: str | Area | Sequence[str | Area] | None = None,
        deep: bool = False,
        mode: SearchMode = "hybrid",
        filters: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        offset: int = 0,
    ) -> _Hits:
        """Hybrid (vector + keyword, fused) search in one scope. ``deep`` includes
        superseded, archived and expired memories and the cold tier. ``filters``:
        metadata filter (see README), applied before ranking. ``threshold``: drop hits
        whose cosine similarity to the query (``vector_score``, -1..1) is below it; not
        for mode="keyword".
        ``offset``: skip that many hits of the ranking (pages of ``k``)."""
        text = clean_text(query, max_chars=self.settings.store.max_text_chars, what="query")
        if mode not in ("hybrid", "vector", "keyword"):
            raise InvalidInput(f"mode must be hybrid, vector or keyword; got {mode!r}")
        cfg = self.settings.search
        return search(
            self.ctx,
            text,
            self._scope(user_id, agent_id, session_id),
            k=clean_k(k if k is not None else cfg.default_k),
            areas=_areas(area),
            deep=bool(deep),
            mode=mode,
            where=self._filters(filters),
            threshold=_threshold(threshold, mode),
            offset=_offset(offset, cfg.max_offset),
        )

    def list(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        status: str | Status | None = Status.ACTIVE,
        area: str | Area | Sequence[str | Area] | None = None,
        limit: int | None = 100,
        offset: int = 0,
        filters: Mapping[str, Any] | None = None,
    ) -> _Records:
        """Memories of one scope (``status=None`` or ``"all"``: every status, as the CLI
        and REST say it), oldest first; ``filters``: metadata filter (see README).
        ``limit``: at most that many (1 or more; None: all), after skipping ``offset``."""
        every = status is None or status == _ALL_STATUSES
        statuses = None if every else [clean_enum(status, Status, "status")]
        return self.store.list_memories(
            self._scope(user_id, agent_id, session_id),
            statuses=statuses,
            areas=_areas(area),
            limit=None if limit is None else clean_int(limit, "limit", minimum=1),
            offset=clean_int(offset, "offset"),
            where=self._filters(filters),
        )

    def list_scopes(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> _Scopes:
        """Every scope holding memories, with its active and total counts; the ids given
        narrow it (None matches any), ordered by user, agent, session."""
        return scopes.list_scopes(
            self.ctx, user_id=user_id, agent_id=agent_id, session_id=session_id
        )

    def history(self, memory_id: str) -> _Logs:
        """Every log row that touched this memory, oldest first."""
        record = self.get(memory_id)
        return list(reversed(self.store.list_log(limit=1_000_000, memory_id=record.id)))

    def log(self, limit: int = 50) -> _Logs:
        """The newest log rows first."""
        return self.store.list_log(limit=clean_int(limit, "limit", minimum=1, maximum=1_000_000))


_ALL_STATUSES = "all"


def _areas(area: str | Area | Sequence[str | Area] | None) -> list[Area] | None:
    if area is None:
        return None
    if isinstance(area, str):
        values: list[object] = [area]
    elif isinstance(area, Iterable):
        values = list(area)
    else:
        raise InvalidInput(f"area must be a string or a list of strings, got {type(area).__name__}")
    return [clean_enum(a, Area, "area") for a in values]


def _threshold(value: object, mode: str) -> float | None:
    if value is None:
        return None
    if mode == "keyword":
        raise InvalidInput("threshold is a cosine similarity; mode='keyword' computes none")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"threshold must be a number, got {type(value).__name__}")
    number = float(value)
    if not -1.0 <= number <= 1.0:  # NaN fails too
        raise InvalidInput(f"threshold must be between -1 and 1 (a cosine), got {value!r}")
    return number


def _offset(value: object, maximum: int) -> int:
    return clean_int(value, "offset", maximum=maximum)
