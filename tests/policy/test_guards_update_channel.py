"""Guards for update-channel candidates: superseded with evidence on their own cosine
floor, never folded or replaced."""

from __future__ import annotations

import pytest

from memfold.config import ConsolidationSettings
from memfold.model import Action, Candidate, Decision, MemoryRecord, Scope
from memfold.policy.guards import apply_guards

SCOPE = Scope(user_id="u1")
SETTINGS = ConsolidationSettings()
OLD = MemoryRecord(id="old", scope=SCOPE, text="Sam lives in Lyon.")
MOVED = MemoryRecord(id="new", scope=SCOPE, text="Sam moved to Berlin.")
# The same cosine, but nothing in the newer text changes the older one.
VISIT = MemoryRecord(id="new", scope=SCOPE, text="Sam loves visiting Lyon in spring.")


def _decision(action: Action, text: str | None = None) -> Decision:
    return Decision(action=action, target_ids=["old"], text=text, confidence=0.95, judge="t")


def test_delete_of_a_channel_candidate_uses_the_channel_floor() -> None:
    cosine = 0.5  # under delete_threshold, over update_channel_min_similarity
    assert SETTINGS.update_channel_min_similarity <= cosine < SETTINGS.delete_threshold
    channel = apply_guards(
        _decision(Action.DELETE), MOVED, [Candidate(OLD, cosine, via="update")], SETTINGS
    )
    assert channel.action is Action.DELETE
    # A plain neighbour: "moved to Berlin" is read as a new value for where Sam lives,
    # which has its own floor; a move the value rules cannot read keeps the delete gate.
    read = apply_guards(_decision(Action.DELETE), MOVED, [Candidate(OLD, cosine)], SETTINGS)
    assert read.action is Action.DELETE
    vague = MemoryRecord(id="new", scope=SCOPE, text="Sam moved to a bigger flat.")
    similar = apply_guards(_decision(Action.DELETE), vague, [Candidate(OLD, cosine)], SETTINGS)
    assert similar.action is Action.KEEP_SEPARATE


def test_delete_of_a_channel_candidate_below_its_floor_or_without_evidence_is_refused() -> None:
    low = SETTINGS.update_channel_min_similarity - 0.05
    out = apply_guards(
        _decision(Action.DELETE), MOVED, [Candidate(OLD, low, via="update")], SETTINGS
    )
    assert out.action is Action.KEEP_SEPARATE
    out = apply_guards(
        _decision(Action.DELETE), VISIT, [Candidate(OLD, 0.6, via="update")], SETTINGS
    )
    assert out.action is Action.KEEP_SEPARATE
    assert any("without evidence" in r for r in out.downgrade_reasons)


@pytest.mark.parametrize("action", [Action.UPDATE, Action.MERGE, Action.REPLACE])
def test_a_channel_candidate_is_never_folded_even_at_a_high_cosine(action: Action) -> None:
    text = None if action is Action.REPLACE else "Sam lives in Lyon. Sam moved to Berlin."
    cands = [Candidate(OLD, 0.99, via="update")]
    out = apply_guards(_decision(action, text), MOVED, cands, SETTINGS)
    assert out.action is Action.KEEP_SEPARATE
    assert out.downgraded_from is action
    assert any("may only be superseded" in r for r in out.downgrade_reasons)
    assert out.text is None and out.target_ids == ["old"]


def test_candidates_default_to_the_similar_channel() -> None:
    assert Candidate(OLD, 0.9).via == "similar"
