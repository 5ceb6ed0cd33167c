"""Calibration of a judge's confidence on the consolidation scenarios.

A judged scenario counts as *correct* when the judge proposed (before the guards) an
action of the right family for its kind: a restatement folded (REPLACE, MERGE, UPDATE),
an update superseded or rewritten (DELETE, REPLACE, UPDATE), a distinct fact or a
contradiction kept apart (KEEP_SEPARATE, ADD). SKIPs are no verdict and left out. The
reliability table bins the decisions by confidence decile: in a calibrated judge, the
share correct in each bin is close to the bin's mean confidence. The expected
calibration error (ECE) is that gap averaged over decisions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
from rich.console import Console
from rich.table import Table

from memfold.model import JSONDict

EXPECTED: dict[str, frozenset[str]] = {
    "duplicate": frozenset({"REPLACE", "MERGE", "UPDATE"}),
    "update": frozenset({"DELETE", "REPLACE", "UPDATE"}),
    "distinct": frozenset({"KEEP_SEPARATE", "ADD"}),
    "contradiction": frozenset({"KEEP_SEPARATE", "ADD"}),
}
BINS = 10
MIN_FIT = 30
ANCHOR_GRID = (0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)


def proposal_correct(kind: str, proposed: str) -> bool:
    return proposed in EXPECTED.get(kind, frozenset())


def reliability(rows: Sequence[JSONDict]) -> JSONDict:
    """Decisions with a confidence (``confidence`` and ``proposed`` set, not SKIP) by
    decile: count, share correct, mean confidence; plus the ECE over all of them."""
    judged = [
        (float(r["confidence"]), proposal_correct(str(r["kind"]), str(r["proposed"])))
        for r in rows
        if r.get("confidence") is not None and r.get("proposed") not in (None, "SKIP")
    ]
    bins: list[JSONDict] = []
    gap = 0.0
    for b in range(BINS):
        mine = [(c, ok) for c, ok in judged if min(int(c * BINS), BINS - 1) == b]
        if not mine:
            bins.append({"low": b / BINS, "high": (b + 1) / BINS, "n": 0})
            continue
        mean = sum(c for c, _ in mine) / len(mine)
        share = sum(ok for _, ok in mine) / len(mine)
        gap += len(mine) * abs(mean - share)
        bins.append(
            {
                "low": b / BINS,
                "high": (b + 1) / BINS,
                "n": len(mine),
                "correct": round(share, 4),
                "mean_confidence": round(mean, 4),
            }
        )
    return {
        "decisions": len(judged),
        "correct": sum(ok for _, ok in judged),
        "ece": None if not judged else round(gap / len(judged), 4),
        "bins": bins,
        "fitted_anchors": fit_anchors(judged),
    }


def fit_anchors(judged: Sequence[tuple[float, bool]]) -> list[list[float]] | None:
    """``llm.<role>.confidence_anchors`` that would make these decisions' confidences
    calibrated: Platt scaling (a logistic fit of right/wrong on the log-odds of the raw
    confidence), read at ``ANCHOR_GRID``. None with fewer than ``MIN_FIT`` decisions or
    when all are right or all wrong (nothing to fit)."""
    if len(judged) < MIN_FIT or len({ok for _, ok in judged}) < 2:
        return None
    raw = np.clip(np.array([c for c, _ in judged], dtype=float), 1e-4, 1 - 1e-4)
    x = np.log(raw / (1 - raw))
    y = np.array([1.0 if ok else 0.0 for _, ok in judged])
    a, b = 1.0, 0.0
    for _ in range(50):  # Newton steps on the logistic log-likelihood, lightly ridged
        p = 1 / (1 + np.exp(-(a * x + b)))
        w = p * (1 - p)
        grad = np.array([np.sum((p - y) * x) + 1e-3 * a, np.sum(p - y)])
        hess = np.array(
            [[np.sum(w * x * x) + 1e-3, np.sum(w * x)], [np.sum(w * x), np.sum(w) + 1e-9]]
        )
        step = np.linalg.solve(hess, grad)
        a, b = a - step[0], b - step[1]
        if np.max(np.abs(step)) < 1e-8:
            break
    a = max(a, 0.0)  # never a map that falls as the probability rises
    grid = np.array(ANCHOR_GRID)
    cal = 1 / (1 + np.exp(-(a * np.log(grid / (1 - grid)) + b)))
    return [[float(r), round(float(c), 3)] for r, c in zip(grid, cal, strict=True)]


def reliability_table(table: JSONDict, title: str) -> Table:
    out = Table(title=title)
    for col in ("confidence", "decisions", "share correct", "mean confidence"):
        out.add_column(col, justify="right")
    for b in table["bins"]:
        n = int(b["n"])
        out.add_row(
            f"{b['low']:.1f}-{b['high']:.1f}",
            str(n),
            "-" if not n else f"{100 * float(b['correct']):.1f} %",
            "-" if not n else f"{float(b['mean_confidence']):.3f}",
        )
    ece = table.get("ece")
    out.caption = (
        f"{table['correct']} of {table['decisions']} proposals right; "
        f"ECE {'-' if ece is None else f'{float(ece):.3f}'}"
    )
    return out


def print_calibration(console: Console, scenarios: JSONDict, label: str) -> None:
    """The reliability table and the speed of the judged saves, where any were judged."""
    table = scenarios.get("calibration")
    if not table or not table.get("decisions"):
        return
    console.print(reliability_table(table, f"Judge confidence on scenarios, {label}"))
    anchors = table.get("fitted_anchors")
    if anchors:
        console.print(
            "confidence anchors that would calibrate this judge (Platt fit; set with "
            f"llm.<role>.confidence_anchors): {json.dumps(anchors, separators=(',', ':'))}"
        )
    median = scenarios.get("median_decision_s")
    console.print(
        f"judged saves: {scenarios.get('judged')}; median seconds per decision "
        f"{'-' if median is None else f'{float(median):.2f}'}; LLM calls per saved memory "
        f"{scenarios.get('llm_calls_per_memory')}" + _scoring_note(scenarios)
    )


def _scoring_note(scenarios: JSONDict) -> str:
    """The one-token scoring requests beside the calls, where there were any."""
    scoring = int(scenarios.get("scoring_requests") or 0)
    return f" (+ {scoring} one-token scoring requests)" if scoring else ""
