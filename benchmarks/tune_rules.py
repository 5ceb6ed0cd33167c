"""Measure the offline rule judge + guards on the DEV splits of public pair data sets.

Only dev files are read (see ../shared/bench-data/README.md, "Splits"): SICK_train/trial,
msr-para-train/val, sts-train/dev. Held-out files are never opened here.

For each pair, sentence A is the existing memory and sentence B the new one. Pairs whose
real cosine is below the discovery threshold get no judge call on save, so they end as
KEEP_SEPARATE but still count in every denominator.

    .venv/bin/python benchmarks/tune_rules.py [--data ../shared/bench-data] [--cache /tmp/...]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memfold.config import ConsolidationSettings
from memfold.judge.base import SaveItem
from memfold.judge.rules import RuleJudge, thresholds_from_settings
from memfold.judge.rules_compare import RuleThresholds
from memfold.model import Action, Candidate, MemoryRecord, Scope
from memfold.policy.guards import apply_guards

DEV_FILES = {
    "sick": ["sick2014/SICK_train.txt", "sick2014/SICK_trial.txt"],
    "msrp": ["msrp/msr-para-train.tsv", "msrp/msr-para-val.tsv"],
    "stsb": ["stsb/sts-train.tsv", "stsb/sts-dev.tsv"],
}


@dataclass(frozen=True, slots=True)
class Pair:
    source: str
    a: str
    b: str
    must_not_merge: bool
    duplicate: bool
    contradiction: bool


def load_sick(paths: Iterable[Path]) -> list[Pair]:
    pairs: list[Pair] = []
    for path in paths:
        with path.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                score = float(row["relatedness_score"])
                label = row["entailment_judgment"]
                pairs.append(
                    Pair(
                        "sick",
                        row["sentence_A"],
                        row["sentence_B"],
                        must_not_merge=label == "CONTRADICTION",
                        duplicate=score >= 4.5 and label == "ENTAILMENT",
                        contradiction=label == "CONTRADICTION",
                    )
                )
    return pairs


def load_msrp(paths: Iterable[Path]) -> list[Pair]:
    pairs: list[Pair] = []
    for path in paths:
        with path.open(encoding="utf-8-sig") as fh:
            rows = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
            next(rows)
            for row in rows:
                if len(row) < 5:
                    continue
                pairs.append(Pair("msrp", row[3], row[4], row[0] == "0", False, False))
    return pairs


def load_stsb(paths: Iterable[Path]) -> list[Pair]:
    pairs: list[Pair] = []
    for path in paths:
        with path.open(encoding="utf-8") as fh:
            for row in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                if len(row) < 7:
                    continue
                score = float(row[4])
                pairs.append(Pair("stsb", row[5], row[6], score <= 2.0, score >= 4.5, False))
    return pairs


def cosines(pairs: list[Pair], cache_dir: Path) -> npt.NDArray[np.float32]:
    """Cosine of every pair; sentence vectors are cached in a .npy keyed by the text list."""
    texts = sorted({t for p in pairs for t in (p.a, p.b)})
    key = hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:16]
    cache = cache_dir / f"memfold_tune_rules_{key}.npy"
    if cache.exists():
        vectors = np.load(cache)
    else:
        from memfold.embed.local import LocalEmbedder

        print(f"embedding {len(texts)} sentences (cache {cache})", file=sys.stderr)
        vectors = np.asarray(LocalEmbedder().embed(texts), dtype=np.float32)
        cache_dir.mkdir(parents=True, exist_ok=True)
        np.save(cache, vectors)
    index = {t: i for i, t in enumerate(texts)}
    a = vectors[[index[p.a] for p in pairs]]
    b = vectors[[index[p.b] for p in pairs]]
    return np.asarray(np.sum(a * b, axis=1), dtype=np.float32)


def judge_pairs(
    pairs: list[Pair],
    sims: npt.NDArray[np.float32],
    settings: ConsolidationSettings,
    limits: RuleThresholds,
) -> list[Action]:
    """The on-save path for each pair: no judge call below discovery, else judge + guards."""
    judge = RuleJudge(settings, limits)
    scope = Scope(user_id="bench")
    actions: list[Action] = []
    for i, pair in enumerate(pairs):
        sim = float(sims[i])
        if sim < settings.discovery_threshold:
            actions.append(Action.KEEP_SEPARATE)
            continue
        old = MemoryRecord(id=f"a{i}", scope=scope, text=pair.a)
        new = MemoryRecord(id=f"b{i}", scope=scope, text=pair.b)
        candidates = [Candidate(old, sim)]
        decision = judge.decide([SaveItem(new, candidates)])[0]
        actions.append(apply_guards(decision, new, candidates, settings).action)
    return actions


MERGING = (Action.MERGE, Action.REPLACE, Action.UPDATE)


def report(pairs: list[Pair], actions: list[Action], sims: npt.NDArray[np.float32]) -> None:
    header = (
        f"{'set':6} {'pairs':>6} {'>=0.70':>7} | {'mnm':>5} {'falseM':>7} {'falseU':>7} "
        f"{'falseD':>7} | {'dups':>5} {'dupRec':>7} | {'contr':>5} {'conRec':>7} {'conMrg':>7}"
    )
    print(header)
    print("-" * len(header))
    for source in [*DEV_FILES, "all"]:
        idx = [i for i, p in enumerate(pairs) if source in ("all", p.source)]
        mnm = [i for i in idx if pairs[i].must_not_merge]
        # A DELETE on a SICK contradiction is the wanted outcome, not a false merge.
        mnm_other = [i for i in mnm if not pairs[i].contradiction]
        dups = [i for i in idx if pairs[i].duplicate]
        contr = [i for i in idx if pairs[i].contradiction]
        false_m = sum(actions[i] in (Action.MERGE, Action.REPLACE) for i in mnm)
        false_u = sum(actions[i] is Action.UPDATE for i in mnm)
        false_d = sum(actions[i] is Action.DELETE for i in mnm_other)
        dup_hit = sum(actions[i] in MERGING for i in dups)
        con_hit = sum(actions[i] is Action.DELETE for i in contr)
        con_merge = sum(actions[i] in MERGING for i in contr)
        above = sum(float(sims[i]) >= 0.70 for i in idx)
        print(
            f"{source:6} {len(idx):6d} {above:7d} | {len(mnm):5d} {pct(false_m, len(mnm)):>7} "
            f"{pct(false_u, len(mnm)):>7} {pct(false_d, len(mnm_other)):>7} | "
            f"{len(dups):5d} {pct(dup_hit, len(dups)):>7} | {len(contr):5d} "
            f"{pct(con_hit, len(contr)):>7} {pct(con_merge, len(contr)):>7}"
        )
    print()
    print("action counts:", dict(Counter(a.value for a in actions)))
    non_dup_delete = sum(
        a is Action.DELETE and not p.contradiction for a, p in zip(actions, pairs, strict=True)
    )
    print(f"DELETE on pairs not labelled contradiction (any set): {non_dup_delete}")
    print(
        "mnm = must-not-merge (SICK CONTRADICTION, MSRP 0, STS-B <= 2); falseM = MERGE/REPLACE, "
        "falseU = UPDATE on mnm; falseD = DELETE on mnm other than SICK contradictions; "
        "dupRec = MERGE/UPDATE/REPLACE on duplicates; conRec = SICK CONTRADICTION -> DELETE; "
        "conMrg = contradictions merged (must be 0)."
    )


def pct(hits: int, total: int) -> str:
    return "-" if total == 0 else f"{100.0 * hits / total:.2f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/bench-data"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/memfold-bench-cache"))
    parser.add_argument("--delete-threshold", type=float, default=None)
    parser.add_argument("--delete-min-confidence", type=float, default=None)
    parser.add_argument("--flip-min-overlap", type=float, default=None)
    parser.add_argument("--merge-min-similarity", type=float, default=None)
    parser.add_argument(
        "--show", choices=["false-merge", "false-delete", "must-not-delete", "missed-dup"]
    )
    args = parser.parse_args(argv)
    root: Path = args.data / "pairs"
    pairs = (
        load_sick(root / f for f in DEV_FILES["sick"])
        + load_msrp(root / f for f in DEV_FILES["msrp"])
        + load_stsb(root / f for f in DEV_FILES["stsb"])
    )
    sims = cosines(pairs, args.cache)
    overrides: dict[str, float] = {}
    if args.delete_threshold is not None:
        overrides["delete_threshold"] = args.delete_threshold
    if args.delete_min_confidence is not None:
        overrides["delete_min_confidence"] = args.delete_min_confidence
    settings = ConsolidationSettings(**overrides)
    limits = thresholds_from_settings(settings)
    if args.flip_min_overlap is not None:
        limits = replace(limits, flip_min_overlap=args.flip_min_overlap)
    if args.merge_min_similarity is not None:
        limits = replace(limits, merge_min_similarity=args.merge_min_similarity)
    actions = judge_pairs(pairs, sims, settings, limits)
    report(pairs, actions, sims)
    if args.show:
        show(args.show, pairs, actions, sims)
    return 0


def show(
    kind: str, pairs: list[Pair], actions: list[Action], sims: npt.NDArray[np.float32]
) -> None:
    """Print the failing pairs of one kind, to look at while tuning (dev data only)."""
    for i, (pair, action) in enumerate(zip(pairs, actions, strict=True)):
        bad = (
            (kind == "false-merge" and pair.must_not_merge and action in MERGING)
            or (kind == "false-delete" and not pair.contradiction and action is Action.DELETE)
            or (
                kind == "must-not-delete"
                and pair.must_not_merge
                and not pair.contradiction
                and action is Action.DELETE
            )
            or (kind == "missed-dup" and pair.duplicate and action not in MERGING)
        )
        if bad and (kind != "missed-dup" or float(sims[i]) >= 0.7):
            print(f"[{pair.source} {action.value} {float(sims[i]):.3f}] {pair.a!r} || {pair.b!r}")


if __name__ == "__main__":
    raise SystemExit(main())
