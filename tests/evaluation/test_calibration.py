"""The reliability table of judge confidence on scenarios."""

from __future__ import annotations

from typing import Any

import pytest

from memfold.evaluation.calibration import proposal_correct, reliability


def row(kind: str, proposed: str, confidence: float) -> dict[str, Any]:
    return {"kind": kind, "proposed": proposed, "confidence": confidence}


def test_deciles_count_share_correct_and_ece() -> None:
    rows: list[dict[str, Any]] = [
        row("duplicate", "REPLACE", 0.95),  # right
        row("distinct", "MERGE", 0.91),  # wrong
        row("update", "DELETE", 0.42),  # right
        row("contradiction", "KEEP_SEPARATE", 1.0),  # right: 1.0 falls in the top bin
        row("update", "SKIP", 0.9),  # no verdict: left out
        {"kind": "distinct", "proposed": None, "confidence": None},  # not judged
    ]
    table = reliability(rows)
    assert (table["decisions"], table["correct"]) == (4, 3)
    top, middle = table["bins"][9], table["bins"][4]
    assert top["n"] == 3 and top["correct"] == pytest.approx(2 / 3, abs=1e-4)
    assert middle == {"low": 0.4, "high": 0.5, "n": 1, "correct": 1.0, "mean_confidence": 0.42}
    assert sum(b["n"] for b in table["bins"]) == 4
    # |0.9533 - 0.6667| * 3 + |0.42 - 1| * 1, over 4 decisions
    assert table["ece"] == pytest.approx((abs(2.86 / 3 - 2 / 3) * 3 + 0.58) / 4, abs=1e-3)


def test_right_action_families() -> None:
    assert proposal_correct("update", "UPDATE") and proposal_correct("duplicate", "MERGE")
    assert not proposal_correct("contradiction", "DELETE")
    assert not proposal_correct("update", "MERGE")
    assert reliability([])["ece"] is None
