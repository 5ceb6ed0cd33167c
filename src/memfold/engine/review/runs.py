"""Batch review runs: scan, classify, P90 gate, merge under the circuit breaker.

``run`` records every run in review_runs (counts, P90, gate decision, breaker events,
LLM calls and tokens). The breaker state lives in the store's meta table, so an open
breaker survives restarts and stops merges in every later run until ``resume``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial

from memfold.engine.context import Context
from memfold.engine.feedback import sweep as feedback_sweep
from memfold.engine.review.classify import RunStats, classify_pending, ordered
from memfold.engine.review.merge import (
    StepHook,
    link_pair,
    merge_pair,
    proposal_from_dict,
    propose,
    supersede_pair,
    unlink_pair,
)
from memfold.engine.review.scan import scan
from memfold.errors import ConflictError, InvalidInput, NotFound
from memfold.judge.base import Judge
from memfold.model import JSONDict, LinkKind, PairLabel, QueueItem, ReviewRun, Scope, Status, utcnow
from memfold.policy.result_check import ResultLimits, Source, check_merge
from memfold.policy.review import (
    Band,
    GateDecision,
    ScoredPair,
    breaker_trips,
    gate,
    p90,
    queue_share_exceeded,
)
from memfold.policy.validate import shown
from memfold.reading.difference import supersede_conflicts
from memfold.reading.supersede import supersede_evidence

BREAKER_KEY = "review.breaker"
_APPLIED = ("MERGE", "SUPERSEDE")


def day_start(now: datetime) -> datetime:
    return datetime(now.year, now.month, now.day, tzinfo=UTC)


def breaker_state(ctx: Context) -> JSONDict:
    raw = ctx.store.get_meta(BREAKER_KEY)
    state: JSONDict = json.loads(raw) if raw else {"open": False}
    return state


def _set_breaker(ctx: Context, state: JSONDict) -> None:
    ctx.store.set_meta(BREAKER_KEY, json.dumps(state))


def resume(ctx: Context) -> JSONDict:
    """Close the breaker by hand (after reviewing what it held)."""
    state = breaker_state(ctx)
    history = [*state.get("history", []), {"resumed_at": utcnow().isoformat()}]
    new: JSONDict = {"open": False, "history": history}
    _set_breaker(ctx, new)
    return new


def run(
    ctx: Context, judge: Judge, scope: Scope | None = None, *, hook: StepHook | None = None
) -> ReviewRun:
    """One review run over ``scope`` (None: every scope the index knows)."""
    store = ctx.store
    keys = [scope.key()] if scope is not None else ctx.synced_index().scope_keys()
    run_id = store.start_review_run(None if scope is None else scope.key())
    stats = RunStats()
    record = ReviewRun(
        run_id, None if scope is None else scope.key(), utcnow(), None, "running", None
    )
    try:
        feedback_sweep(ctx)
        for key in keys:
            stats.bump("queued", scan(ctx, Scope.from_key(key)).queued)
        classify_pending(ctx, judge, stats, scope_keys=keys, run_id=run_id)
        record.p90 = _overall_p90(ctx, keys)
        gates: dict[str, JSONDict] = {}
        for key in keys:
            decision = _process_scope(ctx, judge, key, stats, run_id, hook)
            gates[key] = decision.to_dict()  # each scope's own P90 is in its gate
            if decision.band is Band.HALTED and stats.counts.get("breaker_tripped"):
                break
        record.status = "halted" if stats.counts.get("breaker_tripped") else "done"
        stats.decisions.append({"gates": gates})
    except BaseException as exc:
        record.status = "failed"
        stats.decisions.append({"error": f"{type(exc).__name__}: {exc}"})
        raise
    finally:
        record.counts = {**stats.counts, "labels": stats.labels, "decisions": stats.decisions}
        record.breaker = {"events": stats.breaker_events, "open": breaker_state(ctx)["open"]}
        record.llm_calls = stats.llm_calls
        record.prompt_tokens = stats.prompt_tokens
        record.completion_tokens = stats.completion_tokens
        record.finished_at = utcnow()
        store.finish_review_run(record)
    return record


def _overall_p90(ctx: Context, keys: list[str]) -> float | None:
    """The run's P90: over every classified DUPLICATE pair of all its scopes, the union of
    what the per-scope gates see (one scope: the same value as its gate)."""
    wanted = set(keys)
    dups = ctx.store.queue_items(statuses=["classified"], label=PairLabel.DUPLICATE)
    return p90([it.confidence or 0.0 for it in dups if it.scope_key in wanted])


def _halt_reason(ctx: Context, key: str, now: datetime) -> str | None:
    store = ctx.store
    if breaker_state(ctx).get("open"):
        return "circuit breaker is open: review `pending`, then `resume`"
    queued, gone = store.memories_queued_since(key, day_start(now))
    # Memories merged away since they were queued still count in the population.
    population = ctx.store.count_memories(Scope.from_key(key), Status.ACTIVE) + gone
    if queue_share_exceeded(queued, population, ctx.settings.review):
        return f"{queued} of {population} memories queued today: over the daily share, halted"
    return None


def _process_scope(
    ctx: Context, judge: Judge, key: str, stats: RunStats, run_id: int, hook: StepHook | None
) -> GateDecision:
    store = ctx.store
    cfg = ctx.settings.review
    now = utcnow()
    classified = store.queue_items(statuses=["classified"], scope_key=key)
    for item in classified:
        if item.label in (PairLabel.RELATED, PairLabel.CONTRADICTION):
            kind = LinkKind.RELATED if item.label is PairLabel.RELATED else LinkKind.CONTRADICTS
            status = "processed" if item.label is PairLabel.RELATED else "review"
            _guarded(ctx, stats, item, partial(link_pair, ctx, item, kind, status, run_id=run_id))
            stats.bump("linked" if status == "processed" else "contradictions")
    merges_today = store.count_review_changes(day_start(now), _APPLIED)
    dups = [it for it in classified if it.label is PairLabel.DUPLICATE]
    halt = _halt_reason(ctx, key, now)
    decision = gate(
        [ScoredPair(it.id, it.confidence or 0.0) for it in dups],
        cfg,
        merges_today=merges_today,
        halt_reason=halt,
    )
    by_id = {it.id: it for it in dups}
    anomalies = 0
    for item_id in decision.selected:
        item = by_id[item_id]
        found = store.get_memories([item.memory_a, item.memory_b])
        a, b = found.get(item.memory_a), found.get(item.memory_b)
        if a is None or b is None or a.status is not Status.ACTIVE or b.status is not Status.ACTIVE:
            _drop(ctx, stats, item, "a memory left the active set", run_id)
            continue
        proposal = propose(ctx, judge, a, b)
        if proposal is not None:
            r = proposal.result
            stats.cost(r.model, r.prompt_tokens, r.completion_tokens)
        if proposal is None:
            store.set_queue_status(item.id, "classified", note="judge wrote no merge text")
            stats.bump("no_text")
            continue
        # The one result check (and the breaker's length and drift bounds): a refused
        # merge is held for review, never applied, and counts as an anomaly.
        reasons = check_merge(
            proposal.text,
            proposal.vector,
            [(Source(a.id, a.text), a.embedding), (Source(b.id, b.text), b.embedding)],
            ResultLimits.from_settings(ctx.settings),
        )
        if reasons:
            anomalies += 1
            store.set_queue_status(
                item.id, "held", proposal=proposal.to_dict(reasons), run_id=run_id
            )
            stats.bump("held")
            stats.breaker_events.append({"queue_id": item.id, "reasons": reasons})
            if breaker_trips(anomalies, cfg):
                _trip(ctx, stats, run_id, anomalies)
                break
            continue
        apply = partial(merge_pair, ctx, item, proposal, run_id=run_id, hook=hook)
        if _guarded(ctx, stats, item, apply):
            stats.bump("merged")
    if not stats.counts.get("breaker_tripped"):
        applied = merges_today + stats.counts.get("merged", 0)
        _supersede_gated(ctx, stats, classified, applied, halt, run_id)
    return decision


def _supersede_gated(
    ctx: Context,
    stats: RunStats,
    items: list[QueueItem],
    applied_today: int,
    halt: str | None,
    run_id: int,
) -> None:
    """SUPERSEDED pairs, through the seed's P90 table of their own (their confidences,
    the same floor and per-run caps, what is left of the daily cap): a scope with no
    DUPLICATE pair still retires what a change made stale."""
    sups = [it for it in items if it.label is PairLabel.SUPERSEDED]
    if not sups:
        return
    cfg = ctx.settings.review
    decision = gate(
        [ScoredPair(it.id, it.confidence or 0.0) for it in sups],
        cfg,
        merges_today=applied_today,
        halt_reason=halt,
    )
    by_id = {it.id: it for it in sups}
    for item in (by_id[i] for i in decision.selected):
        why_not = _no_supersede_evidence(ctx, item)
        if why_not is not None:
            # The classifier said SUPERSEDED, the rules see no change: a person decides.
            ctx.store.set_queue_status(item.id, "review", note=why_not, run_id=run_id)
            stats.bump("held")
            continue
        if _guarded(ctx, stats, item, partial(supersede_pair, ctx, item, run_id=run_id)):
            stats.bump("superseded")


def _no_supersede_evidence(ctx: Context, item: QueueItem) -> str | None:
    """Why the newer memory of a SUPERSEDED pair may not retire the older (None: it may)."""
    found = ctx.store.get_memories([item.memory_a, item.memory_b])
    a, b = found.get(item.memory_a), found.get(item.memory_b)
    if a is None or b is None:
        return None  # the apply step drops a pair whose memories went away
    older, newer = ordered(a, b)
    overlap = ctx.settings.consolidation.supersede_min_overlap
    conflicts = supersede_conflicts(older.text, newer.text)
    if conflicts:
        return f"SUPERSEDED, but about another thing: {conflicts[0]}"
    swap_max = ctx.settings.consolidation.swap_max_words
    evidence = supersede_evidence(older.text, newer.text, overlap, swap_max)
    return None if evidence.found else f"SUPERSEDED without evidence: {evidence.reason}"


def _guarded(ctx: Context, stats: RunStats, item: QueueItem, apply: Callable[[], object]) -> bool:
    """Run one apply; a version conflict drops the pair instead of failing the run."""
    try:
        apply()
    except ConflictError as exc:
        _drop(ctx, stats, item, str(exc), item.run_id)
        return False
    return True


def _drop(ctx: Context, stats: RunStats, item: QueueItem, why: str, run_id: int | None) -> None:
    ctx.store.set_queue_status(item.id, "dropped", note=why, run_id=run_id)
    stats.bump("dropped")


def _trip(ctx: Context, stats: RunStats, run_id: int, anomalies: int) -> None:
    stats.bump("breaker_tripped")
    state = breaker_state(ctx)
    event = {"opened_at": utcnow().isoformat(), "run_id": run_id, "anomalies": anomalies}
    _set_breaker(ctx, {**state, "open": True, **event})
    stats.breaker_events.append({"tripped": True, **event})


# reading and deciding by hand ------------------------------------------------------------


def status(ctx: Context) -> JSONDict:
    store = ctx.store
    cfg = ctx.settings.review
    return {
        "queue": store.queue_counts(),
        "breaker": breaker_state(ctx),
        "kill_switch": cfg.kill_switch,
        "feedback": {"records": store.feedback_total(), "cold_start": cfg.feedback_cold_start},
        "merges_today": store.count_review_changes(day_start(utcnow()), _APPLIED),
        "daily_merge_cap": cfg.daily_merge_cap,
    }


def pending(ctx: Context) -> JSONDict:
    """What waits for a person: held merges, contradictions, supersedes the rules saw no
    evidence for, memories flagged by feedback."""
    store = ctx.store
    listed = store.queue_items(statuses=["review"])
    return {
        "held": [it.to_dict() for it in store.queue_items(statuses=["held"])],
        "contradictions": [it.to_dict() for it in listed if it.label is not PairLabel.SUPERSEDED],
        "supersedes": [it.to_dict() for it in listed if it.label is PairLabel.SUPERSEDED],
        "flagged_by_feedback": store.feedback_flagged("review"),
    }


def _item(ctx: Context, item_id: int, statuses: tuple[str, ...]) -> QueueItem:
    item = ctx.store.get_queue_item(item_id)
    if item is None:
        raise NotFound(f"no review item {item_id}")
    if item.status not in statuses:
        raise InvalidInput(f"review item {item_id} is {item.status}, not {' or '.join(statuses)}")
    return item


def approve(ctx: Context, item_id: int, *, hook: StepHook | None = None) -> int | None:
    """Held merge: apply its proposed text through the five-step merge (returns the log id).
    A supersede held for lack of evidence: apply it (the log id). Contradiction: acknowledge
    it (the link stays). A changed memory drops the item."""
    item = _item(ctx, item_id, ("held", "review"))
    store = ctx.store
    if item.status == "review" and item.label is PairLabel.SUPERSEDED:
        try:
            return supersede_pair(ctx, item)
        except ConflictError as exc:
            store.set_queue_status(item.id, "dropped", note=str(exc))
            raise
    if item.status == "review":
        store.set_queue_status(item.id, "processed", note="contradiction acknowledged")
        return None
    if item.proposal is None:
        raise InvalidInput(f"review item {item_id} holds no proposal")
    try:
        return merge_pair(ctx, item, proposal_from_dict(ctx, item.proposal), hook=hook)
    except ConflictError as exc:
        store.set_queue_status(item.id, "dropped", note=str(exc))
        raise


def reject(ctx: Context, item_id: int, reason: str = "") -> int | None:
    """Refuse a held merge or a listed pair; the memories stay as they are. A rejected
    contradiction also loses its ``contradicts`` link, as a logged change (undoing it
    restores the link and lists the pair again); returns that log id, else None."""
    item = _item(ctx, item_id, ("held", "review"))
    note = reason or "rejected by hand"
    if item.status == "review" and item.label is PairLabel.CONTRADICTION:
        log_id = unlink_pair(ctx, item, LinkKind.CONTRADICTS, note)
        if log_id is not None:
            return log_id
    ctx.store.set_queue_status(item.id, "rejected", note=note)
    return None


def parse_since(value: datetime | timedelta | str | None, now: datetime | None = None) -> datetime:
    """'7d', '24h', '90m', an ISO date/time, a timedelta or a datetime -> a UTC datetime."""
    moment = now or utcnow()
    if value is None:
        return datetime.fromtimestamp(0, tz=UTC)
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    wrong = f"since must look like 7d, 24h or an ISO date; got {shown(value)}"
    try:
        if isinstance(value, timedelta):
            return moment - value
        if not isinstance(value, str):
            raise InvalidInput(wrong)
        text = value.strip().lower()
        units = {"d": "days", "h": "hours", "m": "minutes", "w": "weeks"}
        if text[:-1].isdigit() and text[-1:] in units:
            return moment - timedelta(**{units[text[-1]]: int(text[:-1])})
        parsed = datetime.fromisoformat(value.strip())
    except (ValueError, OverflowError):  # OverflowError: before the year 1
        raise InvalidInput(wrong) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
