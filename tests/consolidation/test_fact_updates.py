"""A changed value supersedes one fact, never a message of many (real SQLite, the real
embedder; chat messages written for these tests)."""

from __future__ import annotations

from memfold import Memory, Status
from memfold.model import Action

PLAN = (
    "I'm trying to plan out my timeline and I have a deadline of April 1, 2024, for the "
    "first sprint. The project is estimated to take 3 sprints of 2 weeks each. How can I "
    "make sure I meet this deadline?"
)
MOVED = (
    "I'm trying to update my timeline to reflect the new sprint deadline of April 5, 2024, "
    "but I'm having trouble adjusting my Trello board."
)


def _said(mem: Memory, text: str) -> None:
    mem.add(messages=[{"role": "user", "content": text}], user_id="u", infer=True)


def _by_text(mem: Memory) -> dict[str, Status]:
    return {m.text: m.status for m in mem.list(user_id="u", status=None)}


def test_a_new_deadline_retires_the_deadline_fact_and_keeps_the_rest(mem_sync: Memory) -> None:
    _said(mem_sync, PLAN)
    # one fact a clause, in the third person ("I'm trying to plan ..." says nothing lasting)
    deadline = "User has a deadline of April 1, 2024, for the first sprint"
    estimate = "The project is estimated to take 3 sprints of 2 weeks each"
    assert _by_text(mem_sync) == {deadline: Status.ACTIVE, estimate: Status.ACTIVE}
    _said(mem_sync, MOVED)
    states = _by_text(mem_sync)
    new = (
        "User is trying to update User's timeline to reflect the new sprint deadline of "
        "April 5, 2024"
    )
    assert states["User is having trouble adjusting User's Trello board"] is Status.ACTIVE
    # The estimate is never touched. The rule judge supersedes only a new value told in
    # the same words: the newer drops "the first sprint", so the deadline fact stays
    # beside it (a missed update, recoverable) unless the readings see one fact.
    assert states[estimate] is Status.ACTIVE and states[new] is Status.ACTIVE
    assert states[deadline] in (Status.ACTIVE, Status.SUPERSEDED)
    if states[deadline] is Status.SUPERSEDED:
        (old,) = [m for m in mem_sync.list(user_id="u", status=None) if m.text == deadline]
        assert old.superseded_by is not None and mem_sync.get(old.superseded_by).text == new


def test_a_whole_message_of_many_facts_is_never_superseded(mem_sync: Memory) -> None:
    plan = mem_sync.add(PLAN, user_id="u").memory
    moved = mem_sync.add(MOVED, user_id="u")
    assert moved.decision is None or moved.decision.action is not Action.DELETE
    assert mem_sync.get(plan.id).status is Status.ACTIVE


def test_a_moved_call_supersedes_the_call_below_discovery(mem_sync: Memory) -> None:
    call = mem_sync.add(
        "I have a Zoom call with the creative director on April 21 at 3 PM.", user_id="u"
    ).memory
    other = mem_sync.add("I have a dentist appointment on April 21 at 9 AM.", user_id="u").memory
    moved = mem_sync.add(
        "I'm worried that moving the Zoom call with the creative director to April 22 at "
        "11 AM might clash with my team meeting.",
        user_id="u",
    )
    assert moved.decision is not None and moved.decision.action is Action.DELETE
    assert moved.decision.target_ids == [call.id]
    assert mem_sync.get(call.id).status is Status.SUPERSEDED
    assert mem_sync.get(other.id).status is Status.ACTIVE
