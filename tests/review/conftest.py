"""Review fixtures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from review.support import ScriptedJudge, settings


@pytest.fixture
def judge() -> ScriptedJudge:
    return ScriptedJudge()


@pytest.fixture
def open_mem(tmp_path: Path, embedder: LocalEmbedder) -> Iterator[Callable[..., Memory]]:
    opened: list[Memory] = []

    def make(**review: Any) -> Memory:
        m = Memory(
            tmp_path / "review.db",
            embedder=embedder,
            consolidate="off",
            settings=settings(**review),
        )
        opened.append(m)
        return m

    yield make
    for m in opened:
        m.close()
