"""Unique id prefixes (6+ characters) wherever the API takes a memory id."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfold import AsyncMemory, InvalidInput, Memory, NotFound
from memfold.embed.local import LocalEmbedder
from memfold.engine import ingest


@pytest.fixture
def twins(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """New memories get these ids, in order: two share their first 8 characters."""
    ids = ["abcdef12" + "0" * 24, "abcdef12" + "1" * 24, "0123456789" + "f" * 22]
    queue = list(ids)
    monkeypatch.setattr(ingest, "new_id", lambda: queue.pop(0))
    yield ids


def test_every_method_accepts_a_unique_prefix(mem_off: Memory) -> None:
    a = mem_off.add("the cat sleeps on the sofa").memory.id
    b = mem_off.add("the dog barks at the mailman").memory.id
    short = a[:6] if not b.startswith(a[:6]) else a[:12]
    assert mem_off.get(short).id == a
    assert mem_off.get(a[:8].upper().lower()).id == a
    updated = mem_off.update(short, text="the cat sleeps on the bed")
    assert updated.id == a and updated.version == 2
    assert [e.action for e in mem_off.history(short)] == ["EDIT"]
    assert mem_off.feedback(short, "used") == []
    assert mem_off.review.feedback(short, "used") == []
    assert mem_off.delete(short, reason="test").status.value == "archived"
    report = mem_off.forget(short)
    assert report.erased == [a]
    with pytest.raises(NotFound, match="was erased"):
        mem_off.get(a)
    assert mem_off.get(b).id == b  # the full id still works


def test_ambiguous_short_and_unknown(mem_off: Memory, twins: list[str]) -> None:
    first, second, third = (mem_off.add(f"text {n}").memory.id for n in range(3))
    assert [first, second, third] == twins
    with pytest.raises(InvalidInput) as err:
        mem_off.get("abcdef1")
    message = str(err.value)
    assert "ambiguous" in message and first in message and second in message
    assert third not in message
    assert mem_off.get("abcdef120").id == first  # one more character decides
    with pytest.raises(InvalidInput, match="at least 6 characters"):
        mem_off.get("abcde")
    with pytest.raises(InvalidInput, match="at least 6 characters"):
        mem_off.update("012", text="changed")
    with pytest.raises(NotFound, match="no memory with id 'ffffff'"):
        mem_off.get("ffffff")
    with pytest.raises(InvalidInput, match="must be a non-empty string"):
        mem_off.get("   ")
    # nothing was changed by the refused calls
    assert [r.version for r in mem_off.list()] == [1, 1, 1]
    assert mem_off.log() == []


def test_a_full_id_shorter_than_the_minimum_still_works(
    mem_off: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ingest, "new_id", lambda: "m1")
    mem_off.add("an imported memory with a short id")
    assert mem_off.get("m1").id == "m1"
    with pytest.raises(InvalidInput, match="too short"):
        mem_off.get("m")


def test_the_minimum_comes_from_settings(db_path: Path, embedder: LocalEmbedder) -> None:
    from memfold import Settings

    settings = Settings.model_validate({"store": {"id_prefix_min_chars": 10}})
    with Memory(db_path, embedder=embedder, consolidate="off", settings=settings) as mem:
        full = mem.add("a memory").memory.id
        assert mem.get(full[:10]).id == full
        with pytest.raises(InvalidInput, match="at least 10 characters"):
            mem.get(full[:9])


def test_async_memory_resolves_prefixes(db_path: Path, embedder: LocalEmbedder) -> None:
    async def scenario() -> None:
        async with AsyncMemory(db_path, embedder=embedder, consolidate="off") as mem:
            added = await mem.add("async memories take prefixes too")
            full = added.memory.id
            assert (await mem.get(full[:6])).id == full
            assert (await mem.update(full[:7], text="changed text")).version == 2
            assert len(await mem.history(full[:6])) == 1
            assert (await mem.delete(full[:6])).status.value == "archived"
            with pytest.raises(InvalidInput, match="at least 6"):
                await mem.get(full[:3])

    asyncio.run(scenario())
