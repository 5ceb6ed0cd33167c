"""A live memfold server for tests: the real app under uvicorn on a free 127.0.0.1 port
over a SQLite file (memfold.server.run.start_server), keys from engine/keys, httpx
clients, and a fingerprint of everything stored, to assert that a refused request
wrote nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from memfold import Memory
from memfold.config import Settings
from memfold.embed import Embedder
from memfold.engine.keys import create_key
from memfold.judge.base import Judge
from memfold.server.run import start_server

# Every table a request could write to (meta is left out: searches' access counts and
# the index's bookkeeping may touch it without any request writing).
_TABLES = (
    "api_keys",
    "consolidation_log",
    "consolidation_queue",
    "erasures",
    "feedback",
    "idempotency_keys",
    "jobs",
    "links",
    "memories",
    "review_runs",
    "summaries",
    "tombstones",
    "transcripts",
)


@dataclass
class Live:
    memory: Memory
    base_url: str
    path: Path
    clients: list[httpx.Client] = field(default_factory=list)

    def key(self, role: str, user_id: str | None = None, agent_id: str | None = None) -> str:
        return create_key(self.memory.store, role=role, user_id=user_id, agent_id=agent_id)[1]

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        made = httpx.Client(base_url=self.base_url, headers=headers, timeout=30)
        self.clients.append(made)
        return made

    def fingerprint(self) -> tuple[object, ...]:
        """Row counts of every table, and each memory's version and status."""
        with sqlite3.connect(f"{self.path.as_uri()}?mode=ro", uri=True) as db:
            counts = tuple(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in _TABLES)
            rows = tuple(db.execute("SELECT id, version, status FROM memories ORDER BY id"))
            undone = tuple(db.execute("SELECT id, undone_by FROM consolidation_log ORDER BY id"))
            queue = tuple(db.execute("SELECT id, status FROM consolidation_queue ORDER BY id"))
        return counts, rows, undone, queue


@contextmanager
def live_server(
    path: Path,
    embedder: Embedder,
    *,
    settings: Settings | None = None,
    judge: Judge | None = None,
    consolidate: str = "off",
) -> Iterator[Live]:
    """A Memory over ``path`` served on a free loopback port; closed afterwards."""
    memory = Memory(
        path, embedder=embedder, settings=settings, judge=judge, consolidate=consolidate
    )
    base_url, stop = start_server(memory)
    live = Live(memory, base_url, path)
    try:
        yield live
    finally:
        for made in live.clients:
            made.close()
        stop()
        memory.close()
