"""Shared fixtures: one real embedder per session, fresh SQLite files per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memfold.db"


@pytest.fixture
def mem_off(db_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    m = Memory(db_path, embedder=embedder, consolidate="off")
    yield m
    m.close()


@pytest.fixture
def mem_sync(db_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    m = Memory(db_path, embedder=embedder, consolidate="sync")
    yield m
    m.close()
