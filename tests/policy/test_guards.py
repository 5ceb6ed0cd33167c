"""The deterministic guards: every rule can only make a decision safer."""

from __future__ import annotations

import math

from memfold.config import ConsolidationSettings
from memfold.model import Action, Candidate, Decision, MemoryRecord, Scope
from memfold.policy.guards import apply_guards

SCOPE = Scope(user_id="u1")
SETTINGS = ConsolidationSettings()


def record(mid: str, text: str, scope: Scope = SCOPE) -> MemoryRecord:
    return MemoryRecord(id=mid, scope=scope, text=text)


NEW = record("new", "The user likes strong coffee in the morning")
OLD = record("old", "The user likes coffee in the morning")
OTHER = record("other", "The user drinks 2 cups of tea at 4 pm")
# A retraction of OLD: the evidence a DELETE needs.
RETRACT = record("new", "The user no longer likes coffee in the morning")


def decision(
    action: Action,
    targets: list[str],
    text: str | None = None,
    *,
    confidence: float = 0.5,
    importance: float | None = None,
) -> Decision:
    return Decision(
        action=action,
        target_ids=targets,
        text=text,
        confidence=confidence,
        importance=importance,
        judge="test",
    )


def test_merge_below_destructive_threshold_becomes_keep_separate() -> None:
    cands = [Candidate(OLD, 0.85)]
    out = apply_guards(decision(Action.MERGE, ["old"], NEW.text), NEW, cands, SETTINGS)
    assert out.action is Action.KEEP_SEPARATE
    assert out.downgraded_from is Action.MERGE
    assert out.target_ids == ["old"]
    assert out.text is None
    assert any("0.850" in r and "0.90" in r for r in out.downgrade_reasons)


def test_merge_at_threshold_with_lossless_text_passes() -> None:
    cands = [Candidate(OLD, 0.93)]
    out = apply_guards(decision(Action.MERGE, ["old"], NEW.text), NEW, cands, SETTINGS)
    assert out.action is Action.MERGE
    assert out.downgraded_from is None
    assert out.downgrade_reasons == []


def test_replace_needs_threshold_with_every_target() -> None:
    cands = [Candidate(OLD, 0.95), Candidate(OTHER, 0.89)]
    out = apply_guards(decision(Action.REPLACE, ["old", "other"]), NEW, cands, SETTINGS)
    assert out.action is Action.KEEP_SEPARATE
    assert any("other" in r for r in out.downgrade_reasons)
    assert not any("old has" in r for r in out.downgrade_reasons)


def test_nan_similarity_never_passes() -> None:
    cands = [Candidate(OLD, math.nan)]
    out = apply_guards(decision(Action.MERGE, ["old"], NEW.text), NEW, cands, SETTINGS)
    assert out.action is Action.KEEP_SEPARATE


def test_foreign_target_is_skipped_not_transient() -> None:
    cands = [Candidate(OLD, 0.97)]
    raw = decision(Action.MERGE, ["old", "elsewhere"], NEW.text)
    raw.transient = True
    out = apply_guards(raw, NEW, cands, SETTINGS)
    assert out.action is Action.SKIP
    assert out.transient is False
    assert out.target_ids == []
    assert any("'elsewhere'" in r for r in out.downgrade_reasons)


def test_target_in_another_scope_is_skipped() -> None:
    stranger = record("old", OLD.text, Scope(user_id="u2"))
    out = apply_guards(
        decision(Action.UPDATE, ["old"], NEW.text), NEW, [Candidate(stranger, 0.97)], SETTINGS
    )
    assert out.action is Action.SKIP
    assert any("scope" in r for r in out.downgrade_reasons)


def test_mutating_actions_without_targets_are_skipped() -> None:
    for action in (Action.UPDATE, Action.MERGE, Action.REPLACE, Action.DELETE):
        out = apply_guards(decision(action, [], NEW.text), NEW, [Candidate(OLD, 0.99)], SETTINGS)
        assert out.action is Action.SKIP, action
        assert out.downgraded_from is action


def test_update_with_two_targets_is_skipped() -> None:
    cands = [Candidate(OLD, 0.97), Candidate(OTHER, 0.95)]
    out = apply_guards(decision(Action.UPDATE, ["old", "other"], NEW.text), NEW, cands, SETTINGS)
    assert out.action is Action.SKIP
    assert any("exactly one" in r for r in out.downgrade_reasons)


def test_empty_merge_text_keeps_both() -> None:
    for text in (None, "", "   \n"):
        out = apply_guards(
            decision(Action.MERGE, ["old"], text), NEW, [Candidate(OLD, 0.97)], SETTINGS
        )
        assert out.action is Action.KEEP_SEPARATE
        assert "result text is empty" in out.downgrade_reasons


def test_merge_dropping_a_number_is_refused_and_named() -> None:
    new = record("new", "The user drinks 3 cups of coffee a day")
    old = record("old", "The user drinks cups of coffee every day")
    out = apply_guards(
        decision(Action.MERGE, ["old"], "The user drinks cups of coffee every day"),
        new,
        [Candidate(old, 0.95)],
        SETTINGS,
    )
    assert out.action is Action.KEEP_SEPARATE
    assert "result drops number '3 cup'" in out.downgrade_reasons


