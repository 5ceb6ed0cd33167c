"""``AsyncConversation``: a ``Conversation``'s methods as coroutines, each run in a
worker thread (as ``AsyncMemory`` does for ``Memory``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from memfold.engine.conversation.session import Conversation
from memfold.engine.conversation.window import ChatMessage
from memfold.policy.messages import Message
from memfold.policy.summary_parts import SummaryPart


class AsyncConversation:
    """One session's transcript and sliding window for asyncio code."""

    def __init__(self, sync: Conversation) -> None:
        self.sync = sync

    @property
    def session_id(self) -> str:
        return self.sync.session_id

    async def append(
        self, role: str, content: str, *, created_at: object = None, **meta: Any
    ) -> Message:
        return await asyncio.to_thread(
            self.sync.append, role, content, created_at=created_at, **meta
        )

    async def extend(self, items: object) -> list[Message]:
        return await asyncio.to_thread(self.sync.extend, items)

    async def transcript(self, start: int = 0, end: int | None = None) -> list[Message]:
        return await asyncio.to_thread(self.sync.transcript, start, end)

    async def count(self) -> int:
        return await asyncio.to_thread(len, self.sync)

    async def export(self, path: str | Path) -> int:
        return await asyncio.to_thread(self.sync.export, path)

    async def summary(self) -> list[SummaryPart]:
        return await asyncio.to_thread(self.sync.summary)

    async def note(self, text: str) -> SummaryPart:
        return await asyncio.to_thread(self.sync.note, text)

    async def messages(
        self, user_message: str, system_prompt: str | None = None, k_memories: int | None = None
    ) -> list[ChatMessage]:
        return await asyncio.to_thread(self.sync.messages, user_message, system_prompt, k_memories)
