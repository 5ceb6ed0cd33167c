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

from collections.abc import Sequence

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
    }


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
    median = scenarios.get("median_decision_s")
    console.print(
        f"judged saves: {scenarios.get('judged')}; median seconds per decision "
        f"{'-' if median is None else f'{float(median):.2f}'}; LLM calls per saved memory "
        f"{scenarios.get('llm_calls_per_memory')}"
    )
