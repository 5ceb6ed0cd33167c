"""Shared fixtures: one real embedder per session, fresh SQLite files per test, and one
real PostgreSQL (pgserver) per session with a fresh schema per test that asks for it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.postgres import BACKENDS, PgServer, running_server
from memfold import Memory
from memfold.embed.local import LocalEmbedder

# mem0's client (tests/server/test_mem0_client.py) sends telemetry unless told not to:
# set before any test module imports it.
os.environ.setdefault("MEM0_TELEMETRY", "False")


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memfold.db"


# Tests that read SQLite's own tables through the shared fixtures: SQLite only. Their
# PostgreSQL runs are deselected by name here, never skipped at run time.
# (test_job_leases: its killed claimer process opens SQLiteStore on the file itself.)
SQLITE_ONLY = frozenset(
    {
        "test_the_stems_are_the_fts5_vocabulary",
        "test_a_killed_claimers_jobs_are_finished_by_the_next_flush",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        name = getattr(item, "originalname", item.name)
        callspec = getattr(item, "callspec", None)
        on = callspec.params.get("backend") if callspec is not None else None
        (dropped if name in SQLITE_ONLY and on == "postgres" else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each test using ``mem_off``/``mem_sync`` runs on SQLite and on PostgreSQL."""
    return str(request.param)


def _memory(request: pytest.FixtureRequest, backend: str, **kw: object) -> Memory:
    if backend == "postgres":
        return Memory(url=request.getfixturevalue("pg_url"), **kw)  # type: ignore[arg-type]
    return Memory(request.getfixturevalue("db_path"), **kw)  # type: ignore[arg-type]


@pytest.fixture
def mem_off(
    request: pytest.FixtureRequest, backend: str, embedder: LocalEmbedder
) -> Iterator[Memory]:
    m = _memory(request, backend, embedder=embedder, consolidate="off")
    yield m
    m.close()


@pytest.fixture
def mem_sync(
    request: pytest.FixtureRequest, backend: str, embedder: LocalEmbedder
) -> Iterator[Memory]:
    m = _memory(request, backend, embedder=embedder, consolidate="sync")
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
