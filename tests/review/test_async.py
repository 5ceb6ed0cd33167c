"""``AsyncMemory.review``: the review API as coroutines on a real store."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest

from memfold import AsyncMemory, InvalidInput, NotFound, Status
from memfold.embed.local import LocalEmbedder
from memfold.model import MemoryRecord, PairLabel, Scope, utcnow
from review.support import FACTS, ScriptedJudge, settings, union, variant


def too_short(memories: Sequence[MemoryRecord]) -> str:
    return "Noted."


def test_async_review_end_to_end(
    tmp_path: Path, embedder: LocalEmbedder, judge: ScriptedJudge
) -> None:
    async def scenario() -> None:
        async with AsyncMemory(
            tmp_path / "review.db",
            embedder=embedder,
            judge=judge,
            consolidate="off",
            settings=settings(gate_min_pairs=1),
        ) as mem:
            old = utcnow() - timedelta(hours=1)
            for fact in FACTS[:2]:
                await mem.add(fact, user_id="alice", created_at=old)
                await mem.add(variant(fact), user_id="alice", created_at=old)
                judge.script(fact, variant(fact), PairLabel.DUPLICATE, 0.97)
            scanned = await mem.review.scan(user_id="alice")
            assert scanned.scope_key == Scope(user_id="alice").key() and scanned.queued == 2

            judge.merge = too_short  # both merges are held by the result check
            run = await mem.review.run(user_id="alice")
            assert run.scope_key == Scope(user_id="alice").key()
            assert run.counts["held"] == 2 and run.p90 == pytest.approx(0.97)
            pending = await mem.review.pending()
            first, second = pending["held"]
            assert (await mem.review.status())["queue"]["by_status"] == {"held": 2}

            judge.merge = union
            log_id = await mem.review.approve(first["id"])
            assert log_id is not None
            merged = await mem.get((await mem.log(1))[0].output_ids[0])
            assert merged.text == "Noted." and merged.status is Status.ACTIVE
            assert (await mem.get(first["memory_a"])).status is Status.ARCHIVED
            assert await mem.review.reject(second["id"], "different facts") is None
            assert (await mem.get(second["memory_a"])).status is Status.ACTIVE
            assert (await mem.review.pending())["held"] == []

            assert (await mem.review.resume())["open"] is False
            report = await mem.review.report("7d", "md")
            assert "P90" in report and "0.970" in report
            with pytest.raises(InvalidInput, match="user_id"):
                await mem.review.run(user_id="")
            with pytest.raises(NotFound):
                await mem.review.approve(9999)
            assert len(mem.sync.store.list_review_runs()) == 1  # the bad calls recorded none

    asyncio.run(scenario())
