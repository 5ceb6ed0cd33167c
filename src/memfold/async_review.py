"""``AsyncReview``: batch review as coroutines (what ``AsyncMemory.review`` returns).

Each call runs the synchronous ``Review`` method in a worker thread, as ``AsyncMemory``
does for the other methods, so a long run (LLM calls, merges) never blocks the loop.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from memfold.engine.review.api import Review
from memfold.engine.review.merge import StepHook
from memfold.engine.review.scan import ScanResult
from memfold.model import JSONDict, ReviewRun, Scope


class AsyncReview:
    """scan / run / status / pending / approve / reject / resume / report / feedback."""

    def __init__(self, review: Review) -> None:
        self.sync = review

    async def _run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def scan(
        self,
        scope: Scope | None = None,
        threshold: float | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> ScanResult:
        ids = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        result: ScanResult = await self._run(self.sync.scan, scope, threshold, **ids)
        return result

    async def run(
        self,
        scope: Scope | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        hook: StepHook | None = None,
    ) -> ReviewRun:
        ids = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        result: ReviewRun = await self._run(self.sync.run, scope, hook=hook, **ids)
        return result

    async def status(self) -> JSONDict:
        result: JSONDict = await self._run(self.sync.status)
        return result

    async def pending(self) -> JSONDict:
        result: JSONDict = await self._run(self.sync.pending)
        return result

    async def approve(self, item_id: int) -> int | None:
        result: int | None = await self._run(self.sync.approve, item_id)
        return result

    async def reject(self, item_id: int, reason: str = "") -> int | None:
        result: int | None = await self._run(self.sync.reject, item_id, reason)
        return result

    async def resume(self) -> JSONDict:
        result: JSONDict = await self._run(self.sync.resume)
        return result

    async def report(self, since: datetime | timedelta | str | None = "7d", fmt: str = "md") -> str:
        result: str = await self._run(self.sync.report, since, fmt)
        return result

    async def feedback(self, memory_id: str, kind: str, context: str | None = None) -> list[int]:
        result: list[int] = await self._run(self.sync.feedback, memory_id, kind, context)
        return result
