"""Several ``memfold worker`` processes drain one PostgreSQL store (MEMFOLD_URL): jobs
are claimed with FOR UPDATE SKIP LOCKED, every save is decided once."""

from __future__ import annotations

from helpers.workers import drain_with_workers, environment
from memfold import Memory
from memfold.embed.local import LocalEmbedder


def test_three_worker_processes_share_one_postgres_store(
    pg_url: str, embedder: LocalEmbedder
) -> None:
    with Memory(url=pg_url, embedder=embedder, consolidate="queue") as mem:
        drain_with_workers(mem, [], environment(MEMFOLD_URL=pg_url))
