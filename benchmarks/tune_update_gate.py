"""Choose the UPDATE gate on DEV data: how many true duplicates and how many
must-not-merge pairs reach each candidate threshold, on the embedder's calibrated
similarity (``memfold.embed.calibration``), the scale the guards read the gate on.

UPDATE rewrites a memory in place, so its gate sits between the discovery threshold
(0.70: a judge is asked) and the destructive one (0.90: MERGE / REPLACE). Every pair that
reaches the gate is then checked by the result check and the evidence rules; the gate is
the last line when a judge's text slips past them. Only dev splits are read: the pair
data sets' dev files and ``scenarios/dev.jsonl``.

    .venv/bin/python benchmarks/tune_update_gate.py [--data ../shared/bench-data] [--out FILE]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from bench_common import parser as bench_parser
from bench_common import write_json
from memfold.config import Settings
from memfold.embed import make_embedder
from memfold.embed.calibration import scale_for
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.evaluation.pairs_data import load_pairs
from memfold.evaluation.run_scenarios import load_scenarios, scenario_file
from memfold.evaluation.splits import check_split

THRESHOLDS = (0.70, 0.75, 0.80, 0.825, 0.85, 0.875, 0.90)


def cosines(embedder: CachingEmbedder, a: list[str], b: list[str]) -> np.ndarray:
    """The pairs' cosines, on the embedder's calibrated scale."""
    va, vb = embedder.embed(a), embedder.embed(b)
    scale = scale_for(embedder.model_id)
    return np.asarray([scale.calibrate(float(c)) for c in np.einsum("ij,ij->i", va, vb)])


def main() -> None:
    parser = bench_parser((__doc__ or "").splitlines()[0], "tune_update_gate.json")
    parser.add_argument("--cache", type=Path, default=Path("results/cache"))
    args = parser.parse_args()
    split = check_split("dev")
    embedder = CachingEmbedder(make_embedder(Settings().embed), args.cache)
    groups: dict[str, np.ndarray] = {}
    dup: list[float] = []
    bad: list[float] = []
    for name in ("sick", "msrp", "stsb"):
        pairs = load_pairs(args.data, name, split)
        sims = cosines(embedder, [p.a for p in pairs], [p.b for p in pairs])
        dup += [float(s) for p, s in zip(pairs, sims, strict=True) if p.kind.value == "duplicate"]
        bad += [float(s) for p, s in zip(pairs, sims, strict=True) if p.kind.must_not_merge]
    groups["pairs: duplicates"] = np.asarray(dup)
    groups["pairs: must not merge"] = np.asarray(bad)
    scenarios = load_scenarios(scenario_file(args.data, split))
    for kind in ("duplicate", "update", "distinct", "contradiction"):
        mine = [s for s in scenarios if s.kind == kind]
        groups[f"scenarios: {kind}"] = cosines(
            embedder, [s.existing[0] for s in mine], [s.new for s in mine]
        )
    embedder.save()
    table = Table(title="Share of pairs at or above each calibrated similarity (dev splits)")
    table.add_column("pairs")
    table.add_column("n", justify="right")
    for t in THRESHOLDS:
        table.add_column(f">= {t:g}", justify="right")
    for name, sims in groups.items():
        shares = [f"{100 * float(np.mean(sims >= t)):.1f} %" for t in THRESHOLDS]
        table.add_row(name, str(len(sims)), *shares)
    Console(width=140).print(table)
    result = {
        "split": split,
        "thresholds": list(THRESHOLDS),
        "groups": {
            name: {
                "n": len(sims),
                "share_at_or_above": {f"{t:g}": float(np.mean(sims >= t)) for t in THRESHOLDS},
            }
            for name, sims in groups.items()
        },
    }
    write_json(args.out, result)


if __name__ == "__main__":
    main()
