"""The five-step merge is one transaction: a failure at any step leaves nothing behind."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memfold import Memory, Status
from memfold.engine.review.merge import MERGE_STEPS
from review.support import ScriptedJudge, fill_pairs, review_of


class Boom(RuntimeError):
    pass


@pytest.mark.parametrize("failing_step", MERGE_STEPS)
def test_failure_at_each_step_rolls_back(
    open_mem: Callable[..., Memory], judge: ScriptedJudge, failing_step: str
) -> None:
    mem = open_mem(gate_min_pairs=1)
    ((a, b),) = fill_pairs(mem, judge, [0.99])
    seen: list[str] = []

    def hook(step: str) -> None:
        seen.append(step)
        if step == failing_step:
            raise Boom(step)

    with pytest.raises(Boom):
        review_of(mem, judge).run(hook=hook)
    assert seen == list(MERGE_STEPS[: MERGE_STEPS.index(failing_step) + 1])
    assert mem.get(a).status is Status.ACTIVE and mem.get(b).status is Status.ACTIVE
    assert mem.get(a).version == 1 and mem.get(a).superseded_by is None
    assert mem.store.count_memories() == 2  # no new memory
    assert not [e for e in mem.log() if e.action == "MERGE"]
    assert not mem.store.links_for([a, b]) or all(
        lk.kind.value != "derived_from" for lk in mem.store.links_for([a, b])
    )
    (item,) = mem.store.queue_items()
    assert item.status == "classified" and item.processed_at is None  # still waiting
    (run,) = mem.store.list_review_runs()
    assert run.status == "failed" and "Boom" in str(run.counts["decisions"])
    # Without the fault, the next run merges it.
    assert review_of(mem, judge).run().counts["merged"] == 1


def test_all_steps_run_on_success(open_mem: Callable[..., Memory], judge: ScriptedJudge) -> None:
    mem = open_mem(gate_min_pairs=1)
    fill_pairs(mem, judge, [0.99])
    seen: list[str] = []
    review_of(mem, judge).run(hook=seen.append)
    assert seen == list(MERGE_STEPS)
