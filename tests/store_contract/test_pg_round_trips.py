"""Round trips a logged change and an LLM call's usage row cost on PostgreSQL (issue 14):
the log's after-state comes from the writes themselves (RETURNING) and the links' own
edits, the entry and its memory index are one statement, and a usage row waits for no
writer lock. What the log holds stays what a read after the writes would give."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.changes import ChangeSet, commit, link
from memfold.engine.snapshot import state
from memfold.engine.undo import undo
from memfold.model import LinkKind, Status
from memfold.store.postgres import PostgresStore


@contextmanager
def statements() -> Iterator[list[str]]:
    """Every statement psycopg sends meanwhile (a cursor's execute or executemany)."""
    sent: list[str] = []
    real = psycopg.Cursor.execute, psycopg.Cursor.executemany

    def execute(cur: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(re.sub(r"\s+", " ", str(query)))
        return real[0](cur, query, *args, **kwargs)

    def executemany(cur: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(re.sub(r"\s+", " ", str(query)))
        return real[1](cur, query, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(psycopg.Cursor, "execute", execute)
        patched.setattr(psycopg.Cursor, "executemany", executemany)
        yield sent


def test_a_logged_change_reads_nothing_after_its_writes(
    pg_url: str, embedder: LocalEmbedder
) -> None:
    with Memory(url=pg_url, embedder=embedder, consolidate="off") as mem:
        ctx, store = mem.ctx, mem.store
        a = mem.add("Ana lives in Lyon", user_id="u", metadata={"zeta": 1, "a": [2.5]}).memory
        b = mem.add("Ana lives in Oslo", user_id="u").memory
        c = mem.add("Ana has a cat", user_id="u").memory
        store.add_links([link(a.id, b.id, LinkKind.RELATED), link(b.id, c.id, LinkKind.RELATED)])
        merged = a.copy(id="m" * 32, version=1, text="Ana lives in Lyon and Oslo")
        change = ChangeSet(
            path="manual",
            action="MERGE",
            input_ids=[a.id, b.id],
            expected={a.id: a.version, b.id: b.version, merged.id: None},
            creates=[merged],
            writes=[
                a.copy(status=Status.SUPERSEDED, superseded_by=merged.id, version=a.version + 1),
                b.copy(status=Status.SUPERSEDED, superseded_by=merged.id, version=b.version + 1),
            ],
            add_links=[
                link(merged.id, a.id, LinkKind.DERIVED_FROM),
                link(a.id, b.id, LinkKind.RELATED, 0.25),  # an upsert of a link there
            ],
            remove_links=[link(b.id, c.id, LinkKind.RELATED)],
        )
        with statements() as sent:
            log_id = commit(ctx, change)
        first_write = next(i for i, s in enumerate(sent) if not s.startswith("SELECT"))
        # Before: the lock, the rows and their links; nothing read after the first write
        # (before this change: the rows and links again, and the memory index's INSERT
        # apart from the entry's).
        assert (
            sent[:first_write]
            == [
                sent[0],  # the writer lock
                *[s for s in sent[1:first_write] if "FROM memories" in s or "FROM links" in s],
            ]
        )
        assert first_write == 3, sent
        assert not any(s.startswith("SELECT") for s in sent[first_write:]), sent
        assert len(sent) == 3 + 3 + 2 + 1, sent  # 3 rows written, links out and in, the log
        # The log holds what a read after the writes gives, exactly.
        entry = store.get_log(log_id)
        assert entry is not None and entry.after is not None
        touched = change.touched()
        link_ids = [*touched, *(lk.src for lk in change.remove_links)]
        rows = store.get_memories(touched)
        read_after = state({m: rows.get(m) for m in touched}, store.links_for(link_ids))
        assert entry.after == read_after
        assert [lk["weight"] for lk in entry.after["links"] if lk["dst"] == b.id] == [0.25]
        assert {m for m in store.list_log(memory_id=merged.id)[0].input_ids} == {a.id, b.id}
        # Undo works from it: the rows and links as they were.
        undo(ctx, log_id)
        assert store.get_memory(merged.id) is None
        back = store.get_memories([a.id, b.id])
        assert {m.status for m in back.values()} == {Status.ACTIVE}
        assert back[a.id].metadata == {"zeta": 1, "a": [2.5]}
        kept = {(lk.src, lk.dst, lk.kind) for lk in store.links_for([a.id, b.id, c.id])}
        assert kept == {(a.id, b.id, LinkKind.RELATED), (b.id, c.id, LinkKind.RELATED)}


def test_an_llm_calls_usage_row_waits_for_no_writer_lock(pg_url: str) -> None:
    """Recorded while another session holds the writer lock (before: it waited for the
    lock, here past lock_timeout, and failed); inside a transaction it joins it."""
    store = PostgresStore(pg_url, pool_min_size=2, pool_max_size=4, lock_timeout_ms=500)
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with store.transaction():
            holding.set()
            release.wait(10)

    held = threading.Thread(target=writer)
    held.start()
    try:
        assert holding.wait(10)
        started = time.monotonic()
        with statements() as sent:
            store.record_llm_call(
                task="judge", role="judge", model="m", prompt_tokens=10,
                completion_tokens=2, latency_ms=5.0, outcome="ok",
            )  # fmt: skip
        assert time.monotonic() - started < 0.4
        assert len(sent) == 1 and sent[0].startswith("INSERT INTO llm_calls")
    finally:
        release.set()
        held.join()
    assert store.tokens_today() == 12
    with pytest.raises(RuntimeError), store.transaction():
        store.record_llm_call(
            task="judge", role="judge", model="m", prompt_tokens=100,
            completion_tokens=0, latency_ms=5.0, outcome="ok",
        )  # fmt: skip
        raise RuntimeError("rolled back")
    assert store.tokens_today() == 12
    store.close()
