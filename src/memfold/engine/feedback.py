"""Recall feedback: record it, and past the cold start turn it into importance changes.

Rules (thresholds in ReviewSettings, decisions in ``policy.review.feedback_rules``):
used >= feedback_min_count and never ignored: importance + step (capped); ignored >=
feedback_min_count and never used: importance - step (floored); contradicted >=
feedback_contradicted_review: flagged for review (listed by ``review.pending`` under
``flagged_by_feedback``; nothing about the memory changes). Each rule is applied at
most once per memory (table feedback_applied). Importance changes go through
``changes.commit`` with path "feedback", so ``Memory.undo`` reverts them; an undone
adjustment is not re-applied.
"""

from __future__ import annotations

from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.errors import InvalidInput, NotFound
from memfold.model import utcnow
from memfold.policy.review import (
    FeedbackKind,
    FeedbackRule,
    adjusted_importance,
    feedback_rules,
    past_cold_start,
)
from memfold.policy.validate import clean_string

_MAX_CONTEXT = 4000


def feedback(ctx: Context, memory_id: str, kind: str, context: str | None = None) -> list[int]:
    """Record one feedback event; returns the log ids of any importance change it caused.

    Unknown kind: InvalidInput; unknown memory: NotFound; in both cases nothing is written.
    """
    try:
        parsed = FeedbackKind(kind)
    except ValueError:
        allowed = ", ".join(k.value for k in FeedbackKind)
        raise InvalidInput(f"feedback kind must be one of {allowed}; got {kind!r}") from None
    if not isinstance(memory_id, str) or not memory_id:
        raise InvalidInput("memory_id must be a non-empty string")
    if context is not None:
        context = clean_string(context, "context", max_chars=_MAX_CONTEXT)
    store = ctx.store
    if store.get_memory(memory_id) is None:
        raise NotFound(f"no memory with id {memory_id!r}")
    store.add_feedback(memory_id, parsed.value, context)
    return apply_rules(ctx, memory_id)


def apply_rules(ctx: Context, memory_id: str) -> list[int]:
    """Apply the rules one memory's feedback now satisfies (each once, past cold start)."""
    store = ctx.store
    cfg = ctx.settings.review
    if not past_cold_start(store.feedback_total(), cfg):
        return []
    counts = store.feedback_counts([memory_id]).get(memory_id, {})
    done = store.feedback_rules_applied(memory_id)
    logs: list[int] = []
    for rule in feedback_rules(counts, cfg):
        if rule.value in done:
            continue
        if rule is FeedbackRule.REVIEW:
            store.mark_feedback_applied(memory_id, rule.value, None)
            continue
        log_id = _adjust(ctx, memory_id, rule, counts)
        if log_id is not None:
            logs.append(log_id)
    return logs


def _adjust(ctx: Context, memory_id: str, rule: FeedbackRule, counts: dict[str, int]) -> int | None:
    store = ctx.store
    with store.transaction():
        current = store.get_memory(memory_id)
        if current is None:
            return None
        value = adjusted_importance(current.importance, rule, ctx.settings.review)
        if value == current.importance:
            # Already at the cap or floor: record the rule as done, log nothing.
            store.mark_feedback_applied(memory_id, rule.value, None)
            return None
        change = ChangeSet(
            path="feedback",
            action=f"FEEDBACK_{rule.value.upper()}",
            input_ids=[memory_id],
            expected={memory_id: current.version},
            writes=[
                current.copy(importance=value, version=current.version + 1, updated_at=utcnow())
            ],
            reasoning=f"feedback {counts}: importance {current.importance:.2f} -> {value:.2f}",
            judge="feedback",
        )
        return commit(
            ctx,
            change,
            inside=lambda log_id: store.mark_feedback_applied(memory_id, rule.value, log_id),
        )


def sweep(ctx: Context) -> list[int]:
    """Apply pending rules to every memory with feedback (e.g. when the cold start has
    just been crossed, for memories whose feedback came before it)."""
    store = ctx.store
    if not past_cold_start(store.feedback_total(), ctx.settings.review):
        return []
    logs: list[int] = []
    for memory_id in store.feedback_counts():
        if store.get_memory(memory_id) is not None:
            logs += apply_rules(ctx, memory_id)
    return logs
