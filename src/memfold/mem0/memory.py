"""``memfold.mem0.Memory``: mem0's OSS ``Memory`` (2.x) on memfold, the import changed
only.

    from memfold.mem0 import Memory   # was: from mem0 import Memory

    m = Memory()
    m.add([{"role": "user", "content": "I'm vegetarian"}], user_id="alex")
    m.search("what does alex eat?", filters={"user_id": "alex"}, top_k=3)

mem0's argument names, defaults and return shapes; under them memfold consolidates
every save (decided before ``add`` returns, as mem0 does) and keeps every change
undoable. An argument memfold has no meaning for raises ``InvalidInput`` (a
ValueError, as mem0 raises) naming it; docs/mem0.md lists them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memfold.config import Settings
from memfold.errors import InvalidInput, NotFound
from memfold.mem0 import calls, shapes
from memfold.mem0 import config as mem0_config
from memfold.mem0 import filters as mem0_filters
from memfold.memory import Memory as MemfoldMemory
from memfold.model import JSONDict, MemoryRecord, Scope
from memfold.policy.validate import clean_scope

_UNSET: Any = object()


class Memory:
    """mem0's ``Memory`` over a memfold store. ``path``/``url``/``settings`` as for
    ``memfold.Memory``; ``memory``: an open ``memfold.Memory`` to use instead. Saves are
    consolidated before ``add`` returns (``consolidate="sync"``) so ``add`` reports
    mem0's events; ``consolidate="background"`` returns sooner, every event ADD."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        url: str | None = None,
        settings: Settings | None = None,
        consolidate: str = "sync",
        memory: MemfoldMemory | None = None,
    ) -> None:
        if memory is None:
            memory = MemfoldMemory(path, url=url, settings=settings, consolidate=consolidate)
        self.memory = memory

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any]) -> Memory:
        """mem0's config dict, for the parts that map (memfold.mem0.config): an
        OpenAI-compatible ``llm`` and ``embedder``, a ``pgvector`` store, ``path``."""
        mapped = mem0_config.read(config_dict)
        return cls(mapped.path, url=mapped.url, settings=Settings(**mapped.settings))

    # lifecycle ----------------------------------------------------------------
    def close(self) -> None:
        self.memory.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # mem0's calls ---------------------------------------------------------------
    def add(
        self,
        messages: object,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
        timestamp: object = None,
        expiration_date: str | None = None,
    ) -> JSONDict:
        """``{"results": [{"id", "memory", "event"}]}``; one of the ids is required."""
        _refuse(memory_type=memory_type, prompt=prompt, timestamp=timestamp)
        ids = mem0_filters.Ids(
            mem0_filters.entity_id(user_id, "user_id"),
            mem0_filters.entity_id(agent_id, "agent_id"),
            mem0_filters.entity_id(run_id, "run_id"),
        )
        scope = self._scope(ids)
        meta = _without_ids(metadata)
        return calls.add(
            self.memory, scope, messages, metadata=meta, infer=infer, expires_at=expiration_date
        )

    def search(
        self,
        query: str,
        *,
        top_k: int = calls.DEFAULT_TOP_K,
        filters: Mapping[str, Any] | None = None,
        threshold: float = 0.1,
        rerank: bool = False,
        explain: bool = False,
        reference_date: object = None,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> JSONDict:
        """``{"results": [item with score, ...]}`` of the scope ``filters`` names."""
        _no_top_level_ids(kwargs, "search")
        _refuse(rerank=rerank or None, explain=explain or None, reference_date=reference_date)
        ids, where = mem0_filters.split(filters)
        return calls.search(
            self.memory,
            self._scope(ids),
            query,
            where=where,
            top_k=top_k,
            threshold=threshold,
            show_expired=bool(show_expired),
        )

    def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None = None,
        top_k: int = calls.DEFAULT_TOP_K,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> JSONDict:
        """``{"results": [item, ...]}``: the scope's memories, oldest first."""
        _no_top_level_ids(kwargs, "get_all")
        ids, where = mem0_filters.split(filters)
        found = calls.get_all(
            self.memory, self._scope(ids), where=where, top_k=top_k, show_expired=show_expired
        )
        return {"results": found}

    def get(self, memory_id: str) -> JSONDict | None:
        """The memory, or None when there is none (or it was deleted or merged away)."""
        record = self._find(memory_id)
        return None if record is None else shapes.item(record)

    def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
    ) -> JSONDict:
        """A new text (``data``: mem0's older name for it) and/or metadata."""
        if expiration_date is not _UNSET:
            _refuse(expiration_date=expiration_date or "None")
        record = self._existing(memory_id)
        calls.update(
            self.memory, record, text=text if text is not None else data, metadata=metadata
        )
        return dict(shapes.UPDATED)

    def delete(self, memory_id: str) -> JSONDict:
        """Archived (memfold: ``undo`` brings it back); gone for mem0's calls."""
        record = self._existing(memory_id)
        self.memory.delete(record.id, reason="mem0 delete")
        return dict(shapes.DELETED)

    def delete_all(
        self,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> JSONDict:
        """Archive every memory of the scope (an id left out matches any); one id at
        least (``reset`` erases everything)."""
        ids = mem0_filters.Ids(
            mem0_filters.entity_id(user_id, "user_id"),
            mem0_filters.entity_id(agent_id, "agent_id"),
            mem0_filters.entity_id(run_id, "run_id"),
        )
        if not ids.any:
            raise InvalidInput(
                "at least one of user_id, agent_id, run_id is required to delete all "
                "memories; reset() erases everything"
            )
        self.memory.delete_all(
            user_id=ids.user_id, agent_id=ids.agent_id, session_id=ids.run_id, reason="mem0"
        )
        return dict(shapes.ALL_DELETED)

    def history(self, memory_id: str) -> list[JSONDict]:
        """mem0's rows (ADD, UPDATE, DELETE with the text before and after), oldest
        first; ``memfold.Memory.history`` has memfold's whole log rows."""
        record = self._find(memory_id, served_only=False)
        return [] if record is None else calls.history(self.memory, record)

    def reset(self) -> None:
        """Erase every memory of every scope, for good (memfold's ``forget``: not
        undoable, as mem0's reset)."""
        for scope in self.memory.list_scopes():
            try:
                self.memory.forget(
                    user_id=scope.user_id, agent_id=scope.agent_id, session_id=scope.session_id
                )
            except NotFound:  # erased already with a wider scope (None matches any)
                continue

    # helpers ------------------------------------------------------------------
    def _scope(self, ids: mem0_filters.Ids) -> Scope:
        if not ids.any:
            raise InvalidInput("at least one of 'user_id', 'agent_id', or 'run_id' must be given")
        default = self.memory.settings.store.default_user_id
        return clean_scope(ids.user_id, ids.agent_id, ids.run_id, default_user_id=default)

    def _find(self, memory_id: object, *, served_only: bool = True) -> MemoryRecord | None:
        if not isinstance(memory_id, str):
            raise InvalidInput(f"memory_id must be a string, got {type(memory_id).__name__}")
        try:
            record = self.memory.get(memory_id)
        except NotFound:
            return None
        if served_only and not shapes.served(record, show_expired=True):
            return None
        return record

    def _existing(self, memory_id: object) -> MemoryRecord:
        record = self._find(memory_id)
        if record is None:
            raise InvalidInput(f"Memory with id {memory_id} not found")
        return record


def _refuse(**given: object) -> None:
    for name, value in given.items():
        if value is not None:
            raise InvalidInput(f"{name}: mem0's argument has no memfold equivalent (docs/mem0.md)")


def _no_top_level_ids(kwargs: Mapping[str, Any], method: str) -> None:
    ids = [k for k in kwargs if k in mem0_filters.ID_KEYS]
    if ids:
        raise InvalidInput(
            f"{method}() takes {', '.join(ids)} inside filters, as mem0 2.x does: "
            f"filters={{'{ids[0]}': ...}}"
        )
    if kwargs:
        raise InvalidInput(f"{method}() got unknown arguments: {', '.join(sorted(kwargs))}")


def _without_ids(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """mem0 drops id keys from metadata (the scope comes from the ids alone)."""
    if metadata is None:
        return None
    if not isinstance(metadata, Mapping):
        raise InvalidInput(f"metadata must be a dict, got {type(metadata).__name__}")
    return {k: v for k, v in metadata.items() if k not in (*mem0_filters.ID_KEYS, "actor_id")}