def test_update_dropping_a_name_or_date_is_refused() -> None:
    new = record("new", "Alice meets Bob in Paris on Monday")
    old = record("old", "Alice meets Bob on Monday")
    out = apply_guards(
        decision(Action.UPDATE, ["old"], "Alice meets Bob"), new, [Candidate(old, 0.93)], SETTINGS
    )
    assert out.action is Action.KEEP_SEPARATE
    reasons = " ".join(out.downgrade_reasons)
    assert "drops the name 'paris'" in reasons
    assert "drops weekday 'mon'" in reasons


def test_update_keeping_too_few_content_words_is_refused() -> None:
    new = record("new", "The user enjoys hiking mountains lakes forests rivers")
    old = record("old", "The user enjoys hiking")
    out = apply_guards(
        decision(Action.UPDATE, ["old"], "The user enjoys hiking mountains"),
        new,
        [Candidate(old, 0.9)],
        SETTINGS,
    )
    assert out.action is Action.KEEP_SEPARATE
    assert any("content words of new" in r for r in out.downgrade_reasons)


def test_update_has_a_cosine_gate_of_its_own() -> None:
    low = SETTINGS.update_threshold - 0.05
    out = apply_guards(
        decision(Action.UPDATE, ["old"], NEW.text), NEW, [Candidate(OLD, low)], SETTINGS
    )
    assert out.action is Action.KEEP_SEPARATE
    assert any("UPDATE needs cosine" in r for r in out.downgrade_reasons)
    high = SETTINGS.update_threshold + 0.01
    out = apply_guards(
        decision(Action.UPDATE, ["old"], NEW.text), NEW, [Candidate(OLD, high)], SETTINGS
    )
    assert out.action is Action.UPDATE
    assert out.text == NEW.text


def test_delete_below_similarity_threshold_is_refused() -> None:
    low = SETTINGS.delete_threshold - 0.05
    out = apply_guards(
        decision(Action.DELETE, ["old"], confidence=0.95), RETRACT, [Candidate(OLD, low)], SETTINGS
    )
    assert out.action is Action.KEEP_SEPARATE
    assert out.downgraded_from is Action.DELETE


def test_delete_below_confidence_is_refused_and_above_passes() -> None:
    cands = [Candidate(OLD, 0.95)]
    unsure = decision(Action.DELETE, ["old"], confidence=SETTINGS.delete_min_confidence - 0.1)
    assert apply_guards(unsure, RETRACT, cands, SETTINGS).action is Action.KEEP_SEPARATE
    sure = decision(Action.DELETE, ["old"], confidence=0.95)
    assert apply_guards(sure, RETRACT, cands, SETTINGS).action is Action.DELETE


def test_confidence_and_importance_are_clamped() -> None:
    cands = [Candidate(OLD, 0.95)]
    out = apply_guards(
        decision(Action.KEEP_SEPARATE, ["old"], confidence=1.7, importance=-3.0),
        NEW,
        cands,
        SETTINGS,
    )
    assert out.confidence == 1.0
    assert out.importance == 0.0
    nan = apply_guards(decision(Action.ADD, [], confidence=math.nan), NEW, cands, SETTINGS)
    assert nan.confidence == 0.0
    # Clamping happens before the DELETE gate: 1.5 counts as 1.0, which passes.
    big = apply_guards(decision(Action.DELETE, ["old"], confidence=1.5), RETRACT, cands, SETTINGS)
    assert big.action is Action.DELETE and big.confidence == 1.0


def test_pass_through_actions_and_input_is_not_mutated() -> None:
    cands = [Candidate(OLD, 0.5)]
    for action in (Action.ADD, Action.KEEP_SEPARATE, Action.SKIP):
        raw = decision(action, [], None)
        out = apply_guards(raw, NEW, cands, SETTINGS)
        assert out.action is action and out.downgraded_from is None
    raw = decision(Action.MERGE, ["old"], NEW.text)
    apply_guards(raw, NEW, cands, SETTINGS)
    assert raw.action is Action.MERGE and raw.downgrade_reasons == []


def test_thresholds_come_from_settings() -> None:
    strict = ConsolidationSettings(destructive_threshold=0.99)
    out = apply_guards(
        decision(Action.MERGE, ["old"], NEW.text), NEW, [Candidate(OLD, 0.95)], strict
    )
    assert out.action is Action.KEEP_SEPARATE
    # OLD's text keeps 3 of NEW's 4 content words ("strong" is gone).
    strict_recall = ConsolidationSettings(min_content_word_recall=0.8)
    drop = decision(Action.UPDATE, ["old"], OLD.text)
    assert apply_guards(drop, NEW, [Candidate(OLD, 0.95)], strict_recall).action is (
        Action.KEEP_SEPARATE
    )
    lenient = ConsolidationSettings(min_content_word_recall=0.7)
    assert apply_guards(drop, NEW, [Candidate(OLD, 0.95)], lenient).action is Action.UPDATE
    strict_update = ConsolidationSettings(update_threshold=0.97, min_content_word_recall=0.7)
    assert apply_guards(drop, NEW, [Candidate(OLD, 0.95)], strict_update).action is (
        Action.KEEP_SEPARATE
    )
