"""Shared fixtures: one real embedder per session, fresh SQLite files per test, and one
real PostgreSQL (pgserver) per session with a fresh schema per test that asks for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.postgres import PgServer, running_server
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


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """Started on first use only; fails (never skips) when pgserver is not installed."""
    with running_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """A PostgreSQL URL whose tables live in a new, empty schema."""
    return pg_server.fresh_url()
