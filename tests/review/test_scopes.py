"""Review scope arguments: user_id/agent_id/session_id keywords, a Scope, or every scope;
bad ids are refused before anything is queued or recorded; the run's P90 spans its scopes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from memfold import InvalidInput, Memory
from memfold.model import PairLabel, Scope, utcnow
from memfold.policy.review import p90
from review.support import FACTS, ScriptedJudge, review_of, variant


def two_users(mem: Memory, judge: ScriptedJudge, alice: list[float], bob: list[float]) -> None:
    """One (fact, variant) DUPLICATE pair per confidence: alice's facts first, then bob's."""
    old = utcnow() - timedelta(hours=1)
    facts = iter(FACTS)
    for user, confidences in (("alice", alice), ("bob", bob)):
        for conf in confidences:
            fact = next(facts)
            mem.add(fact, user_id=user, created_at=old)
            mem.add(variant(fact), user_id=user, created_at=old + timedelta(seconds=1))
            judge.script(fact, variant(fact), PairLabel.DUPLICATE, conf)


def scopes_queued(mem: Memory) -> set[str]:
    return {it.scope_key for it in mem.store.queue_items()}


def test_scan_by_keywords_scope_or_default(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem()
    two_users(mem, judge, [0.9, 0.9], [0.9])
    review = mem.review
    alice = Scope(user_id="alice").key()
    result = review.scan(user_id="alice")
    assert result.scope_key == alice and result.queued == 2 and result.memories == 4
    assert scopes_queued(mem) == {alice}
    assert review.scan(Scope(user_id="bob")).queued == 1  # the README's positional form
    assert review.scan().scope_key == Scope(user_id="default").key()  # no ids: default user
    assert review.scan(user_id="alice", threshold=0.999).queued == 0  # known pairs: not twice


def test_run_by_keywords_touches_only_that_scope(
    open_mem: Callable[..., Memory], judge: ScriptedJudge
) -> None:
    mem = open_mem(gate_min_pairs=1)
    two_users(mem, judge, [0.97], [0.97])
    run = review_of(mem, judge).run(user_id="bob")
    bob = Scope(user_id="bob").key()
    assert run.scope_key == bob and run.counts["merged"] == 1
    assert list(run.counts["decisions"][0]["gates"]) == [bob]
    assert len(mem.list(user_id="bob")) == 1 and len(mem.list(user_id="alice")) == 2
    assert scopes_queued(mem) == {bob}


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {"user_id": ""}, "user_id must be non-empty"),
        ((), {"agent_id": "a|b"}, "agent_id must be non-empty"),
        ((), {"session_id": 7}, "session_id must be a string"),
        (("alice",), {}, "scope must be a memfold Scope"),
        ((Scope(user_id="alice"),), {"user_id": "alice"}, "not both"),
        ((Scope(user_id="a=b"),), {}, "user_id must be non-empty"),
    ],
)
def test_bad_scope_changes_nothing(
    open_mem: Callable[..., Memory],
    judge: ScriptedJudge,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    message: str,
) -> None:
    mem = open_mem(gate_min_pairs=1)
    two_users(mem, judge, [0.97], [])
    review = review_of(mem, judge)
    with pytest.raises(InvalidInput, match=message):
        review.run(*args, **kwargs)
    with pytest.raises(InvalidInput, match=message):
        review.scan(*args, **kwargs)
    assert mem.store.queue_items() == [] and mem.store.list_review_runs() == []


@pytest.mark.parametrize("threshold", [1.5, -0.1, "0.9", float("nan")])
def test_bad_threshold_queues_nothing(
    open_mem: Callable[..., Memory], judge: ScriptedJudge, threshold: Any
) -> None:
    mem = open_mem()
    two_users(mem, judge, [0.9], [])
    with pytest.raises(InvalidInput, match="threshold"):
        mem.review.scan(user_id="alice", threshold=threshold)
    assert mem.store.queue_items() == []


def test_run_p90_spans_every_scope(open_mem: Callable[..., Memory], judge: ScriptedJudge) -> None:
    mem = open_mem(gate_min_pairs=1)
    alice, bob = [0.86, 0.88, 0.90], [0.95, 0.99]
    two_users(mem, judge, alice, bob)
    run = review_of(mem, judge).run()  # every scope
    gates = run.counts["decisions"][0]["gates"]
    assert gates[Scope(user_id="alice").key()]["p90"] == pytest.approx(p90(alice))
    assert gates[Scope(user_id="bob").key()]["p90"] == pytest.approx(p90(bob))
    assert run.p90 == pytest.approx(p90(alice + bob))
    (stored,) = mem.store.list_review_runs()
    assert stored.p90 == pytest.approx(p90(alice + bob))
