"""The decisions of a pass share one transaction (engine.write_group), each in its own
savepoint: one that fails rolls back alone, an interruption before the group commits
applies none of them (their jobs run again, once), and apply_group_size = 1 commits
each decision alone. SQLite only: PostgreSQL commits each decision alone (no group)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.scripted import ScriptedJudge, base, vec_with_cosine
from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.judge.base import SaveItem
from memfold.model import Action, Decision, JobStatus, LinkKind
from memfold.store.base import NewLogEntry
from memfold.store.sqlite import SQLiteStore


def _keep(item: SaveItem) -> Decision:
    """KEEP_SEPARATE with a RELATED link to the older memory: a write before the log row."""
    return Decision(Action.KEEP_SEPARATE, [item.candidates[0].memory.id], confidence=0.9)


def _statements(mem: Memory) -> list[str]:
    """SQL the calling thread's connection runs from now on (SQLite's trace callback)."""
    seen: list[str] = []
    assert isinstance(mem.store, SQLiteStore)
    mem.store._db.get().set_trace_callback(seen.append)
    return seen


def _three_saves(mem: Memory) -> tuple[str, list[str]]:
    first = mem.add("Sam likes tea", user_id="s", embedding=base()).memory.id
    mem.flush()
    saves = [
        mem.add(f"Sam likes tea {word}", user_id="s", embedding=vec_with_cosine(c, axis))
        for word, c, axis in (("daily", 0.95, 1), ("often", 0.94, 2), ("a lot", 0.93, 3))
    ]
    return first, [s.memory.id for s in saves]


def test_a_decision_that_fails_in_a_group_rolls_back_alone(
    tmp_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = ScriptedJudge(_keep)
    with Memory(
        tmp_path / "memfold.db", embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        first, (one, two, three) = _three_saves(mem)
        real_append = mem.store.append_log

        def fail_for_two(entry: NewLogEntry) -> int:
            if entry.input_ids[0] == two and entry.action != "SKIP":
                raise ValueError("the log row of this decision cannot be written")
            return real_append(entry)

        monkeypatch.setattr(mem.store, "append_log", fail_for_two)
        sql = _statements(mem)
        assert mem.flush() == 3
        assert judge.calls == 1
        # One transaction for the pass: the failed decision's savepoint alone rolled back.
        assert sum(s == "BEGIN IMMEDIATE" for s in sql) == 2  # the claim, then the group
        assert sum(s.startswith("ROLLBACK TO") for s in sql) == 1
        by_save = {e.input_ids[0]: e for e in mem.log(50)}
        assert by_save[one].action == by_save[three].action == "KEEP_SEPARATE"
        assert by_save[two].action == "SKIP"
        assert "failed while applying KEEP_SEPARATE: ValueError" in by_save[two].reasoning
        # Its link was written before the log row failed, and rolled back with it.
        links = {(lk.src, lk.kind) for lk in mem.store.links_for([first])}
        assert links == {(one, LinkKind.RELATED), (three, LinkKind.RELATED)}
        assert {j.status for j in mem.store.list_jobs()} == {JobStatus.DONE}


def test_an_interrupted_group_applies_nothing_and_its_jobs_run_once(
    tmp_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = ScriptedJudge(_keep)
    with Memory(
        tmp_path / "memfold.db", embedder=embedder, judge=judge, consolidate="queue"
    ) as mem:
        first, saves = _three_saves(mem)
        real_append = mem.store.append_log

        def interrupted(entry: NewLogEntry) -> int:
            if entry.input_ids[0] == saves[2]:
                raise KeyboardInterrupt  # not an Exception: nothing catches it on the way
            return real_append(entry)

        monkeypatch.setattr(mem.store, "append_log", interrupted)
        with pytest.raises(KeyboardInterrupt):
            mem.flush()
        # The two decisions before it were in the same open group: rolled back too.
        assert mem.log() == []
        assert mem.store.links_for([first]) == []
        assert {j.status for j in mem.store.list_jobs()} == {JobStatus.DONE, JobStatus.PENDING}
        assert len(mem.store.list_jobs("pending")) == 3
        monkeypatch.undo()
        assert mem.flush() == 3
        assert sorted(e.input_ids[0] for e in mem.log(50)) == sorted(saves)
        assert len(mem.store.links_for([first])) == 3  # each applied once


def test_apply_group_size_one_commits_each_decision_alone(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    settings = Settings()
    settings.consolidation.apply_group_size = 1
    judge = ScriptedJudge(_keep)
    with Memory(
        tmp_path / "memfold.db",
        settings=settings,
        embedder=embedder,
        judge=judge,
        consolidate="queue",
    ) as mem:
        _three_saves(mem)
        sql: list[Any] = _statements(mem)
        assert mem.flush() == 3
        assert not any(s.startswith("SAVEPOINT") for s in sql)
        assert sum(s == "BEGIN IMMEDIATE" for s in sql) == 4  # the claim, one per decision
        assert [e.action for e in mem.log(50)] == ["KEEP_SEPARATE"] * 3
