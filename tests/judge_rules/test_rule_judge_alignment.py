"""The rule judge on restatements and new values, through the guards (pairs written for
these tests)."""

from __future__ import annotations

import pytest

from memfold.judge.base import PairInput
from memfold.model import Action, Candidate, Category, Decision, PairLabel
from memfold.policy.guards import apply_guards

from .test_rule_judge import JUDGE, SETTINGS, decide, mem

TOM_OLD = "Tom works at Acme as a data engineer."
TOM_NEW = "Tom is a data engineer at Acme."
QUEUE_OLD = "The queue timeout is set to 30 seconds."
QUEUE_NEW = "The queue timeout was raised to 90 seconds."


def test_a_restatement_is_read_and_held_to_the_gates() -> None:
    raw, guarded = decide(TOM_OLD, TOM_NEW, 0.93)
    assert raw.action is Action.REPLACE and raw.target_ids == ["old"]
    assert guarded.action is Action.REPLACE, guarded.downgrade_reasons
    # Below the destructive threshold (raw cosine: no calibrated scale given) both stay.
    _, guarded = decide(TOM_OLD, TOM_NEW, SETTINGS.destructive_threshold - 0.05)
    assert guarded.action is Action.KEEP_SEPARATE


def test_a_core_memory_is_never_replaced_by_a_restatement() -> None:
    raw, _ = decide(TOM_NEW, TOM_OLD, 0.95, category=Category.CORE)
    assert raw.action is Action.KEEP_SEPARATE


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Nora's sister lives in Oslo.", "Nora's brother lives in Oslo."),
        ("Sofia mentors Daniel.", "Daniel mentors Sofia."),
        ("The user's train to Porto leaves at 9am.", "The user's train from Porto leaves at 9am."),
    ],
)
def test_one_slot_differences_stay_apart_even_at_high_cosine(old: str, new: str) -> None:
    raw, guarded = decide(old, new, 0.97)
    assert not guarded.action.mutating, (raw, guarded)


def test_a_new_value_supersedes_below_the_delete_gate() -> None:
    raw, guarded = decide(QUEUE_OLD, QUEUE_NEW, 0.6)
    assert raw.action is Action.DELETE and raw.target_ids == ["old"]
    assert guarded.action is Action.DELETE, guarded.downgrade_reasons


def test_a_new_value_below_its_own_gate_is_kept() -> None:
    _, guarded = decide(QUEUE_OLD, QUEUE_NEW, SETTINGS.value_update_min_similarity - 0.05)
    assert not guarded.action.mutating


def test_the_guard_refuses_a_low_cosine_delete_without_a_value_reading() -> None:
    old = mem("old", "The user likes jazz.")
    new = mem("new", "The user now also likes opera.", age=1)
    cands = [Candidate(old, 0.6)]
    raw = Decision(action=Action.DELETE, target_ids=["old"], confidence=0.95, judge="test")
    out = apply_guards(raw, new, cands, SETTINGS)
    assert out.action is Action.KEEP_SEPARATE
    assert any("0.75" in r for r in out.downgrade_reasons)


def test_batch_review_labels_restatements_and_new_values() -> None:
    a, b = mem("a", TOM_OLD), mem("b", TOM_NEW, age=1)
    c, d = mem("c", QUEUE_OLD), mem("d", QUEUE_NEW, age=1)
    labels = JUDGE.classify([PairInput(a, b, 0.8), PairInput(c, d, 0.8)])
    assert [v.label for v in labels] == [PairLabel.DUPLICATE, PairLabel.SUPERSEDED]


@pytest.mark.parametrize(
    "denial",
    [
        "It is false that Mateus is a morning person.",
        "It's not true that Mateus is a morning person.",
        "Contrary to that, Mateus is a morning person.",
    ],
)
def test_a_statement_wrapped_in_a_denial_is_a_contradiction_not_a_restatement(
    denial: str,
) -> None:
    # The older text is contained word for word in the newer one, but denied.
    raw, guarded = decide("Mateus is a morning person.", denial, 0.93)
    assert not guarded.action.mutating, (raw, guarded)
    assert guarded.contradicts, guarded
