"""Phase 2 of batch review: label pending pairs with the judge, several pairs per call.

A verdict without a label (malformed reply, LLM error, confidence outside 0-1) is "no
decision": the pair stays ``pending`` with a note and is tried again by a later run; a
missed classification is recoverable, a guessed one is not. A pair whose memory has an
unfinished on-save job also stays pending (that path decides first), and so does one
with a memory younger than min_pair_age_s (0 by default: no wait by age).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memfold.engine import readings
from memfold.engine.context import Context
from memfold.judge.base import Judge, PairInput, PairVerdict
from memfold.model import JSONDict, MemoryRecord, QueueItem, Status, utcnow
from memfold.policy.review import enforce_label, weighted_confidence
from memfold.store.base import Store


@dataclass(slots=True)
class RunStats:
    """Counters one review run accumulates and records in review_runs."""

    counts: dict[str, int] = field(default_factory=dict)
    labels: dict[str, int] = field(default_factory=dict)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    breaker_events: list[JSONDict] = field(default_factory=list)
    decisions: list[JSONDict] = field(default_factory=list)

    def bump(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def cost(self, model: str | None, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one judge call as an LLM call when it reports a model or tokens."""
        if model is not None or prompt_tokens or completion_tokens:
            self.llm_calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens


def stale_reason(item: QueueItem, a: MemoryRecord | None, b: MemoryRecord | None) -> str | None:
    """Why a queued pair no longer describes the memories (None: still valid)."""
    for rec, mid, version in (
        (a, item.memory_a, item.version_a),
        (b, item.memory_b, item.version_b),
    ):
        if rec is None:
            return f"memory {mid} no longer exists"
        if rec.status is not Status.ACTIVE:
            return f"memory {mid} is {rec.status.value} since queuing"
        if rec.version != version:
            return f"memory {mid} changed (version {rec.version}, queued at {version})"
    return None


def on_save_unfinished(store: Store) -> set[str]:
    """The memories whose on-save job is pending or running."""
    return {j.memory_id for status in ("pending", "running") for j in store.list_jobs(status)}


def ordered(a: MemoryRecord, b: MemoryRecord) -> tuple[MemoryRecord, MemoryRecord]:
    """(older, newer); ties keep the queue order."""
    return (b, a) if b.created_at < a.created_at else (a, b)


def _valid(verdict: PairVerdict | None) -> bool:
    if verdict is None or verdict.label is None:
        return False
    c = verdict.confidence
    return isinstance(c, int | float) and math.isfinite(c) and 0.0 <= c <= 1.0


def classify_pending(
    ctx: Context,
    judge: Judge,
    stats: RunStats,
    *,
    scope_keys: Sequence[str] | None = None,
    run_id: int | None = None,
    now: datetime | None = None,
) -> None:
    store = ctx.store
    cfg = ctx.settings.review
    moment = now or utcnow()
    items = [
        it
        for it in store.queue_items(statuses=["pending"])
        if scope_keys is None or it.scope_key in scope_keys
    ]
    memories = store.get_memories([m for it in items for m in (it.memory_a, it.memory_b)])
    readings.prime(ctx, memories.values())  # the judge and the guards read each pair
    deciding = on_save_unfinished(store) if items else set()
    ready: list[tuple[QueueItem, MemoryRecord, MemoryRecord]] = []
    for item in items:
        a, b = memories.get(item.memory_a), memories.get(item.memory_b)
        why = stale_reason(item, a, b)
        if why is not None or a is None or b is None:
            store.set_queue_status(item.id, "dropped", note=why, run_id=run_id)
            stats.bump("dropped")
            continue
        youngest = max(a.created_at, b.created_at)
        if {a.id, b.id} & deciding or (moment - youngest).total_seconds() < cfg.min_pair_age_s:
            stats.bump("waiting")
            continue
        ready.append((item, a, b))
    if not ready:
        return
    total_feedback = store.feedback_total()
    feedback = store.feedback_counts(m.id for _, a, b in ready for m in (a, b))
    for start in range(0, len(ready), cfg.classify_batch):
        batch = ready[start : start + cfg.classify_batch]
        inputs = []
        for item, a, b in batch:
            older, newer = ordered(a, b)
            inputs.append(PairInput(older, newer, item.similarity))
        verdicts = judge.classify(inputs)
        spent = [v for v in verdicts if v is not None]
        stats.cost(
            next((v.model for v in spent if v.model is not None), None),
            sum(v.prompt_tokens for v in spent),
            sum(v.completion_tokens for v in spent),
        )
        for n, (item, a, b) in enumerate(batch):
            verdict = verdicts[n] if n < len(verdicts) else None
            _record(ctx, store, stats, item, a, b, verdict, feedback, total_feedback, run_id)


def _record(
    ctx: Context,
    store: Store,
    stats: RunStats,
    item: QueueItem,
    a: MemoryRecord,
    b: MemoryRecord,
    verdict: PairVerdict | None,
    feedback: dict[str, dict[str, int]],
    total_feedback: int,
    run_id: int | None,
) -> None:
    if not _valid(verdict) or verdict is None or verdict.label is None:
        why = "no verdict" if verdict is None else (verdict.reasoning or "no label")
        store.set_queue_status(item.id, "pending", note=f"no decision: {why}", run_id=run_id)
        stats.bump("undecided")
        return
    label, override = enforce_label(verdict.label, [a.category, b.category])
    cfg = ctx.settings.review
    raw = float(verdict.confidence)
    confidence = weighted_confidence(
        raw, [feedback.get(a.id, {}), feedback.get(b.id, {})], total_feedback, cfg
    )
    reasoning = verdict.reasoning
    if override:
        reasoning = f"{reasoning} [{override}]".strip()
    if confidence != raw:
        reasoning = f"{reasoning} [feedback-weighted from {raw:.3f}]".strip()
    store.classify_queue_item(item.id, label, confidence, reasoning, run_id)
    stats.bump("classified")
    stats.labels[label.value] = stats.labels.get(label.value, 0) + 1
