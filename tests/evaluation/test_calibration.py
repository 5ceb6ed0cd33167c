"""The reliability table of judge confidence on scenarios."""

from __future__ import annotations

from typing import Any

import pytest

from memfold.config import RoleSettings
from memfold.config_check import SettingError
from memfold.evaluation.calibration import (
    ANCHOR_GRID,
    fit_anchors,
    proposal_correct,
    reliability,
)
from memfold.judge.confidence_map import calibrated


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


def test_fitted_anchors_calibrate_an_underconfident_judge() -> None:
    # A judge right 3 times in 4 at a stated 0.3, and 19 in 20 at 0.9.
    judged = [(0.3, k % 4 != 0) for k in range(40)] + [(0.9, k % 20 != 0) for k in range(40)]
    anchors = fit_anchors(judged)
    assert anchors is not None and len(anchors) == len(ANCHOR_GRID)
    points = [(r, c) for r, c in anchors]
    assert calibrated(0.3, points) == pytest.approx(0.75, abs=0.05)
    assert calibrated(0.9, points) == pytest.approx(0.95, abs=0.03)
    assert [c for _, c in points] == sorted(c for _, c in points)  # never falls
    rows = [
        row("duplicate" if ok else "distinct", "REPLACE", calibrated(c, points)) for c, ok in judged
    ]
    assert reliability(rows)["ece"] < 0.03
    # Too few decisions, or nothing to tell apart: no fit.
    assert fit_anchors(judged[:10]) is None
    assert fit_anchors([(0.5, True)] * 50) is None


def test_anchors_are_checked_when_configured() -> None:
    role = RoleSettings(confidence_anchors=[(0.1, 0.4), (0.5, 0.7), (0.9, 0.9)])
    assert calibrated(0.3, role.confidence_anchors) == pytest.approx(0.55)
    assert calibrated(0.0, role.confidence_anchors) == 0.4  # flat beyond the ends
    assert calibrated(1.0, role.confidence_anchors) == 0.9
    assert calibrated(0.37, []) == 0.37  # no anchors: the raw probability
    for bad in ([(0.5, 0.7), (0.1, 0.8)], [(0.1, 0.8), (0.5, 0.7)], [(0.1, 1.2)]):
        with pytest.raises(SettingError, match="confidence_anchors"):
            RoleSettings(confidence_anchors=bad)
