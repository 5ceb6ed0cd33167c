"""add_many(consolidate=False): stored unjudged whatever the mode (keyed items)."""

from __future__ import annotations

from memfold.memory import Memory


def test_unjudged_batch_is_never_folded_but_a_judged_one_is(mem_sync: Memory) -> None:
    items = [{"text": "Alice lives in Lyon", "user_id": "u"}] * 2
    mem_sync.add_many(items, consolidate=False)
    assert len(mem_sync.list(user_id="u")) == 2
    assert mem_sync.stats()["jobs_waiting"] == 0
    mem_sync.add_many([{"text": "Bob lives in Oslo", "user_id": "v"}] * 2)
    assert len(mem_sync.list(user_id="v")) == 1  # the exact duplicate folded on save
