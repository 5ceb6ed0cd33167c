"""``memfold.mem0.AsyncMemory``: mem0's ``AsyncMemory`` (2.x) on memfold, each call the
drop-in ``Memory``'s run in a worker thread (the same arguments and shapes)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memfold.mem0.memory import Memory
from memfold.model import JSONDict


class AsyncMemory:
    """mem0's ``AsyncMemory`` over a memfold store; arguments as ``memfold.mem0.Memory``."""

    def __init__(self, path: str | Path | None = None, **kwargs: Any) -> None:
        self.sync = Memory(path, **kwargs)

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any]) -> AsyncMemory:
        made = cls.__new__(cls)
        made.sync = Memory.from_config(config_dict)
        return made

    async def add(self, messages: object, **kwargs: Any) -> JSONDict:
        return await asyncio.to_thread(self.sync.add, messages, **kwargs)

    async def search(self, query: str, **kwargs: Any) -> JSONDict:
        return await asyncio.to_thread(self.sync.search, query, **kwargs)

    async def get_all(self, **kwargs: Any) -> JSONDict:
        return await asyncio.to_thread(self.sync.get_all, **kwargs)

    async def get(self, memory_id: str) -> JSONDict | None:
        return await asyncio.to_thread(self.sync.get, memory_id)

    async def update(self, memory_id: str, *args: Any, **kwargs: Any) -> JSONDict:
        return await asyncio.to_thread(self.sync.update, memory_id, *args, **kwargs)

    async def delete(self, memory_id: str) -> JSONDict:
        return await asyncio.to_thread(self.sync.delete, memory_id)

    async def delete_all(self, **kwargs: Any) -> JSONDict:
        return await asyncio.to_thread(self.sync.delete_all, **kwargs)

    async def history(self, memory_id: str) -> list[JSONDict]:
        return await asyncio.to_thread(self.sync.history, memory_id)

    async def reset(self) -> None:
        await asyncio.to_thread(self.sync.reset)

    def close(self) -> None:
        self.sync.close()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
