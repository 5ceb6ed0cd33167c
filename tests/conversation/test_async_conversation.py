"""AsyncMemory.conversation: the same transcript and window, as coroutines."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memfold import AsyncMemory
from memfold.config import Settings
from memfold.embed.local import LocalEmbedder
from memfold.errors import InvalidInput


def test_async_conversation_appends_slides_and_exports(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    settings = Settings(conversation={"threshold_messages": 6, "keep_recent": 2})

    async def run() -> tuple[int, list[dict[str, str]], int, int]:
        async with AsyncMemory(
            tmp_path / "m.db", settings=settings, embedder=embedder, consolidate="off"
        ) as mem:
            conv = await mem.conversation("s1", user_id="ann")
            assert conv.session_id == "s1"
            await conv.append("user", "I moved to Lisbon in 2021.")
            await conv.extend([{"role": "assistant", "content": f"Noted {n}."} for n in range(7)])
            with pytest.raises(InvalidInput, match="role"):
                await conv.append("robot", "beep")
            window = await conv.messages("Where do I live?")
            parts = await conv.summary()
            exported = await conv.export(tmp_path / "s1.jsonl")
            return await conv.count(), window, len(parts), exported

    count, window, parts, exported = asyncio.run(run())
    assert count == exported == 8  # the refused message wrote nothing
    assert parts == 1  # past the threshold: one summary part appended
    # system (summary) + the 2 recent messages + the user message
    assert [m["role"] for m in window] == ["system", "assistant", "assistant", "user"]
    assert window[-1]["content"] == "Where do I live?"
