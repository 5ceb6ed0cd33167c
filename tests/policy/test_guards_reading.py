"""The guards on the parse: a restatement whose readings agree meets the destructive
threshold on the embedder's calibrated similarity; a difference that changes the fact
refuses a fold or a supersede, and the log names it."""

from __future__ import annotations

import pytest

from memfold.config import ConsolidationSettings
from memfold.embed.calibration import scale_for
from memfold.embed.local import MODEL_ID
from memfold.model import Action, Candidate, Decision, MemoryRecord, Scope
from memfold.policy.guards import apply_guards

SCOPE = Scope(user_id="u1")
SETTINGS = ConsolidationSettings()
MINILM = scale_for(MODEL_ID)


def record(mid: str, text: str) -> MemoryRecord:
    return MemoryRecord(id=mid, scope=SCOPE, text=text)


def proposal(action: Action, text: str | None = None) -> Decision:
    return Decision(action=action, target_ids=["old"], text=text, confidence=0.95, judge="t")


# The older word rules do not align these two; the readings agree.
OLD = record("old", "The user goes to the gym on Mondays, Wednesdays and Fridays.")
NEW = record("new", "Monday, Wednesday and Friday are the user's gym days.")


def test_a_restatement_folds_on_the_calibrated_scale_and_not_below_it() -> None:
    # raw 0.85 is below the raw 0.90 gate, above calibrated 0.90 (raw 0.803) on MiniLM
    cands = [Candidate(OLD, 0.85)]
    out = apply_guards(proposal(Action.REPLACE), NEW, cands, SETTINGS, scale=MINILM)
    assert out.action is Action.REPLACE, out.downgrade_reasons
    low = apply_guards(
        proposal(Action.REPLACE), NEW, [Candidate(OLD, 0.70)], SETTINGS, scale=MINILM
    )
    assert low.action is Action.KEEP_SEPARATE
    assert any("calibrated similarity" in r and "cosine 0.700" in r for r in low.downgrade_reasons)


def test_a_merge_meets_the_same_calibrated_gate_as_a_replace() -> None:
    older = record("old", "Noor drinks green tea every morning.")
    newer = record("new", "Every morning Noor drinks green tea.")
    merged = "Noor drinks green tea every morning."
    out = apply_guards(
        proposal(Action.MERGE, merged), newer, [Candidate(older, 0.85)], SETTINGS, scale=MINILM
    )
    assert out.action is Action.MERGE, out.downgrade_reasons
    low = apply_guards(
        proposal(Action.MERGE, merged), newer, [Candidate(older, 0.75)], SETTINGS, scale=MINILM
    )
    assert low.action is Action.KEEP_SEPARATE
    assert any("MERGE needs calibrated similarity >= 0.90" in r for r in low.downgrade_reasons)


def test_an_update_meets_its_own_gate_on_the_calibrated_scale() -> None:
    older = record("old", "Noor drinks green tea every morning.")
    newer = record("new", "Every morning Noor drinks green tea.")
    update = proposal(Action.UPDATE, older.text)
    # raw 0.80 is below the raw 0.85 gate, above it calibrated on MiniLM (raw 0.768)
    assert MINILM.calibrate(0.80) >= SETTINGS.update_threshold > 0.80
    out = apply_guards(update, newer, [Candidate(older, 0.80)], SETTINGS, scale=MINILM)
    assert out.action is Action.UPDATE, out.downgrade_reasons
    low = apply_guards(update, newer, [Candidate(older, 0.74)], SETTINGS, scale=MINILM)
    assert low.action is Action.KEEP_SEPARATE
    assert any("UPDATE needs calibrated similarity >= 0.85" in r for r in low.downgrade_reasons)


def test_a_replace_by_a_newer_that_says_less_folds_it_into_the_older() -> None:
    older = record("old", "Noor drinks green tea every morning before work.")
    newer = record("new", "Every morning Noor drinks green tea.")
    out = apply_guards(
        proposal(Action.REPLACE), newer, [Candidate(older, 0.9)], SETTINGS, scale=MINILM
    )
    # The REPLACE would retire "before work": the newer folds into the older instead.
    assert out.action is Action.UPDATE, out.downgrade_reasons
    assert out.downgraded_from is Action.REPLACE
    assert out.text == older.text
    assert any("'work' in the older text only" in r for r in out.downgrade_reasons)
    # Below the REPLACE's destructive gate nothing folds, though UPDATE's gate is met.
    assert MINILM.calibrate(0.78) >= SETTINGS.update_threshold
    low = apply_guards(
        proposal(Action.REPLACE), newer, [Candidate(older, 0.78)], SETTINGS, scale=MINILM
    )
    assert low.action is Action.KEEP_SEPARATE
    # A newer that says something the older does not stays apart: no fold either way.
    other = record("new", "Every morning Noor drinks black tea.")
    apart = apply_guards(
        proposal(Action.REPLACE), other, [Candidate(older, 0.95)], SETTINGS, scale=MINILM
    )
    assert apart.action is Action.KEEP_SEPARATE


