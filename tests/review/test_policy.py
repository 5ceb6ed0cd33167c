"""The pure rules: P90 gate bands, breaker, feedback. No database."""

from __future__ import annotations

import numpy as np
import pytest

from memfold.config import ReviewSettings
from memfold.model import Category, PairLabel
from memfold.policy.result_check import ResultLimits, Source, check_merge
from memfold.policy.review import (
    Band,
    FeedbackRule,
    ScoredPair,
    adjusted_importance,
    breaker_trips,
    enforce_label,
    feedback_rules,
    gate,
    p90,
    past_cold_start,
    queue_share_exceeded,
    weighted_confidence,
)

CFG = ReviewSettings()


def pairs(confidences: list[float]) -> list[ScoredPair]:
    return [ScoredPair(i + 1, c) for i, c in enumerate(confidences)]


def test_p90_matches_percentile_cont() -> None:
    values = [0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.6, 0.85, 0.88, 0.91, 0.97]
    assert p90(values) == pytest.approx(float(np.percentile(values, 90)))
    assert p90([]) is None
    assert p90([0.4]) == 0.4


def test_too_few_pairs_no_merges_and_diagnostic() -> None:
    strict = ReviewSettings(gate_min_pairs=10)  # an opt-in: the default gates from 1 pair
    d = gate(pairs([0.99] * 9), strict)
    assert d.band is Band.TOO_FEW and d.selected == [] and len(d.diagnostic) == 9


def test_by_default_one_pair_is_gated_by_its_own_confidence() -> None:
    assert gate(pairs([0.95]), CFG).selected == [1]
    assert gate(pairs([0.80]), CFG).band is Band.BELOW_FLOOR
    assert gate([], CFG).band is Band.TOO_FEW


def test_below_floor_lists_the_ten_lowest() -> None:
    confs = [0.84] * 12 + [0.5, 0.6]
    d = gate(pairs(confs), CFG)
    assert d.band is Band.BELOW_FLOOR and d.p90 == pytest.approx(0.84) and d.selected == []
    assert len(d.diagnostic) == CFG.diagnostic_pairs
    assert [p.confidence for p in d.diagnostic[:2]] == [0.5, 0.6]


def test_conservative_band_caps_at_five_and_only_at_or_above_p90() -> None:
    assert len(gate(pairs([0.87] * 12), CFG).selected) == 5
    mixed = [0.80] * 8 + [0.86, 0.87, 0.88, 0.89]
    d = gate(pairs(mixed), CFG)
    assert d.band is Band.CONSERVATIVE and d.p90 is not None
    assert 0.85 <= d.p90 < 0.90
    chosen = {p.queue_id: p.confidence for p in pairs(mixed) if p.queue_id in d.selected}
    assert chosen and all(c >= d.p90 for c in chosen.values())
    assert len(chosen) == 2  # P90 = 0.879: only the 0.88 and 0.89 pairs qualify


def test_high_band_caps_at_ten_highest_first_never_below_floor() -> None:
    d = gate(pairs([0.93] * 12), CFG)
    assert d.band is Band.HIGH and len(d.selected) == 10
    mixed = [0.99] * 10 + [0.80, 0.60]
    d = gate(pairs(mixed), CFG)
    assert d.band is Band.HIGH and len(d.selected) == 10 and 11 not in d.selected


def test_kill_switch_halt_and_daily_cap() -> None:
    killed = gate(pairs([0.99] * 12), ReviewSettings(kill_switch=True))
    assert killed.band is Band.KILLED and killed.selected == []
    halted = gate(pairs([0.99] * 12), CFG, halt_reason="breaker open")
    assert halted.band is Band.HALTED and halted.selected == []
    capped = gate(pairs([0.99] * 12), CFG, merges_today=CFG.daily_merge_cap - 3)
    assert len(capped.selected) == 3 and capped.reasons
    assert gate(pairs([0.99] * 12), CFG, merges_today=CFG.daily_merge_cap).selected == []


def test_queue_share() -> None:
    guarded = ReviewSettings(max_daily_queue_share=0.2)  # an opt-in runaway guard
    assert not queue_share_exceeded(20, 100, guarded)
    assert queue_share_exceeded(21, 100, guarded)
    assert not queue_share_exceeded(5, 0, guarded)
    # Off by default: a fresh scope queues all of its memories on its first day.
    assert not queue_share_exceeded(100, 100, CFG)


