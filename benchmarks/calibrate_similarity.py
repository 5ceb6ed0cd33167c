"""Measure where the bundled embedder's cosines fall on dev pairs and derive its anchors.

The seeds' thresholds (discovery 0.70, review scan 0.82, destructive 0.90) are cosines
of OpenAI-class models; ``memfold.embed.calibration`` states them on a calibrated
similarity instead, a per-model piecewise-linear map whose anchors this script measures:

* calibrated 0.90 <-> the 10th percentile of the raw cosine of restatement pairs (90 %
  of genuine restatements reach the destructive gate);
* calibrated 0.70 <-> the 2nd percentile of restatement and update pairs pooled (98 %
  of the pairs worth judging reach discovery).

Pair sets, each pair read as (existing memory, new memory):

* restatements (the anchor pool): ``scenarios/dev.jsonl`` "duplicate" (the new text vs
  the FIRST existing memory, the one it restates); SICK train/trial relatedness >= 4.5
  with ENTAILMENT (this SICK release labels A -> B only, so "both ways" cannot be
  checked); STS-B train/dev score >= 4.5. Their 10th percentiles agree (0.80 each);
* second view, not in the anchors: MSRP train/val quality 1. Its "paraphrase" admits a
  sentence that carries extra clauses, so it sits far lower (10th percentile 0.67, below
  the median of MSRP's own non-paraphrases); the anchors it would give are printed;
* updates: scenario "update" (new vs the memory it updates);
* distinct (must not merge): scenario "distinct" and "contradiction", MSRP 0,
  STS-B <= 2; shown besides: SICK CONTRADICTION, and the scenarios' distractors (the
  same person's other facts, existing[1:] vs new: what a low discovery floor sends to
  the judge).

Only dev splits are read (``memfold.evaluation.splits``); held-out files are never opened.
Vectors are cached under ``--cache`` (one file per model), so a second run is quick.

    .venv/bin/python benchmarks/calibrate_similarity.py [--data ../shared/bench-data] [--out FILE]
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.table import Table

from bench_common import parser, write_json
from memfold.embed.calibration import SimilarityScale, scale_for
from memfold.embed.local import LocalEmbedder
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.evaluation.pairs_data import Pair, PairKind, load_pairs
from memfold.evaluation.run_scenarios import load_scenarios, scenario_file

Floats = npt.NDArray[np.float64]

PERCENTILES = (2, 10, 25, 50)
DESTRUCTIVE, REVIEW, DISCOVERY = 0.90, 0.82, 0.70
DESTRUCTIVE_PCT = 10.0  # of restatements
DISCOVERY_PCT = 2.0  # of restatements and updates, pooled

RESTATEMENT, SECOND_VIEW, UPDATE, DISTINCT, EXTRA = (
    "restatement",
    "restatement (2nd view)",
    "update",
    "distinct",
    "extra",
)
ALL_RESTATEMENTS = "ALL restatements (anchor pool)"
ALL_WITH_UPDATES = "ALL restatements + updates"
ALL_DISTINCT = "ALL distinct (scen+MSRP 0+STS-B<=2)"


@dataclass(frozen=True, slots=True)
class PairSet:
    name: str
    role: str
    a: list[str]  # the existing memory
    b: list[str]  # the new memory


def scenario_sets(data: Path) -> list[PairSet]:
    scenarios = load_scenarios(scenario_file(data, "dev"))
    roles = {"duplicate": RESTATEMENT, "update": UPDATE}
    out = []
    for kind in ("duplicate", "update", "distinct", "contradiction"):
        mine = [s for s in scenarios if s.kind == kind]
        role = roles.get(kind, DISTINCT)
        out.append(
            PairSet(f"scenarios {kind}", role, [s.existing[0] for s in mine], [s.new for s in mine])
        )
    others = [(old, s.new) for s in scenarios for old in s.existing[1:]]
    out.append(
        PairSet("scenarios distractors", EXTRA, [a for a, _ in others], [b for _, b in others])
    )
    return out


def _pairs(name: str, role: str, pairs: Sequence[Pair]) -> PairSet:
    return PairSet(name, role, [p.a for p in pairs], [p.b for p in pairs])


def public_sets(data: Path) -> list[PairSet]:
    sick = load_pairs(data, "sick", "dev")
    stsb = load_pairs(data, "stsb", "dev")
    msrp = load_pairs(data, "msrp", "dev")
    dup, distinct = PairKind.DUPLICATE, PairKind.DISTINCT
    return [
        _pairs("SICK rel>=4.5 ENTAIL", RESTATEMENT, [p for p in sick if p.kind is dup]),
        _pairs("STS-B >=4.5", RESTATEMENT, [p for p in stsb if p.kind is dup]),
        _pairs("MSRP 1", SECOND_VIEW, [p for p in msrp if p.label == "quality=1"]),
        _pairs("MSRP 0", DISTINCT, [p for p in msrp if p.label == "quality=0"]),
        _pairs("STS-B <=2", DISTINCT, [p for p in stsb if p.kind is distinct]),
        _pairs("SICK CONTRADICTION", EXTRA, [p for p in sick if p.kind is PairKind.CONTRADICTION]),
    ]


def cosines(embedder: CachingEmbedder, sets: list[PairSet]) -> dict[str, Floats]:
    texts = list(dict.fromkeys(t for s in sets for t in (*s.a, *s.b)))
    missing = embedder.missing(texts)
    if missing:
        print(f"embedding {missing} of {len(texts)} texts ...", file=sys.stderr)
    vectors = embedder.embed(texts)
    embedder.save()
    row = {t: i for i, t in enumerate(texts)}
    out: dict[str, Floats] = {}
    for s in sets:
        va = vectors[[row[t] for t in s.a]].astype(np.float64)
        vb = vectors[[row[t] for t in s.b]].astype(np.float64)
        out[s.name] = np.einsum("ij,ij->i", va, vb)
    return out


def anchor(values: Floats, percentile: float) -> float:
    """The raw cosine that (100 - percentile) % of ``values`` reach, floored to 0.001 so
    that rounding never lowers the share that passes."""
    return math.floor(float(np.percentile(values, percentile)) * 1000) / 1000


def derive(restatements: Floats, updates: Floats) -> tuple[float, float]:
    """(raw at calibrated 0.70, raw at calibrated 0.90) by the definitions above."""
    discovery = anchor(np.concatenate([restatements, updates]), DISCOVERY_PCT)
    return discovery, anchor(restatements, DESTRUCTIVE_PCT)


def balanced_floor(restatements: Floats, updates: Floats) -> float:
    """The alternative discovery anchor: 2 % missed of restatements and updates weighed
    equally (pooled, the 45 updates are 2.5 % of the pairs and barely move it)."""
    grid = np.arange(0.0, 1.0, 0.001)
    missed = np.array([0.5 * np.mean(restatements < t) + 0.5 * np.mean(updates < t) for t in grid])
    return float(grid[max(0, int(np.searchsorted(missed, DISCOVERY_PCT / 100)) - 1)])


def scale_from(model: str, discovery: float, destructive: float) -> SimilarityScale:
    return SimilarityScale(
        model, ((0.0, 0.0), (discovery, DISCOVERY), (destructive, DESTRUCTIVE), (1.0, 1.0))
    )


def share(values: Floats, scale: SimilarityScale, threshold: float) -> float:
    calibrated = np.array([scale.calibrate(float(v)) for v in values])
    return float(np.mean(calibrated >= threshold))


def main() -> None:
    p = parser((__doc__ or "").splitlines()[0], "calibrate_similarity.json")
    p.add_argument("--cache", type=Path, default=Path("results/cache"))
    args = p.parse_args()

    sets = scenario_sets(args.data) + public_sets(args.data)
    embedder = CachingEmbedder(LocalEmbedder(), args.cache)
    model = embedder.model_id
    groups = cosines(embedder, sets)
    roles = {s.name: s.role for s in sets}

    def pool(*wanted: str) -> Floats:
        return np.concatenate([v for n, v in groups.items() if roles[n] in wanted])

    restatements, updates = pool(RESTATEMENT), groups["scenarios update"]
    distinct = pool(DISTINCT)
    groups |= {
        ALL_RESTATEMENTS: restatements,
        ALL_WITH_UPDATES: np.concatenate([restatements, updates]),
        ALL_DISTINCT: distinct,
    }
    roles |= {ALL_RESTATEMENTS: RESTATEMENT, ALL_WITH_UPDATES: "both", ALL_DISTINCT: DISTINCT}
    discovery, destructive = derive(restatements, updates)
    derived = scale_from(model, discovery, destructive)
    module = scale_for(model)

    console = Console(width=170)
    table = Table(
        title=f"Raw cosine of dev pairs, {model}; cal = calibrated with the derived anchors"
    )
    for col in ("pair set", "role"):
        table.add_column(col)
    for col in ("n", *(f"p{p}" for p in PERCENTILES)):
        table.add_column(col, justify="right")
    for col in ("raw>=0.90", "cal>=0.90", "cal>=0.82", "cal>=0.70"):
        table.add_column(col, justify="right")
    rows = []
    for name, values in groups.items():
        pct = [float(np.percentile(values, p)) for p in PERCENTILES]
        passing = {
            "raw>=0.90": float(np.mean(values >= DESTRUCTIVE)),
            "cal>=0.90": share(values, derived, DESTRUCTIVE),
            "cal>=0.82": share(values, derived, REVIEW),
            "cal>=0.70": share(values, derived, DISCOVERY),
        }
        table.add_row(
            name,
            roles[name],
            str(len(values)),
            *(f"{v:.3f}" for v in pct),
            *(f"{100 * v:.1f} %" for v in passing.values()),
        )
        rows.append({"set": name, "role": roles[name], "n": len(values), "pct": pct, **passing})
    console.print(table)

    console.print(f"derived anchors (raw, calibrated): {derived.anchors}")
    console.print(f"  review scan 0.82 <- raw {derived.to_raw(REVIEW):.3f}")
    same = module.anchors == derived.anchors
    console.print(
        f"module anchors:                    {module.anchors} ({'same' if same else 'DIFFER'})"
    )
    alternatives = {
        "with MSRP 1 among restatements": derive(pool(RESTATEMENT, SECOND_VIEW), updates),
        "scenarios only (40 dup, 45 upd)": derive(groups["scenarios duplicate"], updates),
        "discovery balanced per kind": (balanced_floor(restatements, updates), destructive),
    }
    console.print("alternatives (raw at cal 0.70, raw at cal 0.90) and what they would pass:")
    for view, (disc, dest) in alternatives.items():
        alt = scale_from(model, disc, dest)
        console.print(
            f"  {view:34s} {disc:.3f} {dest:.3f}  cal>=0.70: updates"
            f" {100 * share(updates, alt, DISCOVERY):.1f} %, distractors"
            f" {100 * share(groups['scenarios distractors'], alt, DISCOVERY):.1f} %;"
            f" cal>=0.90: scenario dups {100 * share(groups['scenarios duplicate'], alt, 0.9):.1f}"
            f" %, all distinct {100 * share(distinct, alt, DESTRUCTIVE):.1f} %"
        )
    payload = {
        "model": model,
        "derived_anchors": derived.anchors,
        "module_anchors": module.anchors,
        "alternatives": alternatives,
        "rows": rows,
    }
    write_json(args.out, payload)


if __name__ == "__main__":
    main()
