"""The lifecycle tick (seed 004): ``Memory.tick(now=None) -> TickReport``.

In order:

1. the access counts searches buffered are written (engine/access.py), so retention
   sees every retrieval;
2. TTL expiry: an active memory whose ``expires_at`` has come gets status ``expired``
   (nothing is deleted; ``get()`` and deep search still find it);
3. core promotion: an active memory retrieved ``lifecycle.core_promotion_accesses``
   times becomes core (exempt from fading and compression) and hot;
4. cold migration: a fading memory (policy.retention.is_fading) moves to the cold tier:
   plain search skips it, deep search and ``get()`` find it;
5. the conflict queue: contradictions awaiting review (contradiction links between
   two active memories, review-queue pairs labelled CONTRADICTION not yet settled) are
   counted and listed, not changed;
6. compression of fading clusters (engine/lifecycle/compress.py), one change set per
   cluster. Its candidates are the fading memories (hot or cold, not yet compressed) of
   the scope/area/category parts where a memory moved cold in this tick: a new cluster
   can only form there (the first tick of a store looks at every part).

Steps 2-4 and the tick's time are written in ONE transaction, as logged change sets of
at most ``lifecycle.tick_log_batch`` memories of one scope each (action EXPIRE,
PROMOTE_CORE or COLD, path "lifecycle"), each undoable on its own: a tick cut off before
that commit leaves nothing of it. Each compression commits alone (a cluster is
compressed or untouched); a tick run again after a crash finds what is left to do.
``now`` defaults to the context's clock; a ``now`` earlier than the last tick's is refused.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.engine.lifecycle.compress import compress_fading
from memfold.engine.scopes import by_scope
from memfold.errors import InvalidInput
from memfold.judge.base import Judge
from memfold.model import (
    Category,
    CategorySource,
    JSONDict,
    LinkKind,
    MemoryRecord,
    PairLabel,
    Status,
    Tier,
    parse_time,
)
from memfold.policy import retention

log = logging.getLogger(__name__)

PATH = "lifecycle"
LAST_TICK_KEY = "lifecycle.last_tick"
_READ_BATCH = 2000
_OPEN_REVIEW = ("pending", "classified", "review")


@dataclass(slots=True)
class Conflict:
    """Two active memories that contradict each other, awaiting review."""

    memory_a: str
    memory_b: str
    source: str  # "link" (a contradiction link) or "queue" (a review-queue pair)

    def to_dict(self) -> JSONDict:
        return {"memory_a": self.memory_a, "memory_b": self.memory_b, "source": self.source}


@dataclass(slots=True)
class TickReport:
    time: datetime
    scanned: int = 0
    expired: list[str] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    cold: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    compressions: list[Any] = field(default_factory=list)  # compress.Compression each
    log_ids: list[int] = field(default_factory=list)
    compression: str = "ran"  # or why it did not

    def to_dict(self) -> JSONDict:
        return {
            "time": self.time.isoformat(),
            "scanned": self.scanned,
            "expired": list(self.expired),
            "promoted": list(self.promoted),
            "cold": list(self.cold),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "compressions": [_compression_dict(c) for c in self.compressions],
            "log_ids": list(self.log_ids),
            "compression": self.compression,
        }


Plan = Callable[[MemoryRecord, datetime], MemoryRecord | None]


def tick(ctx: Context, judge: Judge, now: datetime | None = None) -> TickReport:
    """Run one tick at ``now`` (default: ``ctx.clock()``); see the module doc."""
    when = _clean_now(ctx, now)
    first_tick = last_tick(ctx) is None
    if ctx.accesses is not None:
        ctx.accesses.flush()
    report = TickReport(time=when)
    active = _active(ctx)
    report.scanned = len(active)
    cfg = ctx.settings.lifecycle
    expire_ids = [m.id for m in active if retention.is_expired(m.expires_at, when)]
    gone = set(expire_ids)
    promote_ids = [m.id for m in active if m.id not in gone and retention.promotes_to_core(m, cfg)]
    gone.update(promote_ids)
    cold_ids = [m.id for m in active if m.id not in gone and retention.is_fading(m, when, cfg)]
    steps: list[tuple[str, list[str], Plan, list[str]]] = [
        ("EXPIRE", expire_ids, _expire, report.expired),
        ("PROMOTE_CORE", promote_ids, _promote, report.promoted),
        ("COLD", cold_ids, _to_cold, report.cold),
    ]
    by_id = {m.id: m for m in active}
    with ctx.store.transaction():
        for action, ids, plan, done in steps:
            # One log row never spans two scopes: a tenant's rows are its own to read
            # and to undo.
            for group in by_scope(by_id[mid] for mid in ids):
                for start in range(0, len(group), cfg.tick_log_batch):
                    batch = [m.id for m in group[start : start + cfg.tick_log_batch]]
                    log_id, changed = _apply(ctx, action, batch, plan, when)
                    done.extend(changed)
                    if log_id is not None:
                        report.log_ids.append(log_id)
        ctx.store.set_meta(LAST_TICK_KEY, when.isoformat())
    expired, promoted = set(report.expired), set(report.promoted)
    alive = [m for m in active if m.id not in expired]
    report.conflicts = conflicts(ctx, [m.id for m in alive])
    rest = [m for m in alive if m.id not in promoted]
    if not first_tick:  # only where a memory faded now can a new cluster form
        moved = set(report.cold)
        touched = {_part(m) for m in rest if m.id in moved}
        rest = [m for m in rest if _part(m) in touched] if touched else []
    report.compression = _compress(ctx, judge, report, rest, when)
    return report


def _part(record: MemoryRecord) -> tuple[str, str, str]:
    """What a cluster shares (policy.clustering): scope, area, category."""
    return (record.scope.key(), record.area.value, record.category.value)


def last_tick(ctx: Context) -> datetime | None:
    raw = ctx.store.get_meta(LAST_TICK_KEY)
    return None if raw is None else parse_time(raw)


def _clean_now(ctx: Context, now: datetime | None) -> datetime:
    if now is None:
        when = ctx.clock()
    elif isinstance(now, datetime):
        when = now
    else:
        raise InvalidInput(f"now must be a datetime, got {now!r}")
    when = parse_time(when) or when  # naive: UTC
    previous = last_tick(ctx)
    if previous is not None and when < previous:
        raise InvalidInput(
            f"now ({when.isoformat()}) is earlier than the last tick ({previous.isoformat()})"
        )
    return when


def _active(ctx: Context) -> list[MemoryRecord]:
    """Every active memory, with only the fields the tick decides on
    (store/lifecycle_scan.py); a memory is read whole before it is changed."""
    return ctx.store.lifecycle_rows([Status.ACTIVE])


def _apply(
    ctx: Context, action: str, ids: Sequence[str], plan: Plan, when: datetime
) -> tuple[int | None, list[str]]:
    """One logged change set for ``ids``, planned on their current rows (read again in
    this transaction, with vectors: a write replaces every field). A memory that no
    longer qualifies is left out."""
    current = ctx.store.get_memories(ids)
    writes = []
    for mid in ids:
        record = current.get(mid)
        new = None if record is None else plan(record, when)
        if record is not None and new is not None:
            writes.append(new.copy(version=record.version + 1, updated_at=when))
    if not writes:
        return None, []
    change = ChangeSet(
        path=PATH,
        action=action,
        input_ids=[r.id for r in writes],
        expected={r.id: r.version - 1 for r in writes},
        writes=writes,
        reasoning=_REASONS[action],
        judge="lifecycle",
    )
    return commit(ctx, change), [r.id for r in writes]


def _expire(record: MemoryRecord, when: datetime) -> MemoryRecord | None:
    if record.status is not Status.ACTIVE or not retention.is_expired(record.expires_at, when):
        return None
    return record.copy(status=Status.EXPIRED, valid_to=record.expires_at)


def _promote(record: MemoryRecord, when: datetime) -> MemoryRecord | None:
    return record.copy(
        category=Category.CORE, category_source=CategorySource.LIFECYCLE, tier=Tier.HOT
    )


def _to_cold(record: MemoryRecord, when: datetime) -> MemoryRecord | None:
    return record.copy(tier=Tier.COLD)


_REASONS = {
    "EXPIRE": "time to live over (expires_at reached)",
    "PROMOTE_CORE": "retrieved often enough to become core",
    "COLD": "retention below lifecycle.fading_retention: moved to the cold tier",
}


def conflicts(ctx: Context, active_ids: Sequence[str]) -> list[Conflict]:
    """Contradictions awaiting review among active memories (see the module doc)."""
    active = set(active_ids)
    seen: set[tuple[str, str]] = set()
    found: list[Conflict] = []
    ids = sorted(active)
    for start in range(0, len(ids), _READ_BATCH):
        for lk in ctx.store.links_for(ids[start : start + _READ_BATCH]):
            pair = (min(lk.src, lk.dst), max(lk.src, lk.dst))
            if lk.kind is LinkKind.CONTRADICTS and set(pair) <= active and pair not in seen:
                seen.add(pair)
                found.append(Conflict(pair[0], pair[1], "link"))
    for item in ctx.store.queue_items(statuses=_OPEN_REVIEW, label=PairLabel.CONTRADICTION):
        pair = (min(item.memory_a, item.memory_b), max(item.memory_a, item.memory_b))
        if set(pair) <= active and pair not in seen:
            seen.add(pair)
            found.append(Conflict(pair[0], pair[1], "queue"))
    return found


def _compress(
    ctx: Context,
    judge: Judge,
    report: TickReport,
    active: Sequence[MemoryRecord],
    when: datetime,
) -> str:
    """Compression of fading clusters (engine/lifecycle/compress.py)."""
    candidates = fading_candidates(ctx, active, when)
    if not candidates:
        return "no fading memories"
    results = compress_fading(ctx, judge, candidates, when)
    report.compressions = list(results)
    report.log_ids.extend(r.log_id for r in results if r.log_id is not None)
    return "ran"


def fading_candidates(
    ctx: Context, active: Sequence[MemoryRecord], when: datetime
) -> list[MemoryRecord]:
    """Of ``active``: not superseded, not core or procedural, not a summary (no summary
    of summaries), retention below ``fading_retention``, hot or cold; read again with
    vectors."""
    cfg = ctx.settings.lifecycle
    ids = [
        m.id
        for m in active
        if m.category not in (Category.CORE, Category.PROCEDURAL, Category.SUMMARY)
        and not m.superseded_by
        and not m.consolidated_from
        and retention.retention(m, when, cfg) < cfg.fading_retention
    ]
    found: dict[str, MemoryRecord] = {}
    for start in range(0, len(ids), _READ_BATCH):
        found.update(ctx.store.get_memories(ids[start : start + _READ_BATCH]))
    return [found[mid] for mid in ids if mid in found]


def _compression_dict(result: Any) -> JSONDict:
    keys = ("original_ids", "summary_id", "log_id", "text", "judge", "fallback", "skipped")
    return {k: getattr(result, k, None) for k in keys}
