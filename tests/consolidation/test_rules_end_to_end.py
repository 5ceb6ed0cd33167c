"""The default (rule) judge on a real store: a restatement folds, a new value supersedes,
a one-slot difference stays, and each change undoes (texts written for these tests)."""

from __future__ import annotations

from memfold import Memory, Status


def _active_texts(mem: Memory, user: str) -> set[str]:
    return {m.text for m in mem.list(user_id=user)}


def test_a_restatement_leaves_one_active_memory_and_undoes(mem_sync: Memory) -> None:
    old = mem_sync.add("Priya has a dog named Rusty.", user_id="u")
    new = mem_sync.add("Priya's dog is called Rusty.", user_id="u")
    assert new.decision is not None and new.decision.action.value == "REPLACE"
    assert _active_texts(mem_sync, "u") == {"Priya's dog is called Rusty."}
    assert mem_sync.get(old.memory.id).status is Status.SUPERSEDED  # history, not deleted
    assert new.log_id is not None
    mem_sync.undo(new.log_id)
    assert mem_sync.get(old.memory.id).status is Status.ACTIVE


def test_a_new_value_supersedes_and_search_finds_it_first(mem_sync: Memory) -> None:
    old = mem_sync.add("The nightly export job runs at 02:00 UTC.", user_id="u")
    new = mem_sync.add("The nightly export job was moved to 04:30 UTC.", user_id="u")
    assert new.decision is not None and new.decision.action.value == "DELETE"
    assert mem_sync.get(old.memory.id).status is not Status.ACTIVE
    hits = mem_sync.search("When does the nightly export job run?", user_id="u", k=1)
    assert hits[0].memory.id == new.memory.id


def test_one_slot_differences_stay_two_memories(mem_sync: Memory) -> None:
    mem_sync.add("Nora's sister lives in Oslo.", user_id="u")
    mem_sync.add("Nora's brother lives in Oslo.", user_id="u")
    mem_sync.add("The staging cache holds 2 GB.", user_id="u")
    mem_sync.add("The production cache holds 2 GB.", user_id="u")
    assert len(_active_texts(mem_sync, "u")) == 4
