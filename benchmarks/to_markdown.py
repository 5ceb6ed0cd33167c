"""Markdown tables from the JSON results, for docs/benchmarks.md.

    .venv/bin/python benchmarks/to_markdown.py results/eval-dev-rules.json [more.json ...]

Recognizes ``memfold eval`` output and the bench_*.py outputs by their keys.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from memfold.evaluation.metrics import ACTIONS
from memfold.evaluation.report import num, pct


def md(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def pairs(results: list[dict[str, Any]]) -> str:
    rows = []
    for r in results:
        m = r["metrics"]
        rows.append([
            r["dataset"], str(m["pairs"]), str(m["judged"]), str(m["must_not_merge"]),
            f"{pct(m['false_merge_rate'])} ({m['destructive_on_must_not']})",
            f"{pct(m['false_merge_rate_excl_contra_delete'])}",
            f"{pct(m['update_rate_on_must_not'])} ({m['update_on_must_not']})",
            f"{pct(m['duplicate_recall'])} of {m['duplicates']}",
            f"{pct(m['contradiction_recall'])} of {m['contradictions']}" if m["contradictions"]
            else "-",
        ])  # fmt: skip
    header = [
        "data set", "pairs", "judged", "must-not-merge", "false merge M/R/D (n)",
        "same, excl. DELETE on CONTRADICTION", "UPDATE on must-not (n)", "duplicate recall",
        "contradiction recall",
    ]  # fmt: skip
    out = md(header, rows)
    for r in results:
        out += f"\n{r['dataset']}: actions by label\n\n"
        out += md(
            ["label", *ACTIONS],
            [
                [label, *(str(row.get(a, 0)) for a in ACTIONS)]
                for label, row in r["confusion"].items()
            ],
        )
    return out


def locomo(res: dict[str, Any]) -> str:
    rows = []
    for e in res["conversations"]:
        off, on = e["off"], e["on"]
        rows.append([
            e["conversation"], str(off["active"]), str(on["active"]), pct(e["active_ratio"]),
            num(off["evidence_recall"]), num(on["evidence_recall"]),
            pct(off["answer_contained"]), pct(on["answer_contained"]), num(e["recall_ceiling"]),
        ])  # fmt: skip
    t = res["total"]
    rows.append([
        "**all**", str(t["memories_off"]), str(t["memories_on_active"]), pct(t["active_ratio"]),
        num(t["off"]["evidence_recall"]), num(t["on"]["evidence_recall"]),
        pct(t["off"]["answer_contained"]), pct(t["on"]["answer_contained"]),
        num(t["recall_ceiling"]),
    ])  # fmt: skip
    header = [
        "conversation", "memories (off)", "active (on)", "kept", "evidence recall off",
        "evidence recall on", "answer contained off", "answer contained on", "ceiling",
    ]  # fmt: skip
    out = md(header, rows)
    out += f"\nrecall on / off: **{num(t['recall_ratio_on_off'])}** (target >= 0.98)\n\n"
    off, on = t["off"]["by_category"], t["on"]["by_category"]
    out += md(
        ["category", "questions", "recall off", "recall on", "contained off", "contained on"],
        [[c, str(off[c]["questions"]), num(off[c]["evidence_recall"]),
          num(on[c]["evidence_recall"]), pct(off[c]["answer_contained"]),
          pct(on[c]["answer_contained"])] for c in off],
    )  # fmt: skip
    return out


def beam(res: dict[str, Any]) -> str:
    return md(
        ["measure", "figure", "target"],
        [
            ["chats / user messages / active after", f"{res['chats']} / {res['messages']} / "
             f"{res['active_after']}", ""],
            ["knowledge update: updated above original, or original superseded",
             f"{pct(res['updated_above_original'])} {res['update_outcomes']}", ">= 70 %"],
            ["contradiction statements: state after consolidation",
             str(res["contradiction_states"]), "never dropped"],
            ["statements dropped", str(res["contradictions_dropped"]), "0"],
        ],
    )  # fmt: skip


def render(path: Path) -> str:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = f"<!-- from {path} -->\n"
    if "pairs" in data:
        out += pairs(data["pairs"]) + "\n"
    if "locomo" in data:
        out += locomo(data["locomo"]) + "\n"
    if "beam" in data:
        out += beam(data["beam"]) + "\n"
    return out


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(render(Path(name)))
