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
def open_mem(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path, embedder: LocalEmbedder
) -> Iterator[Callable[..., Memory]]:
    """Opens the test's store (SQLite file or PostgreSQL schema: ``backend``), again
    and again if asked."""
    opened: list[Memory] = []
    where: dict[str, Any] = (
        {"url": request.getfixturevalue("pg_url")}
        if backend == "postgres"
        else {"path": tmp_path / "review.db"}
    )

    def make(**review: Any) -> Memory:
        m = Memory(
            **where,
            embedder=embedder,
            consolidate="off",
            settings=settings(**review),
        )
        opened.append(m)
        return m

    yield make
    for m in opened:
        m.close()
