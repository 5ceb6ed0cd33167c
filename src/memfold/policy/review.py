"""Pure rules of batch review: label enforcement, the P90 go/no-go gate, the circuit
breaker, and the feedback loop. No I/O: every input is passed in, every threshold
comes from ``ReviewSettings``, so these rules are unit-tested without a database.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from memfold.config import ReviewSettings
from memfold.model import Category, JSONDict, PairLabel

# Weight of feedback in pair confidence when ReviewSettings has no
# ``feedback_confidence_weight`` field yet (see the report that proposes it).


class Band(StrEnum):
    """Which row of the go/no-go table a run fell in."""

    KILLED = "killed"
    HALTED = "halted"
    TOO_FEW = "too_few"
    BELOW_FLOOR = "below_floor"
    CONSERVATIVE = "conservative"
    HIGH = "high"


@dataclass(frozen=True, slots=True)
class ScoredPair:
    """A classified DUPLICATE pair as the gate sees it."""

    queue_id: int
    confidence: float


@dataclass(slots=True)
class GateDecision:
    band: Band
    n: int
    p90: float | None
    max_merges: int
    selected: list[int] = field(default_factory=list)
    diagnostic: list[ScoredPair] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> JSONDict:
        return {
            "band": self.band.value,
            "n": self.n,
            "p90": self.p90,
            "max_merges": self.max_merges,
            "selected": list(self.selected),
            "diagnostic": [{"id": p.queue_id, "confidence": p.confidence} for p in self.diagnostic],
            "reasons": list(self.reasons),
        }


def percentile_cont(values: Sequence[float], q: float) -> float | None:
    """PostgreSQL's PERCENTILE_CONT: linear interpolation between closest ranks."""
    if not values:
        return None
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (rank - lo)


def p90(values: Sequence[float]) -> float | None:
    return percentile_cont(values, 0.9)


def enforce_label(label: PairLabel, categories: Sequence[Category]) -> tuple[PairLabel, str]:
    """Deterministic override of a judge's label: a core memory is never a DUPLICATE
    (it would be merged away); the pair is kept as RELATED, which only links."""
    if label is PairLabel.DUPLICATE and Category.CORE in categories:
        return PairLabel.RELATED, "core memory is never merged: DUPLICATE kept as RELATED"
    return label, ""


def gate(
    pairs: Sequence[ScoredPair],
    settings: ReviewSettings,
    *,
    merges_today: int = 0,
    halt_reason: str | None = None,
) -> GateDecision:
    """The seed's decision table over the classified DUPLICATE pairs.

    < gate_min_pairs pairs or P90 < gate_floor: no merges, plus a diagnostic of the
    lowest-confidence pairs. gate_floor <= P90 < gate_high: at most merges_conservative,
    only pairs at or above P90. P90 >= gate_high: at most merges_high, highest confidence
    first, each pair still at or above gate_floor (never merge below the floor). The kill
    switch, an outside halt and the daily cap only ever lower the number.
    """
    confidences = [p.confidence for p in pairs]
    value = p90(confidences)
    n = len(pairs)
    lowest = sorted(pairs, key=lambda p: (p.confidence, p.queue_id))[: settings.diagnostic_pairs]
    if settings.kill_switch:
        return GateDecision(Band.KILLED, n, value, 0, reasons=["kill switch is on"])
    if halt_reason is not None:
        return GateDecision(Band.HALTED, n, value, 0, reasons=[halt_reason])
    if n < settings.gate_min_pairs or value is None:
        why = f"{n} DUPLICATE pairs, the gate needs {settings.gate_min_pairs}"
        return GateDecision(Band.TOO_FEW, n, value, 0, diagnostic=lowest, reasons=[why])
    if value < settings.gate_floor:
        why = f"P90 {value:.3f} < floor {settings.gate_floor}: classifier needs tuning"
        return GateDecision(Band.BELOW_FLOOR, n, value, 0, diagnostic=lowest, reasons=[why])
    if value < settings.gate_high:
        band, cap, bar = Band.CONSERVATIVE, settings.merges_conservative, value
    else:
        band, cap, bar = Band.HIGH, settings.merges_high, settings.gate_floor
    reasons: list[str] = []
    remaining = max(0, settings.daily_merge_cap - merges_today)
    if remaining < cap:
        reasons.append(f"daily merge cap: {merges_today} of {settings.daily_merge_cap} used")
        cap = remaining
    # A tiny epsilon keeps a pair whose confidence equals the interpolated P90.
    eligible = [p for p in pairs if p.confidence >= bar - 1e-12]
    eligible.sort(key=lambda p: (-p.confidence, p.queue_id))
    selected = [p.queue_id for p in eligible[:cap]]
    return GateDecision(band, n, value, cap, selected=selected, reasons=reasons)