def test_calibration_can_be_turned_off() -> None:
    raw_only = SETTINGS.model_copy(update={"calibrate_similarity": False})
    out = apply_guards(
        proposal(Action.REPLACE), NEW, [Candidate(OLD, 0.85)], raw_only, scale=MINILM
    )
    assert out.action is Action.KEEP_SEPARATE


@pytest.mark.parametrize(
    ("older", "newer", "seen"),
    [
        ("Sofia mentors Daniel.", "Daniel mentors Sofia.", "trade places"),
        (
            "Anjali presents at the all-hands each month.",
            "Anjali's manager presents at the all-hands each month.",
            "manager",
        ),
        (
            "Security fixes for the 2.x branch continue until March.",
            "Security fixes for the 1.x branch continue until March.",
            "version",
        ),
        (
            "The billing service calls the auth service.",
            "The auth service calls the billing service.",
            "role",
        ),
        ("Mateus is a morning person.", "It is false that Mateus is a morning person.", "polarity"),
    ],
)
def test_a_difference_of_fact_refuses_any_destructive_action(
    older: str, newer: str, seen: str
) -> None:
    old, new = record("old", older), record("new", newer)
    for action in (Action.REPLACE, Action.MERGE, Action.UPDATE):
        text = newer if action is not Action.REPLACE else None
        out = apply_guards(
            proposal(action, text), new, [Candidate(old, 0.97)], SETTINGS, scale=MINILM
        )
        assert out.action is Action.KEEP_SEPARATE, (action, out)
        assert any(seen in r for r in out.downgrade_reasons), out.downgrade_reasons


def test_a_supersede_of_another_person_is_refused() -> None:
    old = record("old", "The user's sister lives in Porto.")
    new = record("new", "The user's sister-in-law now lives in Lisbon.")
    out = apply_guards(proposal(Action.DELETE), new, [Candidate(old, 0.9)], SETTINGS, scale=MINILM)
    assert out.action is Action.KEEP_SEPARATE
    assert any("another thing" in r for r in out.downgrade_reasons), out.downgrade_reasons


def test_a_supersede_meets_the_delete_threshold_on_the_calibrated_scale() -> None:
    old = record("old", "The team's wiki lives on Confluence.")
    new = record("new", "The team's wiki moved from Confluence to Notion.")
    # raw 0.72 is below the raw delete threshold (0.75), above it calibrated on MiniLM
    assert MINILM.calibrate(0.72) >= SETTINGS.delete_threshold > 0.72
    cands = [Candidate(old, 0.72)]
    out = apply_guards(proposal(Action.DELETE), new, cands, SETTINGS, scale=MINILM)
    assert out.action is Action.DELETE, out.downgrade_reasons
    raw_only = SETTINGS.model_copy(update={"calibrate_similarity": False})
    refused = apply_guards(proposal(Action.DELETE), new, cands, raw_only, scale=MINILM)
    assert refused.action is Action.KEEP_SEPARATE
    assert any("DELETE needs cosine >= 0.75" in r for r in refused.downgrade_reasons)


def test_a_fact_told_by_a_noun_for_its_predicate_is_replaced_as_a_restatement() -> None:
    old = record("old", "The user was born in Accra.")
    new = record("new", "Accra is the user's birthplace.")
    out = apply_guards(
        proposal(Action.REPLACE), new, [Candidate(old, 0.85)], SETTINGS, scale=MINILM
    )
    assert out.action is Action.REPLACE, out.downgrade_reasons
    other = record("new", "Kumasi is the user's birthplace.")
    refused = apply_guards(
        proposal(Action.REPLACE), other, [Candidate(old, 0.85)], SETTINGS, scale=MINILM
    )
    assert refused.action is Action.KEEP_SEPARATE
    assert any("kumasi" in r.lower() for r in refused.downgrade_reasons), refused.downgrade_reasons


def test_a_requirement_told_optional_is_another_fact() -> None:
    old = record("old", "The Slack workspace requires two-factor authentication for all members.")
    new = record("new", "Two-factor authentication is optional in the company Slack workspace.")
    for action in (Action.REPLACE, Action.MERGE, Action.UPDATE):
        text = new.text if action is not Action.REPLACE else None
        out = apply_guards(
            proposal(action, text), new, [Candidate(old, 0.97)], SETTINGS, scale=MINILM
        )
        assert out.action is Action.KEEP_SEPARATE, (action, out)
    out = apply_guards(
        proposal(Action.REPLACE), new, [Candidate(old, 0.97)], SETTINGS, scale=MINILM
    )
    assert any("'optional' against 'requir" in r for r in out.downgrade_reasons), (
        out.downgrade_reasons
    )
