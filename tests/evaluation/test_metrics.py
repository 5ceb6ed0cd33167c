"""Metric code on tiny hand-made fixtures; never reads ../shared/bench-data."""

from __future__ import annotations

import pytest

from memfold.evaluation.metrics import (
    PairOutcome,
    confusion,
    contains_answer,
    evidence_recall,
    first_rank,
    normalize_answer,
    pair_metrics,
    parse_evidence,
    update_outcome,
)
from memfold.evaluation.pairs_data import PairKind, sick_kind, stsb_bucket, subsample


def outcome(label: str, kind: PairKind, action: str) -> PairOutcome:
    return PairOutcome("t", label, kind, action, 0.9, action != "ADD")


def test_evidence_recall_by_hand() -> None:
    # 3 evidence ids; the hits carry D1:2 and (through a merge union) D3:4: 2 of 3.
    hits = [["D1:2"], ["D9:9", "D3:4"], []]
    assert evidence_recall(["D1:2", "D2:5", "D3:4"], hits) == pytest.approx(2 / 3)
    assert evidence_recall([], hits) is None
    assert evidence_recall(["D1:1"], []) == 0.0


def test_parse_evidence_repairs_known_quirks() -> None:
    assert parse_evidence(["D8:6; D9:17"]) == ["D8:6", "D9:17"]
    assert parse_evidence(["D1:18", "D", "D1:20"]) == ["D1:18", "D1:20"]
    assert parse_evidence(["D:11:26", "D1:18", "D1:18"]) == ["D11:26", "D1:18"]
    assert parse_evidence([]) == []


def test_confusion_matrix_counts_every_action_column() -> None:
    outcomes = [
        outcome("CONTRADICTION", PairKind.CONTRADICTION, "DELETE"),
        outcome("CONTRADICTION", PairKind.CONTRADICTION, "ADD"),
        outcome("NEUTRAL", PairKind.OTHER, "ADD"),
        outcome("CONTRADICTION", PairKind.CONTRADICTION, "DELETE"),
    ]
    table = confusion(outcomes)
    assert list(table) == ["CONTRADICTION", "NEUTRAL"]
    assert table["CONTRADICTION"]["DELETE"] == 2
    assert table["CONTRADICTION"]["ADD"] == 1
    assert table["CONTRADICTION"]["MERGE"] == 0
    assert sum(table["NEUTRAL"].values()) == 1
    assert set(table["NEUTRAL"]) >= {"ADD", "KEEP_SEPARATE", "UPDATE", "MERGE", "SKIP"}


def test_pair_metrics_rates() -> None:
    outcomes = [
        outcome("score<=2", PairKind.DISTINCT, "MERGE"),  # a false merge
        outcome("score<=2", PairKind.DISTINCT, "UPDATE"),  # reported apart
        outcome("score<=2", PairKind.DISTINCT, "ADD"),
        outcome("CONTRADICTION", PairKind.CONTRADICTION, "DELETE"),  # intended
        outcome("score>=4.5", PairKind.DUPLICATE, "UPDATE"),
        outcome("score>=4.5", PairKind.DUPLICATE, "KEEP_SEPARATE"),
        outcome("2<score<4.5", PairKind.OTHER, "MERGE"),  # scored by no rate
    ]
    m = pair_metrics(outcomes)
    assert m["must_not_merge"] == 4
    assert m["destructive_on_must_not"] == 2
    assert m["false_merge_rate"] == pytest.approx(2 / 4)
    assert m["false_merge_rate_excl_contra_delete"] == pytest.approx(1 / 4)
    assert m["update_on_must_not"] == 1
    assert m["duplicate_recall"] == pytest.approx(1 / 2)
    assert m["contradiction_recall"] == 1.0
    assert m["judged"] == 6


def test_pair_metrics_empty_is_none_not_zero() -> None:
    m = pair_metrics([])
    assert m["false_merge_rate"] is None and m["duplicate_recall"] is None


def test_answer_containment_normalizes() -> None:
    assert normalize_answer("The Eiffel-Tower!") == "eiffel tower"
    assert contains_answer("7 May 2023", ["She went on 7 May, 2023."])
    assert contains_answer(2022, ["painted in 2022"])
    assert not contains_answer("202", ["painted in 2022"])  # whole tokens only
    assert not contains_answer("", ["anything"])


def test_update_outcomes() -> None:
    sources = [["7"], ["3", "9"], ["1"]]
    assert first_rank(sources, ["9"]) == 1
    assert first_rank(sources, ["42"]) is None
    assert update_outcome(0, 2, False) == "above"
    assert update_outcome(2, 0, False) == "below"
    assert update_outcome(1, 1, False) == "same"
    assert update_outcome(None, 0, False) == "missing"
    assert update_outcome(None, None, True) == "superseded"


def test_label_mappings() -> None:
    assert sick_kind(4.6, "ENTAILMENT") is PairKind.DUPLICATE
    assert sick_kind(4.4, "ENTAILMENT") is PairKind.OTHER
    assert sick_kind(4.9, "CONTRADICTION") is PairKind.CONTRADICTION
    assert stsb_bucket(2.0)[1] is PairKind.DISTINCT
    assert stsb_bucket(4.5)[1] is PairKind.DUPLICATE
    assert stsb_bucket(3.0)[1] is PairKind.OTHER


def test_subsample_spreads_evenly() -> None:
    assert subsample(list(range(10)), 5) == [0, 2, 4, 6, 8]
    assert subsample([1, 2], None) == [1, 2]
    assert subsample([1, 2], 0) == []


def test_llm_judge_needs_an_endpoint() -> None:
    from memfold.config import LLMSettings, Settings
    from memfold.evaluation.env import make_eval_judge

    with pytest.raises(ValueError, match="endpoint"):
        make_eval_judge("llm", Settings(llm=LLMSettings()))
    with pytest.raises(ValueError, match="endpoint"):
        make_eval_judge("default", Settings(llm=LLMSettings()))
    with pytest.raises(ValueError, match="rules"):
        make_eval_judge("gpt", Settings())
    assert make_eval_judge("rules", Settings()).name == "rules"
    configured = Settings(llm=LLMSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    # default = what Memory builds: the LLM with the rules in front and behind it
    default = make_eval_judge("default", configured)
    assert type(default).__name__ == "FallbackJudge"
    assert type(make_eval_judge("llm", configured)).__name__ == "LLMJudge"