def test_core_is_never_duplicate() -> None:
    label, why = enforce_label(PairLabel.DUPLICATE, [Category.CORE, Category.SEMANTIC])
    assert label is PairLabel.RELATED and why
    assert enforce_label(PairLabel.DUPLICATE, [Category.SEMANTIC])[0] is PairLabel.DUPLICATE
    assert enforce_label(PairLabel.SUPERSEDED, [Category.CORE])[0] is PairLabel.SUPERSEDED


def unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


def test_breaker_length_and_drift() -> None:
    v = unit([1, 0, 0])
    limits = ResultLimits.from_parts(review=CFG)
    long = "Frank was born in Toronto in 1980 and grew up near the lake shore"
    sources = [(Source("a", long), v), (Source("b", "Frank was born in Toronto"), v)]
    assert check_merge(long, v, sources, limits) == []
    short = check_merge("Frank: Toronto, 1980, lake", v, sources, limits)
    assert any("length drop" in r for r in short)
    far = unit([0.8, 0.6, 0])  # 1 - cos = 0.2 from v
    drift = check_merge(long, far, sources, limits)
    assert len(drift) == 1 and "drift" in drift[0]
    near_one = check_merge(long, far, [sources[0], (sources[1][0], far)], limits)
    assert near_one == []  # close to one source is enough
    assert not breaker_trips(3, CFG) and breaker_trips(4, CFG)


def test_review_merge_that_swaps_a_fact_is_refused() -> None:
    v = unit([1, 0, 0])
    limits = ResultLimits.from_parts(review=CFG)
    sources = [
        (Source("a", "Frank was born in Toronto"), v),
        (Source("b", "Frank's birthplace is Toronto"), v),
    ]
    reasons = check_merge("Frank was born in Ottawa", v, sources, limits)
    assert any("drops the name 'toronto'" in r for r in reasons)
    assert any("names 'ottawa', which no source does" in r for r in reasons)


def test_a_merge_into_one_restating_source_keeps_that_source_alone() -> None:
    # The result is one source's own text and says all the other says, in other words:
    # the other's words need not be in it ("plays" / "player").
    v = unit([1, 0, 0])
    limits = ResultLimits.from_parts(review=CFG)
    told = "Every weekend Farid is an oud player in a small band."
    sources = [
        (Source("a", "Farid plays the oud in a small band every weekend."), v),
        (Source("b", told), v),
    ]
    assert check_merge(told, v, sources, limits) == []
    # Another text, or one source's text where the other says something else, keeps
    # every source's words and bindings.
    written = check_merge("Farid is an oud player in a band.", v, sources, limits)
    assert any("content words of a" in r for r in written)
    apart = [
        (Source("a", "Ana broke her wrist in 2018."), v),
        (Source("b", "Ana broke her ankle in 2018."), v),
    ]
    refused = check_merge("Ana broke her ankle in 2018.", v, apart, limits)
    assert any("not one fact" in r for r in refused)
    assert any("content words of a" in r for r in refused)


def test_feedback_rules_and_bounds() -> None:
    assert feedback_rules({"used": 3}, CFG) == [FeedbackRule.BOOST]
    assert feedback_rules({"used": 3, "ignored": 1}, CFG) == []
    assert feedback_rules({"ignored": 3}, CFG) == [FeedbackRule.DECAY]
    assert feedback_rules({"contradicted": 2}, CFG) == [FeedbackRule.REVIEW]
    assert adjusted_importance(0.98, FeedbackRule.BOOST, CFG) == CFG.feedback_importance_cap
    assert adjusted_importance(0.12, FeedbackRule.DECAY, CFG) == CFG.feedback_importance_floor
    assert not past_cold_start(50, CFG) and past_cold_start(51, CFG)


def test_weighted_confidence_only_lowers_and_is_bounded() -> None:
    counts = [{"used": 1, "ignored": 1}, {"contradicted": 2}]
    assert weighted_confidence(0.9, counts, 50, CFG) == 0.9  # cold start
    w = weighted_confidence(0.9, counts, 51, CFG)
    assert w == pytest.approx(0.9 * (1 - 0.1 * 3 / 4))
    assert weighted_confidence(0.9, [{"used": 5}], 51, CFG) == 0.9
    assert weighted_confidence(0.9, [{"ignored": 9}], 51, CFG) == pytest.approx(0.81)
