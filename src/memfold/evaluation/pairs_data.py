"""Loading sentence-pair data sets as (existing memory, new memory, label) pairs.

The labels are about similarity, not memory identity, so each pair also gets a
``kind`` from the mapping in bench-data/README.md: "duplicate" (STS-B >= 4.5, SICK
relatedness >= 4.5 with ENTAILMENT, QQP 1), "contradiction" (SICK CONTRADICTION),
"distinct" (MSRP 0, STS-B <= 2, QQP 0) and "other" (everything in between: it is
shown in the confusion matrix but scored by no rate).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from memfold.evaluation.splits import (
    MSRP_FILES,
    QQP_DEV_ROWS,
    QQP_FILE,
    SICK_FILES,
    STSB_FILES,
    Split,
)

T = TypeVar("T")

PAIR_DATASETS = ("sick", "msrp", "stsb", "qqp")
# The three the targets are stated on; QQP is reported as an extra.
TARGET_DATASETS = ("sick", "msrp", "stsb")


class PairKind(StrEnum):
    DUPLICATE = "duplicate"
    CONTRADICTION = "contradiction"
    DISTINCT = "distinct"
    OTHER = "other"

    @property
    def must_not_merge(self) -> bool:
        return self in (PairKind.CONTRADICTION, PairKind.DISTINCT)


@dataclass(frozen=True, slots=True)
class Pair:
    """``a`` is presented as the existing memory, ``b`` as the new one."""

    dataset: str
    pair_id: str
    a: str
    b: str
    label: str  # the data set's own label (or score bucket), rows of the confusion matrix
    kind: PairKind


def _lines(path: Path) -> Iterator[list[str]]:
    # Plain tab splitting: these files hold unbalanced quotes that trip the csv module.
    with path.open(encoding="utf-8-sig", errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\n").rstrip("\r")
            if line.strip():
                yield line.split("\t")


def sick_kind(relatedness: float, judgment: str) -> PairKind:
    if judgment == "CONTRADICTION":
        return PairKind.CONTRADICTION
    if judgment == "ENTAILMENT" and relatedness >= 4.5:
        return PairKind.DUPLICATE
    return PairKind.OTHER


def stsb_bucket(score: float) -> tuple[str, PairKind]:
    if score <= 2.0:
        return "score<=2", PairKind.DISTINCT
    if score >= 4.5:
        return "score>=4.5", PairKind.DUPLICATE
    return "2<score<4.5", PairKind.OTHER


def load_sick(folder: Path, split: Split) -> list[Pair]:
    pairs: list[Pair] = []
    for name in SICK_FILES[split]:
        rows = _lines(folder / name)
        header = [h.strip().lower() for h in next(rows)]
        col = {h: i for i, h in enumerate(header)}
        # Column names differ between SICK releases; find them by prefix.
        ia = next(i for h, i in col.items() if h.startswith("sentence_a"))
        ib = next(i for h, i in col.items() if h.startswith("sentence_b"))
        ir = next(i for h, i in col.items() if h.startswith("relatedness"))
        ie = next(i for h, i in col.items() if h.startswith("entailment"))
        for row in rows:
            judgment = row[ie].strip().upper()
            kind = sick_kind(float(row[ir]), judgment)
            label = f"{judgment}{' rel>=4.5' if kind is PairKind.DUPLICATE else ''}"
            pairs.append(Pair("sick", f"{name}:{row[0]}", row[ia], row[ib], label, kind))
    return pairs


def load_msrp(folder: Path, split: Split) -> list[Pair]:
    pairs: list[Pair] = []
    for name in MSRP_FILES[split]:
        rows = _lines(folder / name)
        next(rows)  # header: Quality, #1 ID, #2 ID, #1 String, #2 String
        for row in rows:
            if len(row) < 5 or row[0].strip() not in ("0", "1"):
                continue
            quality = row[0].strip()
            kind = PairKind.DISTINCT if quality == "0" else PairKind.OTHER
            pair_id = f"{name}:{row[1]}-{row[2]}"
            pairs.append(Pair("msrp", pair_id, row[3], row[4], f"quality={quality}", kind))
    return pairs


def load_stsb(folder: Path, split: Split) -> list[Pair]:
    pairs: list[Pair] = []
    for name in STSB_FILES[split]:
        for n, row in enumerate(_lines(folder / name)):
            # genre, file, year, id, score, sentence 1, sentence 2 (some rows carry more).
            if len(row) < 7:
                continue
            try:
                score = float(row[4])
            except ValueError:
                continue
            label, kind = stsb_bucket(score)
            pairs.append(Pair("stsb", f"{name}:{n}", row[5], row[6], label, kind))
    return pairs


def load_qqp(folder: Path, split: Split) -> list[Pair]:
    pairs: list[Pair] = []
    row_no = 0
    for row in _lines(folder / QQP_FILE):
        if len(row) < 6 or row[5].strip() not in ("0", "1"):
            continue  # a header or a broken row is not a data row
        row_no += 1
        in_dev = row_no <= QQP_DEV_ROWS
        if in_dev != (split == "dev"):
            continue
        dup = row[5].strip() == "1"
        kind = PairKind.DUPLICATE if dup else PairKind.DISTINCT
        pairs.append(Pair("qqp", f"row{row_no}", row[3], row[4], f"is_duplicate={int(dup)}", kind))
    return pairs


def load_pairs(data: Path, dataset: str, split: Split, limit: int | None = None) -> list[Pair]:
    """One data set's pairs for ``split``; ``limit`` keeps an evenly spread subsample."""
    folder = data / "pairs"
    loaders = {
        "sick": lambda: load_sick(folder / "sick2014", split),
        "msrp": lambda: load_msrp(folder / "msrp", split),
        "stsb": lambda: load_stsb(folder / "stsb", split),
        "qqp": lambda: load_qqp(folder / "qqp_subset", split),
    }
    if dataset not in loaders:
        raise ValueError(f"unknown pair data set {dataset!r}; known: {', '.join(loaders)}")
    pairs = loaders[dataset]()
    return subsample(pairs, limit)


def subsample(items: list[T], limit: int | None) -> list[T]:
    """Every n-th item, so a quick run keeps the mix of labels of the whole file."""
    if limit is None or limit >= len(items):
        return items
    if limit <= 0:
        return []
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]
