"""Fixtures of the service's tests: a live server over a fresh SQLite file (``live``),
and two tenants with their resources on one server per module (``world``). Helpers
for other test modules and benchmarks: server.live (live_server, Live) and
memfold.server.run.start_server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memfold.embed.local import LocalEmbedder
from server.live import Live, live_server
from server.world import World, build_world, held_judge, world_settings


@pytest.fixture
def live(tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder) -> Iterator[Live]:
    """The real app on a free 127.0.0.1 port over a new store (consolidate "off")."""
    path = tmp_path_factory.mktemp("live") / "memfold.db"
    with live_server(path, embedder, settings=world_settings()) as served:
        yield served


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder) -> Iterator[World]:
    """alice and bob, each with a memory, a log row, a held merge and a conversation."""
    path = tmp_path_factory.mktemp("world") / "memfold.db"
    judge = held_judge()
    with live_server(path, embedder, settings=world_settings(), judge=judge) as served:
        yield build_world(served, judge)
