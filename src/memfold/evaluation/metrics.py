"""Pure metric code: no I/O, no store. Every rate the evaluation prints comes from here."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memfold.evaluation.pairs_data import PairKind
from memfold.model import Action

# Columns of the confusion matrix, in this order. "ADD" includes "no candidate found".
ACTIONS: tuple[str, ...] = tuple(a.value for a in Action)
DESTRUCTIVE = frozenset({Action.MERGE.value, Action.REPLACE.value, Action.DELETE.value})
MERGE_LIKE = frozenset({Action.MERGE.value, Action.UPDATE.value, Action.REPLACE.value})
# A contradiction is caught when both memories stay linked as contradicting (KEEP_SEPARATE
# with a contradicts link: a negation with no sign of change) or, with a change cue, the
# older memory is superseded with a link. It is never merged.
CONTRADICTION_KEPT = frozenset({Action.DELETE.value, Action.REPLACE.value})


@dataclass(frozen=True, slots=True)
class PairOutcome:
    dataset: str
    label: str
    kind: PairKind
    action: str  # an Action value; ADD when no candidate reached the judge
    cosine: float
    judged: bool  # whether a judge was asked (a candidate had cosine >= discovery)
    contradicts: bool = False  # kept apart with a contradicts link


def confusion(outcomes: Iterable[PairOutcome]) -> dict[str, dict[str, int]]:
    """label -> action -> count, every action column present."""
    table: dict[str, dict[str, int]] = {}
    for o in outcomes:
        row = table.setdefault(o.label, dict.fromkeys(ACTIONS, 0))
        row[o.action] = row.get(o.action, 0) + 1
    return dict(sorted(table.items()))


def rate(hits: int, total: int) -> float | None:
    return None if total == 0 else hits / total


def pair_metrics(outcomes: Sequence[PairOutcome]) -> dict[str, float | int | None]:
    """The rates of one data set (see docs/benchmarks.md for the definitions).

    ``false_merge_rate`` is the issue's strict figure: MERGE/REPLACE/DELETE on any
    must-not-merge pair. A DELETE (supersede with a ``contradicts`` link) on a SICK
    CONTRADICTION pair is the *intended* handling of a contradiction, so it is also
    shown apart, with ``false_merge_rate_excl_contra_delete`` leaving it out.
    """
    must_not = [o for o in outcomes if o.kind.must_not_merge]
    destructive = [o for o in must_not if o.action in DESTRUCTIVE]
    intended = [o for o in destructive if o.kind is PairKind.CONTRADICTION and o.action == "DELETE"]
    updates = [o for o in must_not if o.action == Action.UPDATE.value]
    dups = [o for o in outcomes if o.kind is PairKind.DUPLICATE]
    dup_hits = [o for o in dups if o.action in MERGE_LIKE]
    contra = [o for o in outcomes if o.kind is PairKind.CONTRADICTION]
    contra_hits = [o for o in contra if o.action in CONTRADICTION_KEPT or o.contradicts]
    contra_merged = [o for o in contra if o.action in (Action.MERGE.value, Action.UPDATE.value)]
    return {
        "pairs": len(outcomes),
        "judged": sum(1 for o in outcomes if o.judged),
        "must_not_merge": len(must_not),
        "destructive_on_must_not": len(destructive),
        "false_merge_rate": rate(len(destructive), len(must_not)),
        "contra_delete_intended": len(intended),
        "false_merge_rate_excl_contra_delete": rate(
            len(destructive) - len(intended), len(must_not)
        ),
        "update_on_must_not": len(updates),
        "update_rate_on_must_not": rate(len(updates), len(must_not)),
        "duplicates": len(dups),
        "duplicate_recall": rate(len(dup_hits), len(dups)),
        "contradictions": len(contra),
        "contradiction_recall": rate(len(contra_hits), len(contra)),
        "contradictions_merged": len(contra_merged),
    }


# --- LoCoMo ----------------------------------------------------------------------------

_DIA = re.compile(r"D:?(\d+):(\d+)")


def parse_evidence(raw: Iterable[object]) -> list[str]:
    """Evidence dialog ids, repaired: 'D8:6; D9:17' splits, 'D:11:26' -> 'D11:26',
    a bare 'D' is dropped. Order kept, duplicates removed."""
    found: list[str] = []
    for item in raw:
        for match in _DIA.finditer(str(item)):
            found.append(f"D{int(match.group(1))}:{int(match.group(2))}")
    return list(dict.fromkeys(found))


def evidence_recall(evidence: Sequence[str], sources: Iterable[Iterable[str]]) -> float | None:
    """Share of ``evidence`` ids found among the sources of the returned memories.
    None when there is no evidence (such a question is not scored)."""
    wanted = set(evidence)
    if not wanted:
        return None
    covered: set[str] = set()
    for group in sources:
        covered.update(group)
    return len(wanted & covered) / len(wanted)


_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = str.maketrans(dict.fromkeys(string.punctuation, " "))


def normalize_answer(text: object) -> str:
    """SQuAD-style normalization: lower case, no punctuation, no articles, one space."""
    lowered = str(text).lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def contains_answer(answer: object, texts: Iterable[str]) -> bool:
    wanted = normalize_answer(answer)
    if not wanted:
        return False
    haystack = normalize_answer(" ".join(texts))
    return f" {wanted} " in f" {haystack} "


def mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


# --- BEAM ------------------------------------------------------------------------------


def first_rank(hit_sources: Sequence[Sequence[str]], source_ids: Iterable[str]) -> int | None:
    """0-based rank of the first hit whose sources include any of ``source_ids``."""
    wanted = set(source_ids)
    for rank, sources in enumerate(hit_sources):
        if wanted & set(sources):
            return rank
    return None


def update_outcome(
    rank_updated: int | None,
    rank_original: int | None,
    original_superseded: bool,
) -> str:
    """One knowledge-update question: "superseded" (the original is no longer active),
    "above" (updated ranks higher), "same" (one memory carries both), "below", "missing"."""
    if original_superseded:
        return "superseded"
    if rank_updated is None:
        return "missing"
    if rank_original is None or rank_updated < rank_original:
        return "above"
    if rank_updated == rank_original:
        return "same"
    return "below"


UPDATE_PASS = frozenset({"superseded", "above", "same"})


def tally(values: Iterable[str]) -> dict[str, int]:
    return dict(sorted(Counter(values).items()))
