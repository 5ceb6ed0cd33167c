"""Several ``memfold worker`` processes drain one SQLite file: every save is decided once."""

from __future__ import annotations

from pathlib import Path

from helpers.workers import drain_with_workers, environment
from memfold import Memory
from memfold.embed.local import LocalEmbedder


def test_three_worker_processes_decide_each_save_once(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    db_path = tmp_path / "workers.db"  # one SQLite file shared by the processes
    with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
        drain_with_workers(mem, ["-p", str(db_path)], environment())
