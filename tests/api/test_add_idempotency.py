"""``Memory.add(..., idempotency_key=...)`` (engine/idempotency.py) on SQLite and
PostgreSQL: a retried add returns the first result and adds nothing, for a text and for
mem0's messages; the same key with other arguments is refused; keys are per scope;
a key expires after ``server.idempotency_ttl_s``; a bad key changes nothing; an add
still running refuses a retry; a failed first add is not run again; AsyncMemory too."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memfold import AsyncMemory, ConflictError, InvalidInput, Memory, NotFound
from memfold.embed.local import LocalEmbedder

MESSAGES = [
    {"role": "user", "content": "I moved to Lyon last May."},
    {"role": "assistant", "content": "Noted, Lyon."},
]


def _count(mem: Memory, user_id: str = "ana") -> int:
    return len(mem.list(user_id=user_id, status=None))


def test_a_retried_add_returns_the_first_result(mem_off: Memory) -> None:
    first = mem_off.add("Ana moved to Lyon", user_id="ana", idempotency_key="k1")
    again = mem_off.add("Ana moved to Lyon", user_id="ana", idempotency_key="k1")
    assert not first.replayed and again.replayed
    assert again.memory.id == first.memory.id and again.job_id == first.job_id
    assert again.memory.text == "Ana moved to Lyon"
    assert _count(mem_off) == 1
    # Without a key each add adds.
    mem_off.add("Ana moved to Lyon", user_id="ana")
    assert _count(mem_off) == 2


def test_a_retried_sync_add_returns_the_first_decision(mem_sync: Memory) -> None:
    mem_sync.add("Hana drinks green tea every morning", user_id="ana")
    kw: dict[str, Any] = {"user_id": "ana", "idempotency_key": "tea"}
    first = mem_sync.add("Hana drinks green tea every morning.", **kw)
    assert first.decision is not None and first.log_id is not None
    again = mem_sync.add("Hana drinks green tea every morning.", **kw)
    assert again.replayed and again.decision is not None
    assert again.decision.to_dict() == first.decision.to_dict()
    assert (again.memory.id, again.log_id) == (first.memory.id, first.log_id)
    assert len(mem_sync.log(limit=100)) == 1  # one decision logged, not two


def test_a_retried_messages_add_returns_the_first_events(mem_off: Memory) -> None:
    kw: dict[str, Any] = {"messages": MESSAGES, "infer": False, "user_id": "ana"}
    first = mem_off.add(**kw, idempotency_key="m1")
    again = mem_off.add(**kw, idempotency_key="m1")
    assert again.replayed and again.to_dict() == first.to_dict()
    assert [a.memory.id for a in again.added] == [a.memory.id for a in first.added]
    assert _count(mem_off) == 2  # one memory per message, once


def test_the_same_key_with_other_arguments_is_refused(mem_off: Memory) -> None:
    mem_off.add("Ana moved to Lyon", user_id="ana", idempotency_key="k1")
    with pytest.raises(InvalidInput, match="another add"):
        mem_off.add("Ana moved to Oslo", user_id="ana", idempotency_key="k1")
    with pytest.raises(InvalidInput, match="another add"):
        mem_off.add("Ana moved to Lyon", user_id="ana", importance=0.9, idempotency_key="k1")
    assert _count(mem_off) == 1


def test_keys_are_per_scope(mem_off: Memory) -> None:
    ana = mem_off.add("likes figs", user_id="ana", idempotency_key="k1")
    bob = mem_off.add("likes figs", user_id="bob", idempotency_key="k1")
    assert not bob.replayed and bob.memory.id != ana.memory.id
    assert bob.memory.scope.user_id == "bob"
    assert mem_off.add("likes figs", user_id="bob", idempotency_key="k1").memory.id == bob.memory.id


def test_a_key_expires_after_the_ttl(mem_off: Memory) -> None:
    now = [datetime(2026, 5, 1, 9, 0, tzinfo=UTC)]
    mem_off.ctx.clock = lambda: now[0]
    ttl = timedelta(seconds=mem_off.settings.server.idempotency_ttl_s)
    first = mem_off.add("Ana moved to Lyon", user_id="ana", idempotency_key="k1")
    now[0] += ttl - timedelta(seconds=1)
    assert mem_off.add("Ana moved to Lyon", user_id="ana", idempotency_key="k1").replayed
    now[0] += timedelta(seconds=1)
    later = mem_off.add("Ana moved to Lyon", user_id="ana", idempotency_key="k1")
    assert not later.replayed and later.memory.id != first.memory.id


@pytest.mark.parametrize(
    "key",
    ["", "   ", "k" * 256, "tab\there", "café", "nul\x00", 7],
    ids=["empty", "blank", "too-long", "tab", "non-ascii", "nul", "not-a-string"],
)
def test_a_bad_key_is_refused_and_changes_nothing(mem_off: Memory, key: Any) -> None:
    with pytest.raises(InvalidInput, match="idempotency key"):
        mem_off.add("Ana moved to Lyon", user_id="ana", idempotency_key=key)
    assert _count(mem_off) == 0
    assert mem_off.store._q("SELECT count(*) FROM idempotency_keys") == [(0,)]


def test_an_add_still_running_refuses_a_retry(
    mem_off: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memfold.engine.ingest import build_records as real

    inside, go_on = threading.Event(), threading.Event()

    def slow(*args: Any, **kw: Any) -> Any:
        inside.set()
        assert go_on.wait(30)
        return real(*args, **kw)

    monkeypatch.setattr("memfold.memory.build_records", slow)
    done: list[Any] = []
    worker = threading.Thread(
        target=lambda: done.append(mem_off.add("Ana", user_id="ana", idempotency_key="busy"))
    )
    worker.start()
    try:
        assert inside.wait(30)
        with pytest.raises(ConflictError, match="still running"):
            mem_off.add("Ana", user_id="ana", idempotency_key="busy")
    finally:
        go_on.set()
        worker.join(30)
    assert mem_off.add("Ana", user_id="ana", idempotency_key="busy").memory.id == done[0].memory.id
    assert _count(mem_off) == 1


def test_a_failed_first_add_is_not_run_again(mem_off: Memory) -> None:
    with pytest.raises(InvalidInput, match="area"):
        mem_off.add("Ana", user_id="ana", area="nowhere", idempotency_key="bad")
    with pytest.raises(ConflictError, match="InvalidInput"):
        mem_off.add("Ana", user_id="ana", area="nowhere", idempotency_key="bad")
    assert _count(mem_off) == 0


def test_a_replay_of_an_erased_memory_says_so(mem_off: Memory) -> None:
    first = mem_off.add("Ana's PIN is 4411", user_id="ana", idempotency_key="pin")
    mem_off.forget(first.memory.id)
    with pytest.raises(NotFound, match="erased"):
        mem_off.add("Ana's PIN is 4411", user_id="ana", idempotency_key="pin")
    assert _count(mem_off) == 0


def test_a_reopened_store_keeps_the_key(db_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        first = mem.add("Ana moved to Lyon", user_id="ana", idempotency_key="k1")
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        again = mem.add("Ana moved to Lyon", user_id="ana", idempotency_key="k1")
        assert again.replayed and again.memory.id == first.memory.id
        assert _count(mem) == 1


def test_async_add_takes_the_key(db_path: Path, embedder: LocalEmbedder) -> None:
    async def scenario() -> None:
        async with AsyncMemory(db_path, embedder=embedder, consolidate="off") as mem:
            first = await mem.add("Ana moved to Lyon", user_id="ana", idempotency_key="a1")
            again = await mem.add("Ana moved to Lyon", user_id="ana", idempotency_key="a1")
            assert again.replayed and again.memory.id == first.memory.id
            events = await mem.add(
                messages=MESSAGES, infer=False, user_id="ana", idempotency_key="a2"
            )
            replayed = await mem.add(
                messages=MESSAGES, infer=False, user_id="ana", idempotency_key="a2"
            )
            assert replayed.replayed and replayed.to_dict() == events.to_dict()
            assert len(await mem.list(user_id="ana")) == 3

    asyncio.run(scenario())
