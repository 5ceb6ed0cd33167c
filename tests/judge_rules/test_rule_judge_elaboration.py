"""RuleJudge + guards on "the same and a little more" (issue 10): the longer text stays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memfold.config import ConsolidationSettings
from memfold.judge.base import SaveItem
from memfold.judge.rules import RuleJudge
from memfold.model import Action, Candidate, Decision, MemoryRecord, Scope
from memfold.policy.guards import apply_guards

SETTINGS = ConsolidationSettings()
T0 = datetime(2024, 1, 1, tzinfo=UTC)


def _guarded(old_text: str, new_text: str, sim: float) -> Decision:
    old = MemoryRecord(id="old", scope=Scope(user_id="u1"), text=old_text, created_at=T0)
    new = MemoryRecord(
        id="new", scope=Scope(user_id="u1"), text=new_text, created_at=T0 + timedelta(days=1)
    )
    candidates = [Candidate(old, sim)]
    raw = RuleJudge(SETTINGS).decide([SaveItem(new, candidates)])[0]
    return apply_guards(raw, new, candidates, SETTINGS)


def test_older_longer_text_is_kept() -> None:
    decision = _guarded("A man is hungrily eating soup.", "A man is eating soup.", 0.9)
    assert decision.action is Action.UPDATE
    assert decision.text in (None, "A man is hungrily eating soup.")


def test_newer_longer_text_takes_the_place() -> None:
    decision = _guarded("A man is eating soup.", "A man is hungrily eating soup.", 0.9)
    assert decision.action is Action.REPLACE and decision.target_ids == ["old"]


def test_below_its_cosine_gate_both_stay() -> None:
    decision = _guarded("A man is eating soup.", "A man is hungrily eating soup.", 0.75)
    assert decision.action in (Action.KEEP_SEPARATE, Action.ADD)


def test_skip_level_manager_and_a_woman_and_a_man_stay_apart() -> None:
    for old_text, new_text in (
        ("The user's manager is Sofia.", "The user's skip-level manager is Sofia."),
        ("A woman is washing a car.", "A man is washing a car."),
        ("The user's brother lives in Oslo.", "The user's sister lives in Oslo."),
        ("The lamp in the hall is on.", "The lamp in the hall is off."),
        ("Deploys go to the staging server.", "Deploys go to the production server."),
    ):
        decision = _guarded(old_text, new_text, 0.95)
        assert decision.action not in (Action.MERGE, Action.REPLACE, Action.UPDATE), new_text
        assert decision.action is not Action.DELETE, new_text


def test_a_general_restatement_never_replaces_the_specific_older_text() -> None:
    older, general = "A man is slicing a tomato.", "A person is cutting a tomato."
    decision = _guarded(older, general, 0.9)
    # The newer says "person" for "man": replacing would leave the vaguer text active.
    assert decision.action is Action.KEEP_SEPARATE
    # The other way round the specific newer takes the general one's place.
    decision = _guarded(general, older, 0.9)
    assert decision.action is Action.REPLACE and decision.target_ids == ["old"]


def test_a_rewording_the_embedder_is_near_certain_of_is_folded_by_rules() -> None:
    older = "The user prefers tabs over spaces for indentation."
    newer = "For indentation, the user favors tabs rather than spaces."
    sure = SETTINGS.rules_reworded_min_similarity
    assert _guarded(older, newer, sure + 0.01).action is Action.REPLACE
    # below the judge's bar the strict reading decides: "favors" is in no table
    assert _guarded(older, newer, sure - 0.03).action in (Action.ADD, Action.KEEP_SEPARATE)


def test_near_certainty_never_folds_a_word_swapped_or_a_clause_added() -> None:
    for older, newer in (
        ("Tom drinks coffee every morning.", "Tom drinks tea every morning."),
        ("The user prefers tabs.", "The user prefers tabs, and the team agreed to it."),
        ("Ana lives in Lisbon.", "Ana does not live in Lisbon."),
    ):
        decision = _guarded(older, newer, 0.99)
        assert decision.action not in (Action.REPLACE, Action.MERGE, Action.UPDATE), newer
