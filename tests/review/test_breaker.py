"""Circuit breaker: anomalous merges are held; the fourth halts the run until resumed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memfold import Memory, Status
from memfold.model import MemoryRecord
from review.support import ScriptedJudge, fill_pairs, review_of, union


def too_short(memories: Sequence[MemoryRecord]) -> str:
    return "Noted."


def test_breaker_holds_halts_stays_open_until_resumed(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=5)
    fill_pairs(mem, judge, [0.95] * 12)
    review = review_of(mem, judge)
    judge.merge = too_short
    first = review.run()
    assert first.status == "halted"
    assert first.counts["held"] == 4 and first.counts.get("merged", 0) == 0
    assert [e.get("tripped") for e in first.breaker["events"]] == [None] * 4 + [True]
    assert first.breaker["open"] is True
    held = review.pending()["held"]
    assert len(held) == 4 and all(h["proposal"]["text"] == "Noted." for h in held)
    assert all("length drop" in h["proposal"]["reasons"][0] for h in held)
    assert len(mem.list(limit=None)) == 24  # nothing changed

    judge.merge = union  # even with good text, an open breaker stops every merge
    second = review.run()
    assert second.counts.get("merged", 0) == 0 and review.status()["breaker"]["open"] is True
    (gate,) = second.counts["decisions"][0]["gates"].values()
    assert gate["band"] == "halted"

    # A person reviews the held items: approve one (applied as proposed), reject one.
    approved, rejected = held[0], held[1]
    log_id = review.approve(approved["id"])
    assert log_id is not None
    new = mem.get(mem.store.get_log(log_id).output_ids[0])  # type: ignore[union-attr]
    assert new.text == "Noted." and new.consolidated_from
    assert mem.get(approved["memory_a"]).status is Status.ARCHIVED
    review.reject(rejected["id"], "not the same fact")
    assert mem.store.get_queue_item(rejected["id"]).status == "rejected"  # type: ignore[union-attr]
    assert mem.get(rejected["memory_a"]).status is Status.ACTIVE
    assert len(review.pending()["held"]) == 2

    review.resume()
    third = review.run()
    assert third.status == "done" and third.counts["merged"] == 8  # the 8 never tried
    assert review.status()["breaker"]["open"] is False
