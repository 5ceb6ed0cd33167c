"""Several ``memfold worker`` processes drain one PostgreSQL store (MEMFOLD_URL): jobs
are claimed with FOR UPDATE SKIP LOCKED, every save is decided once. A worker holds the
store's writer lock only to claim and to apply: never while the LLM judge is asked or
a judge-written text is embedded, so several workers overlap those waits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg

from helpers.workers import drain_with_workers, environment
from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.store.postgres.connection import WRITE_LOCK
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import user_payload

FACT = "The staging database runs PostgreSQL 15 on port 5433"
MORE = "The staging database runs PostgreSQL 15 on port 5433 in Frankfurt"
WRITTEN = "The staging database runs PostgreSQL 15 on port 5433, in Frankfurt."


def test_three_worker_processes_share_one_postgres_store(
    pg_url: str, embedder: LocalEmbedder
) -> None:
    with Memory(url=pg_url, embedder=embedder, consolidate="queue") as mem:
        drain_with_workers(mem, [], environment(MEMFOLD_URL=pg_url))


def writer_lock_free(url: str) -> bool:
    """Whether another session could take the writer lock now (taken and given back)."""
    with psycopg.connect(url) as conn:  # one transaction, rolled back on leaving
        row = conn.execute(
            "SELECT pg_try_advisory_xact_lock(hashtext(%s || current_schema()))", (WRITE_LOCK,)
        ).fetchone()
        conn.rollback()
    return bool(row and row[0])


class ProbingEmbedder(LocalEmbedder):
    """The local model; while ``probe_url`` is set, each call notes whether the writer
    lock was free."""

    def __init__(self) -> None:
        super().__init__()
        self.probe_url: str | None = None
        self.lock_free: list[bool] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.probe_url is not None:
            self.lock_free.append(writer_lock_free(self.probe_url))
        return super().embed(texts)


def test_the_llm_call_and_the_drift_embedding_hold_no_writer_lock(pg_url: str) -> None:
    asked: list[bool] = []

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        asked.append(writer_lock_free(pg_url))
        decisions = [
            {"item": item["item"], "reasoning": "adds the city", "action": "UPDATE",
             "targets": [item["candidates"][0]["id"]], "text": WRITTEN,
             "category": "semantic", "confidence": 0.95}
            for item in user_payload(body)["items"]
        ]  # fmt: skip
        return {"decisions": decisions}

    embedder = ProbingEmbedder()
    with FakeLLMServer(respond) as server:
        llm = {"base_url": server.base_url, "model": "fake-model", "api_key": "k"}
        settings = Settings(llm={**llm, "rules_first_confidence": None})
        with Memory(url=pg_url, embedder=embedder, consolidate="queue", settings=settings) as mem:
            first = mem.add(FACT, user_id="sam").memory.id
            mem.add(MORE, user_id="sam")
            embedder.probe_url = pg_url
            mem.flush()
            embedder.probe_url = None
            kept = [m.text for m in mem.list(user_id="sam")]
            updated = mem.get(first)
    # The judge was asked, and the UPDATE's new text embedded for its drift check, each
    # time with the writer lock free; the decision was applied.
    assert asked and all(asked), asked
    assert embedder.lock_free and all(embedder.lock_free), embedder.lock_free
    assert updated is not None and updated.text == WRITTEN
    assert kept == [WRITTEN]
