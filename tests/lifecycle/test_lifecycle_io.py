"""The lifecycle's edges: categories on save, the spacing effect written by the access
buffer (searches still never write), the background worker's tick every N adds, and
the ``memfold tick`` / ``memfold rehydrate`` commands. Real SQLite files."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memfold import AsyncMemory, Memory
from memfold.cli import main
from memfold.config import Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.lifecycle.tick import LAST_TICK_KEY
from memfold.model import Category, Tier

NOW = datetime(2025, 6, 1, tzinfo=UTC)


def test_categories_are_assigned_on_save_unless_given(mem_off: Memory) -> None:
    went = mem_off.add("Yesterday Kim went to the dentist", user_id="u1").memory
    how = mem_off.add("How to reset the router: hold the button 10 s", user_id="u1").memory
    fact = mem_off.add("Kim prefers window seats", user_id="u1").memory
    given = mem_off.add("Kim went to Rome", user_id="u1", category="semantic").memory
    assert (went.category, how.category, fact.category) == (
        Category.EPISODIC,
        Category.PROCEDURAL,
        Category.SEMANTIC,
    )
    assert given.category is Category.SEMANTIC  # an explicit category is kept
    many = mem_off.add_many([{"text": "Last week Ana flew to Oslo", "user_id": "u1"}])
    assert many[0].memory.category is Category.EPISODIC
    assert mem_off.get(went.id).category is Category.EPISODIC


def test_retrieval_grows_stability_by_the_spacing_effect(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        mem.ctx.clock = lambda: NOW
        # importance 0.5: S 0.25; created 14 days before the search: + 0.1 * min(2, 2)
        old = mem.add("Kim keeps bees", user_id="u1", created_at=NOW - timedelta(days=14))
        new = mem.add("Kim keeps goats", user_id="u1", created_at=NOW)
        assert old.memory.stability == pytest.approx(0.25)
        mem.search("Kim keeps bees", user_id="u1", k=2, mode="keyword")
        mem.search("Kim keeps goats", user_id="u1", k=1, mode="keyword")
        # nothing written by the searches themselves
        row = sqlite3.connect(db_path).execute(
            "SELECT stability, access_count FROM memories WHERE id = ?", (old.memory.id,)
        )
        assert row.fetchone() == (pytest.approx(0.25), 0)
        mem.flush()
        got_old, got_new = mem.get(old.memory.id), mem.get(new.memory.id)
        assert got_old.stability == pytest.approx(0.45) and got_old.last_access_at == NOW
        assert got_new.stability == pytest.approx(0.25)  # retrieved the day it was made
        assert got_old.version == old.memory.version  # not a content change


def test_the_background_worker_ticks_every_n_adds(db_path: Path, embedder: LocalEmbedder) -> None:
    settings = Settings(lifecycle={"tick_every_adds": 3})
    with Memory(db_path, embedder=embedder, settings=settings) as mem:
        assert mem.mode.value == "background"
        old = mem.add("Kim went to a ski camp", user_id="u1", created_at="2001-01-01")
        mem.add("Kim likes tea", user_id="u1")
        mem.flush(timeout=30)
        assert mem.store.get_meta(LAST_TICK_KEY) is None  # 2 adds: not yet
        mem.add("Kim likes rye bread", user_id="u1")
        mem.flush(timeout=30)
        assert mem.store.get_meta(LAST_TICK_KEY) is not None
        assert mem.get(old.memory.id).tier is Tier.COLD


def test_the_worker_ticks_at_most_once_per_interval(db_path: Path, embedder: LocalEmbedder) -> None:
    settings = Settings(lifecycle={"tick_every_adds": 1, "tick_min_interval_s": 3600})
    with Memory(db_path, embedder=embedder, settings=settings) as mem:
        mem.add("Kim likes tea", user_id="u1")
        mem.flush(timeout=30)
        first = mem.store.get_meta(LAST_TICK_KEY)
        assert first is not None  # the first tick runs at once
        old = mem.add("Kim went to a ski camp", user_id="u1", created_at="2001-01-01")
        mem.flush(timeout=30)
        # An add later, within the interval: no second tick, the old memory stays hot.
        assert mem.store.get_meta(LAST_TICK_KEY) == first
        assert mem.get(old.memory.id).tier is Tier.HOT


def test_async_tick(db_path: Path, embedder: LocalEmbedder) -> None:
    async def run() -> list[str]:
        async with AsyncMemory(db_path, embedder=embedder, consolidate="off") as mem:
            old = await mem.add("Kim went to a ski camp", user_id="u1", created_at="2001-01-01")
            report = await mem.tick()
            back = await mem.rehydrate(old.memory.id)
            assert back.ids == [old.memory.id]
            return list(report.cold)

    assert len(asyncio.run(run())) == 1


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    code = info.value.code
    return (code if isinstance(code, int) else 0), out, err


def test_cli_tick_and_rehydrate(
    db_path: Path,
    embedder: LocalEmbedder,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("")
    monkeypatch.setenv("MEMFOLD_CONFIG", str(config))
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        old = mem.add("Kim went to a ski camp", user_id="u1", created_at="2024-01-01").memory.id
    code, out, _ = _cli(capsys, "tick", "-p", str(db_path), "--now", "2025-01-01", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["cold"] == [old] and report["time"].startswith("2025-01-01")
    code, _, err = _cli(capsys, "tick", "-p", str(db_path), "--now", "2024-06-01")
    assert code == 2 and "earlier than the last tick" in err
    code, _, err = _cli(capsys, "tick", "-p", str(db_path), "--now", "soon")
    assert code == 2 and "--now" in err
    code, out, _ = _cli(capsys, "rehydrate", old[:8], "-p", str(db_path))
    assert code == 0 and "rehydrated" in out
    code, out, _ = _cli(capsys, "tick", "-p", str(db_path), "--now", "2025-01-01")
    assert code == 0 and "moved cold" in out
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        assert mem.get(old).tier is Tier.HOT  # rehydrated at real now: not fading


def test_spacing_effect_on_both_backends(mem_off: Memory) -> None:
    mem_off.ctx.clock = lambda: NOW
    # importance 0: S 0.1; last retrieved 3.5 days before: + 0.1 * 0.5
    ten_days_ago = NOW - timedelta(days=10)
    added = mem_off.add("Kim keeps bees", user_id="u1", importance=0.0, created_at=ten_days_ago)
    old = added.memory
    mem_off.store.add_accesses([(old.id, 1, NOW - timedelta(days=3.5))])
    mem_off.search("Kim keeps bees", user_id="u1", k=1, mode="keyword")
    mem_off.flush()
    got = mem_off.get(old.id)
    assert got.stability == pytest.approx(0.15)
    assert (got.access_count, got.last_access_at) == (2, NOW)


@pytest.mark.parametrize("mode", ["sync", "queue"])
def test_sync_adds_and_a_flushed_queue_tick_every_n_saves(
    db_path: Path, embedder: LocalEmbedder, mode: str
) -> None:
    # seed 004: "a tick every 5 ingestions", with no background worker to count them
    settings = Settings(lifecycle={"tick_every_adds": 5})
    with Memory(db_path, embedder=embedder, settings=settings, consolidate=mode) as mem:
        old = mem.add("Kim went to a ski camp", user_id="u1", created_at="2001-01-01")
        for text in ("Kim likes tea", "Kim plays chess", "Kim owns a red bike"):
            mem.add(text, user_id="u1")
        mem.flush()
        assert mem.store.get_meta(LAST_TICK_KEY) is None  # 4 saves: not yet
        mem.add("Kim reads crime novels", user_id="u1")
        mem.flush()
        assert mem.store.get_meta(LAST_TICK_KEY) is not None
        assert mem.get(old.memory.id).tier is Tier.COLD


def test_a_store_that_only_stores_never_ticks_on_its_own(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    settings = Settings(lifecycle={"tick_every_adds": 1})
    with Memory(db_path, embedder=embedder, settings=settings, consolidate="off") as mem:
        mem.add("Kim likes tea", user_id="u1")
        mem.flush()
        assert mem.store.get_meta(LAST_TICK_KEY) is None
