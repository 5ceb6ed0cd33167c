"""``AsyncMemory``: the ``Memory`` methods as coroutines, each run in a worker thread."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Unpack, overload

from memfold.async_conversation import AsyncConversation
from memfold.async_review import AsyncReview
from memfold.engine import transfer
from memfold.engine.conversation import add as conv
from memfold.engine.erase import ForgetReport
from memfold.engine.lifecycle.rehydrate import Rehydrated
from memfold.engine.lifecycle.tick import TickReport
from memfold.engine.links_read import Neighbourhood
from memfold.engine.scopes import DeleteAllResult
from memfold.engine.vector_index_build import VectorIndexBuilt
from memfold.memory import Memory, _Ints, _Results
from memfold.memory_maintenance import _Dicts
from memfold.memory_read import _Hits, _Logs, _Records, _Scopes
from memfold.model import AddResult, JSONDict, MemoryRecord


class AsyncMemory:
    """``Memory`` for asyncio code: the same methods, run in a worker thread."""

    def __init__(self, path: str | Path | None = None, **kwargs: Any) -> None:
        self.sync = Memory(path, **kwargs)

    async def _run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(fn, *args, **kwargs)

    @overload
    async def add(self, text: str, **kwargs: Unpack[conv.AddOptions]) -> AddResult: ...
    @overload
    async def add(
        self, *, messages: object, infer: bool = True, **kwargs: Unpack[conv.MessagesOptions]
    ) -> conv.MessagesAddResult: ...
    async def add(
        self, text: str | None = None, **kwargs: Any
    ) -> AddResult | conv.MessagesAddResult:
        """``Memory.add``: a text, or mem0's ``messages=[...]`` (README "mem0-compatible add")."""
        result: AddResult | conv.MessagesAddResult = await self._run(self.sync.add, text, **kwargs)
        return result

    async def add_many(self, items: Iterable[Mapping[str, Any]], **kw: Any) -> _Results:
        result: _Results = await self._run(self.sync.add_many, list(items), **kw)
        return result

    async def get(self, memory_id: str) -> MemoryRecord:
        result: MemoryRecord = await self._run(self.sync.get, memory_id)
        return result

    async def search(self, query: str, **kwargs: Any) -> _Hits:
        result: _Hits = await self._run(self.sync.search, query, **kwargs)
        return result

    async def list(self, **kwargs: Any) -> _Records:
        result: _Records = await self._run(self.sync.list, **kwargs)
        return result

    async def list_scopes(self, **kwargs: Any) -> _Scopes:
        result: _Scopes = await self._run(self.sync.list_scopes, **kwargs)
        return result

    async def update(self, memory_id: str, **kwargs: Any) -> MemoryRecord:
        result: MemoryRecord = await self._run(self.sync.update, memory_id, **kwargs)
        return result

    async def delete(self, memory_id: str, **kwargs: Any) -> MemoryRecord:
        result: MemoryRecord = await self._run(self.sync.delete, memory_id, **kwargs)
        return result

    async def delete_all(self, **kwargs: Any) -> DeleteAllResult:
        result: DeleteAllResult = await self._run(self.sync.delete_all, **kwargs)
        return result

    async def forget(self, memory_id: str | None = None, **kwargs: Any) -> ForgetReport:
        result: ForgetReport = await self._run(self.sync.forget, memory_id, **kwargs)
        return result

    async def undo(self, log_id: int, **kwargs: Any) -> _Ints:
        result: _Ints = await self._run(self.sync.undo, log_id, **kwargs)
        return result

    async def tick(self, now: datetime | None = None) -> TickReport:
        result: TickReport = await self._run(self.sync.tick, now)
        return result

    async def rehydrate(self, memory_id: str) -> Rehydrated:
        result: Rehydrated = await self._run(self.sync.rehydrate, memory_id)
        return result

    @property
    def review(self) -> AsyncReview:
        """Batch review as coroutines: ``await mem.review.run(user_id=...)`` and so on."""
        return AsyncReview(self.sync.review)

    async def feedback(self, memory_id: str, kind: str, context: str | None = None) -> _Ints:
        result: _Ints = await self._run(self.sync.feedback, memory_id, kind, context)
        return result

    async def flush(self, timeout: float | None = None) -> int:
        result: int = await self._run(self.sync.flush, timeout)
        return result

    async def links(self, memory_id: str, **kwargs: Any) -> Neighbourhood:
        result: Neighbourhood = await self._run(self.sync.links, memory_id, **kwargs)
        return result

    async def export_graph(self, **kwargs: Any) -> str:
        result: str = await self._run(self.sync.export_graph, **kwargs)
        return result

    async def history(self, memory_id: str) -> _Logs:
        result: _Logs = await self._run(self.sync.history, memory_id)
        return result

    async def log(self, limit: int = 50) -> _Logs:
        result: _Logs = await self._run(self.sync.log, limit)
        return result

    async def stats(self) -> JSONDict:
        result: JSONDict = await self._run(self.sync.stats)
        return result

    async def usage(self, since: datetime | None = None) -> _Dicts:
        result: _Dicts = await self._run(self.sync.usage, since)
        return result

    async def export(self, path: str | Path) -> int:
        result: int = await self._run(self.sync.export, path)
        return result

    async def import_(self, path: str | Path, **kwargs: Any) -> transfer.ImportReport:
        result: transfer.ImportReport = await self._run(self.sync.import_, path, **kwargs)
        return result

    async def reembed(self, **kwargs: Any) -> int:
        result: int = await self._run(self.sync.reembed, **kwargs)
        return result

    async def conversation(
        self, session_id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> AsyncConversation:
        """``Memory.conversation`` for asyncio code: an ``AsyncConversation``."""
        sync = await self._run(
            self.sync.conversation, session_id, user_id=user_id, agent_id=agent_id
        )
        return AsyncConversation(sync)

    async def build_vector_index(self) -> VectorIndexBuilt:
        result: VectorIndexBuilt = await self._run(self.sync.build_vector_index)
        return result

    async def close(self) -> None:
        await self._run(self.sync.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