def queue_share_exceeded(
    memories_queued_today: int, active_memories: int, settings: ReviewSettings
) -> bool:
    """A runaway guard: too many of a scope's memories queued in one day means something
    upstream (embedder, import) went wrong, so nothing in that scope is merged today."""
    if active_memories <= 0:
        return False
    return memories_queued_today > settings.max_daily_queue_share * active_memories


# circuit breaker -------------------------------------------------------------------------


def breaker_trips(anomalies: int, settings: ReviewSettings) -> bool:
    return anomalies > settings.breaker_max_anomalies


# feedback ------------------------------------------------------------------------------


class FeedbackKind(StrEnum):
    USED = "used"
    IGNORED = "ignored"
    CONTRADICTED = "contradicted"
    MISS = "miss"


class FeedbackRule(StrEnum):
    BOOST = "boost"
    DECAY = "decay"
    REVIEW = "review"


def past_cold_start(total_records: int, settings: ReviewSettings) -> bool:
    """Feedback counts only once there are more than feedback_cold_start records."""
    return total_records > settings.feedback_cold_start


def feedback_rules(counts: Mapping[str, int], settings: ReviewSettings) -> list[FeedbackRule]:
    """The rules one memory's feedback counts satisfy (the caller applies each once)."""
    used = counts.get(FeedbackKind.USED, 0)
    ignored = counts.get(FeedbackKind.IGNORED, 0)
    contradicted = counts.get(FeedbackKind.CONTRADICTED, 0)
    rules: list[FeedbackRule] = []
    if used >= settings.feedback_min_count and ignored == 0:
        rules.append(FeedbackRule.BOOST)
    if ignored >= settings.feedback_min_count and used == 0:
        rules.append(FeedbackRule.DECAY)
    if contradicted >= settings.feedback_contradicted_review:
        rules.append(FeedbackRule.REVIEW)
    return rules


def adjusted_importance(importance: float, rule: FeedbackRule, settings: ReviewSettings) -> float:
    step = settings.feedback_importance_step
    if rule is FeedbackRule.BOOST:
        return max(importance, min(settings.feedback_importance_cap, importance + step))
    if rule is FeedbackRule.DECAY:
        return min(importance, max(settings.feedback_importance_floor, importance - step))
    return importance


def weighted_confidence(
    confidence: float,
    counts: Sequence[Mapping[str, int]],
    total_records: int,
    settings: ReviewSettings,
) -> float:
    """Classifier confidence weighted by the feedback of the pair's memories.

    Past the cold start: ``confidence * (1 - w * doubt)``, where ``doubt`` is the share of
    ignored + contradicted among the used + ignored + contradicted records of both
    memories, and ``w`` is feedback_confidence_weight (0.1 by default). It only lowers
    confidence, by at most ``w``: feedback never makes a merge more likely.
    """
    if not past_cold_start(total_records, settings):
        return confidence
    kinds = (FeedbackKind.USED, FeedbackKind.IGNORED, FeedbackKind.CONTRADICTED)
    total = sum(c.get(k, 0) for c in counts for k in kinds)
    if total == 0:
        return confidence
    doubt = sum(
        c.get(FeedbackKind.IGNORED, 0) + c.get(FeedbackKind.CONTRADICTED, 0) for c in counts
    )
    weight = settings.feedback_confidence_weight
    return max(0.0, min(1.0, confidence * (1.0 - weight * doubt / total)))


def gate_reasons(gates: Mapping[str, Any]) -> str:
    """Why a run's gates merged what they did or nothing (each scope's reasons, the same
    reason once): what a report and the review page show beside a run's status, so a
    halted run says why. "-" when no gate gave one."""
    seen: dict[str, None] = {}
    for gate in gates.values():
        if isinstance(gate, Mapping):
            for reason in gate.get("reasons") or ():
                seen.setdefault(str(reason), None)
    return "; ".join(seen) or "-"
