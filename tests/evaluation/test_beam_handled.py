"""BEAM's "handled by consolidation": the original retired for, or rewritten to hold,
the update, told apart from ranking (real SQLite, the real embedder)."""

from __future__ import annotations

from pathlib import Path

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.evaluation.run_beam import handled


def _save(mem: Memory, text: str, source: str) -> str:
    return mem.add(text, user_id="b", sources=[source]).memory.id


def test_an_original_superseded_by_the_update_is_handled(mem_sync: Memory) -> None:
    old = _save(mem_sync, "Sam lives in Lyon.", "m1")
    new = _save(mem_sync, "Sam moved to Berlin.", "m2")
    stored = {"m1": old, "m2": new}
    assert handled(mem_sync, mem_sync.get(old), ("m2",), stored)
    # Retired, but not for this message: not handled for another update.
    assert not handled(mem_sync, mem_sync.get(old), ("m9",), stored)


def test_an_original_left_active_is_not_handled(db_path: Path, embedder: LocalEmbedder) -> None:
    settings = Settings(consolidation={"update_channel_max": 0})
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="sync") as mem:
        old = _save(mem, "Sam lives in Lyon.", "m1")
        new = _save(mem, "Sam moved to Berlin.", "m2")
        assert not handled(mem, mem.get(old), ("m2",), {"m1": old, "m2": new})


def test_one_message_holding_both_values_is_not_counted(mem_sync: Memory) -> None:
    both = _save(mem_sync, "Sam lived in Lyon and moved to Berlin.", "m1")
    assert not handled(mem_sync, mem_sync.get(both), ("m1",), {"m1": both})
