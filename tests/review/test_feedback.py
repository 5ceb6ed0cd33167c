"""Feedback: nothing changes during the cold start; past it, each rule applies once."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memfold import InvalidInput, Memory, NotFound
from memfold.engine.feedback import feedback, sweep
from review.support import ScriptedJudge, review_of


def test_cold_start_then_rules(open_mem: Callable[..., Memory], judge: ScriptedJudge) -> None:
    mem = open_mem()
    used = mem.add("The user prefers dark mode.").memory
    ignored = mem.add("The user once visited Oslo.").memory
    disputed = mem.add("The user's manager is Priya.").memory
    filler = mem.add("The user writes Go at work.").memory
    for _ in range(3):
        assert feedback(mem.ctx, used.id, "used", "answered a settings question") == []
        feedback(mem.ctx, ignored.id, "ignored")
    for _ in range(2):
        feedback(mem.ctx, disputed.id, "contradicted", "user said the manager is Sam")
    while mem.store.feedback_total() < 50:
        assert feedback(mem.ctx, filler.id, "miss") == []
    # 50 records: still the cold start, nothing changed.
    assert mem.get(used.id).importance == 0.5 and mem.get(ignored.id).importance == 0.5
    assert review_of(mem, judge).pending()["flagged_by_feedback"] == []
    assert not [e for e in mem.log() if e.path == "feedback"]

    # The 51st record crosses it: the memory it names is adjusted at once...
    (log_id,) = feedback(mem.ctx, used.id, "used")
    assert mem.get(used.id).importance == pytest.approx(0.55)
    # ...and the others on the next sweep (every review run starts with one).
    sweep(mem.ctx)
    assert mem.get(ignored.id).importance == pytest.approx(0.45)
    assert review_of(mem, judge).pending()["flagged_by_feedback"] == [disputed.id]
    assert mem.get(disputed.id).importance == 0.5  # review only lists it
    # Each adjustment happens once, however much more feedback arrives.
    feedback(mem.ctx, used.id, "used")
    sweep(mem.ctx)
    assert mem.get(used.id).importance == pytest.approx(0.55)
    # Logged, so undoable.
    entry = mem.store.get_log(log_id)
    assert entry is not None and entry.path == "feedback" and entry.action == "FEEDBACK_BOOST"
    mem.undo(log_id)
    assert mem.get(used.id).importance == 0.5
    status = review_of(mem, judge).status()
    assert status["feedback"] == {"records": 52, "cold_start": 50}


def test_bad_feedback_writes_nothing(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    rec = mem.add("The user likes tea.").memory
    with pytest.raises(InvalidInput):
        feedback(mem.ctx, rec.id, "loved")
    with pytest.raises(NotFound):
        feedback(mem.ctx, "no-such-id", "used")
    assert mem.store.feedback_total() == 0
